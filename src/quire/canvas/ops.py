"""The typed edit ops of a JSON Canvas (.canvas) file: their types, fields and JSON Schema.

Reads ops from arguments before any canvas is read; applying them lives in ``canvas.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from quire.canvas.values import (
    BACKGROUND_STYLES,
    COLOR_PATTERN,
    EDGE_KEYS,
    ENDS,
    NODE_BASE_KEYS,
    NODE_CONTENT,
    NODE_CONTENT_KEYS,
    NODE_TYPES,
    SIDES,
    At,
    Number,
    check_change,
    check_edge,
    check_id,
    check_ids,
    check_node,
    check_number,
    check_size,
    describe,
    join_words,
    refuse,
)
from quire.core.errors import InvalidArgument

Changes = tuple[tuple[str, str | None], ...]
"""Ordered (key, value) pairs an edit op sets; a None value removes the key."""


@dataclass(frozen=True)
class MoveNode:
    """Move a node: its top-left corner goes to x, y."""

    kind: ClassVar[str] = "move_node"
    id: str
    x: Number
    y: Number


@dataclass(frozen=True)
class ResizeNode:
    """Resize a node to width by height (both greater than 0)."""

    kind: ClassVar[str] = "resize_node"
    id: str
    width: Number
    height: Number


@dataclass(frozen=True)
class EditNode:
    """Change a node's content: text, file and subpath, url, or a group's label."""

    kind: ClassVar[str] = "edit_node"
    id: str
    changes: Changes


@dataclass(frozen=True)
class SetNodeColor:
    """Set a node's color, or remove it (None)."""

    kind: ClassVar[str] = "set_node_color"
    id: str
    color: str | None


@dataclass(frozen=True)
class AddNode:
    """Add a node on top of the others (last in the array)."""

    kind: ClassVar[str] = "add_node"
    node: dict[str, object]


@dataclass(frozen=True)
class DeleteNode:
    """Delete a node and every edge from or to it."""

    kind: ClassVar[str] = "delete_node"
    id: str


@dataclass(frozen=True)
class AddEdge:
    """Add an edge between two nodes the canvas holds at this op."""

    kind: ClassVar[str] = "add_edge"
    edge: dict[str, object]


@dataclass(frozen=True)
class DeleteEdge:
    """Delete one edge."""

    kind: ClassVar[str] = "delete_edge"
    id: str


@dataclass(frozen=True)
class EditEdge:
    """Change an edge's label, color, sides or ends; None removes the key."""

    kind: ClassVar[str] = "edit_edge"
    id: str
    changes: Changes


@dataclass(frozen=True)
class ReorderEdges:
    """Put the edges in the given order; ids lists every edge once."""

    kind: ClassVar[str] = "reorder_edges"
    ids: tuple[str, ...]


CanvasOp = (
    MoveNode
    | ResizeNode
    | EditNode
    | SetNodeColor
    | AddNode
    | DeleteNode
    | AddEdge
    | DeleteEdge
    | EditEdge
    | ReorderEdges
)

_EDIT_NODE_FIELDS = ("text", "file", "subpath", "url", "label")
_EDIT_EDGE_FIELDS = ("label", "color", "fromSide", "toSide", "fromEnd", "toEnd")

OP_FIELDS: dict[str, tuple[str, ...]] = {
    "move_node": ("id", "x", "y"),
    "resize_node": ("id", "width", "height"),
    "edit_node": ("id", *_EDIT_NODE_FIELDS),
    "set_node_color": ("id", "color"),
    "add_node": ("node",),
    "delete_node": ("id",),
    "add_edge": ("edge",),
    "delete_edge": ("id",),
    "edit_edge": ("id", *_EDIT_EDGE_FIELDS),
    "reorder_edges": ("ids",),
}
"""Every op's fields besides ``type``; edit_node and edit_edge need ``id`` and one more."""

OP_TYPES = tuple(OP_FIELDS)


@dataclass(frozen=True)
class _Fields:
    """One op object's fields, read with the check each one needs."""

    index: int
    kind: str
    values: dict[str, object]

    def at(self, key: str) -> At:
        return At(self.index, self.kind, key)

    def id(self, role: str) -> str:
        return check_id(self.values["id"], self.at("id"), role)

    def number(self, key: str) -> Number:
        return check_number(self.values[key], self.at(key))

    def size(self, key: str) -> Number:
        return check_size(self.values[key], self.at(key))

    def changes(self, keys: tuple[str, ...]) -> Changes:
        given = tuple(key for key in self.values if key in keys)
        if not given:
            raise refuse(
                f"op[{self.index}] {self.kind} changes nothing: give `id` and at least one of "
                f"{join_words(keys)}."
            )
        return tuple((key, check_change(self.values[key], self.at(key))) for key in given)


_NODE_ROLE = "the id of a node in the canvas"
_EDGE_ROLE = "the id of an edge in the canvas"


def _edit_node(fields: _Fields) -> EditNode:
    ident = fields.id(_NODE_ROLE)
    changes = fields.changes(_EDIT_NODE_FIELDS)
    types = [kind for kind, keys in NODE_CONTENT.items() if any(k in keys for k, _ in changes)]
    if len(types) > 1:
        raise refuse(
            f"op[{fields.index}] edit_node sets {join_words([k for k, _ in changes])}, which "
            f"belong to {join_words(types)} nodes; a node has one type, so send the fields "
            f"of its own type."
        )
    return EditNode(ident, changes)


def _set_node_color(fields: _Fields) -> SetNodeColor:
    ident = fields.id(_NODE_ROLE)
    return SetNodeColor(ident, check_change(fields.values["color"], fields.at("color")))


_BUILDERS: dict[str, Callable[[_Fields], CanvasOp]] = {
    "move_node": lambda f: MoveNode(f.id(_NODE_ROLE), f.number("x"), f.number("y")),
    "resize_node": lambda f: ResizeNode(f.id(_NODE_ROLE), f.size("width"), f.size("height")),
    "edit_node": _edit_node,
    "set_node_color": _set_node_color,
    "add_node": lambda f: AddNode(check_node(f.values["node"], f.at("node"))),
    "delete_node": lambda f: DeleteNode(f.id(_NODE_ROLE)),
    "add_edge": lambda f: AddEdge(check_edge(f.values["edge"], f.at("edge"))),
    "delete_edge": lambda f: DeleteEdge(f.id(_EDGE_ROLE)),
    "edit_edge": lambda f: EditEdge(f.id(_EDGE_ROLE), f.changes(_EDIT_EDGE_FIELDS)),
    "reorder_edges": lambda f: ReorderEdges(check_ids(f.values["ids"], f.at("ids"))),
}
_OPTIONAL = {"edit_node": _EDIT_NODE_FIELDS, "edit_edge": _EDIT_EDGE_FIELDS}
_PAIRED = frozenset({"move_node", "resize_node"})


def _unused_field(index: int, kind: str, key: str) -> InvalidArgument:
    where = f"`ops[{index}].{key}` is not used by {kind}"
    if kind == "add_node" and (key in NODE_BASE_KEYS or key in NODE_CONTENT_KEYS):
        return refuse(f"{where}; put the new node's {key} inside `node`.")
    if kind == "add_edge" and key in EDGE_KEYS:
        return refuse(f"{where}; put the new edge's {key} inside `edge`.")
    users = [name for name, fields in OP_FIELDS.items() if key in fields]
    if not users:
        return refuse(f"{where}, nor by any other op; {kind} takes {join_words(OP_FIELDS[kind])}.")
    verb = "takes" if len(users) == 1 else "take"
    if {kind, *users} <= _PAIRED:
        hint = "a move and a resize are two ops"
    else:
        hint = "each op makes one kind of change; send it in an op of its own"
    return refuse(f"{where}; {join_words(users)} {verb} it ({hint}).")


def _validate_op(index: int, op: object) -> CanvasOp:
    if not isinstance(op, dict):
        raise refuse(f"`ops[{index}]` must be an object with a `type`, got {describe(op)}.")
    choices = join_words(OP_TYPES, "or")
    if "type" not in op:
        raise refuse(f"`ops[{index}].type` is missing: say which op this is, one of {choices}.")
    kind = op["type"]
    if not isinstance(kind, str) or kind not in OP_FIELDS:
        raise refuse(f"`ops[{index}].type` must be one of {choices}, got {describe(kind)}.")
    for key in op:
        if key != "type" and key not in OP_FIELDS[kind]:
            raise _unused_field(index, kind, str(key))
    optional = _OPTIONAL.get(kind, ())
    for key in OP_FIELDS[kind]:
        if key not in op and key not in optional:
            raise refuse(
                f"`ops[{index}].{key}` is missing: {kind} takes {join_words(OP_FIELDS[kind])}."
            )
    return _BUILDERS[kind](_Fields(index, kind, op))


def validate_ops(ops: object) -> list[CanvasOp]:
    """Check edit ops as arguments, before any canvas is read, and return them typed.

    Each op is an object with a ``type`` and the fields ``OP_FIELDS`` lists for it:

    - ``edit_node`` takes ``id`` and at least one content field, all of one node type:
      ``text`` (text node), ``file`` and ``subpath`` (file node), ``url`` (link node) or
      ``label`` (group). ``subpath`` and ``label`` may be null, which removes the key.
    - ``edit_edge`` takes ``id`` and at least one of ``label``, ``color``, ``fromSide``,
      ``toSide``, ``fromEnd`` and ``toEnd``; null removes the key (the app's default applies).
    - ``set_node_color``'s ``color`` may be null, which removes the node's color.
    - ``reorder_edges``' ``ids`` lists every edge id of the canvas once, in the new order.

    Raises ``InvalidArgument`` naming the op and field for an empty list, an op that is not an
    object, an unknown ``type``, a field the op does not take, a missing field, a value of the
    wrong JSON type or shape (blank ids, non-positive sizes, colors, sides, ends), or an
    ``add_node``/``add_edge`` object the canvas app would not show. Numbers are coordinates:
    a boolean is not one, nor NaN or a value past ``MAX_COORDINATE``; 5.0 comes back as 5.
    """
    if not isinstance(ops, list):
        raise refuse(f"`ops` must be an array of op objects, got {describe(ops)}.")
    if not ops:
        raise refuse(
            "`ops` must not be empty: pass at least one op, such as "
            '{"type": "move_node", "id": "n1", "x": 0, "y": 0}.'
        )
    return [_validate_op(index, op) for index, op in enumerate(ops)]


_OP_SUMMARIES = {
    "move_node": "to x, y",
    "resize_node": "width, height",
    "edit_node": "text, file, subpath, url or label",
    "set_node_color": "color (null removes)",
    "add_node": "`node` on top",
    "delete_node": "and its edges",
    "add_edge": "`edge` between two nodes",
    "delete_edge": "by id",
    "edit_edge": "label, color, sides, ends (null removes)",
    "reorder_edges": "`ids` lists every edge once",
}


def _users(field: str) -> str:
    return join_words([kind for kind, fields in OP_FIELDS.items() if field in fields])


def _nullable(schema: dict[str, object], what: str) -> dict[str, object]:
    return {**schema, "type": ["string", "null"], "description": f"{what} null removes it."}


_COLOR_SCHEMA: dict[str, object] = {"type": "string", "pattern": COLOR_PATTERN}
"""A node's or an edge's color (the op's own ``color`` says what it may be)."""
_ID_SCHEMA: dict[str, object] = {"type": "string", "minLength": 1}
_NUMBER: dict[str, object] = {"type": "number"}
_SIZE: dict[str, object] = {"type": "number", "exclusiveMinimum": 0}

_NODE_SCHEMA: dict[str, object] = {
    "type": "object",
    "description": (
        "add_node: the new node, as JSON Canvas writes it. A text node needs text, a file node "
        "file, a link node url; keys JSON Canvas does not define are kept as given."
    ),
    "required": ["id", "type", "x", "y", "width", "height"],
    "properties": {
        "id": _ID_SCHEMA,
        "type": {"type": "string", "enum": list(NODE_TYPES)},
        "x": _NUMBER,
        "y": _NUMBER,
        "width": _SIZE,
        "height": _SIZE,
        "color": _COLOR_SCHEMA,
        "text": {"type": "string"},
        "file": {"type": "string", "minLength": 1},
        "subpath": {"type": "string", "pattern": "^#"},
        "url": {"type": "string", "minLength": 1},
        "label": {"type": "string"},
        "background": {"type": "string"},
        "backgroundStyle": {"type": "string", "enum": list(BACKGROUND_STYLES)},
    },
}
_EDGE_SCHEMA: dict[str, object] = {
    "type": "object",
    "description": (
        "add_edge: the new edge, from node fromNode to node toNode, both in the canvas at this "
        "op; keys JSON Canvas does not define are kept as given."
    ),
    "required": ["id", "fromNode", "toNode"],
    "properties": {
        "id": _ID_SCHEMA,
        "fromNode": _ID_SCHEMA,
        "toNode": _ID_SCHEMA,
        "fromSide": {"type": "string", "enum": list(SIDES)},
        "toSide": {"type": "string", "enum": list(SIDES)},
        "fromEnd": {"type": "string", "enum": list(ENDS)},
        "toEnd": {"type": "string", "enum": list(ENDS)},
        "color": _COLOR_SCHEMA,
        "label": {"type": "string"},
    },
}


def _side(field: str, values: tuple[str, ...]) -> dict[str, object]:
    return {
        "type": ["string", "null"],
        "enum": [*values, None],
        "description": f"{_users(field)}: null removes it.",
    }


CANVAS_OP_SCHEMA: dict[str, object] = {
    "type": "object",
    "description": (
        "One edit of a JSON Canvas file. Ops apply in order, all or nothing; an op sees the "
        "canvas as the ops before it left it."
    ),
    "properties": {
        "type": {
            "type": "string",
            "enum": list(OP_TYPES),
            "description": "; ".join(f"{kind}: {text}" for kind, text in _OP_SUMMARIES.items()),
        },
        "id": {
            **_ID_SCHEMA,
            "description": "The id of the node or edge to change.",
        },
        "x": {**_NUMBER, "description": "move_node: the new left edge."},
        "y": {**_NUMBER, "description": "move_node: the new top edge."},
        "width": {**_SIZE, "description": "resize_node: the new width."},
        "height": {**_SIZE, "description": "resize_node: the new height."},
        "text": {"type": "string", "description": "edit_node: a text node's Markdown."},
        "file": {
            "type": "string",
            "minLength": 1,
            "description": "edit_node: the file a file node shows.",
        },
        "subpath": _nullable(
            {"pattern": "^#"}, "edit_node: a heading or block in a file node's file, as #Intro;"
        ),
        "url": {"type": "string", "minLength": 1, "description": "edit_node: a link node's URL."},
        "label": _nullable({}, f"{_users('label')}: a group's or an edge's label;"),
        "color": _nullable(
            {"pattern": COLOR_PATTERN},
            f'{_users("color")}: a preset "1" to "6" or #rgb / #rrggbb;',
        ),
        "fromSide": _side("fromSide", SIDES),
        "toSide": _side("toSide", SIDES),
        "fromEnd": _side("fromEnd", ENDS),
        "toEnd": _side("toEnd", ENDS),
        "node": _NODE_SCHEMA,
        "edge": _EDGE_SCHEMA,
        "ids": {
            "type": "array",
            "minItems": 1,
            "uniqueItems": True,
            "items": _ID_SCHEMA,
            "description": "reorder_edges: every edge id once, in the new order.",
        },
    },
    "required": ["type"],
    "additionalProperties": False,
}
"""The JSON Schema of one op, for a tool's input schema; validate_ops applies the same rules."""
