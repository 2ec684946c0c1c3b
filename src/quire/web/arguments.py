"""Reading a request's arguments strictly: JSON bodies through pydantic models, query values,
and path arguments; every refusal is an InvalidArgument naming the argument.

Parses only; it calls no service and renders no response (web/errors.py renders refusals).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails
from starlette.requests import Request

from quire.api.base import StrictBody
from quire.core import json_input
from quire.core.errors import InvalidArgument
from quire.core.paths import expand_path

Body = TypeVar("Body", bound="StrictBody")

_ROOT = Path("/")


async def read_body(request: Request, model: type[Body]) -> Body:
    """The request's JSON body checked against ``model``; an empty body is ``{}``.

    Nesting deeper than 64 levels and numbers over 64 bits are refused (400) by name."""
    raw = await request.body()
    if not raw.strip():
        data: Any = {}
    else:
        try:
            # Decoded here: json.loads would guess UTF-16 or UTF-32 from the first bytes. The
            # depth and number limits are checked by json_input (before parsing, for depth).
            data = json_input.loads(raw.decode("utf-8"), what="The request body")
        except UnicodeDecodeError:
            raise InvalidArgument(
                "The request body is not UTF-8 text. Send a JSON object encoded as UTF-8."
            ) from None
        except json.JSONDecodeError as err:
            raise InvalidArgument(
                f"The request body is not valid JSON ({err.msg} at line {err.lineno}, column "
                f"{err.colno}). Send a JSON object."
            ) from None
    if not isinstance(data, dict):
        raise InvalidArgument(
            f"The request body must be a JSON object, got {_json_kind(data)}. Send an object "
            f"with the arguments {_names(model)}."
        )
    try:
        body = model.model_validate(data)
    except ValidationError as err:
        raise _refusal(err.errors()[0], model) from None
    for name in type(body).model_fields:
        _require_unicode(getattr(body, name), name)
    return body


def query_args(request: Request, allowed: tuple[str, ...]) -> dict[str, str]:
    """The query parameters, refusing any not in ``allowed`` and any given twice."""
    values: dict[str, str] = {}
    for name, value in request.query_params.multi_items():
        if name not in allowed:
            takes = ", ".join(allowed) if allowed else "no query parameters"
            raise InvalidArgument(
                f"`{name}` is not a parameter of this request; it takes {takes}.",
                argument=name,
            )
        if name in values:
            raise InvalidArgument(f"`{name}` is given more than once; give it once.", argument=name)
        values[name] = value
    return values


def query_int(values: dict[str, str], name: str) -> int | None:
    """The whole number a query parameter holds (None when absent); ``5.0`` is refused."""
    raw = values.get(name)
    if raw is None:
        return None
    text = raw[1:] if raw.startswith("-") else raw
    if not text.isascii() or not text.isdigit() or len(text) > 18:
        raise InvalidArgument(f"`{name}` must be a whole number, got {raw!r}.", argument=name)
    return int(raw)


def absolute_path(raw: str, argument: str = "path") -> Path:
    """A path argument as a Path: it must be absolute, since the server cannot know the
    caller's working directory; empty, NUL and non-text paths are refused by expand_path."""
    path = expand_path(raw, cwd=_ROOT, home=_ROOT, argument=argument)
    if not raw.startswith("/"):
        raise InvalidArgument(
            f"`{argument}` must be an absolute path (starting with /), got {raw!r}: the server "
            "cannot know your working directory. Pass the file's full path.",
            argument=argument,
        )
    return path


def _require_unicode(value: object, name: str) -> None:
    # JSON can spell a lone surrogate ("\ud800"); no file, database or document can hold one.
    if not isinstance(value, str):
        return
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as err:
        raise InvalidArgument(
            f"`{name}` holds an unpaired surrogate (character {err.start + 1}), which is not "
            "text. Send valid Unicode text.",
            argument=name,
        ) from None


def _refusal(error: ErrorDetails, model: type[BaseModel]) -> InvalidArgument:
    location = error["loc"]
    name = str(location[0]) if location else "body"
    kind = error["type"]
    given = error.get("input")
    if kind == "missing":
        message = f"`{name}` is required. This request takes {_names(model)}."
    elif kind == "extra_forbidden":
        message = f"`{name}` is not an argument of this request; it takes {_names(model)}."
    elif kind == "string_type":
        message = f"`{name}` must be text (a string), got {_show(given)}."
    elif kind == "bool_type":
        message = f"`{name}` must be true or false, got {_show(given)}."
    elif kind in ("int_type", "int_from_float"):
        message = f"`{name}` must be a whole number, got {_show(given)}."
    elif kind == "literal_error":
        expected = error.get("ctx", {}).get("expected", "")
        message = f"`{name}` must be {expected}, got {_show(given)}."
    else:
        message = f"`{name}`: {error['msg']} (got {_show(given)})."
    return InvalidArgument(message, argument=name)


def _names(model: type[BaseModel]) -> str:
    fields = model.model_fields
    if not fields:
        return "no arguments"
    return ", ".join(
        name if field.is_required() else f"{name} (optional)" for name, field in fields.items()
    )


def _show(value: object) -> str:
    try:
        shown = json.dumps(value, ensure_ascii=True)
    except (TypeError, ValueError):
        shown = repr(value)
    return shown if len(shown) <= 80 else shown[:77] + "..."


def _json_kind(value: object) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return "null"
