"""The ``quire`` command group and its entry point."""

from __future__ import annotations

import click

from quire import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(
    __version__, "-V", "--version", prog_name="quire", message="%(prog)s %(version)s"
)
def cli() -> None:
    """Quire: a Markdown workspace where people and AI coding agents work on the same documents."""


def main() -> None:
    """Run the ``quire`` command line."""
    cli()
