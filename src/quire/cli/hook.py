"""``quire hook …``: commands an agent's harness runs at its hook points.

``quire hook post-tool-use`` is Claude Code's PostToolUse hook that opens the Markdown file the
agent just wrote. A hook never gets in the agent's way: it prints nothing, exits 0 whatever
happens and gives up after a few seconds; only a wrong command line is reported (exit 1).
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

import anyio
import click

from quire.cli.arguments import OwnArgumentsCommand, UsageError, printable, raw_arguments
from quire.cli.launch import document_link, open_browser, quiet_output
from quire.client.connection import ServerLink
from quire.client.hook_payload import MAX_PAYLOAD_BYTES, written_document
from quire.client.opening import Shown, show_document, window_url
from quire.core.state import state_folder

HOOK_BUDGET = 8.0
"""The most one hook run may spend finding, starting and asking the server (seconds)."""


@click.group("hook")
def hook_group() -> None:
    """Hooks that agents' harnesses run (add them with `quire connect hook`)."""


@hook_group.command("post-tool-use", cls=OwnArgumentsCommand, options_metavar="")
@click.pass_context
def post_tool_use_command(ctx: click.Context) -> None:
    """Claude Code's PostToolUse hook: open the Markdown file the agent just wrote.

    Reads the hook's JSON payload on stdin (at most 64 MiB) and acts only on a PostToolUse
    event of Write, Edit or MultiEdit whose tool did not fail, naming a Markdown document that
    is not a dotfile: it opens that file in the Read view, starting `quire serve` when none
    runs and a browser when no window shows Quire. It prints nothing and exits 0 whatever
    happens, within a few seconds. It takes no arguments (the payload comes on stdin); an
    argument is a usage error, exit 1.
    """
    arguments = raw_arguments(ctx)
    if any(argument in ("-h", "--help") for argument in arguments):
        click.echo(ctx.get_help())
        return
    if arguments:
        raise UsageError(
            f"Unexpected argument '{printable(arguments[0])}': this hook takes no arguments, "
            "the agent sends its payload on stdin.",
            ctx,
        )
    with contextlib.suppress(Exception):
        payload = _read_payload()
        with quiet_output():
            _open_written(payload)


def _read_payload() -> bytes:
    stream = sys.stdin.buffer if sys.stdin is not None else None
    return b"" if stream is None else stream.read(MAX_PAYLOAD_BYTES + 1)


def _open_written(payload: bytes) -> None:
    home = Path.home()
    path = written_document(payload, cwd=Path.cwd(), home=home)
    if path is None:
        return
    state = state_folder(os.environ, home)
    link = document_link(state=state, environ=os.environ, cwd=path.parent, document=path)
    shown = anyio.run(_show_within_budget, link, path)
    if shown is not None and shown.browser_connected is False:
        open_browser(window_url(shown.server), os.environ)


async def _show_within_budget(link: ServerLink, path: Path) -> Shown | None:
    try:
        with anyio.move_on_after(HOOK_BUDGET):
            return await show_document(link, path, "read", answer_timeout=HOOK_BUDGET)
        return None
    finally:
        await link.aclose()
