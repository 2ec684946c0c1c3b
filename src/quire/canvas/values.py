"""Checks of the values inside canvas edit ops: ids, numbers, colors, new nodes and edges.

Each check returns the value as it will be written or raises ``InvalidArgument`` naming the op
and field; what an op does with the value lives in ``ops.py`` and ``canvas.py``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from quire.core.errors import InvalidArgument

NODE_TYPES = ("text", "file", "link", "group")
SIDES = ("top", "right", "bottom", "left")
ENDS = ("none", "arrow")
BACKGROUND_STYLES = ("cover", "ratio", "repeat")
MAX_COORDINATE = 2**53 - 1
"""The largest whole number a canvas app (JavaScript) reads exactly; coordinates stay within it."""

NODE_CONTENT: dict[str, tuple[str, ...]] = {
    "text": ("text",),
    "file": ("file", "subpath"),
    "link": ("url",),
    "group": ("label", "background", "backgroundStyle"),
}
"""The content keys each node type carries, beside id, type, x, y, width, height and color."""
NODE_CONTENT_KEYS = frozenset(key for keys in NODE_CONTENT.values() for key in keys)

COLOR_PATTERN = "^([1-6]|#[0-9a-fA-F]{3}|#[0-9a-fA-F]{6})$"
_MAX_NESTING = 100

Number = int | float


@dataclass(frozen=True)
class At:
    """Where a value sits in the ops, for messages: ``ops[1].node.x`` of op 1, an add_node."""

    index: int
    kind: str
    field: str

    @property
    def path(self) -> str:
        return f"`ops[{self.index}].{self.field}`"

    @property
    def op(self) -> str:
        return f"op[{self.index}] {self.kind}"

    def child(self, name: str | int) -> At:
        part = f"[{name}]" if isinstance(name, int) else f".{name}"
        return At(self.index, self.kind, f"{self.field}{part}")


def join_words(words: list[str] | tuple[str, ...], last: str = "and") -> str:
    """``a``, ``a and b``, ``a, b and c`` (or ``a, b or c``): a list for a message."""
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} {last} {words[-1]}"


def number_text(value: int | float) -> str:
    """A number as a message shows it; a whole number too long to read is summarised."""
    if isinstance(value, int) and value.bit_length() > 128:
        return f"a whole number of {value.bit_length()} bits"
    return repr(value)


def describe(value: object) -> str:
    """How a message names a value it refuses: its JSON type and a short form of it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({'true' if value else 'false'})"
    if isinstance(value, int | float):
        return f"a number ({number_text(value)})"
    if isinstance(value, str):
        short = value if len(value) <= 40 else value[:40] + "…"
        return f"a string ({json.dumps(short, ensure_ascii=False)})"
    if isinstance(value, list):
        return f"an array of {len(value)} item{'' if len(value) == 1 else 's'}"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}, which is not a JSON value"


def refuse(message: str) -> InvalidArgument:
    """The error for a refused op: every check raises it, before any canvas is read."""
    return InvalidArgument(message, argument="ops")


def wrong(at: At, expected: str, value: object) -> InvalidArgument:
    """The error for a value of the wrong type or shape: what was expected, and what came."""
    return refuse(f"{at.path} must be {expected}, got {describe(value)}.")


def check_id(value: object, at: At, role: str) -> str:
    """Check an id: a string, not empty and not only whitespace; ``role`` says what it names."""
    if not isinstance(value, str):
        raise wrong(at, f"a string ({role})", value)
    if not value:
        raise refuse(f"{at.path} must be at least 1 character long: give {role}.")
    if not value.strip():
        raise refuse(f"{at.op}: `{at.field}` must not be empty or only whitespace: give {role}.")
    return value


def check_number(value: object, at: At) -> Number:
    """Check a coordinate (not a boolean, finite, within MAX_COORDINATE); 5.0 comes back 5."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise wrong(at, "a number", value)
    if isinstance(value, float) and not math.isfinite(value):
        raise wrong(at, "a finite number", value)
    if abs(value) > MAX_COORDINATE:
        raise refuse(
            f"{at.path} must be between -{MAX_COORDINATE} and {MAX_COORDINATE}, the whole "
            f"numbers a canvas app reads exactly, got {number_text(value)}."
        )
    # JSON Canvas coordinates are integers: 5.0 is written 5, a fraction as given.
    return int(value) if isinstance(value, float) and value.is_integer() else value


def check_size(value: object, at: At) -> Number:
    """Check a width or height: a coordinate greater than 0."""
    number = check_number(value, at)
    if number <= 0:
        raise refuse(f"{at.path} must be greater than 0 (a size), got {number!r}.")
    return number


def _check_string(value: object, at: At) -> str:
    if not isinstance(value, str):
        raise wrong(at, "a string", value)
    return value


def _check_filled(value: object, at: At) -> str:
    text = _check_string(value, at)
    if not text:
        raise refuse(f"{at.path} must be at least 1 character long.")
    return text


def _check_subpath(value: object, at: At) -> str:
    text = _check_string(value, at)
    if not text.startswith("#"):
        raise refuse(
            f"{at.path} must start with # (a heading or block in the file, as #Intro), "
            f"got {describe(value)}."
        )
    return text


def check_color(value: object, at: At) -> str:
    """Check a JSON Canvas color: a preset "1" to "6", or #rgb or #rrggbb."""
    text = _check_string(value, at)
    if not re.fullmatch(COLOR_PATTERN, text):
        raise refuse(
            f'{at.path} must be a canvas color: a preset from "1" to "6" or a hex color '
            f"#rgb or #rrggbb, got {describe(value)}."
        )
    return text


def _one_of(choices: tuple[str, ...]) -> Callable[[object, At], str]:
    def check(value: object, at: At) -> str:
        if not isinstance(value, str) or value not in choices:
            raise wrong(at, f"one of {join_words(choices, 'or')}", value)
        return value

    return check


_check_side = _one_of(SIDES)
_check_end = _one_of(ENDS)


def _check_object(value: object, at: At) -> dict[str, object]:
    if not isinstance(value, dict):
        raise wrong(at, "an object", value)
    for key in value:
        if not isinstance(key, str):
            raise refuse(f"{at.path} has a key that is not a string ({key!r}).")
    return dict(value)


def _check_json(value: object, at: At) -> None:
    """Refuse what cannot be written as JSON (NaN, sets, deep nesting) in a passed-through key."""
    stack: list[tuple[object, At, int]] = [(value, at, 0)]
    while stack:
        item, where, depth = stack.pop()
        if depth > _MAX_NESTING:
            raise refuse(f"{where.path} nests deeper than {_MAX_NESTING} levels.")
        if isinstance(item, list):
            stack.extend((part, where.child(n), depth + 1) for n, part in enumerate(item))
        elif isinstance(item, dict):
            for key, part in _check_object(item, where).items():
                stack.append((part, where.child(key), depth + 1))
        elif isinstance(item, float) and not math.isfinite(item):
            raise wrong(where, "a finite number", item)
        elif isinstance(item, int) and item.bit_length() > 10_000:
            raise refuse(f"{where.path} is too large a number to write.")
        elif item is not None and not isinstance(item, str | int | float):
            raise wrong(where, "a JSON value", item)


NODE_BASE_KEYS = ("id", "type", "x", "y", "width", "height", "color")
EDGE_KEYS = (
    "id",
    "fromNode",
    "toNode",
    "fromSide",
    "toSide",
    "fromEnd",
    "toEnd",
    "color",
    "label",
)
_NODE_CHECKS: dict[str, Callable[[object, At], object]] = {
    "x": check_number,
    "y": check_number,
    "width": check_size,
    "height": check_size,
    "color": check_color,
    "text": _check_string,
    "file": _check_filled,
    "subpath": _check_subpath,
    "url": _check_filled,
    "label": _check_string,
    "background": _check_string,
    "backgroundStyle": _one_of(BACKGROUND_STYLES),
}
_REQUIRED_CONTENT = {"text": "text", "file": "file", "link": "url"}


def check_node(value: object, at: At) -> dict[str, object]:
    """Check add_node's node and return a copy with its numbers as they will be written.

    Keys JSON Canvas does not define pass through, but must be JSON values.
    """
    node = _check_object(value, at)
    needed = "id, type, x, y, width and height (and text, file or url, by its type)"
    for key in ("id", "type", "x", "y", "width", "height"):
        if key not in node:
            raise refuse(f"{at.child(key).path} is missing: a new node needs {needed}.")
    check_id(node["id"], at.child("id"), "the new node's id")
    node_type = node["type"]
    if not isinstance(node_type, str) or node_type not in NODE_TYPES:
        raise wrong(at.child("type"), f"one of {join_words(NODE_TYPES, 'or')}", node_type)
    required = _REQUIRED_CONTENT.get(node_type)
    if required is not None and required not in node:
        raise refuse(f"{at.child(required).path} is missing: a {node_type} node needs it.")
    for key, item in node.items():
        owner = next((kind for kind, keys in NODE_CONTENT.items() if key in keys), None)
        if owner is not None and owner != node_type:
            raise refuse(
                f"{at.child(key).path} is not used by a {node_type} node; {owner} nodes take it."
            )
        check = _NODE_CHECKS.get(key)
        if check is not None:
            node[key] = check(item, at.child(key))
        elif key not in ("id", "type"):
            _check_json(item, at.child(key))
    return node


def check_edge(value: object, at: At) -> dict[str, object]:
    """Check add_edge's edge and return a copy; keys JSON Canvas does not define pass through."""
    edge = _check_object(value, at)
    roles = {
        "id": "the new edge's id",
        "fromNode": "the id of the node the edge starts at",
        "toNode": "the id of the node the edge ends at",
    }
    for key, role in roles.items():
        if key not in edge:
            raise refuse(
                f"{at.child(key).path} is missing: a new edge needs id, fromNode and toNode."
            )
        check_id(edge[key], at.child(key), role)
    checks: dict[str, Callable[[object, At], object]] = {
        "fromSide": _check_side,
        "toSide": _check_side,
        "fromEnd": _check_end,
        "toEnd": _check_end,
        "color": check_color,
        "label": _check_string,
    }
    for key, item in edge.items():
        check = checks.get(key)
        if check is not None:
            check(item, at.child(key))
        elif key not in roles:
            _check_json(item, at.child(key))
    return edge


def check_ids(value: object, at: At) -> tuple[str, ...]:
    """Check reorder_edges' ids: a non-empty array of edge ids, each given once."""
    if not isinstance(value, list):
        raise wrong(at, "an array of edge ids", value)
    if not value:
        raise refuse(f"{at.path} must not be empty: list every edge id in the new order.")
    ids = tuple(
        check_id(item, at.child(n), "the id of an edge in the canvas")
        for n, item in enumerate(value)
    )
    seen: set[str] = set()
    for ident in ids:
        if ident in seen:
            raise refuse(f"{at.path} lists edge {ident} twice: list each edge once.")
        seen.add(ident)
    return ids


_CHANGE_CHECKS: dict[str, Callable[[object, At], str]] = {
    "text": _check_string,
    "file": _check_filled,
    "subpath": _check_subpath,
    "url": _check_filled,
    "label": _check_string,
    "color": check_color,
    "fromSide": _check_side,
    "toSide": _check_side,
    "fromEnd": _check_end,
    "toEnd": _check_end,
}
_REMOVABLE = frozenset({"subpath", "label", "color", "fromSide", "toSide", "fromEnd", "toEnd"})
"""Fields an edit op may set to null, removing the key from the node or edge."""


def check_change(value: object, at: At) -> str | None:
    """Check one field of an edit_node or edit_edge op; None means remove the key."""
    if at.field in _REMOVABLE:
        if value is None:
            return None
        if not isinstance(value, str):
            raise wrong(at, "a string, or null to remove it", value)
    return _CHANGE_CHECKS[at.field](value, at)
