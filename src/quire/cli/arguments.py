"""Commands that read their own arguments, and their usage errors (exit 1, not click's 2).

Click still renders such a command's help from its declared options, but never parses them,
so ``--``, ``-`` and arguments that are not valid UTF-8 reach the command exactly as given.
"""

from __future__ import annotations

import os

import click

RAW_ARGUMENTS = "quire.raw_arguments"
"""The ``ctx.meta`` key holding the arguments as given."""


class UsageError(click.UsageError):
    """A command line that breaks the command's rules: usage and reason on stderr, exit 1."""

    exit_code = 1


class BadArguments(Exception):
    """Raised by an argument parser; the command turns it into a UsageError with its context."""


class OwnArgumentsCommand(click.Command):
    """A click command whose callback reads ``ctx.meta[RAW_ARGUMENTS]`` instead of params."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """Keep the arguments as given; nothing is parsed or checked here."""
        ctx.meta[RAW_ARGUMENTS] = list(args)
        return []


def raw_arguments(ctx: click.Context) -> list[str]:
    """The arguments an OwnArgumentsCommand was given."""
    arguments: list[str] = ctx.meta.get(RAW_ARGUMENTS, [])
    return arguments


def printable(argument: str) -> str:
    """An argument as a terminal can show it, bytes that are not UTF-8 as ``\\xff``."""
    return os.fsencode(argument).decode("utf-8", "backslashreplace")


def is_utf8(argument: str) -> bool:
    """Whether the argument was valid UTF-8 on the command line (no escaped bytes)."""
    try:
        argument.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def refuse_non_utf8(arguments: list[str]) -> None:
    """BadArguments naming the first argument that was not valid UTF-8, if any."""
    for argument in arguments:
        if not is_utf8(argument):
            raise BadArguments(
                f"The argument '{printable(argument)}' is not valid UTF-8 text, and Quire takes "
                "paths and options as UTF-8. Rename the file to a UTF-8 name (or pass a link "
                "to it that has one)."
            )
