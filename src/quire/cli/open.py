"""``quire open``: show a Markdown file, or a document piped on stdin, in the person's window.

Reads its own arguments (so ``--``, ``-`` and arguments that are not UTF-8 follow its rules
exactly), checks the path before any server is contacted, and reports; the opening is
``quire.client.opening``'s and the server and browser starts are ``cli/launch.py``'s.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, NoReturn

import anyio
import click

from quire import __version__
from quire.cli.arguments import (
    BadArguments,
    OwnArgumentsCommand,
    UsageError,
    raw_arguments,
    refuse_non_utf8,
)
from quire.cli.launch import document_link, open_browser
from quire.cli.output import fail
from quire.client.connection import ServerLink
from quire.client.inbox import discard, read_piped_document, save_to_inbox
from quire.client.opening import Shown, show_document, window_url
from quire.core.errors import QuireError, ServerFailed, ServerUnreachable, TokenRefused
from quire.core.paths import expand_path
from quire.core.state import inbox_folder, state_folder
from quire.core.views import OpenMode
from quire.fs.documents import find_file
from quire.fs.folders import AllowedFolders

STDIN = "-"
TERMINAL_HINT = (
    "quire open: reading the document from the terminal. Type or paste it, then press Ctrl+D "
    "on a line of its own to finish (Ctrl+Z then Enter on Windows)."
)
_HELP = ("-h", "--help")
_VERSION = ("-V", "--version")
_FLAGS = {
    "-e": "edit",
    "--edit": "edit",
    "-r": "read",
    "--read": "read",
    "--no-browser": "no-browser",
}


@dataclass(frozen=True)
class OpenArguments:
    """What ``quire open`` was asked: a path (or stdin), a view, and whether to start a browser."""

    file: str
    from_stdin: bool
    mode: OpenMode | None
    no_browser: bool


Parsed = OpenArguments | Literal["help", "version", "nothing"]


def parse_open_arguments(arguments: list[str]) -> Parsed:
    """The command line's meaning; BadArguments saying what is wrong with it.

    Help wins over everything before ``--``, then the version; ``nothing`` is no argument at
    all. After ``--`` every argument is a file name, ``-`` included.
    """
    if not arguments:
        return "nothing"
    options = arguments[: arguments.index("--")] if "--" in arguments else arguments
    if any(option in _HELP for option in options):
        return "help"
    if any(option in _VERSION for option in options):
        return "version"
    refuse_non_utf8(arguments)
    flags, files = _split(arguments)
    if {"edit", "read"} <= flags:
        raise BadArguments("-e/--edit and -r/--read cannot be used together: pass one of them.")
    file, from_stdin = _one_file(files)
    mode: OpenMode | None = "edit" if "edit" in flags else "read" if "read" in flags else None
    return OpenArguments(file, from_stdin, mode, "no-browser" in flags)


def _split(arguments: list[str]) -> tuple[set[str], list[tuple[str, bool]]]:
    """The flags given, and each file argument with whether it means stdin."""
    flags: set[str] = set()
    files: list[tuple[str, bool]] = []
    ended = False
    for argument in arguments:
        if ended or argument == STDIN or not argument.startswith("-"):
            files.append((argument, not ended and argument == STDIN))
        elif argument == "--":
            ended = True
        elif argument in _FLAGS:
            flags.add(_FLAGS[argument])
        else:
            raise BadArguments(
                f"No such option: {argument}. To open a file whose name starts with '-', "
                f"put `--` before it (quire open -- {argument})."
            )
    return flags, files


def _one_file(files: list[tuple[str, bool]]) -> tuple[str, bool]:
    if not files:
        raise BadArguments(
            "Missing argument 'FILE': pass the Markdown file to open, or - for stdin."
        )
    if len(files) > 1:
        extra = " ".join(name for name, _ in files[1:])
        raise BadArguments(
            f"quire open takes one FILE, but also got: {extra}. Open each file with its own "
            "command."
        )
    file, from_stdin = files[0]
    if not file.strip():
        raise BadArguments(
            "The path is empty (an unset variable?): pass the path of a Markdown file, or - to "
            "read the document from stdin."
        )
    return file, from_stdin


@click.command(
    "open",
    cls=OwnArgumentsCommand,
    options_metavar="[-e | -r] [--no-browser]",
)
@click.argument("file", metavar="FILE")
@click.option("-e", "--edit", is_flag=True, help="Open it in the Edit view.")
@click.option(
    "-r",
    "--read",
    is_flag=True,
    help="Open it in the Read view. Without -e or -r, a document already open keeps its view.",
)
@click.option(
    "--no-browser",
    is_flag=True,
    help="When no browser window shows Quire, print the address to open instead of starting "
    "a browser.",
)
@click.option("-V", "--version", is_flag=True, help="Show the version and exit.")
@click.pass_context
def open_command(ctx: click.Context, /, **_: object) -> None:
    """Open the Markdown file FILE in Quire's window (the web page of `quire serve`).

    Pass - as FILE to read the document from stdin into a private file in the state folder's
    inbox (at most 16 MiB, not blank); after --, every argument is a file name, - and
    -draft.md too. Only Markdown documents (.md .markdown .mdown .mkd .mdx) that are not
    dotfiles are opened, checked before any server is contacted, and only inside a folder the
    running server serves. When no server runs, `quire serve` starts in the background for the
    quire.toml workspace that holds FILE, or else for FILE's folder. When no browser window
    shows Quire, a browser opens at the document. Any failure exits 1 with the reason on
    stderr.
    """
    try:
        parsed = parse_open_arguments(raw_arguments(ctx))
    except BadArguments as err:
        raise UsageError(str(err), ctx) from None
    if parsed == "help":
        click.echo(ctx.get_help())
    elif parsed == "version":
        click.echo(f"quire open {__version__}")
    elif parsed == "nothing":
        click.echo(ctx.get_help(), err=True)
        sys.exit(1)
    else:
        _open(ctx, parsed)


def _open(ctx: click.Context, arguments: OpenArguments) -> None:
    home = Path.home()
    cwd = Path.cwd()
    state = state_folder(os.environ, home)
    try:
        if arguments.from_stdin:
            if sys.stdin is not None and sys.stdin.isatty():
                click.echo(TERMINAL_HINT, err=True)
            text = read_piped_document(sys.stdin.buffer if sys.stdin is not None else None)
            path = save_to_inbox(state, text)
        else:
            expanded = expand_path(arguments.file, cwd=cwd, home=home, argument="FILE")
            if _is_folder(expanded):
                raise UsageError(
                    f"'{expanded}' is a folder, not a document: pass the path of a Markdown "
                    "file inside it.",
                    ctx,
                )
            path = find_file(AllowedFolders.whole_disk(), expanded, verb="open").path
    except QuireError as err:
        _fail(str(err))
    link = document_link(
        state=state,
        environ=os.environ,
        cwd=cwd,
        document=None if arguments.from_stdin else path,
    )
    also_served = (inbox_folder(state).resolve(),) if arguments.from_stdin else ()
    try:
        shown = anyio.run(_show, link, path, arguments.mode, also_served)
    except ServerFailed as err:
        kept = f" The text from stdin stays in '{path}'." if arguments.from_stdin else ""
        _fail(f"Could not confirm that Quire opened '{path}': {err} It may still open it.{kept}")
    except QuireError as err:
        if arguments.from_stdin:
            discard(path)
        if isinstance(err, ServerUnreachable | TokenRefused):
            _fail(f"Could not open '{path}' in Quire: {err}")
        _fail(str(err))
    _report(shown, arguments)


async def _show(
    link: ServerLink, path: Path, mode: OpenMode | None, also_served: tuple[Path, ...]
) -> Shown:
    try:
        return await show_document(link, path, mode, also_served=also_served)
    finally:
        await link.aclose()


def _fail(message: str) -> NoReturn:
    fail(message)
    raise AssertionError("unreachable")


def _report(shown: Shown, arguments: OpenArguments) -> None:
    if shown.started:
        folders = ", ".join(f"'{folder}'" for folder in shown.workspaces)
        click.echo(
            f"quire: no Quire server was running, so one was started in the background at "
            f"{shown.server.url} (pid {shown.server.pid}), serving {folders}.",
            err=True,
        )
    if shown.browser_connected is not False:
        return
    url = window_url(shown.server)
    if not arguments.no_browser and open_browser(url, os.environ):
        return
    reason = "" if arguments.no_browser else ", and none could be started here"
    click.echo(
        f"quire: no browser window shows Quire{reason}; open this address to see '{shown.path}':",
        err=True,
    )
    click.echo(url)


def _is_folder(path: Path) -> bool:
    # A name the OS cannot even look up (over 255 bytes, a path over PATH_MAX) is no folder;
    # check_document then refuses it with the limit it breaks.
    try:
        return path.is_dir()
    except OSError:
        return False
