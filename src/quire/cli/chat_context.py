"""What every ``quire chat`` command starts from: the server link, who is speaking, the
session and the command line as typed.

The composition root of the chat commands: the only place that reads the environment,
``sys.argv`` and the working directory for them. It prints nothing.
"""

from __future__ import annotations

import getpass
import os
import re
import shlex
import shutil
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from quire.client.autostart import SubprocessStarter
from quire.client.chat_address import chat_path, workspace_path
from quire.client.chats import ChatApi
from quire.client.connection import ServerLink
from quire.client.remote import address_path, alias_link, workspace_folder
from quire.client.servers import parse_address
from quire.core.errors import InvalidArgument
from quire.core.state import state_folder

AS_ENV = ("QUIRE_AS", "QUIRE_USER")
"""Where ``--as`` comes from when it is not given, in order (then the login name)."""

SESSION_ENV = (
    "CLAUDE_CODE_SESSION_ID",
    "CLAUDE_SESSION_ID",
    "CODEX_THREAD_ID",
    "CODEX_SESSION_ID",
    "QUIRE_SESSION",
)
"""The variables an agent harness sets to its session id, in the order they are believed.

Claude Code gives its Bash tool ``CLAUDE_CODE_SESSION_ID`` (the hooks' ``session_id``)."""

MAX_COMMAND_CHARS = 8192
"""The longest command line the server records for a session."""

_SESSION_ID = re.compile(r"[\x21-\x7e]{1,200}")


@dataclass(frozen=True)
class Invocation:
    """One run of a chat command: where it runs and what was typed."""

    cwd: Path
    home: Path
    environ: Mapping[str, str]
    typed: tuple[str, ...]
    """The command line as typed (the program words, then the arguments)."""

    @property
    def program(self) -> tuple[str, ...]:
        """The words that start Quire (``quire``, or ``python -m quire.cli.main``)."""
        return self.typed[: self.typed.index("chat")] if "chat" in self.typed else self.typed

    @property
    def command(self) -> str | None:
        """The command line, re-quoted so a shell runs it unchanged (None when it is longer
        than the server keeps)."""
        command = shlex.join(self.typed)
        return command if len(command) <= MAX_COMMAND_CHARS and "\0" not in command else None

    def session(self, given: str | None) -> str | None:
        """``--session``, else the first session variable the harness set (when it looks like
        a session id: 1 to 200 visible ASCII characters), else None."""
        if given is not None:
            return given
        for name in SESSION_ENV:
            value = self.environ.get(name, "").strip()
            if _SESSION_ID.fullmatch(value):
                return value
        return None

    def reader(self, given: str | None) -> str:
        """``--as``, else $QUIRE_AS, $QUIRE_USER, else the login name."""
        if given is not None:
            return given
        for name in AS_ENV:
            value = self.environ.get(name, "").strip()
            if value:
                return value
        try:
            return getpass.getuser()
        except (OSError, KeyError):
            return "owner"

    def link(self, address: str | None = None) -> ServerLink:
        """The link to the server signed in to as ``@alias`` when ``address`` is an
        ``@alias/…`` address, else to the local server, starting one in the working directory
        when none runs."""
        state = state_folder(self.environ, self.home)
        if address is not None and address.startswith("@"):
            return alias_link(state, address, "CHAT")[0]
        starter = SubprocessStarter(state=state, cwd=self.cwd, environ=self.environ)
        return ServerLink(state=state, starter=starter)

    def leave_command(self, chat: str, reader: str, session: str | None) -> str:
        """The ``quire chat leave`` to run for ``chat`` as ``reader``, quoted for a shell."""
        words = [*self.program, "chat", "leave", chat, "--as", reader]
        if session is not None and "--session" in self.typed:
            words += ["--session", session]
        return shlex.join(words)


def typed_argv(
    argv: Sequence[str], orig_argv: Sequence[str], which: Callable[[str], str | None]
) -> tuple[str, ...]:
    """The command line as the person or agent typed it.

    Run as ``python -m quire.cli.main``, the interpreter's own argv is exact. Run as the
    ``quire`` script, the script's path is kept, shortened to its name when that name finds
    the same file on PATH.
    """
    arguments = list(argv[1:])
    script = argv[0] if argv else "quire"
    if script.endswith(".py") and list(orig_argv[len(orig_argv) - len(arguments) :]) == arguments:
        return tuple(orig_argv)
    name = Path(script).name
    found = which(name)
    if found is not None and os.path.realpath(found) == os.path.realpath(script):
        script = name
    return (script, *arguments)


def current_invocation() -> Invocation:
    """This process's invocation."""
    return Invocation(
        cwd=Path.cwd(),
        home=Path.home(),
        environ=dict(os.environ),
        typed=typed_argv(sys.argv, sys.orig_argv, shutil.which),
    )


async def resolve_chat(link: ServerLink, invocation: Invocation, raw: str) -> tuple[ChatApi, str]:
    """The chat API of the server (started when none runs) and the chat's absolute path; an
    ``@alias/workspace/path.md`` address is the path on that server (``link`` is its own)."""
    api = await link.api()
    if raw.startswith("@"):
        address = parse_address(raw, "CHAT")
        if address.path is None:
            raise InvalidArgument(
                f"CHAT {raw[:200]!r} names no note: write @{address.alias}/WORKSPACE/path.md.",
                argument="CHAT",
            )
        return ChatApi(api), await address_path(api, address, "CHAT")
    workspaces = [Path(folder) for folder in await api.workspaces()]
    path = chat_path(raw, cwd=invocation.cwd, home=invocation.home, workspaces=workspaces)
    return ChatApi(api), str(path)


async def resolve_workspace(
    link: ServerLink, invocation: Invocation, raw: str | None
) -> tuple[ChatApi, str]:
    """The chat API and the absolute path of the workspace ``raw`` (or the cwd) names; for an
    ``@alias/workspace`` address, that server's workspace of that name."""
    api = await link.api()
    if raw is not None and raw.startswith("@"):
        folder = await workspace_folder(api, parse_address(raw, "WORKSPACE"), "WORKSPACE")
        return ChatApi(api), folder
    workspaces = [Path(folder) for folder in await api.workspaces()]
    path = workspace_path(
        raw, cwd=invocation.cwd, home=invocation.home, workspaces=workspaces, argument="WORKSPACE"
    )
    return ChatApi(api), str(path)
