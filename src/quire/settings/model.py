"""The settings model and where each value comes from: flags > environment > quire.toml > defaults.

The one parser for both sides: the server loads every setting, a client reads the ones it needs
without a server (``chat_enabled``) through the same rules. Owns the rules for every value and
the messages naming the source of a bad one; it never reads ``os.environ`` or the working
directory itself (the CLI passes them in).
"""

from __future__ import annotations

import ipaddress
import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

from quire.core.errors import InvalidArgument, QuireError
from quire.core.state import STATE_ENV, state_folder
from quire.fs.oserror import storage_failed
from quire.settings.catalog import ENV_NAMES, FILE_KEYS, FLAG_NAMES
from quire.settings.config_file import config_path, file_value, read_config
from quire.settings.database import POSTGRES_SCHEMES, database_url

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 4747

_HOSTNAME = re.compile(
    r"(?=.{1,253}\Z)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*\Z"
)
_PORT_RULE = "a whole number from 0 to 65535 (0 picks a free port)"


class Settings(BaseModel):
    """Everything ``quire serve`` needs to start, already checked."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    workspaces: tuple[Path, ...] = Field(
        description="The folders of Markdown the server serves (resolved, without duplicates)."
    )
    allowed_folders: tuple[Path, ...] = Field(
        default=(),
        description="Folders outside the workspaces whose documents the server may open, "
        "present and review (they are not listed, searched or watched for chats).",
    )
    state_dir: Path = Field(
        description="Where server.json, quire.toml, the log and the SQLite database live."
    )
    host: str = Field(
        default=DEFAULT_HOST,
        description="The address to listen on; the default serves this machine only.",
    )
    port: int = Field(
        default=DEFAULT_PORT,
        ge=0,
        le=65535,
        description="The port to listen on; 0 picks a free one, and the default port falls "
        "back to the next 20 when it is busy.",
    )
    db_url: str | None = Field(
        default=None,
        description="The database; PostgreSQL lets several servers share one state.",
    )
    """None: SQLite in the state folder (``database_url`` gives the URL to open)."""
    mode: Literal["single", "multi"] = Field(
        default="single",
        description="`single`: one person, signed in with the token in server.json. `multi`: "
        "a team server where people sign in with their accounts and see only what they were "
        "granted (see docs/teams.md).",
    )
    tls_cert: Path | None = Field(
        default=None,
        description="The certificate `quire serve` presents when it terminates HTTPS itself "
        "(with `tls_key`); the server's URL is then https://.",
    )
    tls_key: Path | None = Field(
        default=None,
        description="The private key of `tls_cert` (keep it readable only by the server's "
        "account).",
    )
    trusted_proxies: tuple[str, ...] = Field(
        default=(),
        description="The reverse proxies whose X-Forwarded-For and X-Forwarded-Proto headers "
        "are believed (their addresses or networks). Without any, those headers are ignored.",
    )
    public_url: str | None = Field(
        default=None,
        description="The address people and agents reach the server at, when it is not the "
        "one it listens on (behind a reverse proxy): its Host and Origin are accepted.",
    )
    redis_url: str | None = Field(
        default=None,
        description="The Redis that several replicas of one server (on one PostgreSQL "
        "database) send each other their changes through; see docs/deploy.md.",
    )
    """None: one replica, nothing to fan out."""
    replica_id: str | None = Field(
        default=None,
        description="This replica's name, shown by /health and in the log.",
    )
    """None: the host name and the process id."""
    open_browser: bool = Field(
        default=True, description="Whether `quire serve` opens the login URL in a browser."
    )
    log_requests: bool = Field(
        default=False,
        description="Whether the server logs a line for every HTTP request it answers "
        "(method, path, status; tokens masked). Off, the log holds starts, stops, warnings "
        "and errors only.",
    )
    chat_enabled: bool = Field(
        default=True,
        description="Whether chats are on: the chat routes, the `quire chat` commands' server "
        "side and the MCP chat tools.",
    )
    approvals_enabled: bool = Field(
        default=False,
        description="Whether agent approvals are on: the approval routes (an agent's "
        "permission requests and questions answered from the browser) and the notices.",
    )
    export_browser: Path | None = Field(
        default=None,
        description="The browser that prints PDFs and draws diagrams and math for exports "
        "(headless, over the DevTools protocol).",
    )
    """None: the first Chrome, Chromium or Edge found on this machine."""
    remote_images: tuple[Path, ...] = Field(
        default=(),
        description="The folders (workspaces, or folders inside them) whose notes show remote "
        "images as written. Elsewhere each remote image is a placeholder naming its host, and "
        "one click loads it; `true` names every workspace.",
    )
    history: tuple[Path, ...] | bool | None = Field(
        default=None,
        description="Which workspaces keep their history in git: `true` every workspace "
        "(Quire runs `git init` where there is no repository), a list of folders those, "
        "`false` none (not even a git repository).",
    )
    """None: the workspaces that are already in a git repository."""
    history_window_s: float = Field(
        default=3.0,
        ge=0.0,
        le=3600.0,
        description="Seconds of saves by one author on one note that make one commit.",
    )

    @field_validator("workspaces")
    @classmethod
    def _absolute_workspaces(cls, value: tuple[Path, ...]) -> tuple[Path, ...]:
        if not value:
            raise ValueError("at least one workspace is needed")
        for path in value:
            if not path.is_absolute():
                raise ValueError(f"workspace {str(path)!r} is not an absolute path")
        return value

    @field_validator("remote_images")
    @classmethod
    def _absolute_remote_images(cls, value: tuple[Path, ...]) -> tuple[Path, ...]:
        for path in value:
            if not path.is_absolute():
                raise ValueError(f"remote_images folder {str(path)!r} is not an absolute path")
        return value

    @field_validator("state_dir")
    @classmethod
    def _absolute_state_dir(cls, value: Path) -> Path:
        if not value.is_absolute():
            raise ValueError(f"state_dir {str(value)!r} is not an absolute path")
        return value

    @field_validator("host")
    @classmethod
    def _valid_host(cls, value: str) -> str:
        if host_problem(value) is not None:
            raise ValueError(f"host {value!r} is not an IP address or a host name")
        return value

    @property
    def multi(self) -> bool:
        """Whether this is a team server: accounts, sign-in and grants."""
        return self.mode == "multi"

    @property
    def tls(self) -> bool:
        """Whether the server terminates HTTPS itself."""
        return self.tls_cert is not None and self.tls_key is not None

    @property
    def scheme(self) -> str:
        """``https`` with TLS, else ``http``: the scheme of the address the server listens on."""
        return "https" if self.tls else "http"

    @property
    def port_is_default(self) -> bool:
        """Whether nobody chose the port, so a busy default may fall back to the next ones."""
        return "port" not in self.model_fields_set

    def keeps_history(self, workspace: Path, *, in_repository: bool) -> bool:
        """Whether ``workspace`` keeps its history: ``in_repository`` says whether it is
        inside a git repository already (the default keeps those)."""
        if self.history is None:
            return in_repository
        if isinstance(self.history, bool):
            return self.history
        return workspace in self.history or in_repository

    def loads_remote_images(self, path: Path) -> bool:
        """Whether the note at ``path`` (resolved) shows its remote images without a click."""
        return any(path.is_relative_to(folder) for folder in self.remote_images)

    @property
    def database_url(self) -> str:
        """The URL of the database to open (SQLite in the state folder when none was given)."""
        return database_url(self.db_url, self.state_dir)


@dataclass(frozen=True)
class _Source:
    """Where a value came from, worded for a message, and how to change it there."""

    where: str
    fix: str


def load_settings(
    *, flags: Mapping[str, object | None], environ: Mapping[str, str], home: Path, cwd: Path
) -> Settings:
    """The settings from ``flags`` (None: not given), ``environ``, ``<state>/quire.toml``.

    ``flags`` keys are those of FLAG_NAMES. Relative paths in flags are taken from ``cwd``;
    ``~/`` means ``home``. Raises InvalidArgument naming the flag, variable or file key of a
    bad value and how to fix it, and for an unknown quire.toml key (naming the closest one).
    """
    state_dir = _state_dir(flags.get("state_dir"), environ, home=home, cwd=cwd)
    path = config_path(state_dir)
    config = read_config(path)
    values: dict[str, object] = {"state_dir": state_dir}
    found = _pick("workspaces", flags, {}, config, path)
    if found is None:
        values["workspaces"] = (
            _workspace(str(cwd), _Source("the working directory", ""), cwd, home),
        )
    else:
        values["workspaces"] = _workspaces(*found, cwd=cwd, home=home)
    found = _pick("allowed_folders", flags, {}, config, path)
    if found is not None:
        values["allowed_folders"] = _workspaces(*found, cwd=cwd, home=home)
    for key, check in (("host", _host), ("port", _port), ("db_url", _db_url), ("mode", _mode)):
        found = _pick(key, flags, environ, config, path)
        if found is not None:
            values[key] = check(found[0], found[1], state_dir)
    _network_settings(values, flags, environ, config, path, cwd=cwd, home=home)
    _switches(values, flags, config, path)
    browser = _export_browser(environ, config, path, home=home, cwd=cwd)
    if browser is not None:
        values["export_browser"] = browser
    found = _pick("history", {}, {}, config, path)
    if found is not None:
        values["history"] = _history(*found, home=home)
    found = _pick("history_window_s", {}, {}, config, path)
    if found is not None:
        values["history_window_s"] = _window(*found)
    found = _pick("remote_images", {}, {}, config, path)
    if found is not None:
        workspaces = values["workspaces"]
        assert isinstance(workspaces, tuple)
        values["remote_images"] = _remote_images(*found, workspaces=workspaces, home=home)
    return _exposed_safely(Settings.model_validate(values))


def _switches(
    values: dict[str, object],
    flags: Mapping[str, object | None],
    config: Mapping[str, object],
    path: Path,
) -> None:
    """The true-or-false settings (the browser, the request log, chat, approvals), checked
    into ``values``."""
    if flags.get("open_browser") is not None:
        values["open_browser"] = _boolean(flags["open_browser"], _flag_source("open_browser"))
    chat = _chat_enabled(config, path)
    if chat is not None:
        values["chat_enabled"] = chat
    for key, given in (("log_requests", flags), ("approvals_enabled", {})):
        found = _pick(key, given, {}, config, path)
        if found is not None:
            values[key] = _boolean(*found)


def _network_settings(
    values: dict[str, object],
    flags: Mapping[str, object | None],
    environ: Mapping[str, str],
    config: Mapping[str, object],
    path: Path,
    *,
    cwd: Path,
    home: Path,
) -> None:
    """TLS, trusted proxies and the public URL, checked into ``values``."""
    given: dict[str, _Source] = {}
    for key in ("tls_cert", "tls_key"):
        found = _pick(key, flags, environ, config, path)
        if found is not None:
            values[key] = _pem_file(*found, cwd=cwd, home=home)
            given[key] = found[1]
    if len(given) == 1:
        key, source = next(iter(given.items()))
        other = "tls_key" if key == "tls_cert" else "tls_cert"
        raise InvalidArgument(
            f"{source.where} sets {key} but nothing sets {other}: HTTPS needs both the "
            "certificate and its key. Pass --tls-cert FILE and --tls-key FILE together (or "
            "`server.tls_cert` and `server.tls_key` in quire.toml).",
            argument=source.where,
        )
    found = _pick("trusted_proxies", flags, environ, config, path)
    if found is not None:
        values["trusted_proxies"] = _proxies(*found)
    found = _pick("public_url", flags, environ, config, path)
    if found is not None:
        values["public_url"] = _public_url(*found)
    found = _pick("replica_id", flags, environ, config, path)
    if found is not None:
        values["replica_id"] = _replica_id(*found)
    found = _pick("redis_url", flags, environ, config, path)
    if found is not None:
        values["redis_url"] = _redis_url(*found, db_url=values.get("db_url"))


_REPLICA_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,62}")


def _replica_id(raw: object, source: _Source) -> str:
    rule = "1 to 63 letters, digits, dots, dashes or underscores, such as web-1"
    if not isinstance(raw, str) or _REPLICA_ID.fullmatch(raw.strip()) is None:
        raise _bad(source, raw, "is not a replica name", rule)
    return raw.strip()


def _redis_url(raw: object, source: _Source, *, db_url: object) -> str:
    rule = "a URL such as redis://127.0.0.1:6379/0 (or rediss:// with TLS, unix:// for a socket)"
    if not isinstance(raw, str) or "\0" in raw:
        raise _bad(source, raw, "is not a Redis URL", rule)
    url = raw.strip()
    parts = urlsplit(url)
    if parts.scheme not in ("redis", "rediss", "unix") or not (parts.hostname or parts.path):
        raise _bad(source, raw, "is not a Redis URL", rule)
    if not (isinstance(db_url, str) and urlsplit(db_url).scheme in POSTGRES_SCHEMES):
        raise InvalidArgument(
            f"{source.where} names a Redis for several replicas, but the database is SQLite, "
            "which only one server may use. Give the replicas one PostgreSQL database too "
            "(--db postgresql://…), or leave out --redis to run one server (see "
            "docs/deploy.md).",
            argument=source.where,
        )
    return url


def _pem_file(raw: object, source: _Source, *, cwd: Path, home: Path) -> Path:
    if not isinstance(raw, str | Path) or not str(raw).strip() or "\0" in str(raw):
        raise _bad(source, raw, "is not a file path", "the path of a PEM file")
    path = _expand(str(raw).strip(), cwd=cwd, home=home)
    try:
        readable = path.is_file() and os.access(path, os.R_OK)
    except OSError:
        readable = False
    if not readable:
        raise _bad(source, raw, "is not a readable file", "the path of a PEM file")
    return path


def _proxies(raw: object, source: _Source) -> tuple[str, ...]:
    items = [part.strip() for part in raw.split(",")] if isinstance(raw, str) else raw
    if isinstance(items, tuple):
        items = list(items)
    rule = 'IP addresses or networks such as ["127.0.0.1", "10.0.0.0/8"]'
    if not isinstance(items, list) or not items:
        raise _bad(source, raw, "is not a list of proxy addresses", rule)
    found: list[str] = []
    for item in items:
        try:
            network = ipaddress.ip_network(str(item).strip(), strict=False)
        except ValueError:
            raise _bad(source, item, "is not an IP address or network", rule) from None
        text = str(network.network_address) if network.num_addresses == 1 else str(network)
        if text not in found:
            found.append(text)
    return tuple(found)


def _public_url(raw: object, source: _Source) -> str:
    rule = "an address such as https://notes.example.com (a scheme and a host, no path)"
    if not isinstance(raw, str):
        raise _bad(source, raw, "is not a URL", rule)
    url = raw.strip().rstrip("/")
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = -1
    if (
        parts.scheme not in ("http", "https")
        or not parts.hostname
        or host_problem(parts.hostname) is not None
        or parts.path
        or parts.query
        or parts.fragment
        or "@" in parts.netloc
        or port == -1
    ):
        raise _bad(source, raw, "is not a URL with a scheme and a host only", rule)
    return url.lower()


def _exposed_safely(settings: Settings) -> Settings:
    problem = exposure_problem(settings)
    if problem is not None:
        raise InvalidArgument(problem, argument="host")
    return settings


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (127.0.0.0/8, ::1 or ``localhost``)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def exposure_problem(settings: Settings) -> str | None:
    """Why the server may not listen where the settings say (None when it may).

    Anything but loopback is reachable from other machines, so it needs accounts (single mode
    signs everyone in with one token and gives them everything) and an encrypted way in:
    HTTPS terminated here (``tls_cert``/``tls_key``) or a reverse proxy that terminates it
    (``trusted_proxies``). Passwords, cookies and tokens must never cross a network in clear.
    """
    if is_loopback(settings.host):
        return None
    if not settings.multi:
        return (
            f"Refused to listen on {settings.host}: that address is reachable from other "
            "machines, and single mode gives whoever holds its one token every workspace. "
            "Listen on 127.0.0.1 (the default), or run a team server with accounts: `quire "
            'serve --multi` (or mode = "multi" in quire.toml, see docs/teams.md) with HTTPS.'
        )
    if not settings.tls and not settings.trusted_proxies:
        return (
            f"Refused to listen on {settings.host} without HTTPS: that address is reachable "
            "from other machines, and sign-in passwords, cookies and API tokens would cross "
            "the network in clear. Pass --tls-cert FILE --tls-key FILE (HTTPS here), or put "
            "a reverse proxy that terminates HTTPS in front and name it with --trusted-proxy "
            "ADDRESS (see docs/teams.md)."
        )
    return None


def export_browser(
    state_dir: Path, environ: Mapping[str, str], *, home: Path, cwd: Path
) -> Path | None:
    """The browser exports use, as a client without a server sees it: QUIRE_BROWSER, then
    ``export.browser`` in quire.toml; None when neither names one (the engine looks for one).

    Judged as ``load_settings`` does; a bad value raises InvalidArgument naming its source.
    """
    path = config_path(state_dir)
    return _export_browser(environ, read_config(path), path, home=home, cwd=cwd)


def _export_browser(
    environ: Mapping[str, str],
    config: Mapping[str, object],
    path: Path,
    *,
    home: Path,
    cwd: Path,
) -> Path | None:
    found = _pick("export_browser", {}, environ, config, path)
    if found is None:
        return None
    raw, source = found
    if not isinstance(raw, str) or not raw.strip() or "\0" in raw:
        raise _bad(source, raw, "is not a program path", "the path of a browser program")
    return _expand(raw.strip(), cwd=cwd, home=home)


def chat_enabled(state_dir: Path) -> bool:
    """Whether chat is on, as a client without a server sees it: ``chat.enabled`` in quire.toml.

    The file is read and judged as ``load_settings`` does; a file the server would refuse
    (unreadable, not TOML, an unknown key, a value that is not true or false) leaves the
    default, since the server names that file's problem when it starts.
    """
    path = config_path(state_dir)
    try:
        chat = _chat_enabled(read_config(path), path)
    except QuireError:
        chat = None
    default = Settings.model_fields["chat_enabled"].default
    assert isinstance(default, bool)
    return default if chat is None else chat


def _chat_enabled(config: Mapping[str, object], path: Path) -> bool | None:
    found = _pick("chat_enabled", {}, {}, config, path)
    return None if found is None else _boolean(*found)


def host_problem(host: str) -> str | None:
    """Why ``host`` cannot be bound (None when it is an IP address or a host name)."""
    if not host or host != host.strip():
        return "it is empty or has spaces around it"
    try:
        ipaddress.ip_address(host)
    except ValueError:
        if _HOSTNAME.match(host.lower()) is None:
            return "it is neither an IP address nor a host name"
    return None


def _state_dir(raw: object | None, environ: Mapping[str, str], *, home: Path, cwd: Path) -> Path:
    if raw is None:
        path = state_folder(environ, home)
        raw = environ.get(STATE_ENV, "").strip() or str(path)
        source = _Source(
            f"the environment variable {STATE_ENV}" if environ.get(STATE_ENV, "").strip()
            else "the default state folder",
            f"set {STATE_ENV} to a folder, or pass --state-dir",
        )  # fmt: skip
        if "\0" in raw:
            raise _bad(source, raw, "is not a folder path")
    else:
        source = _flag_source("state_dir")
        if not isinstance(raw, str | Path) or not str(raw).strip() or "\0" in str(raw):
            raise _bad(source, raw, "is not a folder path")
        path = _expand(str(raw), cwd=cwd, home=home)
    try:
        misplaced = path.exists() and not path.is_dir()
    except OSError as exc:  # a name over 255 bytes, a path over PATH_MAX, a folder denied
        raise storage_failed(exc, doing="use as the state folder", path=path) from None
    if misplaced:
        raise _bad(source, raw, "is not a folder")
    return path


def _pick(
    key: str,
    flags: Mapping[str, object | None],
    environ: Mapping[str, str],
    config: Mapping[str, object],
    config_path: Path,
) -> tuple[object, _Source] | None:
    """The first value given for ``key``, flag before environment before file, and its source."""
    flag = flags.get(key)
    if flag is not None and flag != () and flag != []:
        return flag, _flag_source(key)
    env_name = ENV_NAMES.get(key)
    if env_name is not None and environ.get(env_name, "").strip():
        return environ[env_name].strip(), _Source(
            f"the environment variable {env_name}", f"set {env_name} to a valid value or unset it"
        )
    file_key = FILE_KEYS.get(key)
    if file_key is None:
        return None
    present, value = file_value(config, file_key)
    if present:
        return value, _Source(
            f"`{file_key}` in the settings file {config_path}", "fix that line of the file"
        )
    return None


def _flag_source(key: str) -> _Source:
    return _Source(f"the command-line option {FLAG_NAMES[key]}", f"pass another {FLAG_NAMES[key]}")


def _bad(source: _Source, value: object, problem: str, rule: str = "") -> InvalidArgument:
    rule_part = f": it must be {rule}" if rule else ""
    return InvalidArgument(
        f"The value {value!r} from {source.where} {problem}{rule_part}. To fix it, {source.fix}.",
        argument=source.where,
    )


def _workspaces(raw: object, source: _Source, *, cwd: Path, home: Path) -> tuple[Path, ...]:
    items = [raw] if isinstance(raw, str | Path) else raw
    if not isinstance(items, list | tuple) or not items:
        raise _bad(source, raw, "is not a list of folders", 'a list such as ["~/notes"]')
    from_file = "settings file" in source.where
    found: list[Path] = []
    for item in items:
        if not isinstance(item, str | Path) or not str(item).strip() or "\0" in str(item):
            raise _bad(source, item, "is not a folder path")
        text = str(item)
        if from_file and not (Path(text).is_absolute() or text == "~" or text.startswith("~/")):
            raise _bad(source, item, "is a relative path", "absolute or start with ~/")
        path = _workspace(text, source, cwd, home)
        if path not in found:
            found.append(path)
    return tuple(found)


def _workspace(raw: str, source: _Source, cwd: Path, home: Path) -> Path:
    path = _expand(raw, cwd=cwd, home=home)
    try:
        resolved = Path(os.path.realpath(path, strict=True))
        is_folder = stat.S_ISDIR(resolved.stat().st_mode)
    except OSError as err:
        raise _bad(source, raw, f"is not a folder Quire can serve ({err.strerror})") from None
    if not is_folder:
        raise _bad(source, raw, "is not a folder", "the folder that holds your documents")
    if resolved == Path("/"):
        raise _bad(source, raw, "is the root of the file system", "a folder of documents")
    return resolved


def _remote_images(
    raw: object, source: _Source, *, workspaces: tuple[Path, ...], home: Path
) -> tuple[Path, ...]:
    found = _true_false_or_folders(raw, source, home=home)
    if isinstance(found, bool):
        return workspaces if found else ()
    return found


def _history(raw: object, source: _Source, *, home: Path) -> tuple[Path, ...] | bool:
    return _true_false_or_folders(raw, source, home=home)


def _true_false_or_folders(raw: object, source: _Source, *, home: Path) -> tuple[Path, ...] | bool:
    """A setting that is true, false, or a list of absolute (or ``~/``) folders, resolved."""
    rule = 'true, false, or a list of folders such as ["~/notes"]'
    if isinstance(raw, bool):
        return raw
    if not isinstance(raw, list):
        raise _bad(source, raw, "is neither true, false nor a list of folders", rule)
    found: list[Path] = []
    for item in raw:
        if not isinstance(item, str) or not item.strip() or "\0" in item:
            raise _bad(source, item, "is not a folder path", rule)
        if not (Path(item).is_absolute() or item == "~" or item.startswith("~/")):
            raise _bad(source, item, "is a relative path", "absolute or start with ~/")
        # Resolved as workspaces are, so a symlinked folder names the notes it holds.
        path = Path(os.path.realpath(_expand(item, cwd=home, home=home)))
        if path not in found:
            found.append(path)
    return tuple(found)


def _window(raw: object, source: _Source) -> float:
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not 0 <= raw <= 3600:
        raise _bad(source, raw, "is not a number of seconds", "a number from 0 to 3600")
    return float(raw)


def _expand(raw: str, *, cwd: Path, home: Path) -> Path:
    if raw == "~":
        return home
    if raw.startswith("~/"):
        return home / raw[2:]
    path = Path(raw)
    return path if path.is_absolute() else cwd / path


def _host(raw: object, source: _Source, _state_dir: Path) -> str:
    if not isinstance(raw, str):
        raise _bad(source, raw, "is not text", "an IP address such as 127.0.0.1 or a host name")
    host = raw[1:-1] if raw.startswith("[") and raw.endswith("]") else raw
    problem = host_problem(host)
    if problem is not None:
        raise _bad(source, raw, f"cannot be a host: {problem}", "an IP address or a host name")
    return host.lower()


def _port(raw: object, source: _Source, _state_dir: Path) -> int:
    if isinstance(raw, str) and raw.strip().isascii() and raw.strip().isdigit():
        raw = int(raw.strip()) if "settings file" not in source.where else raw
    if isinstance(raw, bool) or not isinstance(raw, int) or not 0 <= raw <= 65535:
        raise _bad(source, raw, "is not a port number", _PORT_RULE)
    return raw


def _db_url(raw: object, source: _Source, state_dir: Path) -> str:
    if not isinstance(raw, str):
        raise _bad(source, raw, "is not a database URL", "text such as postgresql://…")
    try:
        database_url(raw, state_dir)
    except InvalidArgument as err:
        raise InvalidArgument(
            f"The database URL from {source.where} cannot be used. {err} To fix it, {source.fix}.",
            argument=source.where,
        ) from None
    return raw.strip()


def _mode(raw: object, source: _Source, _state_dir: Path) -> str:
    if raw not in ("single", "multi"):
        raise _bad(source, raw, "is not a mode", "single or multi")
    return str(raw)


def _boolean(raw: object, source: _Source) -> bool:
    if not isinstance(raw, bool):
        raise _bad(source, raw, "is not true or false", "true or false, without quotes")
    return raw
