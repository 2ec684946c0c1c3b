"""``quire serve``: the composition root of the server, running uvicorn in this process.

Owns the socket, logging to stderr, the login URL, the browser and the signals, reads the
machine facts once, and mounts ``/mcp`` on the web app; every rule lives in the services it
composes. The token is printed once, on stdout, and never logged.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import re
import secrets
import signal
import socket
import ssl
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from types import FrameType
from typing import Any

import click
import uvicorn
from starlette.applications import Starlette

from quire.cli.browser import graphical_browser
from quire.cli.machine import machine_facts
from quire.cli.output import reports_errors
from quire.cli.standby import wait_for_start
from quire.cli.startup import startup_done
from quire.core.errors import InvalidArgument
from quire.core.limits import MAX_DOCUMENT_BYTES
from quire.core.server_info import ServerInfo
from quire.services.agents.machine import MachineFacts
from quire.services.app import AppServices, open_services
from quire.settings.model import Settings, load_settings
from quire.settings.server_file import ServerClaim, claim_state_folder
from quire.web.app import SubApp, create_app
from quire.web.deferred import DeferredApp, Runnable

logger = logging.getLogger("quire.serve")

PORT_FALLBACKS = 20
"""How many ports after the default one are tried when it is busy."""
GRACEFUL_SHUTDOWN_S = 5
"""How long a shutdown waits for requests in flight (a long review wait, say)."""
MCP_PATH = "/mcp"
"""Where MCP over Streamable HTTP is served (``quire.mcp.http``'s endpoint)."""
_LOG_HANDLER_NAME = "quire-stderr"
_SECRET = re.compile(r"(token=)[^&\s\"']+", re.IGNORECASE)


def wall_clock_ms() -> int:
    """Milliseconds since the epoch: the clock every service of a real server gets."""
    return time.time_ns() // 1_000_000


@click.command("serve")
@click.argument("dirs", nargs=-1, metavar="[DIR]...")
@click.option("--host", help="Address to listen on (default 127.0.0.1, this machine only).")
@click.option(
    "--port",
    type=int,
    help="Port to listen on (default 4747, or the next free one of the 20 after it); "
    "0 picks any free port.",
)
@click.option(
    "--state-dir",
    metavar="DIR",
    help="Folder for server.json, quire.toml and the database (default $QUIRE_HOME or ~/.quire).",
)
@click.option(
    "--db",
    "db_url",
    metavar="URL",
    help="Database URL, e.g. postgresql://user@host/quire (default SQLite in the state folder).",
)
@click.option(
    "--allow",
    "allow",
    metavar="DIR",
    multiple=True,
    help="Also open, present and review documents in DIR (not listed or searched); repeatable.",
)
@click.option(
    "--multi",
    is_flag=True,
    help="Run a team server: people sign in with accounts (`quire user add`) and see only "
    "what they were granted.",
)
@click.option(
    "--tls-cert",
    metavar="FILE",
    help="Serve HTTPS with this PEM certificate (and --tls-key); the URL becomes https://.",
)
@click.option("--tls-key", metavar="FILE", help="The PEM private key of --tls-cert.")
@click.option(
    "--trusted-proxy",
    "trusted_proxies",
    metavar="ADDRESS",
    multiple=True,
    help="A reverse proxy (IP address or network) whose X-Forwarded-For and "
    "X-Forwarded-Proto headers are believed; repeatable. Without one they are ignored.",
)
@click.option(
    "--public-url",
    metavar="URL",
    help="The address people reach the server at behind a proxy (https://notes.example.com).",
)
@click.option(
    "--redis",
    "redis_url",
    metavar="URL",
    help="Run as one of several replicas that share a PostgreSQL --db: they send each other "
    "their changes through this Redis (redis://host:6379/0). See docs/deploy.md.",
)
@click.option(
    "--replica-id",
    metavar="NAME",
    help="This replica's name in /health and the log (default: host name and process id).",
)
@click.option("--no-browser", is_flag=True, help="Do not open the login URL in a browser.")
@click.option("--log-requests", is_flag=True, help="Log a line for every HTTP request answered.")
@click.option(
    "--wait-for-start",
    "standby",
    is_flag=True,
    hidden=True,
    help="Load, then wait for `start` on standard input before serving (how `quire mcp` has a "
    "server ready sooner).",
)
@reports_errors
def serve_command(
    dirs: tuple[str, ...],
    allow: tuple[str, ...],
    host: str | None,
    port: int | None,
    state_dir: str | None,
    db_url: str | None,
    multi: bool,
    tls_cert: str | None,
    tls_key: str | None,
    trusted_proxies: tuple[str, ...],
    public_url: str | None,
    redis_url: str | None,
    replica_id: str | None,
    no_browser: bool,
    log_requests: bool,
    standby: bool,
) -> None:
    """Run the Quire server for the workspaces DIR... (default: the current folder).

    Writes the state folder's server.json (url, token, pid) once it listens, prints the
    login URL, and opens it in a browser when one is available. Settings also come from the
    environment (QUIRE_HOST, QUIRE_PORT, QUIRE_DB, QUIRE_HOME) and from quire.toml in the
    state folder; flags win over the environment, which wins over the file. Stop it with
    Ctrl+C (or SIGTERM): it removes server.json and exits cleanly.

    Listening on anything but this machine (--host 0.0.0.0) needs --multi and HTTPS: either
    --tls-cert/--tls-key here, or a reverse proxy that terminates it named with
    --trusted-proxy (see docs/teams.md).
    """
    if standby and not wait_for_start():
        return
    flags: dict[str, object | None] = {
        "workspaces": dirs or None,
        "allowed_folders": allow or None,
        "host": host,
        "port": port,
        "state_dir": state_dir,
        "db_url": db_url,
        "mode": "multi" if multi else None,
        "tls_cert": tls_cert,
        "tls_key": tls_key,
        "trusted_proxies": trusted_proxies or None,
        "public_url": public_url,
        "redis_url": redis_url,
        "replica_id": replica_id,
        "open_browser": False if no_browser else None,
        "log_requests": True if log_requests else None,
    }
    machine = machine_facts()
    settings = load_settings(
        flags=flags, environ=machine.environ, home=machine.home, cwd=machine.cwd
    )
    configure_logging()
    serve(settings, machine=machine, echo=click.echo)


def serve(settings: Settings, *, machine: MachineFacts, echo: Callable[[str], None]) -> None:
    """Hold the state folder, listen, and run the server until a signal stops it.

    ``machine`` is this process's environment, home folder and command line, read once: the
    agents page and ``/mcp`` use it, and the browser is looked for in its environment.
    """
    check_tls(settings)
    with claim_state_folder(settings.state_dir) as claim:
        listener = bind_listener(settings.host, settings.port, fallback=settings.port_is_default)
        port = listener.getsockname()[1]
        if settings.port_is_default and port != settings.port:
            logger.warning("Port %d is busy; using port %d instead.", settings.port, port)
        settings = settings.model_copy(update={"port": port})
        info = ServerInfo(
            url=base_url(settings.host, port, scheme=settings.scheme),
            token=secrets.token_hex(32),
            pid=os.getpid(),
            ca_cert=str(settings.tls_cert) if settings.tls else None,
        )
        try:
            asyncio.run(_run(settings, listener, info, claim, machine=machine, echo=echo))
        except KeyboardInterrupt:
            # Ctrl+C before the server took over the signals (while the database opened).
            logger.info("Interrupted while starting.")
    logger.info("Quire stopped.")


async def _run(
    settings: Settings,
    listener: socket.socket,
    info: ServerInfo,
    claim: ServerClaim,
    *,
    machine: MachineFacts,
    echo: Callable[[str], None],
) -> None:
    async with open_services(
        settings, token=info.token, clock=wall_clock_ms, machine=machine
    ) as services:
        config = uvicorn.Config(
            server_app(services),
            lifespan="on",
            log_config=None,
            **network_options(settings),
            server_header=False,
            access_log=settings.log_requests,
            ws_max_size=MAX_DOCUMENT_BYTES + 64 * 1024,
            timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_S,
        )

        def ready() -> None:
            startup_done()
            claim.publish(info)
            shown = settings.public_url or info.url
            login_url = f"{shown}/login" if settings.multi else f"{shown}/?token={info.token}"
            echo(f"Quire is running at {login_url}")
            logger.info(
                "Serving %s at %s (pid %d); state in %s.",
                ", ".join(str(folder) for folder in settings.workspaces),
                info.url,
                info.pid,
                settings.state_dir,
            )
            if settings.open_browser:
                open_in_browser(login_url, machine.environ)

        await _Server(config, ready).serve(sockets=[listener])


def check_tls(settings: Settings) -> None:
    """Load the certificate and key once before listening, so a wrong pair stops the start
    with its reason (InvalidArgument) rather than failing inside uvicorn."""
    if not settings.tls:
        return
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    try:
        context.load_cert_chain(str(settings.tls_cert), str(settings.tls_key))
    except (OSError, ssl.SSLError) as err:
        raise InvalidArgument(
            f"Cannot serve HTTPS with the certificate {settings.tls_cert} and the key "
            f"{settings.tls_key}: {getattr(err, 'reason', None) or err}. Pass a PEM "
            "certificate (with its chain) and the PEM private key that belongs to it.",
            argument="--tls-cert",
        ) from None


def network_options(settings: Settings) -> dict[str, Any]:
    """uvicorn's TLS and proxy options for ``settings``: the certificate and key when set, and
    the forwarded headers believed only from the trusted proxies (never from anyone else)."""
    options: dict[str, Any] = {"proxy_headers": bool(settings.trusted_proxies)}
    if settings.trusted_proxies:
        options["forwarded_allow_ips"] = list(settings.trusted_proxies)
    if settings.tls:
        options["ssl_certfile"] = str(settings.tls_cert)
        options["ssl_keyfile"] = str(settings.tls_key)
    return options


def server_app(services: AppServices) -> Starlette:
    """The whole server over ``services``: the web app with ``/mcp`` mounted on it.

    ``/mcp`` runs the MCP tools against this same app in process, as the server's own client
    (its url and token), on the server's workspaces and the services' home folder. It is built
    on its first request: the MCP SDK and the tools are half of what a start would import.
    """
    settings = services.settings
    holder: list[Starlette] = []

    def build() -> Runnable:
        from quire.mcp.http import mcp_endpoint

        return mcp_endpoint(
            app=lambda: holder[0],
            url=f"http://{settings.host}:{settings.port}",
            token=services.token,
            workspaces=services.workspaces.folders,
            state=settings.state_dir,
            home=services.machine.home,
            clock=services.clock,
            chat_enabled=settings.chat_enabled,
            exporter=services.export,
            accounts=settings.multi,
            stateless=settings.redis_url is not None,
        )

    mcp = DeferredApp(build, name="The /mcp endpoint")
    endpoint = SubApp(MCP_PATH, mcp, mcp.running, methods=("GET", "POST", "DELETE"), name="mcp")
    app = create_app(services, sub_apps=(endpoint,))
    holder.append(app)
    return app


class _Server(uvicorn.Server):
    """uvicorn's server, announcing itself once it listens and exiting 0 on SIGINT/SIGTERM."""

    def __init__(self, config: uvicorn.Config, ready: Callable[[], None]) -> None:
        super().__init__(config)
        self._ready = ready

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started and not self.should_exit:
            self._ready()

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        # uvicorn re-raises a caught signal once it has shut down, which would end the
        # process with status 130 or -15; a signal is how this server is meant to stop, so
        # it is handled here and the command exits 0.
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        stops = (signal.SIGINT, signal.SIGTERM)
        previous = {sig: signal.signal(sig, self._stop) for sig in stops}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def _stop(self, sig: int, frame: FrameType | None) -> None:
        if self.should_exit and sig == signal.SIGINT:
            self.force_exit = True
        else:
            logger.info("Stopping (%s).", signal.Signals(sig).name)
            self.should_exit = True


def bind_listener(host: str, port: int, *, fallback: bool) -> socket.socket:
    """A socket bound to ``host``:``port`` (0: any free port).

    With ``fallback``, a busy port is followed by the next PORT_FALLBACKS ones. Raises
    InvalidArgument saying what to change when no port can be had.
    """
    last = port + PORT_FALLBACKS if fallback and port else port
    for candidate in range(port, last + 1):
        try:
            return _bind(host, candidate)
        except OSError as err:
            if err.errno != errno.EADDRINUSE:
                raise _cannot_listen(host, candidate, err) from None
    if last != port:
        raise InvalidArgument(
            f"Ports {port} to {last} on {host} are all in use. Pass --port with a free port, "
            "or --port 0 to let the system pick one.",
            argument="port",
        )
    raise InvalidArgument(
        f"Port {port} on {host} is already in use (by another program, or another Quire "
        "server with its own state folder). Pass another --port, or --port 0 to let the "
        "system pick a free one.",
        argument="port",
    )


def _bind(host: str, port: int) -> socket.socket:
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except socket.gaierror as err:
        raise InvalidArgument(
            f"Cannot listen on {host}: the name is not known ({err.strerror}). Pass --host "
            "with an address of this machine, such as 127.0.0.1.",
            argument="host",
        ) from None
    listener = socket.socket(family, kind, proto)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(address)
    except BaseException:
        listener.close()
        raise
    listener.set_inheritable(False)
    return listener


def _cannot_listen(host: str, port: int, err: OSError) -> InvalidArgument:
    if err.errno == errno.EACCES:
        advice = "Ports below 1024 need special rights: pass --port with a higher one."
    elif err.errno == errno.EADDRNOTAVAIL:
        advice = f"{host} is not an address of this machine: pass another --host."
    else:
        advice = "Pass another --host or --port."
    return InvalidArgument(
        f"Cannot listen on {host} port {port}: {err.strerror or err}. {advice}", argument="port"
    )


def base_url(host: str, port: int, *, scheme: str = "http") -> str:
    """The URL clients use to reach a server listening on ``host``:``port``."""
    if host in ("0.0.0.0", ""):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    shown = f"[{host}]" if ":" in host else host
    return f"{scheme}://{shown}:{port}"


def open_in_browser(url: str, environ: Mapping[str, str]) -> bool:
    """Open ``url`` in a graphical browser, in the background; False when there is none.

    A console browser (lynx, w3m…) is never started: it would take over the terminal the
    server logs to. On Linux and the BSDs a graphical session (DISPLAY or WAYLAND_DISPLAY)
    is needed.
    """
    browser = graphical_browser(environ)
    if browser is None:
        logger.info("No graphical browser found; open the URL printed above to sign in.")
        return False
    threading.Thread(target=browser.open, args=(url,), name="open-browser", daemon=True).start()
    return True


def configure_logging(level: int = logging.INFO) -> None:
    """Log to stderr (stdout is for the login URL), with any ``token=…`` masked."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        if handler.name == _LOG_HANDLER_NAME:
            root.removeHandler(handler)
    handler = logging.StreamHandler(sys.stderr)
    handler.name = _LOG_HANDLER_NAME
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(_mask_secrets)
    root.addHandler(handler)
    root.setLevel(level)
    # Alembic narrates every plugin and migration step at INFO; only its problems matter here.
    logging.getLogger("alembic").setLevel(max(level, logging.WARNING))


def _mask_secrets(record: logging.LogRecord) -> bool:
    """Mask tokens in a record (uvicorn's access log shows each request's query string)."""
    message = record.getMessage()
    masked = _SECRET.sub(r"\1***", message)
    if masked != message:
        record.msg, record.args = masked, None
    return True
