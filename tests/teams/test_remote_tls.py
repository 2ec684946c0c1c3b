"""HTTPS terminated by ``quire serve`` itself, and a server behind a trusted reverse proxy.

Real processes: a self-signed certificate made here, ``quire serve --multi --tls-cert
--tls-key`` on a free port, reached with httpx trusting that certificate, by ``quire login``
with ``--ca-cert``, and by the local tools through server.json.
"""

from __future__ import annotations

import datetime
import ipaddress
import json
import ssl
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.teams.remote_world import RemoteServer, remote_server


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and localhost, signed by its own key; (cert, key) files."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "quire test")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file = folder / "cert.pem"
    key_file = folder / "key.pem"
    cert_file.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    key_file.chmod(0o600)
    return cert_file, key_file


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RemoteServer, Path]]:
    base = tmp_path_factory.mktemp("tls")
    cert, key = self_signed(base)
    with remote_server(base, "--tls-cert", str(cert), "--tls-key", str(key)) as server:
        yield server, cert


def test_the_server_speaks_https_with_its_certificate(
    tls_server: tuple[RemoteServer, Path],
) -> None:
    server, cert = tls_server
    assert server.url.startswith("https://127.0.0.1:")
    published = json.loads((server.state / "server.json").read_text(encoding="utf-8"))
    assert published["url"] == server.url and published["ca_cert"] == str(cert)
    trusted = ssl.create_default_context(cafile=str(cert))
    with httpx.Client(verify=trusted, base_url=server.url) as http:
        assert http.get("/health").json()["ok"] is True
        owner = {"Authorization": f"Bearer {server.owner_token}"}
        assert http.get("/api/account", headers=owner).json()["role"] is None
        own_origin = owner | {"Origin": server.url}
        assert http.get("/api/account", headers=own_origin).status_code == 200
        plain_origin = owner | {"Origin": server.url.replace("https://", "http://")}
        assert http.get("/api/account", headers=plain_origin).status_code == 403
    with httpx.Client() as untrusting, pytest.raises(httpx.ConnectError):
        untrusting.get(server.url + "/health")
    with httpx.Client() as plain, pytest.raises(httpx.HTTPError):
        plain.get(server.url.replace("https://", "http://") + "/health")


def test_login_over_https_trusts_the_given_certificate(
    tls_server: tuple[RemoteServer, Path], tmp_path: Path
) -> None:
    server, cert = tls_server
    token = server.account("dana", grants=[("team", "", "read")])
    laptop = server.machine(tmp_path)
    refused = laptop.quire("login", "@tls", server.url, "--token-stdin", stdin=token)
    assert refused.returncode == 1 and "does not answer" in refused.stderr
    assert not (laptop.state / "servers.toml").exists()
    done = laptop.quire(
        "login", "@tls", server.url, "--token-stdin", "--ca-cert", str(cert), stdin=token
    )
    assert done.returncode == 0, done.stderr
    who = laptop.quire("whoami", "@tls", "--json")
    assert who.returncode == 0, who.stderr
    assert json.loads(who.stdout)["username"] == "dana"


def test_the_local_tools_reach_an_https_server_through_server_json(
    tls_server: tuple[RemoteServer, Path], tmp_path: Path
) -> None:
    server, _cert = tls_server
    local = server.machine(tmp_path)
    local.state = server.state
    who = local.quire("whoami")
    assert who.returncode == 0, who.stderr
    assert "owner of the local server at https://" in who.stdout


def test_behind_a_trusted_proxy_the_public_host_and_origin_are_accepted(tmp_path: Path) -> None:
    public = "https://notes.example.com"
    # The request log shows which client address uvicorn believed.
    extra = ("--trusted-proxy", "127.0.0.1", "--public-url", public, "--log-requests")
    with remote_server(tmp_path, *extra) as server:
        token = server.account("erin", grants=[("team", "", "read")])
        through_proxy = {
            "Authorization": f"Bearer {token}",
            "Host": "notes.example.com",
            "X-Forwarded-Proto": "https",
            "X-Forwarded-For": "203.0.113.9",
        }
        with httpx.Client(base_url=server.url) as http:
            ok = http.get("/api/account", headers=through_proxy | {"Origin": public})
            foreign = http.get(
                "/api/account", headers=through_proxy | {"Origin": "https://evil.example"}
            )
            other_host = http.get("/api/account", headers=through_proxy | {"Host": "evil.example"})
        log = server.stderr.read_text(encoding="utf-8")
    assert server.ready == f"Quire is running at {public}/login"
    assert ok.status_code == 200 and ok.json()["username"] == "erin"
    assert foreign.status_code == 403 and other_host.status_code == 403
    assert "203.0.113.9" in log  # uvicorn believed the trusted proxy's X-Forwarded-For
