"""Generate ``docs/cli.md`` from the commands' own ``--help``, so the docs cannot drift.

Run ``python -m quire.cli.reference > docs/cli.md`` after changing a command; a test fails
while the file and the help differ.
"""

from __future__ import annotations

import click

HEADER = """# Command-line reference

Generated from `quire --help` by `python -m quire.cli.reference > docs/cli.md`;
a test fails when this file and the commands disagree. Edit the commands, not this file.
"""


def _walk(command: click.Command, name: str, parent: click.Context | None) -> list[tuple[str, str]]:
    """(command path, help text) of ``command`` and its visible subcommands, depth first.

    Contexts are chained as click chains them at run time, so inherited settings (such as
    ``-h`` for help) show exactly as a user sees them.
    """
    settings = {"terminal_width": 100, **command.context_settings}
    context = click.Context(command, parent=parent, info_name=name, **settings)
    found = [(context.command_path, command.get_help(context))]
    if isinstance(command, click.Group):
        for sub_name in command.list_commands(context):
            sub = command.get_command(context, sub_name)
            if sub is not None and not sub.hidden:
                found.extend(_walk(sub, sub_name, context))
    return found


def cli_reference(root: click.Command, name: str = "quire") -> str:
    """The Markdown reference of ``root`` and every visible subcommand, in name order."""
    parts = [HEADER]
    for title, help_text in _walk(root, name, None):
        parts.append(f"\n## `{title}`\n\n```text\n{help_text}\n```\n")
    return "".join(parts)


if __name__ == "__main__":
    from quire.cli.main import cli

    click.echo(cli_reference(cli), nl=False)
