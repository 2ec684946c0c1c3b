"""Apply typed edit ops to a JSON Canvas (.canvas) document, all or nothing.

Pure: takes the canvas's text and returns the new text; reading and writing the file is the
caller's. What an op may hold is checked in ``ops.py`` before the canvas is parsed.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import assert_never

from quire.canvas.ops import (
    CANVAS_OP_SCHEMA,
    OP_FIELDS,
    AddEdge,
    AddNode,
    CanvasOp,
    DeleteEdge,
    DeleteNode,
    EditEdge,
    EditNode,
    MoveNode,
    ReorderEdges,
    ResizeNode,
    SetNodeColor,
    validate_ops,
)
from quire.canvas.values import NODE_CONTENT, describe, join_words
from quire.core.errors import DocumentInvalid, InvalidArgument

__all__ = [
    "CANVAS_OP_SCHEMA",
    "CanvasEdit",
    "CanvasOp",
    "apply_canvas_ops",
    "is_canvas_name",
    "validate_ops",
]

_LISTED_IDS = 20
_UNCHANGED = "No op was applied and the file was left unchanged."
_EDITABLE = OP_FIELDS["edit_node"]
_SURROGATE = re.compile(r"[\ud800-\udfff]")

Entry = dict[str, object]


@dataclass(frozen=True)
class CanvasEdit:
    """The canvas after every op: its new text, and what is left in it for follow-up ops."""

    content: str
    nodes_count: int
    edges_count: int
    node_ids: list[str]
    edge_ids: list[str]
    removed_edge_ids: list[str]
    ops_applied: int


def is_canvas_name(name: str) -> bool:
    """Whether a file name (or path) ends in ``.canvas``, in any case, after a non-empty stem."""
    base = re.split(r"[\\/]", name)[-1]
    return len(base) > len(".canvas") and base[-len(".canvas") :].lower() == ".canvas"


def apply_canvas_ops(source: str, ops: object) -> CanvasEdit:
    """Apply ``ops`` in order to the canvas text ``source`` and return the new canvas.

    The ops are checked first (``validate_ops``), then the canvas is parsed. Each op sees the
    canvas the ops before it left. Nothing is returned unless every op applies: a node or edge
    that is not there (the message lists the ids there are at that op), an id already taken, an
    id two entries of the file share, an edit that does not fit the node's type, or a
    reorder_edges that leaves an edge out raises ``InvalidArgument`` naming the op; a canvas
    that is not a JSON object with arrays of objects under ``nodes`` and ``edges`` (or holds
    NaN, or a number too large) raises ``DocumentInvalid``.

    Node ids and edge ids are separate. An entry without a string id is kept as it is; no op
    can name it, and reorder_edges keeps such edges after the ones it lists.

    ``content`` is written as the canvas app writes it: ``{``, then each top-level key on its
    own line indented by a tab, ``nodes`` and ``edges`` with one entry per line (indented by
    two tabs, compact JSON with no spaces), any other top-level value indented by tabs, and
    ``}`` with no newline after it. Text outside ASCII is written as is (a lone surrogate as a
    ``\\u`` escape), a leading byte order mark is dropped, and keys this module does not know,
    at the top level and on nodes and edges, are written back unchanged and in their order. A
    canvas without ``nodes`` or ``edges`` gains the missing array: ``nodes`` first, ``edges``
    right after ``nodes``. Numbers an op writes that are whole come out as JSON integers.
    """
    checked = validate_ops(ops)
    canvas = _Canvas(_parse(source))
    for index, op in enumerate(checked):
        canvas.apply(f"op[{index}] {op.kind}", op)
    return canvas.result(len(checked))


class _BadNumber(ValueError):
    """A number literal JSON cannot hold as a finite number (NaN, Infinity, 1e400)."""


def _finite_float(literal: str) -> float:
    value = float(literal)
    if not math.isfinite(value):
        raise _BadNumber(literal)
    return value


def _no_constant(literal: str) -> object:
    raise _BadNumber(literal)


def _invalid(what: str) -> DocumentInvalid:
    return DocumentInvalid(
        f"{what}; no op was applied and the file was left untouched. "
        "Fix the file in a text editor (or write it again whole), then retry."
    )


def _parse(source: str) -> Entry:
    try:
        # A byte order mark (as Notepad saves) is not JSON; the canvas is written without it.
        doc = json.loads(
            source.removeprefix("\ufeff"), parse_float=_finite_float, parse_constant=_no_constant
        )
    except json.JSONDecodeError as err:
        where = f"line {err.lineno}, column {err.colno}"
        raise _invalid(f"The canvas is not valid JSON ({err.msg} at {where})") from None
    except _BadNumber as err:
        literal = str(err)
        if literal in ("NaN", "Infinity", "-Infinity"):
            raise _invalid(f"The canvas holds {literal}, which is not a JSON number") from None
        raise _invalid(f"The canvas holds the number {literal}, which is too large") from None
    except ValueError:
        raise _invalid("The canvas holds a number with too many digits to read") from None
    except RecursionError:
        raise _invalid("The canvas nests its values too deeply to read") from None
    if not isinstance(doc, dict):
        raise _invalid(
            f"The canvas must be a JSON object with nodes and edges, not {describe(doc)}"
        )
    for key in ("nodes", "edges"):
        items = doc.get(key, [])
        if not isinstance(items, list):
            raise _invalid(
                f"The canvas's `{key}` must be an array of objects, not {describe(items)}"
            )
        for number, item in enumerate(items):
            if not isinstance(item, dict):
                raise _invalid(
                    f"The canvas's `{key}` must be an array of objects, but {key}[{number}] "
                    f"is {describe(item)}"
                )
    return doc


def _id_of(entry: Entry) -> str | None:
    ident = entry.get("id")
    return ident if isinstance(ident, str) else None


class _Items:
    """The nodes or the edges in order, with an index by id; a removal leaves a hole (None)."""

    def __init__(self, noun: str, entries: list[Entry]) -> None:
        self.noun = noun
        self.reset(entries)

    def reset(self, entries: list[Entry]) -> None:
        self.slots: list[Entry | None] = []
        self.where: dict[str, int] = {}
        # Ids two entries share (a file written by hand): no op can tell which one it means.
        self.shared: dict[str, list[int]] = {}
        for entry in entries:
            self.append(entry)

    def has(self, ident: str) -> bool:
        return ident in self.where or ident in self.shared

    def append(self, entry: Entry) -> int:
        position = len(self.slots)
        self.slots.append(entry)
        ident = _id_of(entry)
        if ident is None:
            return position
        if ident in self.shared:
            self.shared[ident].append(position)
        elif ident in self.where:
            self.shared[ident] = [self.where.pop(ident), position]
        else:
            self.where[ident] = position
        return position

    def remove(self, position: int) -> Entry:
        entry = self.slots[position]
        assert entry is not None, "a removed entry is never found again"
        self.slots[position] = None
        ident = _id_of(entry)
        shared = self.shared.get(ident) if ident is not None else None
        if shared is not None and ident is not None:
            shared.remove(position)
            if len(shared) == 1:
                self.where[ident] = shared[0]
                del self.shared[ident]
        elif ident is not None:
            del self.where[ident]
        return entry

    def entries(self) -> list[Entry]:
        return [entry for entry in self.slots if entry is not None]

    def ids(self) -> list[str]:
        return [ident for entry in self.entries() if (ident := _id_of(entry)) is not None]


def _some(ids: list[str]) -> str:
    shown = ", ".join(ids[:_LISTED_IDS])
    rest = len(ids) - _LISTED_IDS
    return f"{shown} and {rest} more" if rest > 0 else shown


def _listing(items: _Items) -> str:
    ids = items.ids()
    if not ids:
        return f"The canvas has no {items.noun} ids at this op."
    return f"The canvas's {items.noun} ids at this op are {_some(ids)}."


def _refuse(at: str, reason: str) -> InvalidArgument:
    return InvalidArgument(f"{at}: {reason} {_UNCHANGED}", argument="ops")


def _set(entry: Entry, changes: tuple[tuple[str, object | None], ...]) -> None:
    for key, value in changes:
        if value is None:
            entry.pop(key, None)
        else:
            entry[key] = value


def _endpoints(edge: Entry) -> set[str]:
    return {end for key in ("fromNode", "toNode") if isinstance(end := edge.get(key), str)}


class _Canvas:
    """A parsed canvas the ops change in place; ``result`` writes it back as text."""

    def __init__(self, doc: Entry) -> None:
        self.doc = doc
        self.nodes = _Items("node", _entries(doc, "nodes"))
        self.edges = _Items("edge", _entries(doc, "edges"))
        self.removed_edge_ids: list[str] = []
        # Edge positions by the node ids they touch, built on the first delete_node.
        self.touching: dict[str, list[int]] | None = None

    def apply(self, at: str, op: CanvasOp) -> None:
        match op:
            case MoveNode():
                _set(self._find(self.nodes, op.id, at), (("x", op.x), ("y", op.y)))
            case ResizeNode():
                node = self._find(self.nodes, op.id, at)
                _set(node, (("width", op.width), ("height", op.height)))
            case EditNode():
                self._edit_node(at, op)
            case SetNodeColor():
                _set(self._find(self.nodes, op.id, at), (("color", op.color),))
            case AddNode():
                self._add(self.nodes, op.node, at)
            case DeleteNode():
                self._delete_node(at, op.id)
            case AddEdge():
                self._add_edge(at, op.edge)
            case DeleteEdge():
                self.edges.remove(self._position(self.edges, op.id, at))
            case EditEdge():
                _set(self._find(self.edges, op.id, at), op.changes)
            case ReorderEdges():
                self._reorder_edges(at, op.ids)
            case _:
                assert_never(op)

    def _position(self, items: _Items, ident: str, at: str) -> int:
        position = items.where.get(ident)
        if position is not None:
            return position
        shared = items.shared.get(ident)
        if shared is not None:
            raise _refuse(
                at,
                f"{len(shared)} {items.noun}s have the id {ident}, so no op can tell them "
                f"apart. Give each its own id in a text editor first.",
            )
        raise _refuse(at, f"{items.noun} {ident} not found. {_listing(items)}")

    def _find(self, items: _Items, ident: str, at: str) -> Entry:
        entry = items.slots[self._position(items, ident, at)]
        assert entry is not None, "the index never points at a hole"
        return entry

    def _edit_node(self, at: str, op: EditNode) -> None:
        node = self._find(self.nodes, op.id, at)
        node_type = node.get("type")
        keys = NODE_CONTENT.get(node_type) if isinstance(node_type, str) else None
        if keys is None:
            raise _refuse(
                at,
                f"node {op.id} has type {describe(node_type)}, not text, file, link or group, "
                "so edit_node cannot tell which content it holds.",
            )
        takes = [key for key in keys if key in _EDITABLE]
        for key, _ in op.changes:
            if key not in takes:
                owner = next(kind for kind, content in NODE_CONTENT.items() if key in content)
                raise _refuse(
                    at,
                    f"node {op.id} is a {node_type} node, so edit_node takes "
                    f"{join_words(takes)} for it; {key} is for {owner} nodes.",
                )
        _set(node, op.changes)

    def _add(self, items: _Items, entry: Entry, at: str) -> int:
        ident = _id_of(entry)
        assert ident is not None, "validate_ops checked the id"
        if items.has(ident):
            raise _refuse(
                at,
                f"a{'n' if items.noun == 'edge' else ''} {items.noun} with the id {ident} "
                "already exists at this op; pick another id.",
            )
        # A copy, so later ops never change the caller's ops.
        return items.append(dict(entry))

    def _add_edge(self, at: str, edge: Entry) -> None:
        for key in ("fromNode", "toNode"):
            ident = edge[key]
            if isinstance(ident, str) and not self.nodes.has(ident):
                raise _refuse(
                    at, f"node {ident} not found (the edge's {key}). {_listing(self.nodes)}"
                )
        position = self._add(self.edges, edge, at)
        if self.touching is not None:
            for end in _endpoints(edge):
                self.touching.setdefault(end, []).append(position)

    def _delete_node(self, at: str, ident: str) -> None:
        self.nodes.remove(self._position(self.nodes, ident, at))
        if self.touching is None:
            self.touching = {}
            for position, edge in enumerate(self.edges.slots):
                for end in _endpoints(edge) if edge is not None else ():
                    self.touching.setdefault(end, []).append(position)
        for position in sorted(set(self.touching.pop(ident, []))):
            edge = self.edges.slots[position]
            if edge is not None:
                self.edges.remove(position)
                if (edge_id := _id_of(edge)) is not None:
                    self.removed_edge_ids.append(edge_id)

    def _reorder_edges(self, at: str, ids: tuple[str, ...]) -> None:
        positions = [self._position(self.edges, ident, at) for ident in ids]
        listed = set(ids)
        left_out = [i for i in self.edges.ids() if i in self.edges.where and i not in listed]
        if left_out:
            raise _refuse(
                at,
                f"`ids` must list every edge once, but it leaves out {_some(left_out)}. "
                f"Add them where they belong in the new order.",
            )
        # Edges no id can name (none, or one two edges share) keep their order after the rest.
        chosen = set(positions)
        unnamed = [e for p, e in enumerate(self.edges.slots) if e is not None and p not in chosen]
        ordered = [self.edges.slots[position] for position in positions]
        self.edges.reset([edge for edge in ordered if edge is not None] + unnamed)
        self.touching = None

    def result(self, ops_applied: int) -> CanvasEdit:
        nodes, edges = self.nodes.entries(), self.edges.entries()
        return CanvasEdit(
            content=_write(self.doc, nodes, edges),
            nodes_count=len(nodes),
            edges_count=len(edges),
            node_ids=self.nodes.ids(),
            edge_ids=self.edges.ids(),
            removed_edge_ids=list(self.removed_edge_ids),
            ops_applied=ops_applied,
        )


def _entries(doc: Entry, key: str) -> list[Entry]:
    items = doc.get(key, [])
    assert isinstance(items, list), "_parse checked the arrays"
    return [item for item in items if isinstance(item, dict)]


def _write(doc: Entry, nodes: list[Entry], edges: list[Entry]) -> str:
    """The canvas as text; a canvas without nodes or edges gains them, nodes first."""
    ordered: Entry = {}
    if "nodes" not in doc:
        ordered["nodes"] = nodes
        if "edges" not in doc:
            ordered["edges"] = edges
    for key, value in doc.items():
        ordered[key] = nodes if key == "nodes" else edges if key == "edges" else value
        if key == "nodes" and "edges" not in doc:
            ordered["edges"] = edges
    lines = []
    try:
        for key, value in ordered.items():
            name = json.dumps(key, ensure_ascii=False)
            if key in ("nodes", "edges") and isinstance(value, list):
                body = _lines_of(value)
            else:
                body = json.dumps(value, ensure_ascii=False, indent="\t", separators=(",", ":"))
                # JSON strings hold no raw newline, so this indents nested lines only.
                body = body.replace("\n", "\n\t")
            lines.append(f"\t{name}:{body}")
    except RecursionError:
        raise _invalid("The canvas nests its values too deeply to write back") from None
    text = "{\n" + ",\n".join(lines) + "\n}"
    # A lone surrogate (from a \ud800 escape) cannot be UTF-8: write it escaped, as JSON allows.
    return _SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def _lines_of(entries: list[Entry]) -> str:
    if not entries:
        return "[]"
    rows = (json.dumps(entry, ensure_ascii=False, separators=(",", ":")) for entry in entries)
    return "[\n\t\t" + ",\n\t\t".join(rows) + "\n\t]"
