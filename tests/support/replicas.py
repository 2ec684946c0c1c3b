"""Several real ``quire serve --multi`` replicas on one PostgreSQL, one Redis and one workspace
folder, and Debian's nginx in front of them (round robin, the configuration of docs/deploy.md).

    async with replica_cluster(tmp_path, count=2) as cluster:
        token = await cluster.account("alice")
        a, b = cluster.replicas
        await cluster.redis.stop()

Redis runs on a Unix socket in the test's folder, so stopping and starting it again keeps its
address. Without redis-server, nginx or a test PostgreSQL the tests skip, naming what to install.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import httpx
import pytest
from anyio.abc import Process

from tests.support.database import postgres_database
from tests.support.processes import START_TIMEOUT_S, first_line, stop_process

REDIS_SKIP = "The replica tests need Redis: apt-get install redis-server (see .ci/run)"
NGINX_SKIP = "The load-balancer tests need nginx: apt-get install nginx (see .ci/run)"
PASSWORD = b"correct horse battery staple\n"
CLI_TIMEOUT_S = 60
DEPLOY_DOC = Path(__file__).resolve().parents[2] / "docs" / "deploy.md"
_RUNNING = re.compile(r"^Quire is running at (http://\S+?)/login$")
_STEERING = ("QUIRE_HOST", "QUIRE_PORT", "QUIRE_DB", "DISPLAY", "WAYLAND_DISPLAY", "BROWSER")


class MissingProgram(RuntimeError):
    """A program the replica harness needs is not installed (the message names its package)."""


class RedisServer:
    """A throwaway redis-server on a Unix socket, to stop and start again mid-test."""

    def __init__(self, folder: Path) -> None:
        if shutil.which("redis-server") is None:
            raise MissingProgram(REDIS_SKIP)
        folder.mkdir(parents=True, exist_ok=True)
        self._folder = folder
        self.socket = folder / "redis.sock"
        self.url = f"unix://{self.socket}"
        self._process: Process | None = None

    async def start(self) -> None:
        """Start it and return once it answers PING."""
        command = ["redis-server", "--port", "0", "--unixsocket", str(self.socket)]
        command += ["--unixsocketperm", "700", "--save", "", "--appendonly", "no"]
        command += ["--dir", str(self._folder)]
        self._process = await anyio.open_process(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        with anyio.fail_after(START_TIMEOUT_S):
            while not self._answers():  # noqa: ASYNC110 - another process, no event to await
                await anyio.sleep(0.02)

    async def stop(self) -> None:
        """Stop it (SIGKILL: connections drop as in a crash) and wait until it is gone."""
        process, self._process = self._process, None
        if process is None:
            return
        process.kill()
        with anyio.CancelScope(shield=True):
            await process.wait()
            await process.aclose()
        self.socket.unlink(missing_ok=True)

    def _answers(self) -> bool:
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
                probe.settimeout(1)
                probe.connect(str(self.socket))
                probe.sendall(b"PING\r\n")
                return probe.recv(16).startswith(b"+PONG")
        except OSError:
            return False


@dataclass
class Replica:
    """One running ``quire serve`` of the cluster."""

    name: str
    process: Process
    url: str
    state: Path

    def ws(self, path: str) -> str:
        return self.url.replace("http://", "ws://", 1) + path

    def client(self, token: str, *, timeout: float = 30.0) -> httpx.AsyncClient:
        """A client of this replica alone, signed in with ``token``."""
        return httpx.AsyncClient(
            base_url=self.url, headers={"Authorization": f"Bearer {token}"}, timeout=timeout
        )


@dataclass
class Cluster:
    """The replicas, their shared parts, and how to manage accounts beside them."""

    workspace: Path
    db_url: str
    redis: RedisServer
    env: dict[str, str]
    folder: Path
    public_port: int
    replicas: list[Replica] = field(default_factory=list)
    _stack: AsyncExitStack = field(default_factory=AsyncExitStack)
    _logs: list[Path] = field(default_factory=list)

    @property
    def public_url(self) -> str:
        """The address of the load balancer (when one runs) that every replica accepts."""
        return f"http://127.0.0.1:{self.public_port}"

    async def start_replica(self, name: str) -> Replica:
        """Start one more replica named ``name`` (its own state folder, port and log)."""
        state = self.folder / f"state-{name}"
        state.mkdir(exist_ok=True)
        (state / "quire.toml").write_text("[approvals]\nenabled = true\n", encoding="utf-8")
        command = [sys.executable, "-m", "quire.cli.main", "serve", str(self.workspace)]
        command += ["--multi", "--port", "0", "--no-browser", "--state-dir", str(state)]
        command += ["--db", self.db_url, "--redis", self.redis.url, "--replica-id", name]
        command += ["--public-url", self.public_url, "--trusted-proxy", "127.0.0.1"]
        log = self.folder / f"{name}.log"
        self._logs.append(log)
        with log.open("ab") as errors:
            process = await anyio.open_process(
                command, stdout=subprocess.PIPE, stderr=errors, env=self.env, cwd=self.folder
            )
        self._stack.push_async_callback(stop_process, process)
        line = await first_line(process)
        state_url = json.loads((state / "server.json").read_text(encoding="utf-8"))["url"]
        if not line.startswith("Quire is running at"):
            raise RuntimeError(f"replica {name} did not start ({line!r}):\n{log.read_text()}")
        replica = Replica(name, process, state_url, state)
        self.replicas.append(replica)
        return replica

    def kill(self, replica: Replica) -> None:
        """Kill ``replica`` with SIGKILL (no shutdown of any kind)."""
        replica.process.send_signal(signal.SIGKILL)

    async def user(self, *args: str, stdin: bytes = b"") -> str:
        """Run ``quire user ARGS…`` in its own process against the shared database."""
        command = [sys.executable, "-m", "quire.cli.main", "user", *args]
        command += ["--state-dir", str(self.folder / "state-admin"), "--db", self.db_url]
        with anyio.fail_after(CLI_TIMEOUT_S):
            done = await anyio.run_process(command, input=stdin, env=self.env, check=False)
        assert done.returncode == 0, done.stderr.decode(errors="replace")
        return done.stdout.decode()

    async def account(self, name: str, *, access: str = "write") -> str:
        """A new account with ``access`` on the whole workspace; its API token."""
        await self.user("add", name, "--password-stdin", stdin=PASSWORD)
        await self.user("grant", name, self.workspace.name, "--access", access)
        issued = json.loads(await self.user("token", name, "--json"))
        token: str = issued["token"]
        return token

    def logs(self) -> str:
        """Every replica's log, for a failure message."""
        return "\n".join(f"--- {log.name}\n{log.read_text(errors='replace')}" for log in self._logs)


@asynccontextmanager
async def browser_session(base_url: str, username: str) -> AsyncIterator[httpx.AsyncClient]:
    """``async with browser_session(url, name) as client``: signed in as ``name`` through the
    sign-in form (a session cookie), as a browser is; its requests carry a browser's Origin."""
    async with httpx.AsyncClient(
        base_url=base_url, headers={"Origin": base_url}, timeout=30
    ) as client:
        form = await client.get("/login")
        found = re.search(r'name="csrf" value="([^"]+)"', form.text)
        assert found is not None, form.text
        password = PASSWORD.decode().strip()
        answer = await client.post(
            "/login", data={"username": username, "password": password, "csrf": found[1]}
        )
        assert answer.status_code == 303, answer.text
        yield client


@asynccontextmanager
async def replica_cluster(
    tmp_path: Path, *, count: int, git: bool = False, db_url: str | None = None
) -> AsyncIterator[Cluster]:
    """``count`` replicas on a fresh PostgreSQL database (``db_url``, else one made on the
    test PostgreSQL), a fresh Redis and one workspace (a git repository with ``git``, so the
    replicas keep its history). Skips the test when Redis is not installed."""
    try:
        redis = RedisServer(tmp_path / "redis")
    except MissingProgram as missing:
        pytest.skip(str(missing))
    async with AsyncExitStack() as stack:
        if db_url is None:
            db_url = await stack.enter_async_context(postgres_database())
        async with running_cluster(tmp_path, redis, db_url, count=count, git=git) as cluster:
            yield cluster


@asynccontextmanager
async def running_cluster(
    folder: Path, redis: RedisServer, db_url: str, *, count: int, git: bool = False
) -> AsyncIterator[Cluster]:
    """``count`` replicas over ``redis`` (started here) and the empty database ``db_url``."""
    workspace = folder / "team"
    workspace.mkdir()
    (workspace / "plan.md").write_text("# Plan\n\nShip it.\n", encoding="utf-8")
    if git:
        await anyio.run_process(["git", "init", "-q", str(workspace)])
    env = {key: value for key, value in os.environ.items() if key not in _STEERING}
    env.update({"HOME": str(folder), "QUIRE_HOME": str(folder / "state-admin")})
    await redis.start()
    try:
        with _free_port() as public_port:
            pass
        cluster = Cluster(workspace.resolve(), db_url, redis, env, folder, public_port)
        async with cluster._stack:
            for index in range(count):
                await cluster.start_replica(f"r{index + 1}")
            yield cluster
    finally:
        await redis.stop()


class _free_port:
    """A port on 127.0.0.1 free a moment ago (bound, then let go on exit)."""

    def __enter__(self) -> int:
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.bind(("127.0.0.1", 0))
        port: int = self._socket.getsockname()[1]
        return port

    def __exit__(self, *exc: object) -> None:
        self._socket.close()


@dataclass
class LoadBalancer:
    """Debian's nginx, round robin over the replicas, configured as docs/deploy.md shows."""

    url: str


@asynccontextmanager
async def load_balancer(cluster: Cluster) -> AsyncIterator[LoadBalancer]:
    """nginx on the cluster's public port in front of every replica running now."""
    nginx = shutil.which("nginx", path=f"{os.environ.get('PATH', '')}:/usr/sbin")
    if nginx is None:
        pytest.skip(NGINX_SKIP)
    prefix = cluster.folder / "nginx"
    prefix.mkdir()
    upstreams = "".join(
        f"    server {replica.url.removeprefix('http://')};\n" for replica in cluster.replicas
    )
    site = re.sub(
        r"(upstream quire \{\n)(?:\s*server [^\n]*\n)+", rf"\g<1>{upstreams}", nginx_site()
    )
    site = site.replace("listen 443 ssl;", f"listen 127.0.0.1:{cluster.public_port};")
    site = re.sub(r"^\s*ssl_\w+ [^\n]*\n", "", site, flags=re.M)
    site = site.replace("server_name notes.example.com;", "server_name 127.0.0.1;")
    config = prefix / "nginx.conf"
    config.write_text(
        f"worker_processes 1;\ndaemon off;\npid {prefix}/nginx.pid;\n"
        f"error_log {prefix}/error.log;\n"
        + ("user root;\n" if os.getuid() == 0 else "")
        + "events { worker_connections 1024; }\n"
        f"http {{\n  access_log off;\n  client_body_temp_path {prefix}/body;\n"
        f"  proxy_temp_path {prefix}/proxy;\n  fastcgi_temp_path {prefix}/fastcgi;\n"
        f"  uwsgi_temp_path {prefix}/uwsgi;\n  scgi_temp_path {prefix}/scgi;\n"
        f"{site}\n}}\n",
        encoding="utf-8",
    )
    process = await anyio.open_process(
        [nginx, "-p", str(prefix), "-c", str(config)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        url = cluster.public_url
        with anyio.fail_after(START_TIMEOUT_S):
            while True:
                try:
                    async with httpx.AsyncClient() as probe:
                        if (await probe.get(url + "/health")).status_code == 200:
                            break
                except httpx.TransportError:
                    if process.returncode is not None:
                        raise RuntimeError(
                            f"nginx did not start: {(prefix / 'error.log').read_text()}"
                        ) from None
                await anyio.sleep(0.05)
        yield LoadBalancer(url)
    finally:
        await stop_process(process)


def nginx_site() -> str:
    """The nginx example of docs/deploy.md (its ``upstream`` and ``server`` blocks)."""
    found = re.search(r"```nginx\n(.*?)```", DEPLOY_DOC.read_text(encoding="utf-8"), re.S)
    assert found is not None, "docs/deploy.md has no ```nginx example"
    return found.group(1)
