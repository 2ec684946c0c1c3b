import logging
import os
import re
import signal
import socket
import stat
import subprocess
import sys
import threading
import webbrowser
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path

import anyio
import httpx
import pytest
from anyio.abc import Process
from click.testing import CliRunner
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from quire import __version__
from quire.cli import serve as serve_module
from quire.cli.main import cli
from quire.cli.serve import PORT_FALLBACKS, base_url, bind_listener, open_in_browser
from quire.core.errors import InvalidArgument
from quire.core.server_info import ServerInfo, dumps, loads
from quire.settings.model import Settings

START_TIMEOUT_S = 60
LOGIN_LINE = re.compile(r"^Quire is running at (http://127\.0\.0\.1:(\d+))/\?token=([0-9a-f]{64})$")


# A real `quire serve` in a subprocess.


@dataclass
class Running:
    process: Process
    url: str
    token: str
    state: Path
    stderr: Path


def _environment(state: Path) -> dict[str, str]:
    environ = {
        key: value
        for key, value in os.environ.items()
        if key not in ("QUIRE_HOST", "QUIRE_PORT", "QUIRE_DB", "DISPLAY", "WAYLAND_DISPLAY")
    }
    environ["QUIRE_HOME"] = str(state)
    return environ


def _command(state: Path, workspace: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "quire.cli.main",
        "serve",
        str(workspace),
        "--port",
        "0",
        "--no-browser",
        "--state-dir",
        str(state),
        *extra,
    ]


async def _first_line(process: Process) -> str:
    assert process.stdout is not None
    buffer = b""
    with anyio.fail_after(START_TIMEOUT_S):
        while b"\n" not in buffer:
            buffer += await process.stdout.receive()
    return buffer.split(b"\n", 1)[0].decode()


@asynccontextmanager
async def running_server(tmp_path: Path, *extra: str) -> AsyncIterator[Running]:
    state = tmp_path / "state"
    workspace = tmp_path / "workspace"
    workspace.mkdir(exist_ok=True)
    stderr = tmp_path / "stderr.log"
    with stderr.open("wb") as errors:
        process = await anyio.open_process(
            _command(state, workspace, *extra),
            stdout=subprocess.PIPE,
            stderr=errors,
            env=_environment(state),
            cwd=tmp_path,
        )
        try:
            match = LOGIN_LINE.match(await _first_line(process))
            assert match, stderr.read_text(encoding="utf-8")
            yield Running(process, match.group(1), match.group(3), state, stderr)
        finally:
            if process.returncode is None:
                process.kill()
                with anyio.fail_after(START_TIMEOUT_S):
                    await process.wait()
            await process.aclose()


async def _stop(running: Running, sig: signal.Signals) -> int:
    running.process.send_signal(sig)
    with anyio.fail_after(START_TIMEOUT_S):
        return await running.process.wait()


@pytest.mark.anyio
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
async def test_a_real_server_starts_answers_and_stops_cleanly(
    tmp_path: Path, sig: signal.Signals
) -> None:
    async with running_server(tmp_path, "--log-requests") as running:
        server_json = running.state / "server.json"
        assert stat.S_IMODE(server_json.stat().st_mode) == 0o600
        assert stat.S_IMODE(running.state.stat().st_mode) == 0o700
        info = loads(server_json.read_text(encoding="utf-8"))
        assert info == ServerInfo(url=running.url, token=running.token, pid=running.process.pid)
        async with httpx.AsyncClient(base_url=running.url) as client:
            health = await client.get("/health")
            assert (health.status_code, health.json()) == (
                200,
                {
                    "ok": True,
                    "version": __version__,
                    "replica": f"{socket.gethostname()}-{running.process.pid}",
                    "database": "ok",
                    "fanout": "alone",
                },
            )
            assert (await client.get("/api/window")).status_code == 401
            authorized = {"Authorization": f"Bearer {running.token}"}
            assert (await client.get("/api/window", headers=authorized)).status_code == 200
            assert (await client.get("/health", headers={"Host": "evil.com"})).status_code == 403
            login = await client.get("/", params={"token": running.token})
            assert login.status_code == 303
        events_url = running.url.replace("http://", "ws://") + "/ws/events"
        async with connect(events_url, additional_headers=authorized) as events:
            # An open event socket must not hold the shutdown up.
            assert await _stop(running, sig) == 0
            with anyio.fail_after(START_TIMEOUT_S), pytest.raises(ConnectionClosed):
                await events.recv()
        assert not server_json.exists()
        log = running.stderr.read_text(encoding="utf-8")
        assert running.token not in log
        assert "GET /?token=***" in log


@pytest.mark.anyio
async def test_requests_are_not_logged_unless_asked(tmp_path: Path) -> None:
    async with running_server(tmp_path) as running:
        async with httpx.AsyncClient(base_url=running.url) as client:
            assert (await client.get("/health")).status_code == 200
        assert await _stop(running, signal.SIGTERM) == 0
    log = running.stderr.read_text(encoding="utf-8")
    assert "Quire stopped." in log
    assert "/health" not in log


@pytest.mark.anyio
async def test_a_second_server_on_the_same_state_folder_refuses_naming_the_first(
    tmp_path: Path,
) -> None:
    async with running_server(tmp_path) as running:
        second = await anyio.run_process(
            _command(running.state, tmp_path / "workspace"),
            env=_environment(running.state),
            check=False,
        )
        assert second.returncode == 1
        message = second.stderr.decode()
        assert running.url in message
        assert f"pid {running.process.pid}" in message
        assert running.token not in message + second.stdout.decode()
        assert loads((running.state / "server.json").read_text(encoding="utf-8")).token == (
            running.token
        )
        assert await _stop(running, signal.SIGTERM) == 0


@pytest.mark.anyio
async def test_a_stale_server_file_is_replaced(tmp_path: Path) -> None:
    async with await anyio.open_process([sys.executable, "-c", "pass"]) as gone:
        with anyio.fail_after(START_TIMEOUT_S):
            await gone.wait()
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    stale = ServerInfo(url="http://127.0.0.1:1", token="stale", pid=gone.pid)
    (state / "server.json").write_text(dumps(stale), encoding="utf-8")
    async with running_server(tmp_path) as running:
        info = loads((running.state / "server.json").read_text(encoding="utf-8"))
        assert info.pid == running.process.pid
        assert info.token == running.token
        assert await _stop(running, signal.SIGTERM) == 0


# The command in process, for what fails before anything listens.


@pytest.fixture
def quiet_logging(monkeypatch: pytest.MonkeyPatch) -> None:
    # CliRunner swaps stderr; a handler left on the root logger would outlive it.
    monkeypatch.setattr(serve_module, "configure_logging", lambda: None)


@pytest.mark.usefixtures("quiet_logging")
@pytest.mark.parametrize(
    ("arguments", "needle"),
    [
        (["--port", "70000"], "--port"),
        (["--host", "not a host"], "--host"),
        (["--db", "mysql://x/y"], "--db"),
        (["missing-folder"], "missing-folder"),
    ],
)
def test_a_bad_setting_stops_the_command_with_its_message(
    tmp_path: Path, arguments: list[str], needle: str
) -> None:
    result = CliRunner().invoke(
        cli,
        ["serve", "--no-browser", "--state-dir", str(tmp_path), *arguments],
        env={"QUIRE_PORT": None, "QUIRE_HOST": None, "QUIRE_DB": None},
    )
    assert result.exit_code == 1
    assert needle in result.output
    assert not (tmp_path / "server.json").exists()


@contextmanager
def _busy_port() -> Iterator[int]:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        yield taken.getsockname()[1]


@pytest.mark.usefixtures("quiet_logging")
def test_a_busy_chosen_port_stops_the_command_and_says_what_to_do(tmp_path: Path) -> None:
    with _busy_port() as port:
        result = CliRunner().invoke(
            cli,
            ["serve", str(tmp_path), "--no-browser", "--port", str(port), "--state-dir",
             str(tmp_path / "state")],
        )  # fmt: skip
    assert result.exit_code == 1
    assert "already in use" in result.output
    assert "--port 0" in result.output
    assert not (tmp_path / "state" / "server.json").exists()


def test_a_busy_default_port_falls_back_to_a_following_one() -> None:
    with _busy_port() as port:
        listener = bind_listener("127.0.0.1", port, fallback=True)
        with listener:
            assert port < listener.getsockname()[1] <= port + PORT_FALLBACKS


def test_a_busy_port_without_fallback_is_refused() -> None:
    with _busy_port() as port, pytest.raises(InvalidArgument, match="already in use"):
        bind_listener("127.0.0.1", port, fallback=False)


def test_port_zero_binds_a_free_port() -> None:
    with bind_listener("127.0.0.1", 0, fallback=True) as listener:
        assert listener.getsockname()[1] > 0


def test_an_unknown_host_name_is_refused() -> None:
    with pytest.raises(InvalidArgument, match="--host"):
        bind_listener("no-such-host.invalid", 0, fallback=False)


@pytest.mark.parametrize(
    ("host", "url"),
    [
        ("127.0.0.1", "http://127.0.0.1:4747"),
        ("0.0.0.0", "http://127.0.0.1:4747"),
        ("::", "http://[::1]:4747"),
        ("::1", "http://[::1]:4747"),
        ("localhost", "http://localhost:4747"),
        ("192.168.1.5", "http://192.168.1.5:4747"),
    ],
)
def test_the_url_names_an_address_clients_can_reach(host: str, url: str) -> None:
    assert base_url(host, 4747) == url


class _FakeBrowser(webbrowser.BaseBrowser):
    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.opened: list[str] = []
        self.done = threading.Event()

    def open(self, url: str, new: int = 0, autoraise: bool = True) -> bool:
        self.opened.append(url)
        self.done.set()
        return True


@pytest.mark.parametrize(
    ("name", "environ", "opens"),
    [
        ("firefox", {"DISPLAY": ":0"}, True),
        ("xdg-open", {"WAYLAND_DISPLAY": "wayland-0"}, True),
        ("firefox", {}, sys.platform in ("darwin", "win32")),
        ("lynx", {"DISPLAY": ":0"}, False),
        ("/usr/bin/w3m", {"DISPLAY": ":0"}, False),
    ],
)
def test_the_browser_opens_only_when_a_graphical_one_is_there(
    monkeypatch: pytest.MonkeyPatch, name: str, environ: dict[str, str], opens: bool
) -> None:
    browser = _FakeBrowser(name)
    monkeypatch.setattr(webbrowser, "get", lambda using=None: browser)
    assert open_in_browser("http://127.0.0.1:1/?token=x", environ) == opens
    if opens:
        assert browser.done.wait(10)
        assert browser.opened == ["http://127.0.0.1:1/?token=x"]
    else:
        assert browser.opened == []


def test_no_browser_at_all_is_fine(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(using: str | None = None) -> webbrowser.BaseBrowser:
        raise webbrowser.Error("could not locate runnable browser")

    monkeypatch.setattr(webbrowser, "get", missing)
    assert not open_in_browser("http://127.0.0.1:1/", {"DISPLAY": ":0"})


@pytest.mark.parametrize(
    ("message", "args", "expected"),
    [
        ('%s - "%s %s"', ("1.2.3.4", "GET", "/?token=abc123"), '1.2.3.4 - "GET /?token=***"'),
        ("url %s", ("http://x/?a=1&token=abc&b=2",), "url http://x/?a=1&token=***&b=2"),
        ("plain %d", (5,), "plain 5"),
    ],
)
def test_logged_tokens_are_masked(message: str, args: tuple[object, ...], expected: str) -> None:
    record = logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1, message, args, None)
    assert serve_module._mask_secrets(record)
    assert record.getMessage() == expected


def test_the_serve_command_is_documented() -> None:
    docs = Path(__file__).resolve().parents[2] / "docs" / "cli.md"
    text = docs.read_text(encoding="utf-8")
    assert "## `quire serve`" in text
    for option in ("--host", "--port", "--state-dir", "--db", "--no-browser"):
        assert option in text


def test_forwarded_headers_are_believed_only_from_trusted_proxies(tmp_path: Path) -> None:
    plain = Settings(workspaces=(tmp_path,), state_dir=tmp_path / "s")
    assert serve_module.network_options(plain) == {"proxy_headers": False}
    proxied = plain.model_copy(update={"trusted_proxies": ("10.0.0.7",)})
    assert serve_module.network_options(proxied) == {
        "proxy_headers": True,
        "forwarded_allow_ips": ["10.0.0.7"],
    }


def test_a_certificate_and_key_that_do_not_load_stop_the_start_with_the_reason(
    tmp_path: Path,
) -> None:
    cert = tmp_path / "cert.pem"
    key = tmp_path / "key.pem"
    cert.write_text("not a certificate\n", encoding="utf-8")
    key.write_text("not a key\n", encoding="utf-8")
    state = tmp_path / "state"
    result = CliRunner().invoke(
        cli,
        ["serve", str(tmp_path), "--no-browser", "--port", "0", "--state-dir", str(state),
         "--tls-cert", str(cert), "--tls-key", str(key)],
    )  # fmt: skip
    assert result.exit_code == 1
    assert "Cannot serve HTTPS with the certificate" in result.output
    assert not (state / "server.json").exists()
