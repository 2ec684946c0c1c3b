"""The ``quire`` command group and its entry point."""

from __future__ import annotations

import click

from quire import __version__
from quire.cli.doctor import doctor_command
from quire.cli.documents import COMMANDS as DOCUMENT_COMMANDS
from quire.cli.mcp import mcp_command
from quire.cli.serve import serve_command


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(
    __version__, "-V", "--version", prog_name="quire", message="%(prog)s %(version)s"
)
def cli() -> None:
    """Quire: a Markdown workspace where people and AI coding agents work on the same documents.

    Read, analyse and compare Markdown files from a shell; every command that reads a file
    takes only Markdown documents that are not dotfiles, of at most 16 MiB, in UTF-8.
    """


for _command in DOCUMENT_COMMANDS:
    cli.add_command(_command)
cli.add_command(serve_command)
cli.add_command(mcp_command)
cli.add_command(doctor_command)


def main() -> None:
    """Run the ``quire`` command line."""
    cli()


if __name__ == "__main__":
    main()
