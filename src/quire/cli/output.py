"""How commands print: JSON on stdout, messages on stderr, QuireError as a clean exit 1."""

from __future__ import annotations

import dataclasses
import functools
import json
import sys
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

import click

from quire.core.errors import QuireError

P = ParamSpec("P")
R = TypeVar("R")

EXIT_FAILED = 1

UNEXPECTED = "an unexpected error stopped the command"
"""Words of the last-resort message (see ``unexpected``); tests look for them."""


def to_jsonable(value: Any) -> Any:
    """Dataclasses and API models become dicts (recursively, keyed by their Python field
    names); everything else is returned as it is."""
    from pydantic import BaseModel  # not on every command's start: `quire mcp` waits for it

    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=False)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            field.name: to_jsonable(getattr(value, field.name))
            for field in dataclasses.fields(value)
        }
    if isinstance(value, list | tuple):
        return [to_jsonable(item) for item in value]
    if isinstance(value, dict):
        return {key: to_jsonable(item) for key, item in value.items()}
    return value


def echo_json(value: Any) -> None:
    """Print ``value`` as one JSON document (UTF-8, not ASCII-escaped) on stdout."""
    click.echo(json.dumps(to_jsonable(value), ensure_ascii=False, indent=2))


def fail(message: str) -> None:
    """Print ``quire: message`` on stderr and exit 1."""
    click.echo(f"quire: {message}", err=True)
    sys.exit(EXIT_FAILED)


def reports_errors(command: Callable[P, R]) -> Callable[P, R]:
    """Turn a QuireError raised by a command into its message on stderr and exit 1."""

    @functools.wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return command(*args, **kwargs)
        except QuireError as error:
            fail(str(error))
            raise AssertionError("unreachable") from error

    return wrapper


def unexpected(error: Exception) -> None:
    """The last resort for an exception no command turned into a QuireError: one ``quire:``
    line naming it (a bug to report), never a traceback, and exit 1."""
    detail = f"{type(error).__name__}: {error}"
    if len(detail) > 300:
        detail = detail[:200] + " … " + detail[-80:]
    fail(
        f"{UNEXPECTED} ({detail.encode('utf-8', 'backslashreplace').decode()}). This is a bug "
        "in Quire; please report it with the command you ran."
    )
