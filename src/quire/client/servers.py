"""The servers this machine signed in to: ``<state>/servers.toml``, and ``@alias/…`` addresses.

Owns the file (read, written atomically 0600, entries added and removed) and the parsing of
``@alias``, ``@alias/workspace`` and ``@alias/workspace/path.md``. It never talks to a server
and never prints a token: an entry's ``repr`` leaves it out.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from quire.core.errors import DocumentInvalid, FileMissing, InvalidArgument
from quire.core.server_info import ServerInfo
from quire.fs.atomic import write_atomic
from quire.fs.safeio import read_regular_bytes
from quire.settings.server_file import prepare_state_folder

SERVERS_FILE_NAME = "servers.toml"
MAX_SERVERS_FILE_BYTES = 256 * 1024
ALIAS = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,62}")
"""An alias after its ``@``: as ``SERVER=@alias`` in approvals.conf takes it."""


@dataclass(frozen=True)
class SavedServer:
    """One signed-in server: its alias (without ``@``), its base URL and the account's token."""

    alias: str
    url: str
    token: str = field(repr=False)
    ca_cert: str | None = None
    """A CA certificate file (PEM) to trust for this server's HTTPS, besides the system's."""

    def info(self) -> ServerInfo:
        """How the API client reaches it (no process id: it is not this machine's)."""
        return ServerInfo(url=self.url, token=self.token, pid=0)


@dataclass(frozen=True)
class RemoteAddress:
    """``@alias[/workspace[/path]]``: the server, the workspace name, the path inside it."""

    alias: str
    workspace: str | None
    path: str | None


def servers_file(state: Path) -> Path:
    """Where the signed-in servers are kept: ``<state>/servers.toml``."""
    return state / SERVERS_FILE_NAME


def check_alias(raw: str, argument: str = "@alias") -> str:
    """The alias ``raw`` names (``@name`` or ``name``), without its ``@``; InvalidArgument
    when it is not 1-63 letters, digits, dots, dashes or underscores."""
    alias = raw.removeprefix("@")
    if not ALIAS.fullmatch(alias):
        raise InvalidArgument(
            f"{argument} {raw[:80]!r} is not a server alias: write @ and then 1 to 63 letters, "
            "digits, dots, dashes or underscores, starting with a letter or digit (@work).",
            argument=argument,
        )
    return alias


def check_url(raw: str) -> str:
    """A server's base URL: http(s), with a host, without a trailing slash, query or
    fragment."""
    url = raw.strip().rstrip("/")
    if not re.fullmatch(r"https?://[^/?#\s@]+(/[^?#\s]*)?", url):
        raise InvalidArgument(
            f"URL {raw[:200]!r} is not a server address: pass the address the server is "
            "reached at, such as https://notes.example.com or http://127.0.0.1:4747.",
            argument="URL",
        )
    return url


def parse_address(raw: str, argument: str) -> RemoteAddress:
    """``@alias``, ``@alias/workspace`` or ``@alias/workspace/path.md`` split into its parts.

    Refuses empty segments, ``.`` and ``..`` and backslashes: the server resolves the rest.
    """
    if not raw.startswith("@"):
        raise InvalidArgument(
            f"{argument} {raw[:80]!r} is not an @alias address.", argument=argument
        )
    alias_part, _, rest = raw[1:].partition("/")
    alias = check_alias(alias_part, argument)
    if not rest.strip("/"):
        return RemoteAddress(alias, None, None)
    segments = rest.rstrip("/").split("/")
    if any(part in ("", ".", "..") or "\\" in part or "\0" in part for part in segments):
        raise InvalidArgument(
            f"{argument} {raw[:200]!r} is not a clean address: write "
            "@alias/workspace/folder/note.md, without empty parts, `.` or `..`.",
            argument=argument,
        )
    workspace, *inside = segments
    return RemoteAddress(alias, workspace, "/".join(inside) or None)


def names_only_a_server(raw: str) -> bool:
    """Whether ``raw`` is ``@alias`` alone (no workspace): every workspace of that server."""
    return raw.startswith("@") and "/" not in raw.strip("/")


def remote_path(workspace_folder: str, relative: str | None) -> str:
    """The server's absolute path of ``relative`` inside its workspace folder."""
    base = PurePosixPath(workspace_folder)
    return str(base if relative is None else base / relative)


def read_servers(state: Path) -> dict[str, SavedServer]:
    """The saved servers by alias (none when the file is missing).

    Raises DocumentInvalid naming the fix when the file is not the TOML Quire writes.
    """
    path = servers_file(state)
    try:
        data = read_regular_bytes(path, limit=MAX_SERVERS_FILE_BYTES, what="servers file")
    except FileMissing:
        return {}
    fix = f"Fix or delete {path}, then sign in again with `quire login @alias URL`."
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise DocumentInvalid(f"{path} is not valid TOML ({exc}). {fix}") from None
    table = document.get("servers", {})
    if not isinstance(table, dict):
        raise DocumentInvalid(f"{path}: `servers` is not a table. {fix}")
    found: dict[str, SavedServer] = {}
    for alias, entry in table.items():
        url = entry.get("url") if isinstance(entry, dict) else None
        token = entry.get("token") if isinstance(entry, dict) else None
        if not ALIAS.fullmatch(alias) or not isinstance(url, str) or not isinstance(token, str):
            raise DocumentInvalid(
                f"{path}: the entry {alias[:80]!r} needs a url and a token. {fix}"
            )
        ca_cert = entry.get("ca_cert")
        found[alias] = SavedServer(alias, url, token, ca_cert if isinstance(ca_cert, str) else None)
    return found


def saved_server(state: Path, alias: str) -> SavedServer:
    """The saved server ``@alias``; InvalidArgument naming ``quire login`` when there is none."""
    found = read_servers(state).get(alias)
    if found is None:
        raise InvalidArgument(
            f"No server is saved as @{alias} in {servers_file(state)}. Sign in to it first with "
            f"`quire login @{alias} URL` (it asks for an API token of your account).",
            argument="@alias",
        )
    return found


def save_server(state: Path, server: SavedServer) -> None:
    """Add or replace ``server``: the file is written whole, 0600, complete before it has its
    name (the state folder is made 0700 when missing)."""
    servers = read_servers(state)
    servers[server.alias] = server
    _write(state, servers)


def forget_server(state: Path, alias: str) -> bool:
    """Remove ``@alias``; whether it was saved."""
    servers = read_servers(state)
    if servers.pop(alias, None) is None:
        return False
    _write(state, servers)
    return True


def _write(state: Path, servers: dict[str, SavedServer]) -> None:
    prepare_state_folder(state)
    lines = [
        "# The Quire servers this machine signed in to (`quire login`). Keep it private: it",
        "# holds API tokens. `quire logout @alias` removes one.",
    ]
    for alias in sorted(servers):
        entry = servers[alias]
        lines += ["", f"[servers.{_quoted(alias)}]", f"url = {_quoted(entry.url)}"]
        lines.append(f"token = {_quoted(entry.token)}")
        if entry.ca_cert is not None:
            lines.append(f"ca_cert = {_quoted(entry.ca_cert)}")
    write_atomic(servers_file(state), "\n".join(lines) + "\n", overwrite=True, mode=0o600)


def _quoted(text: str) -> str:
    # A TOML basic string: JSON's escapes (\" \\ \n \uXXXX) are all valid TOML.
    return json.dumps(text, ensure_ascii=True)
