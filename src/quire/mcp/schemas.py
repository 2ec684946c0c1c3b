"""Builders for the JSON Schemas tools declare: one helper per kind of argument or result.

Pure data; what the schemas mean at call time is ``arguments.py``'s job.
"""

from __future__ import annotations

from typing import Any

from quire.api.base import Answer
from quire.mcp.arguments import BLANK_PATTERN

Json = dict[str, Any]


def obj(properties: Json, required: list[str] | None = None, *, closed: bool = True) -> Json:
    """An object schema; ``closed`` refuses properties it does not declare."""
    schema: Json = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    if closed:
        schema["additionalProperties"] = False
    return schema


def path(description: str) -> Json:
    """A path argument: absolute, relative to the working directory, or starting with ``~/``
    (the server's instructions say so once, not each path's description: tools/list stays
    under its token budget)."""
    return {
        "type": "string",
        "minLength": 1,
        "pattern": BLANK_PATTERN,
        "description": description,
    }


def text(description: str, *, filled: bool = False, blank_ok: bool = False) -> Json:
    """A string; ``filled`` refuses an empty one, and a blank one too unless ``blank_ok``."""
    schema: Json = {"type": "string", "description": description}
    if filled:
        schema["minLength"] = 1
        if not blank_ok:
            schema["pattern"] = BLANK_PATTERN
    return schema


def boolean(description: str, default: bool | None = None) -> Json:
    """A boolean, with its default when it has one."""
    schema: Json = {"type": "boolean", "description": description}
    if default is not None:
        schema["default"] = default
    return schema


def integer(description: str, minimum: int, maximum: int, default: int | None = None) -> Json:
    """A whole number from ``minimum`` to ``maximum``."""
    schema: Json = {
        "type": "integer",
        "minimum": minimum,
        "maximum": maximum,
        "description": description,
    }
    if default is not None:
        schema["default"] = default
    return schema


def enum(description: str, values: tuple[str, ...] | list[str]) -> Json:
    """A string that must be one of ``values``."""
    return {"type": "string", "enum": list(values), "description": description}


def out(properties: Json, required: list[str]) -> Json:
    """An output schema: an object with these properties (more may come in later versions)."""
    return {"type": "object", "properties": properties, "required": required}


def answer(model: type[Answer], extra: Json | None = None) -> Json:
    """The output schema of a tool whose structured result is ``model`` dumped (camelCase
    keys): the model's serialization schema with the models it uses written in place, so a
    client needs no ``$ref`` resolver, and pydantic's titles and the docstrings it makes
    descriptions left out (they are the code's, and every tools/list would carry them). ``extra``
    properties (replacing the model's of the same name) are what the tool adds to the model."""
    schema = model.schema_of()
    if extra:
        schema["properties"].update(extra)
    definitions: Json = schema.pop("$defs", {})
    inlined: Json = _inline(schema, definitions)
    return inlined


_VALUES = frozenset({"default", "const", "enum", "examples"})
"""Keywords whose value is data, not a schema: kept as written."""


def _inline(node: Any, definitions: Json) -> Any:
    if isinstance(node, list):
        return [_inline(item, definitions) for item in node]
    if not isinstance(node, dict):
        return node
    reference = node.get("$ref")
    if isinstance(reference, str):
        return _inline(definitions[reference.rsplit("/", 1)[-1]], definitions)
    inlined: Json = {}
    for key, value in node.items():
        if key in ("title", "description"):
            continue
        if key in _VALUES:
            inlined[key] = value
        elif key == "properties":
            # Property names are data: a property called ``title`` stays.
            required = set(node.get("required", ()))
            inlined[key] = {
                name: _inline(item if name in required else _carried(item), definitions)
                for name, item in value.items()
            }
        else:
            inlined[key] = _inline(value, definitions)
    return inlined


def _carried(schema: Json) -> Json:
    """An optional field's schema as it is carried: a field left out when None is never sent
    as null, so its ``X | None`` default None is just X."""
    branches = schema.get("anyOf")
    if schema.get("default", ...) is not None or not isinstance(branches, list):
        return schema
    kept = [branch for branch in branches if branch != {"type": "null"}]
    if len(kept) != 1 or len(kept) == len(branches):
        return schema
    rest = {key: item for key, item in schema.items() if key not in ("anyOf", "default")}
    return {**kept[0], **rest}


def answers(model: type[Answer]) -> Json:
    """The output schema of an array of ``model`` dumped, written in place as ``answer``."""
    return {"type": "array", "items": answer(model)}


STRING: Json = {"type": "string"}
NULLABLE_STRING: Json = {"type": ["string", "null"]}
INTEGER: Json = {"type": "integer"}
BOOLEAN: Json = {"type": "boolean"}
TASKS: Json = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {"line": INTEGER, "checked": BOOLEAN, "text": STRING},
        "required": ["line", "checked", "text"],
    },
}
