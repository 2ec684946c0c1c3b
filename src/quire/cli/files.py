"""``quire new|mv|cp|rm|append|trash``: the workspaces' file operations from a shell.

Each command turns its paths into absolute ones inside a workspace of the running server
(relative to the working directory, or to the only workspace), makes one call to the server's
file service (whose rules decide: names, traversal, no overwrite, the trash) and prints the
answer as terminal-safe text or ``--json``. The server must be running; nothing is started.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

import anyio
import click

from quire.cli.chat_context import current_invocation
from quire.cli.chat_output import json_text, safe
from quire.cli.output import EXIT_FAILED
from quire.client.api import QuireApi
from quire.client.chat_address import outside_message, refuse_remote, workspace_of
from quire.client.files import FileApi
from quire.core.errors import FileMissing, InvalidArgument, NameTaken, QuireError
from quire.core.limits import MAX_DOCUMENT_BYTES
from quire.core.paths import expand_path

T = TypeVar("T")
A = TypeVar("A")

EXIT_TAKEN = 3
EXIT_MISSING = 4
EXIT_INTERRUPTED = 130

EXIT_CODES = f"""\b
Exit codes:
  0  done
  {EXIT_FAILED}  refused or failed (a name the rules refuse, a path outside the server's
     workspaces, no server running, the server's error): the message says what to do
  2  the command line is wrong (click's usage error)
  {EXIT_TAKEN}  the destination already exists (nothing was replaced)
  {EXIT_MISSING}  the source (or the trash entry) does not exist"""

START_SERVER = "Start it with `quire serve FOLDER` (the workspace that holds the files)."

AS_JSON = click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead.")
PATH = click.argument("path", metavar="PATH")


def _run(work: Callable[[FileApi, list[Path]], Awaitable[T]]) -> T:
    return run_on_server(FileApi, work)


def run_on_server(
    wrap: Callable[[QuireApi], A], work: Callable[[A, list[Path]], Awaitable[T]]
) -> T:
    """Run ``work`` with the running server's API (as ``wrap`` makes it: the file or history
    API) and its workspaces; a QuireError is its message on stderr and its exit code (see
    ``EXIT_CODES``), Ctrl+C exits 130."""
    invocation = current_invocation()

    async def main() -> T:
        link = invocation.link()
        try:
            api = await link.require_running(START_SERVER)
            workspaces = [Path(folder) for folder in await api.workspaces()]
            return await work(wrap(api), workspaces)
        finally:
            await link.aclose()

    try:
        return anyio.run(main)
    except QuireError as error:
        click.echo(f"quire: {safe(str(error))}", err=True)
        sys.exit(exit_code(error))
    except KeyboardInterrupt:
        sys.exit(EXIT_INTERRUPTED)


def exit_code(error: QuireError) -> int:
    """The exit code of ``error`` (see ``EXIT_CODES``)."""
    if isinstance(error, NameTaken):
        return EXIT_TAKEN
    if isinstance(error, FileMissing):
        return EXIT_MISSING
    return EXIT_FAILED


def workspace_path(raw: str, workspaces: Sequence[Path], *, argument: str) -> Path:
    """The absolute path ``raw`` names inside a workspace: relative to the working directory,
    or (when that lands outside every workspace) to the only workspace. Its folder's links are
    resolved, never its last part: ``rm LINK`` trashes the link, not what it points to."""
    refuse_remote(raw, argument)
    cwd, home = Path.cwd(), Path.home()
    path = _parent_resolved(expand_path(raw, cwd=cwd, home=home, argument=argument))
    if workspace_of(path, workspaces) is not None:
        return path
    if not Path(raw).is_absolute() and not raw.startswith("~") and len(workspaces) == 1:
        inside = _parent_resolved(workspaces[0] / raw)
        if inside.is_relative_to(workspaces[0]):
            return inside
    raise InvalidArgument(outside_message(argument, path, workspaces), argument=argument)


def _parent_resolved(path: Path) -> Path:
    if path.name in ("", ".", ".."):
        return Path(os.path.realpath(path))
    return Path(os.path.realpath(path.parent)) / path.name


def read_stdin(argument: str) -> str:
    """Standard input as UTF-8 text (at most the document limit)."""
    data = sys.stdin.buffer.read(MAX_DOCUMENT_BYTES + 1)
    if len(data) > MAX_DOCUMENT_BYTES:
        raise InvalidArgument(
            f"{argument}: standard input holds more than {MAX_DOCUMENT_BYTES // (1024 * 1024)} "
            "MiB, the most a note may hold. Split it into several notes.",
            argument=argument,
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidArgument(
            f"{argument}: standard input is not UTF-8 text. Convert it first (`iconv -t UTF-8`).",
            argument=argument,
        ) from None


def _text_or_stdin(text: str, argument: str) -> str:
    """``-`` reads standard input; anything else is the text itself."""
    return read_stdin(argument) if text == "-" else text


def _echo(as_json: bool, value: object, text: str) -> None:
    click.echo(json_text(value) if as_json else safe(text))


@click.command("new", epilog=EXIT_CODES)
@PATH
@click.argument("content", metavar="[CONTENT]", required=False)
@click.option(
    "--template", "template", metavar="T", help="A note whose text the new one starts with."
)
@click.option("--folder", "folder", is_flag=True, help="Create a folder (and its parents) instead.")
@AS_JSON
def new_command(
    path: str, content: str | None, template: str | None, folder: bool, as_json: bool
) -> None:
    """Create the note PATH (.md added when missing; never replacing a file).

    CONTENT is its text, or - to read it from standard input; --template T starts it as a copy
    of the note T; without either it is empty. With --folder, PATH is a new folder.
    """

    async def work(files: FileApi, workspaces: list[Path]) -> None:
        target = str(workspace_path(path, workspaces, argument="PATH"))
        if folder:
            if content is not None or template is not None:
                raise InvalidArgument(
                    "A folder has no text: drop CONTENT and --template, or --folder.",
                    argument="--folder",
                )
            made = await files.create_folder(target)
        else:
            model = None
            if template is not None:
                model = str(workspace_path(template, workspaces, argument="--template"))
            text = None if content is None else _text_or_stdin(content, "CONTENT")
            made = await files.create_note(target, content=text, template=model)
        _echo(as_json, made, f"Created the {made.kind} {made.path}.")

    _run(work)


@click.command("mv", epilog=EXIT_CODES)
@click.argument("source", metavar="SRC")
@click.argument("destination", metavar="DST")
@click.option(
    "--update-links",
    "update_links",
    is_flag=True,
    help="Also rewrite the wikilinks and relative Markdown links that point to SRC.",
)
@AS_JSON
def mv_command(source: str, destination: str, update_links: bool, as_json: bool) -> None:
    """Rename or move SRC (a file or folder) to DST, the new full path (or a folder to put it
    in). Never replaces a file; open documents follow the move, unsaved edits kept. With
    --update-links the notes linking to SRC are rewritten, and listed."""

    async def work(files: FileApi, workspaces: list[Path]) -> None:
        src = workspace_path(source, workspaces, argument="SRC")
        dst = _into_folder(workspace_path(destination, workspaces, argument="DST"), src)
        moved = await files.move(str(src), str(dst), update_links=update_links)
        lines = [f"Moved {moved.path} to {moved.to}."]
        if update_links:
            count = len(moved.links_updated)
            lines.append(
                f"Updated the links in {count} note{'' if count == 1 else 's'}"
                + (":" if count else ".")
            )
            lines += [f"  {path}" for path in moved.links_updated]
        _echo(as_json, moved, "\n".join(lines))

    _run(work)


@click.command("cp", epilog=EXIT_CODES)
@click.argument("source", metavar="SRC")
@click.argument("destination", metavar="DST")
@AS_JSON
def cp_command(source: str, destination: str, as_json: bool) -> None:
    """Copy SRC (a file or folder) to DST, a new path (or a folder to put it in). Never
    replaces a file; links and special files inside a folder are left out."""

    async def work(files: FileApi, workspaces: list[Path]) -> None:
        src = workspace_path(source, workspaces, argument="SRC")
        dst = _into_folder(workspace_path(destination, workspaces, argument="DST"), src)
        copied = await files.copy(str(src), str(dst))
        skipped = f" ({copied.skipped} links or special files left out)" if copied.skipped else ""
        _echo(as_json, copied, f"Copied {copied.path} to {copied.to}{skipped}.")

    _run(work)


@click.command("rm", epilog=EXIT_CODES)
@PATH
@AS_JSON
def rm_command(path: str, as_json: bool) -> None:
    """Move PATH (a file or folder) to its workspace's trash, restorable for 30 days with
    `quire trash restore ID`. Tabs showing it close."""

    async def work(files: FileApi, workspaces: list[Path]) -> None:
        target = workspace_path(path, workspaces, argument="PATH")
        deleted = await files.delete(str(target))
        text = (
            f"Moved {deleted.path} to the trash "
            f"(restore it: quire trash restore {deleted.trash_id})."
        )
        _echo(as_json, deleted, text)

    _run(work)


@click.command("append", epilog=EXIT_CODES)
@PATH
@click.argument("content", metavar="CONTENT")
@AS_JSON
def append_command(path: str, content: str, as_json: bool) -> None:
    """Append CONTENT (or - : standard input) to the note PATH, on a line of its own: through
    its live document when it is open (editors see it at once), else to the file."""

    async def work(files: FileApi, workspaces: list[Path]) -> None:
        target = workspace_path(path, workspaces, argument="PATH")
        appended = await files.append(str(target), _text_or_stdin(content, "CONTENT"))
        how = " (through the open document)" if appended.live else ""
        _echo(as_json, appended, f"Appended to {appended.path}{how}.")

    _run(work)


def _into_folder(destination: Path, source: Path) -> Path:
    """A destination that is an existing folder (and not the source) means inside it."""
    try:
        into = destination != source and destination.is_dir() and not destination.is_symlink()
    except OSError:  # a name the OS cannot look up (too long): the server refuses it
        into = False
    return destination / source.name if into else destination


@click.group("trash", context_settings={"help_option_names": ["-h", "--help"]}, epilog=EXIT_CODES)
def trash_command() -> None:
    """The workspaces' trash: what `quire rm` and the window deleted, kept 30 days in each
    workspace's .quire/trash/."""


@trash_command.command("list", epilog=EXIT_CODES)
@AS_JSON
def trash_list_command(as_json: bool) -> None:
    """List the trash, newest first: each entry's id, original path and when it goes."""

    async def work(files: FileApi, workspaces: list[Path]) -> None:
        listed = await files.trash()
        lines = [
            f"{item.id}  {item.path}{'/' if item.is_folder else ''}  "
            f"deleted {_when(item.deleted_at_ms)}, removed {_when(item.expires_at_ms)}"
            for item in listed.items
        ]
        _echo(as_json, listed, "\n".join(lines) if lines else "The trash is empty.")

    _run(work)


@trash_command.command("restore", epilog=EXIT_CODES)
@click.argument("entry_id", metavar="ID")
@click.option("--to", "to", metavar="PATH", help="Restore it here instead of where it was.")
@AS_JSON
def trash_restore_command(entry_id: str, to: str | None, as_json: bool) -> None:
    """Put the trash entry ID (from `quire trash list`) back where it was, or at --to PATH;
    never over a file that took its place."""

    async def work(files: FileApi, workspaces: list[Path]) -> None:
        target = None if to is None else str(workspace_path(to, workspaces, argument="--to"))
        restored = await files.restore(entry_id, target)
        _echo(as_json, restored, f"Restored {restored.path}.")

    _run(work)


@trash_command.command("empty", epilog=EXIT_CODES)
@click.option("--expired", "expired", is_flag=True, help="Only what is past its 30 days.")
@AS_JSON
def trash_empty_command(expired: bool, as_json: bool) -> None:
    """Remove everything in the trash for good (with --expired, only what is past 30 days)."""

    async def work(files: FileApi, workspaces: list[Path]) -> None:
        emptied = await files.empty_trash(expired_only=expired)
        _echo(as_json, emptied, f"Removed {emptied.removed} trash entries for good.")

    _run(work)


def _when(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%d %H:%M UTC")
