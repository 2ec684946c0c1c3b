"""Properties of canvas edits: any JSON is refused cleanly, and ops behave like a plain model."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quire.canvas.edits import CanvasEdit, apply_canvas_ops
from quire.core.errors import InvalidArgument, QuireError

Json = dict[str, object]

json_values: st.SearchStrategy[object] = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=12,
)

NODE_IDS = ["a", "b", "c", "d"]
EDGE_IDS = ["e", "f", "g"]
node_ids = st.sampled_from(NODE_IDS)
edge_ids = st.sampled_from(EDGE_IDS)
coordinates = st.integers(-(10**6), 10**6) | st.floats(-1e6, 1e6, allow_nan=False)
sizes = st.integers(1, 10**4) | st.floats(0.5, 1e4)
colors = st.sampled_from(["1", "6", "#abc", "#A0B1C2"])


def make_nodes(ids: st.SearchStrategy[str]) -> st.SearchStrategy[Json]:
    placed: dict[str, st.SearchStrategy[object]] = {
        "id": ids,
        "x": coordinates,
        "y": coordinates,
        "width": sizes,
        "height": sizes,
    }
    text = st.fixed_dictionaries(
        {**placed, "type": st.just("text"), "text": st.text(max_size=10)},
        optional={"color": colors, "extra": json_values},
    )
    file = st.fixed_dictionaries(
        {**placed, "type": st.just("file"), "file": st.sampled_from(["a.md", "b/c.png"])},
        optional={"subpath": st.just("#h")},
    )
    group = st.fixed_dictionaries(
        {**placed, "type": st.just("group")}, optional={"label": st.text(max_size=5)}
    )
    return text | file | group


def make_edges(
    ids: st.SearchStrategy[str], ends: st.SearchStrategy[str]
) -> st.SearchStrategy[Json]:
    return st.fixed_dictionaries(
        {"id": ids, "fromNode": ends, "toNode": ends},
        optional={"label": st.text(max_size=5), "toEnd": st.sampled_from(["none", "arrow"])},
    )


nodes = make_nodes(node_ids)
edges = make_edges(edge_ids, node_ids)


def mostly(held: list[str], others: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """An id the canvas holds nine times in ten, when it holds any."""
    if not held:
        return others
    return st.integers(0, 9).flatmap(lambda n: st.sampled_from(held) if n else others)


@st.composite
def canvases(draw: st.DrawFn, min_nodes: int = 0) -> Json:
    """Mostly canvases with distinct ids, as the app writes them; sometimes ids shared by hand."""
    shared = draw(st.integers(0, 4)) == 0
    by_id = None if shared else (lambda entry: entry["id"])
    doc: Json = {"nodes": draw(st.lists(nodes, min_size=min_nodes, max_size=6, unique_by=by_id))}
    held = [node["id"] for node in doc["nodes"]]  # type: ignore[attr-defined]
    if draw(st.integers(0, 4)) > 0:
        new_edges = make_edges(edge_ids, mostly(held, node_ids))
        doc["edges"] = draw(st.lists(new_edges, min_size=1, max_size=5, unique_by=by_id))
    if draw(st.booleans()):
        doc["meta"] = draw(json_values)
    return doc


def make_ops(
    nodes_at: st.SearchStrategy[str], edges_at: st.SearchStrategy[str]
) -> st.SearchStrategy[Json]:
    """Well-formed ops naming the ids drawn from ``nodes_at`` and ``edges_at``."""
    return st.one_of(
        st.builds(
            lambda i, x, y: {"type": "move_node", "id": i, "x": x, "y": y},
            nodes_at,
            coordinates,
            coordinates,
        ),
        st.builds(
            lambda i, w, h: {"type": "resize_node", "id": i, "width": w, "height": h},
            nodes_at,
            sizes,
            sizes,
        ),
        st.builds(
            lambda i, c: {"type": "set_node_color", "id": i, "color": c},
            nodes_at,
            colors | st.none(),
        ),
        st.builds(lambda i, t: {"type": "edit_node", "id": i, "text": t}, nodes_at, st.text()),
        st.builds(lambda i, lb: {"type": "edit_node", "id": i, "label": lb}, nodes_at, st.text()),
        st.builds(lambda n: {"type": "add_node", "node": n}, make_nodes(node_ids)),
        st.builds(lambda i: {"type": "delete_node", "id": i}, nodes_at),
        st.builds(lambda e: {"type": "add_edge", "edge": e}, make_edges(edge_ids, nodes_at)),
        st.builds(lambda i: {"type": "delete_edge", "id": i}, edges_at),
        st.builds(lambda i, lb: {"type": "edit_edge", "id": i, "label": lb}, edges_at, st.text()),
        st.builds(
            lambda ids: {"type": "reorder_edges", "ids": ids},
            st.lists(edges_at, min_size=1, max_size=4, unique=True),
        ),
    )


valid_ops = make_ops(node_ids, edge_ids)


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[Json, list[Json]]:
    """A canvas and ops that mostly name the ids it holds, so most of them apply."""
    doc = draw(canvases(min_nodes=2))
    held_nodes = [n["id"] for n in doc["nodes"]]  # type: ignore[attr-defined]
    held_edges = [e["id"] for e in doc.get("edges", [])]  # type: ignore[attr-defined]
    ops = make_ops(mostly(held_nodes, node_ids), mostly(held_edges, edge_ids))
    return doc, draw(st.lists(ops, min_size=1, max_size=10))


OP_KEYS = ["type", "id", "x", "y", "width", "height", "text", "color", "node", "edge", "ids"]
wild_ops = st.dictionaries(st.sampled_from(OP_KEYS), json_values, max_size=5) | st.builds(
    lambda op, key, value: {**op, key: value},
    valid_ops,
    st.sampled_from([*OP_KEYS, "label", "subpath", "fromSide"]),
    json_values,
)


def check_result(edit: CanvasEdit) -> None:
    doc = json.loads(edit.content)
    assert isinstance(doc, dict)
    edit.content.encode("utf-8")
    assert len(doc["nodes"]) == edit.nodes_count
    assert len(doc["edges"]) == edit.edges_count
    assert edit.node_ids == [n["id"] for n in doc["nodes"] if isinstance(n.get("id"), str)]
    assert edit.edge_ids == [e["id"] for e in doc["edges"] if isinstance(e.get("id"), str)]


@given(
    source=st.text() | json_values.map(json.dumps) | canvases().map(json.dumps),
    ops=json_values | st.lists(valid_ops | wild_ops | json_values, max_size=4),
)
def test_any_json_is_either_applied_or_refused_with_a_quire_error(source: str, ops: object) -> None:
    try:
        edit = apply_canvas_ops(source, ops)
    except QuireError:
        return
    check_result(edit)


def whole(value: object) -> object:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


Outcome = tuple[list[Json], list[Json], list[str]] | int
"""What the model left (nodes, edges, removed edge ids), or the index of the op it refused."""

CONTENT = {"text": "text", "label": "group"}


def find(items: list[Json], ident: object) -> int | None:
    found = [n for n, item in enumerate(items) if item.get("id") == ident]
    return found[0] if len(found) == 1 else None


def model_add(nodes: list[Json], edges: list[Json], op: Json) -> bool:
    adding_node = op["type"] == "add_node"
    entry = dict(op["node" if adding_node else "edge"])  # type: ignore[call-overload]
    entry.update({k: whole(entry[k]) for k in ("x", "y", "width", "height") if k in entry})
    target = nodes if adding_node else edges
    if any(item.get("id") == entry["id"] for item in target):
        return False
    ends = [] if adding_node else [entry["fromNode"], entry["toNode"]]
    if any(all(node.get("id") != end for node in nodes) for end in ends):
        return False
    target.append(entry)
    return True


def model_reorder(edges: list[Json], ids: list[str]) -> bool:
    positions = [find(edges, ident) for ident in ids]
    named = [e["id"] for e in edges if find(edges, e.get("id")) is not None]
    if None in positions or set(named) - set(ids):
        return False
    rest = [e for n, e in enumerate(edges) if n not in positions]
    edges[:] = [edges[n] for n in positions if n is not None] + rest
    return True


def model_change(entry: Json, op: Json) -> bool:
    changes = {k: whole(v) for k, v in op.items() if k not in ("type", "id")}
    if op["type"] == "edit_node":
        for key, node_type in CONTENT.items():
            if (key in changes) != (entry.get("type") == node_type):
                return False
    for key, value in changes.items():
        if value is None:
            entry.pop(key, None)
        else:
            entry[key] = value
    return True


def model(doc: Json, ops: list[Json]) -> Outcome:
    """The ops applied by linear scans, as simply as possible."""
    nodes = [dict(node) for node in doc.get("nodes", [])]  # type: ignore[attr-defined]
    edges = [dict(edge) for edge in doc.get("edges", [])]  # type: ignore[attr-defined]
    removed: list[str] = []
    for index, op in enumerate(ops):
        kind = op["type"]
        if kind in ("add_node", "add_edge"):
            if not model_add(nodes, edges, op):
                return index
            continue
        if kind == "reorder_edges":
            if not model_reorder(edges, op["ids"]):  # type: ignore[arg-type]
                return index
            continue
        items = edges if kind in ("delete_edge", "edit_edge") else nodes
        position = find(items, op["id"])
        if position is None:
            return index
        if kind == "delete_node":
            del nodes[position]
            gone = [e for e in edges if op["id"] in (e["fromNode"], e["toNode"])]
            removed += [str(e["id"]) for e in gone]
            edges[:] = [e for e in edges if e not in gone]
        elif kind == "delete_edge":
            del edges[position]
        elif not model_change(items[position], op):
            return index
    return nodes, edges, removed


@given(scenario=scenarios())
def test_ops_do_what_a_plain_model_of_them_does(scenario: tuple[Json, list[Json]]) -> None:
    doc, ops = scenario
    expected = model(doc, ops)
    if isinstance(expected, int):
        with pytest.raises(InvalidArgument) as caught:
            apply_canvas_ops(json.dumps(doc), ops)
        assert caught.value.message.startswith(f"op[{expected}] ")
        # The ops before the refused one apply on their own.
        ops = ops[:expected]
        if not ops:
            return
        expected = model(doc, ops)
        assert not isinstance(expected, int)
    edit = apply_canvas_ops(json.dumps(doc), ops)
    check_result(edit)
    nodes_left, edges_left, removed = expected
    written = json.loads(edit.content)
    assert written["nodes"] == nodes_left
    assert written["edges"] == edges_left
    assert edit.removed_edge_ids == removed


@st.composite
def distinct_canvases(draw: st.DrawFn) -> Json:
    """A canvas with at least one node and distinct node ids."""
    return {
        "nodes": draw(st.lists(nodes, min_size=1, max_size=6, unique_by=lambda n: n["id"])),
        "edges": draw(st.lists(edges, max_size=3)),
        "meta": draw(json_values),
    }


@given(doc=distinct_canvases(), which=st.integers(0, 5), x=coordinates, y=coordinates)
def test_moving_a_node_and_moving_it_back_restores_every_position(
    doc: Json, which: int, x: float, y: float
) -> None:
    node_list: list[Json] = doc["nodes"]  # type: ignore[assignment]
    node = node_list[which % len(node_list)]
    back = {"type": "move_node", "id": node["id"], "x": node["x"], "y": node["y"]}
    there = {"type": "move_node", "id": node["id"], "x": x, "y": y}
    source = json.dumps(doc)
    round_trip = apply_canvas_ops(source, [there, back])
    assert json.loads(round_trip.content)["nodes"] == node_list
    moved = apply_canvas_ops(source, [there])
    assert apply_canvas_ops(moved.content, [back]).content == round_trip.content
