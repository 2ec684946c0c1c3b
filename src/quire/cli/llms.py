"""Generate ``llms.txt``: what Quire is and how an agent uses it, from the catalogs.

The tools, prompts and resources come from the MCP catalog, the commands from the CLI's own
help, the working rules from the MCP server's instructions, so the file cannot drift from them.
``python -m quire.cli.llms --write`` writes it to ``docs/llms.txt`` and to the package
(``quire/web/llms.txt``, which the server serves at ``/llms.txt``); a test fails while either
differs from what this module generates.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

import click

from quire import __version__
from quire.mcp.catalog import TOOLS
from quire.mcp.chat import CHAT_TOOLS
from quire.mcp.prompts import PROMPTS
from quire.mcp.resources import STATIC, TEMPLATE
from quire.mcp.server import INSTRUCTIONS

ROOT = Path(__file__).resolve().parents[3]
PACKAGE_COPY = Path(__file__).resolve().parents[1] / "web" / "llms.txt"
"""The copy the server serves (inside the package, so an installed wheel has it)."""

DOCS_COPY = ROOT / "docs" / "llms.txt"
"""The copy in the repository's docs (only in a checkout)."""

SUMMARY = (
    "> Quire is a Markdown workspace where people and AI coding agents work on the same "
    "documents. The files stay plain Markdown in the person's own folders; the person reads, "
    "edits, reviews and chats in a browser window, and an agent does the same through MCP "
    "tools and the `quire` command line."
)

CONNECT = """\
## Connect

- Install: `pipx install quire` (or run it without installing: `uvx quire mcp`); it needs
  Python 3.11 or newer and nothing else. `quire setup` creates `~/.quire`, checks the machine
  and offers to connect each agent it finds.
- `quire mcp` is the stdio MCP server an agent launches. It finds the running server through
  `~/.quire/server.json` and starts `quire serve` in the background when a tool needs it.
  `quire connect claude-code`, `quire connect codex` and `quire connect cursor` register it;
  `quire connect AGENT --print` shows the command or JSON to paste for other clients.
- A running `quire serve` also speaks MCP over Streamable HTTP at `/mcp`, with
  `Authorization: Bearer <token>` (the token is in `~/.quire/server.json`).
- Tools may touch only allowed folders: the server's workspaces, each `--allow DIR`, and the
  client's MCP roots (unless `--no-roots`). Only Markdown files that are not dotfiles, at most
  16 MiB, in UTF-8, are read.
"""

CHAT = """\
## Chat

Any note can be a chat between the person and several agents; messages are appended to the
note as Markdown. Tools: {tools}. From a shell, `quire chat wait NOTE --as NAME` waits (one
long-poll request) until a message for NAME arrives, and `quire chat post` answers; the read
cursors live on the server, so an agent that restarts picks up where it left off.
"""


def _first_sentence(text: str) -> str:
    """The first sentence of ``text`` on one line (the whole text when it has no full stop)."""
    flat = " ".join(text.split())
    end = flat.find(". ")
    return flat if end < 0 else flat[: end + 1]


def _commands(root: click.Command, name: str) -> Iterable[tuple[str, str]]:
    """(command path, first help sentence) of every visible command under ``root``."""
    context = click.Context(root, info_name=name)
    if not isinstance(root, click.Group):
        return
    for sub_name in root.list_commands(context):
        sub = root.get_command(context, sub_name)
        if sub is None or sub.hidden:
            continue
        path = f"{name} {sub_name}"
        yield path, _first_sentence(sub.help or sub.short_help or "")
        yield from _commands(sub, path)


def llms_text(cli: click.Command) -> str:
    """The whole llms.txt for the command group ``cli``."""
    tools = "\n".join(
        f"- `{tool.name}` ({tool.title}): {_first_sentence(tool.description)}" for tool in TOOLS
    )
    prompts = "\n".join(f"- `{prompt.name}`: {prompt.title}." for prompt in PROMPTS)
    resources = (
        "\n".join(f"- `{resource.uri}`: {resource.title}." for resource in STATIC)
        + f"\n- `{TEMPLATE.uri_template}`: {TEMPLATE.title}."
    )
    commands = "\n".join(f"- `{path}`: {text}" for path, text in _commands(cli, "quire"))
    chat_tools = ", ".join(f"`{tool.name}`" for tool in CHAT_TOOLS)
    return "\n".join(
        [
            "# Quire",
            "",
            SUMMARY,
            "",
            f"Quire {__version__}. Generated from Quire's tool catalog and command help by "
            "`python -m quire.cli.llms --write`; served by a running Quire at `/llms.txt`.",
            "",
            CONNECT,
            "## How an agent works with Quire",
            "",
            INSTRUCTIONS,
            "",
            CHAT.format(tools=chat_tools),
            "## MCP tools",
            "",
            tools,
            "",
            "## MCP prompts",
            "",
            prompts,
            "",
            "## MCP resources",
            "",
            resources,
            "",
            "## Command line",
            "",
            "Every command that reads a file takes `--json` where it prints a result.",
            "",
            commands,
            "",
            "## Docs",
            "",
            "In Quire's repository and source distribution:",
            "",
            "- `docs/mcp-tools.md`: every tool, resource and prompt, and their rules",
            "- `docs/connect.md`: connecting Claude Code, Codex and Cursor, and the hooks",
            "- `docs/chat.md`: the chat format, `quire chat`, the keepalive hook",
            "- `docs/cli.md`: every command and option",
            "- `docs/settings.md`: every setting, its flag and environment variable",
            "",
        ]
    )


def main(argv: list[str]) -> int:
    """Print llms.txt, or with ``--write`` write both copies."""
    from quire.cli.main import cli

    text = llms_text(cli)
    if argv == ["--write"]:
        for path in (PACKAGE_COPY, DOCS_COPY):
            temporary = path.with_name(f".{path.name}.tmp")
            temporary.write_text(text, encoding="utf-8")
            temporary.replace(path)
        return 0
    if argv:
        click.echo("usage: python -m quire.cli.llms [--write]", err=True)
        return 2
    click.echo(text, nl=False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
