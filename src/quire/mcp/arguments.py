"""Strict checking of tool arguments against the tool's own input schema, before it runs.

The schema is judged by ``jsonschema`` (draft 2020-12, one validator compiled per schema);
this module owns only what Quire adds: ``null`` as not given, a whole float as an integer,
objects inside a tool's arguments left to the tool, and the messages an agent reads. It never
runs a tool. The SDK's own handling drops unknown arguments and coerces strings, so every call
goes through ``check``.
"""

from __future__ import annotations

import difflib
import functools
import json
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from quire.core.errors import InvalidArgument

if TYPE_CHECKING:
    from jsonschema import ValidationError
    from jsonschema.protocols import Validator

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

_KEYWORD_ORDER = ("type", "minLength", "pattern", "minimum", "maximum", "minItems", "enum")
"""Which of one value's faults is named first: its type before its contents."""


@functools.cache
def _finite_validator() -> Any:
    """Draft 2020-12 where NaN and infinity are not numbers (JSON has neither). jsonschema is
    imported on the first check, so ``quire mcp`` answers ``initialize`` without loading it."""
    from jsonschema import Draft202012Validator, validators

    return validators.extend(  # type: ignore[no-untyped-call]  # untyped in stubs
        Draft202012Validator,
        type_checker=Draft202012Validator.TYPE_CHECKER.redefine(
            "number",
            lambda checker, value: (
                isinstance(value, int | float)
                and not isinstance(value, bool)
                and math.isfinite(value)
            ),
        ),
    )


_COMPILED: dict[int, tuple[Schema, Validator]] = {}
_MAX_COMPILED = 256


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
    whitespace where the schema says so, and an array shorter than ``minItems``. An object
    inside the arguments only has to be an object: the tool checks its contents itself, with
    messages that name them (edit_canvas's ops).
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
    cleaned = {
        name: _whole_numbers(properties[name], value) if name in properties else value
        for name, value in arguments.items()
        if value is not None or name not in properties
    }
    errors = list(_validator(schema).iter_errors(cleaned))
    if errors:
        order = list(cleaned)
        raise _refusal(tool, schema, cleaned, min(errors, key=lambda e: _rank(e, order)))
    return cleaned


def _validator(schema: Schema) -> Validator:
    """The validator of ``schema``, compiled on its first use (tool schemas are constants)."""
    cached = _COMPILED.get(id(schema))
    if cached is not None and cached[0] is schema:
        return cached[1]
    if len(_COMPILED) >= _MAX_COMPILED:
        _COMPILED.clear()
    properties: Mapping[str, Schema] = schema.get("properties", {})
    checked = {
        **schema,
        "properties": {name: _shallow(value) for name, value in properties.items()},
        "additionalProperties": False,
    }
    validator: Validator = _finite_validator()(checked)
    _COMPILED[id(schema)] = (schema, validator)
    return validator


def _shallow(schema: Schema) -> Schema:
    """``schema`` with every object inside it reduced to "an object" (its tool checks it)."""
    if "object" in _types(schema):
        return {"type": "object"}
    items = schema.get("items")
    if isinstance(items, Mapping):
        return {**schema, "items": _shallow(items)}
    return schema


def _whole_numbers(schema: Schema, value: Any) -> Any:
    """``value`` with each whole float where ``schema`` wants an integer made an int."""
    if isinstance(value, float) and "integer" in _types(schema):
        return int(value) if math.isfinite(value) and value.is_integer() else value
    items = schema.get("items")
    if isinstance(value, list) and isinstance(items, Mapping):
        return [_whole_numbers(items, item) for item in value]
    return value


def _rank(error: ValidationError, order: list[str]) -> tuple[int, int, tuple[int, ...], int]:
    """Sort key of a fault: undeclared names first, then each argument's in the order given,
    then a missing one; within one value its type first."""
    if error.validator == "additionalProperties":
        return (0, 0, (), 0)
    if not error.path:
        return (2, 0, (), 0)
    name, *rest = error.path
    where = tuple(index for index in rest if isinstance(index, int))
    keyword = str(error.validator)
    place = _KEYWORD_ORDER.index(keyword) if keyword in _KEYWORD_ORDER else len(_KEYWORD_ORDER)
    return (1, order.index(str(name)), where, place)


def _refusal(
    tool: str, schema: Schema, arguments: dict[str, Any], error: ValidationError
) -> InvalidArgument:
    properties = list(schema.get("properties", {}))
    if error.validator == "additionalProperties":
        undeclared = next(name for name in arguments if name not in properties)
        return _undeclared(tool, undeclared, properties)
    if not error.path:
        if error.validator == "required":
            wanted: Any = error.validator_value
            missing = next(name for name in wanted if name not in arguments)
            return InvalidArgument(
                f"`{missing}` is required: {tool} takes {_takes(schema)}.", argument=missing
            )
        return InvalidArgument(
            f"The arguments of {tool} do not fit its input schema: {error.message}. Call it "
            "with the arguments tools/list shows for it.",
            argument="arguments",
        )
    root = str(error.path[0])
    where = root + "".join(f"[{index}]" for index in list(error.path)[1:])
    return InvalidArgument(f"`{where}` {_fault(error)}.", argument=root)


def _fault(error: ValidationError) -> str:
    """What is wrong with one value, as the rest of a sentence that starts with its name."""
    value: Any = error.instance
    wanted: Any = error.validator_value
    match error.validator:
        case "type":
            types = [wanted] if isinstance(wanted, str) else list(wanted)
            expected = " or ".join(_TYPE_WORDS.get(name, name) for name in types)
            return f"must be {expected}, got {describe(value)}"
        case "enum":
            allowed = [str(choice) for choice in wanted if choice is not None]
            return f"must be one of {quoted_list(allowed, 'or')}, got {describe(value)}"
        case "minLength" if wanted == 1:
            return "must not be empty"
        case "minLength":
            return f"must be at least {wanted} characters long, got {len(value)}"
        case "pattern" if wanted == BLANK_PATTERN:
            return "must not be empty or only whitespace"
        case "pattern":
            return f"must match the pattern {wanted}, got {describe(value)}"
        case "minimum":
            return f"must be at least {wanted}, got {value!r}"
        case "maximum":
            return f"must be at most {wanted}, got {value!r}"
        case "minItems":
            return f"must not be empty: pass at least {wanted} item{'' if wanted == 1 else 's'}"
    return f"does not fit the tool's input schema ({error.message}); pass what tools/list shows"


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
