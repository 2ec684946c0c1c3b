"""Strict checking of tool arguments against the tool's own input schema, before it runs.

Knows the JSON Schema subset Quire's tools declare (types, enum, minimum, maximum, minLength,
pattern, minItems, items, required, no extra properties); it never runs a tool. The SDK's own
handling drops unknown arguments and coerces strings, so every call goes through ``check``.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Mapping
from typing import Any

from quire.core.errors import InvalidArgument

Schema = Mapping[str, Any]

_TYPE_WORDS = {
    "string": "a string",
    "integer": "an integer (a whole number)",
    "number": "a number",
    "boolean": "a boolean (true or false)",
    "array": "an array",
    "object": "an object",
    "null": "null",
}
BLANK_PATTERN = r"\S"
"""The pattern a string declares when it must hold more than whitespace."""


def describe(value: object) -> str:
    """How a message names a refused value: its JSON type and a short form of it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({'true' if value else 'false'})"
    if isinstance(value, int | float):
        text = repr(value)
        return f"a number ({text if len(text) <= 40 else text[:40] + '…'})"
    if isinstance(value, str):
        short = value if len(value) <= 40 else value[:40] + "…"
        return f"a string ({json.dumps(short, ensure_ascii=False)})"
    if isinstance(value, list):
        return f"an array of {len(value)} item{'' if len(value) == 1 else 's'}"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"


def closest(name: str, choices: list[str]) -> str | None:
    """The choice most like ``name`` (a typo's likely intent), or None when none is close."""
    found = difflib.get_close_matches(name, choices, n=1, cutoff=0.5)
    if found:
        return found[0]
    lowered = {choice.lower(): choice for choice in choices}
    return lowered.get(name.lower())


def quoted_list(names: list[str], last: str = "and") -> str:
    """```a```, ```a`` and ``b```, ```a``, ``b`` and ``c``` for a message."""
    marked = [f"`{name}`" for name in names]
    if len(marked) <= 1:
        return "".join(marked)
    return f"{', '.join(marked[:-1])} {last} {marked[-1]}"


def check(tool: str, schema: Schema, arguments: object) -> dict[str, Any]:
    """Check ``arguments`` against the tool's input ``schema`` and return them cleaned.

    ``null`` counts as not given and is dropped; a whole number written as a float (``2.0``)
    is an integer. Raises InvalidArgument naming the argument for: arguments that are not an
    object, an undeclared argument (listing the ones the tool takes and the closest match), a
    missing required argument, a wrong JSON type, a value under ``minimum`` or over
    ``maximum``, a string outside ``enum``, shorter than ``minLength`` or made only of
    whitespace where the schema says so, and an array shorter than ``minItems``.
    """
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise InvalidArgument(
            f"The arguments of {tool} must be a JSON object mapping names to values, got "
            f"{describe(arguments)}.",
            argument="arguments",
        )
    properties: Mapping[str, Schema] = schema.get("properties", {})
    names = list(properties)
    for name in arguments:
        if name not in properties:
            raise _undeclared(tool, name, names)
    cleaned: dict[str, Any] = {}
    for name, value in arguments.items():
        if value is None:
            continue
        cleaned[name] = check_value(name, properties[name], value)
    for name in schema.get("required", []):
        if name not in cleaned:
            raise InvalidArgument(
                f"`{name}` is required: {tool} takes {_takes(schema)}.", argument=name
            )
    return cleaned


def check_value(where: str, schema: Schema, value: Any) -> Any:
    """Check one value against its property ``schema``; ``where`` names it in messages."""
    value = _check_type(where, schema, value)
    if isinstance(value, str):
        _check_string(where, schema, value)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        _check_bounds(where, schema, value)
    elif isinstance(value, list):
        value = _check_array(where, schema, value)
    if "enum" in schema and value not in schema["enum"]:
        allowed = [str(choice) for choice in schema["enum"] if choice is not None]
        raise InvalidArgument(
            f"`{where}` must be one of {quoted_list(allowed, 'or')}, got {describe(value)}.",
            argument=_root(where),
        )
    return value


def _undeclared(tool: str, name: str, names: list[str]) -> InvalidArgument:
    shown = name if len(name) <= 60 else name[:60] + "…"
    if not names:
        return InvalidArgument(
            f"`{shown}` is not an argument of {tool}: {tool} takes no arguments. "
            "Call it with {}.",
            argument=name,
        )
    guess = closest(name, names)
    hint = f" Did you mean `{guess}`?" if guess else ""
    return InvalidArgument(
        f"`{shown}` is not an argument of {tool}. {tool} takes {quoted_list(names)}.{hint}",
        argument=name,
    )


def _takes(schema: Schema) -> str:
    properties = list(schema.get("properties", {}))
    required = set(schema.get("required", []))
    parts = [f"`{name}`" + ("" if name in required else " (optional)") for name in properties]
    if len(parts) == 1:
        return parts[0]
    return f"{', '.join(parts[:-1])} and {parts[-1]}"


def _types(schema: Schema) -> list[str]:
    declared = schema.get("type")
    if declared is None:
        return []
    return [declared] if isinstance(declared, str) else list(declared)


def _check_type(where: str, schema: Schema, value: Any) -> Any:
    types = _types(schema)
    if not types:
        return value
    for name in types:
        matched, converted = _matches(name, value)
        if matched:
            return converted
    expected = " or ".join(_TYPE_WORDS.get(name, name) for name in types)
    raise InvalidArgument(
        f"`{where}` must be {expected}, got {describe(value)}.", argument=_root(where)
    )


def _matches(type_name: str, value: Any) -> tuple[bool, Any]:
    if type_name == "integer":
        if isinstance(value, int) and not isinstance(value, bool):
            return True, value
        if isinstance(value, float) and math.isfinite(value) and value.is_integer():
            return True, int(value)
        return False, value
    checks: dict[str, Any] = {
        "string": lambda v: isinstance(v, str),
        "number": lambda v: (
            isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
        ),
        "boolean": lambda v: isinstance(v, bool),
        "array": lambda v: isinstance(v, list),
        "object": lambda v: isinstance(v, dict),
        "null": lambda v: v is None,
    }
    test = checks.get(type_name)
    return (bool(test(value)) if test else False), value


def _check_string(where: str, schema: Schema, value: str) -> None:
    minimum = schema.get("minLength")
    if minimum is not None and len(value) < minimum:
        if minimum == 1:
            raise InvalidArgument(f"`{where}` must not be empty.", argument=_root(where))
        raise InvalidArgument(
            f"`{where}` must be at least {minimum} characters long, got {len(value)}.",
            argument=_root(where),
        )
    pattern = schema.get("pattern")
    if pattern is None or re.search(pattern, value):
        return
    if pattern == BLANK_PATTERN:
        raise InvalidArgument(
            f"`{where}` must not be empty or only whitespace.", argument=_root(where)
        )
    raise InvalidArgument(
        f"`{where}` must match the pattern {pattern}, got {describe(value)}.",
        argument=_root(where),
    )


def _check_bounds(where: str, schema: Schema, value: float) -> None:
    low = schema.get("minimum")
    if low is not None and value < low:
        raise InvalidArgument(
            f"`{where}` must be at least {low}, got {value!r}.", argument=_root(where)
        )
    high = schema.get("maximum")
    if high is not None and value > high:
        raise InvalidArgument(
            f"`{where}` must be at most {high}, got {value!r}.", argument=_root(where)
        )


def _check_array(where: str, schema: Schema, value: list[Any]) -> list[Any]:
    minimum = schema.get("minItems")
    if minimum is not None and len(value) < minimum:
        raise InvalidArgument(
            f"`{where}` must not be empty: pass at least {minimum} item"
            f"{'' if minimum == 1 else 's'}.",
            argument=_root(where),
        )
    items: Schema | None = schema.get("items")
    if items is None:
        return value
    if "object" in _types(items):
        # Objects inside an array (edit_canvas's ops) carry their own rules, checked by the
        # tool with messages that name the op; here each item only has to be an object.
        for index, item in enumerate(value):
            _check_type(f"{where}[{index}]", {"type": "object"}, item)
        return value
    return [check_value(f"{where}[{index}]", items, item) for index, item in enumerate(value)]


def _root(where: str) -> str:
    return re.split(r"[\[.]", where, maxsplit=1)[0]
