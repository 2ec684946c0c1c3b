"""``quire chat``: talk in a chat note from a shell, as a person or as an agent (``--as NAME``).

Each command parses its arguments, makes its client calls (a wait may retry through a
server restart) and prints the answer as terminal-safe text or ``--json``. Exit codes: 0 done,
1 error, and for ``wait`` 2 on timeout and 3 when the chat is gone.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import anyio
import click

from quire.cli.chat_context import Invocation, current_invocation, resolve_chat, resolve_workspace
from quire.cli.chat_keepalive import keepalive_command
from quire.cli.chat_output import (
    chats_text,
    gifs_text,
    gone_text,
    json_text,
    post_text,
    safe,
    timeout_text,
    view_text,
    wait_text,
)
from quire.cli.output import fail, reports_errors, to_jsonable
from quire.client.chat_wait import WaitRequest, wait_for_messages
from quire.client.chats import ChatApi
from quire.client.connection import ServerLink
from quire.client.servers import names_only_a_server
from quire.core.errors import InvalidArgument, PathRefused, QuireError
from quire.core.limits import MAX_DOCUMENT_BYTES
from quire.core.paths import expand_path
from quire.fs.documents import ANY_FILE, read_file
from quire.fs.folders import AllowedFolders

EXIT_TIMEOUT = 2
EXIT_GONE = 3
EXIT_INTERRUPTED = 130
DEFAULT_WAIT_SECONDS = 600
MAX_WAIT_SECONDS = 600

T = TypeVar("T")

CHAT = click.argument("chat", metavar="CHAT")
AS_JSON = click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead.")
AS_NAME = click.option(
    "--as",
    "name",
    metavar="NAME",
    help="The name to use in the chat (default: $QUIRE_AS, $QUIRE_USER, the login name).",
)
SESSION = click.option(
    "--session",
    metavar="ID",
    help="The agent session id to record (default: the one the agent's harness sets).",
)


def _run(work: Callable[[ServerLink, Invocation], Awaitable[T]], address: str | None = None) -> T:
    """Run ``work`` in an event loop with this process's invocation and a server link: the
    server ``address`` names when it is an ``@alias/…`` address, else the local one."""
    invocation = current_invocation()

    async def main() -> T:
        link = invocation.link(address)
        try:
            return await work(link, invocation)
        finally:
            await link.aclose()

    try:
        return anyio.run(main)
    except QuireError as error:
        # Messages can quote what others typed (a name, a path): shown terminal-safe.
        fail(safe(str(error)))
    except KeyboardInterrupt:
        sys.exit(EXIT_INTERRUPTED)
    raise AssertionError("unreachable")


def _echo(as_json: bool, value: object, text: str) -> None:
    click.echo(json_text(value) if as_json else text)


@click.group("chat", context_settings={"help_option_names": ["-h", "--help"]})
def chat_command() -> None:
    """Talk in a chat: a Markdown note whose messages people and agents append.

    CHAT is the chat note's path (absolute or relative to the working directory), inside a
    workspace of the Quire server; a server starts in the background when none runs. Or
    @alias/workspace/path.md: that note on a server signed in to with `quire login` (WORKSPACE
    arguments take @alias/workspace the same way). Give each
    agent one name and use it with --as on every command. An agent reads once, then loops:
    wait, post a reply, wait again. wait exits 0 with new messages, 2 on --timeout (run it
    again), 3 when the chat is gone (run the leave command it prints, then stop), 1 on an
    error.
    """


@chat_command.command("new")
@CHAT
@click.argument("title", required=False)
@click.option(
    "--private",
    is_flag=True,
    help="Team servers: a new note only your account can open until you add members.",
)
@AS_JSON
@reports_errors
def new_command(chat: str, title: str | None, private: bool, as_json: bool) -> None:
    """Make CHAT a chat: a new note titled TITLE, or the chat tag added to an existing note.
    On a team server the chat is open to everyone who can read the note, unless --private."""

    async def work(link: ServerLink, invocation: Invocation) -> None:
        api, path = await resolve_chat(link, invocation, chat)
        created = await api.create(path, title, private=private)
        if created.created:
            text = f"Created the {'private ' if created.private else ''}chat {created.path}."
        elif created.converted:
            text = f"Turned {created.path} into a chat (its text is now the description)."
        else:
            text = f"{created.path} is already a chat."
        _echo(as_json, created, text)

    _run(work, chat)


@chat_command.command("read")
@CHAT
@AS_NAME
@click.option(
    "--after", type=click.IntRange(min=0), metavar="N", help="Show only messages after #N."
)
@SESSION
@AS_JSON
@reports_errors
def read_command(
    chat: str, name: str | None, after: int | None, session: str | None, as_json: bool
) -> None:
    """Print the chat: a line naming everyone in it, then its messages; marks it read for NAME."""

    async def work(link: ServerLink, invocation: Invocation) -> None:
        api, path = await resolve_chat(link, invocation, chat)
        reader = invocation.reader(name)
        view = await api.read(path, reader, after, session=invocation.session(session))
        _echo(as_json, view, view_text(view))

    _run(work, chat)


@chat_command.command("post")
@CHAT
@click.argument("message", required=False)
@AS_NAME
@click.option("--file", "file", metavar="FILE", help="Post the text of FILE.")
@SESSION
@AS_JSON
@reports_errors
def post_command(
    chat: str,
    message: str | None,
    name: str | None,
    file: str | None,
    session: str | None,
    as_json: bool,
) -> None:
    """Post MESSAGE (`-` reads it from stdin, --file from a file) to the chat as NAME.

    A message that starts with /status, /context or /role is not added to the chat: it sets
    what NAME is working on (2 minutes), how full its context is (`/context 42%` or
    `/context 87k/200k`, an hour) or its role in this chat (kept in the note). Empty clears.
    """
    body = _message_body(message, file)

    async def work(link: ServerLink, invocation: Invocation) -> None:
        api, path = await resolve_chat(link, invocation, chat)
        reader = invocation.reader(name)
        result = await api.post(path, reader, body, session=invocation.session(session))
        _echo(as_json, result, post_text(result, path, reader))

    _run(work, chat)


def _read_file_option(file: str) -> bytes:
    """The bytes of ``--file``: a regular file that is not a dotfile nor in a hidden folder,
    read as every reader reads (no swapped-in link followed, at most 16 MiB)."""
    path = expand_path(file, cwd=Path.cwd(), home=Path.home(), argument="--file")
    folders = AllowedFolders.whole_disk(hidden_folders=False)
    try:
        _found, data = read_file(folders, path, kind=ANY_FILE)
    except PathRefused as refused:
        raise refused.with_message(
            f"{refused} Hidden files often hold secrets, so --file does not read them; pass "
            "a copy of the text from a file that is not hidden."
        ) from None
    return data


def _message_body(message: str | None, file: str | None) -> str:
    if message is not None and file is not None:
        raise InvalidArgument(
            "Pass the message as an argument or with --file, not both.", argument="--file"
        )
    if file is not None:
        return _decoded(_read_file_option(file), file)
    if message == "-":
        data = sys.stdin.buffer.read(MAX_DOCUMENT_BYTES + 1)
        if len(data) > MAX_DOCUMENT_BYTES:
            raise InvalidArgument(
                "The message on stdin is over 16 MiB; a chat message holds at most 64 KB.",
                argument="MESSAGE",
            )
        return _decoded(data, "stdin")
    if message is None:
        raise InvalidArgument(
            "Pass the message to post: as an argument, `-` to read it from stdin, or --file FILE.",
            argument="MESSAGE",
        )
    return message


def _decoded(data: bytes, source: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InvalidArgument(
            f"The message in {source} is not UTF-8 text (byte {error.start}). Save it as "
            "UTF-8 and post it again.",
            argument="MESSAGE",
        ) from None


@chat_command.command("wait")
@CHAT
@AS_NAME
@click.option(
    "--timeout",
    type=click.IntRange(1, MAX_WAIT_SECONDS),
    default=DEFAULT_WAIT_SECONDS,
    show_default=True,
    metavar="SECONDS",
    help="Give up after this long (exit 2).",
)
@click.option(
    "--after",
    type=click.IntRange(min=0),
    metavar="N",
    help="Wait for messages after #N instead of NAME's saved position.",
)
@click.option("--mentions", is_flag=True, help="Wake only for messages that mention NAME.")
@SESSION
@AS_JSON
@reports_errors
def wait_command(
    chat: str,
    name: str | None,
    timeout: int,
    after: int | None,
    mentions: bool,
    session: str | None,
    as_json: bool,
) -> None:
    """Wait for messages new to NAME (never NAME's own), print them and exit 0.

    New means since NAME last read or waited, so nothing posted while NAME was busy is lost.
    Exits 2 when --timeout passes first, 3 when the chat is deleted or no longer a chat
    (printing the `quire chat leave` command to run), 1 on an error. A server restart during
    the wait is waited out.
    """

    async def work(link: ServerLink, invocation: Invocation) -> int:
        _, path = await resolve_chat(link, invocation, chat)
        reader = invocation.reader(name)
        found = invocation.session(session)
        request = WaitRequest(
            path=path,
            reader=reader,
            timeout=timeout,
            after=after,
            mentions_only=mentions,
            session=found,
            command=invocation.command,
        )
        result = await wait_for_messages(link, request)
        match result.status:
            case "messages":
                _echo(as_json, result, wait_text(result))
                return 0
            case "timeout":
                _echo(as_json, result, timeout_text(path, reader, timeout))
                return EXIT_TIMEOUT
            case "gone":
                leave = invocation.leave_command(chat, reader, found)
                value = {**to_jsonable(result), "leave_command": leave}
                _echo(as_json, value, gone_text(path, leave))
                return EXIT_GONE

    sys.exit(_run(work, chat))


@chat_command.command("list")
@click.argument("workspace", required=False, metavar="[WORKSPACE]")
@AS_NAME
@AS_JSON
@reports_errors
def list_command(workspace: str | None, name: str | None, as_json: bool) -> None:
    """List the chats of WORKSPACE (every workspace when left out, or given as @alias alone),
    most recently active first, with NAME's unread counts."""

    async def work(link: ServerLink, invocation: Invocation) -> None:
        if workspace is None or names_only_a_server(workspace):
            api = ChatApi(await link.api())
            chats = await api.list_chats(None, invocation.reader(name))
        else:
            api, folder = await resolve_workspace(link, invocation, workspace)
            chats = await api.list_chats(folder, invocation.reader(name))
        _echo(as_json, {"chats": chats}, chats_text(chats))

    _run(work, workspace)


@chat_command.command("leave")
@CHAT
@AS_NAME
@SESSION
@AS_JSON
@reports_errors
def leave_command(chat: str, name: str | None, session: str | None, as_json: bool) -> None:
    """Leave the chat: NAME no longer shows as waiting, and the keepalive hook lets this
    agent session stop."""

    async def work(link: ServerLink, invocation: Invocation) -> None:
        api, path = await resolve_chat(link, invocation, chat)
        reader = invocation.reader(name)
        await api.leave(path, reader, session=invocation.session(session))
        _echo(as_json, {"left": True, "path": path}, f"{reader} left {path}.")

    _run(work, chat)


@chat_command.command("avatar")
@click.argument("workspace", required=False, metavar="[WORKSPACE]")
@AS_NAME
@click.option(
    "--pick",
    metavar="NAME|auto",
    help="A built-in avatar (robot, owl, cat, alien, ghost, fox), or auto for the first "
    "one nobody in the workspace has.",
)
@click.option("--file", "file", metavar="FILE", help="Your own SVG drawing (under 20 KB).")
@AS_JSON
@reports_errors
def avatar_command(
    workspace: str | None, name: str | None, pick: str | None, file: str | None, as_json: bool
) -> None:
    """Give NAME an avatar in WORKSPACE's chats (default: the workspace of the working
    directory), saved as ChatGifs/avatar-NAME.svg; running it again replaces it."""
    if (pick is None) == (file is None):
        raise InvalidArgument(
            "Pass exactly one of --pick NAME|auto and --file FILE.", argument="--pick"
        )
    svg = None
    if file is not None:
        svg = _decoded(_read_file_option(file), file)

    async def work(link: ServerLink, invocation: Invocation) -> None:
        api, folder = await resolve_workspace(link, invocation, workspace)
        reader = invocation.reader(name)
        result = await api.set_avatar(folder, reader, pick=pick, svg=svg)
        picked = f" (the built-in {result.picked})" if result.picked else ""
        _echo(as_json, result, f"{reader} now has the avatar {result.name}{picked}.")

    _run(work, workspace)


@chat_command.command("gifs")
@click.argument("workspace", required=False, metavar="[WORKSPACE]")
@AS_JSON
@reports_errors
def gifs_command(workspace: str | None, as_json: bool) -> None:
    """List the reactions and avatars the chats of WORKSPACE may use (default: the
    workspace of the working directory)."""

    async def work(link: ServerLink, invocation: Invocation) -> None:
        api, folder = await resolve_workspace(link, invocation, workspace)
        gifs = await api.gifs(folder)
        _echo(as_json, gifs, gifs_text(gifs))

    _run(work, workspace)


chat_command.add_command(keepalive_command)
