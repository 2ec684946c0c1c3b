"""Canvas edit ops are checked as arguments, before any canvas is read."""

from __future__ import annotations

import json
import math

import pytest

from quire.canvas.ops import (
    CANVAS_OP_SCHEMA,
    OP_FIELDS,
    AddEdge,
    AddNode,
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
from quire.core.errors import InvalidArgument

TEXT_NODE: dict[str, object] = {
    "id": "n9",
    "type": "text",
    "text": "Hi",
    "x": 0,
    "y": 0,
    "width": 250,
    "height": 60,
}
EDGE: dict[str, object] = {"id": "e9", "fromNode": "n1", "toNode": "n2"}

VALID_OPS: list[dict[str, object]] = [
    {"type": "move_node", "id": "n1", "x": 10, "y": -20.5},
    {"type": "resize_node", "id": "n1", "width": 300, "height": 80},
    {"type": "edit_node", "id": "n1", "text": "New text"},
    {"type": "edit_node", "id": "n1", "file": "notes/plan.md", "subpath": "#Goals"},
    {"type": "edit_node", "id": "n1", "url": "https://example.org"},
    {"type": "edit_node", "id": "n1", "label": "Ideas"},
    {"type": "set_node_color", "id": "n1", "color": "4"},
    {"type": "add_node", "node": TEXT_NODE},
    {"type": "delete_node", "id": "n1"},
    {"type": "add_edge", "edge": EDGE},
    {"type": "delete_edge", "id": "e1"},
    {"type": "edit_edge", "id": "e1", "label": "depends on", "toEnd": "none"},
    {"type": "reorder_edges", "ids": ["e2", "e1"]},
]


def refusal(ops: object) -> str:
    with pytest.raises(InvalidArgument) as caught:
        validate_ops(ops)
    assert caught.value.argument == "ops"
    return caught.value.message


def test_every_op_type_has_a_valid_example() -> None:
    assert {op["type"] for op in VALID_OPS} == set(OP_FIELDS)


@pytest.mark.parametrize("op", VALID_OPS, ids=lambda op: str(op["type"]))
def test_a_well_formed_op_is_accepted(op: dict[str, object]) -> None:
    (checked,) = validate_ops([op])
    assert checked.kind == op["type"]


def test_ops_come_back_typed_in_order() -> None:
    ops: list[object] = [
        {"type": "move_node", "id": "a", "x": 1, "y": 2},
        {"type": "resize_node", "id": "a", "width": 3, "height": 4},
        {"type": "edit_node", "id": "a", "subpath": None, "file": "f.md"},
        {"type": "set_node_color", "id": "a", "color": None},
        {"type": "add_node", "node": TEXT_NODE},
        {"type": "delete_node", "id": "a"},
        {"type": "add_edge", "edge": EDGE},
        {"type": "delete_edge", "id": "e"},
        {"type": "edit_edge", "id": "e", "color": "#fff", "label": None},
        {"type": "reorder_edges", "ids": ["e", "f"]},
    ]
    assert validate_ops(ops) == [
        MoveNode("a", 1, 2),
        ResizeNode("a", 3, 4),
        EditNode("a", (("subpath", None), ("file", "f.md"))),
        SetNodeColor("a", None),
        AddNode(TEXT_NODE),
        DeleteNode("a"),
        AddEdge(EDGE),
        DeleteEdge("e"),
        EditEdge("e", (("color", "#fff"), ("label", None))),
        ReorderEdges(("e", "f")),
    ]


@pytest.mark.parametrize(
    ("ops", "message"),
    [
        (None, "`ops` must be an array of op objects, got null."),
        ({"type": "move_node"}, "`ops` must be an array of op objects, got an object."),
        ("move_node", '`ops` must be an array of op objects, got a string ("move_node").'),
        ([], "`ops` must not be empty: pass at least one op"),
        ([5], "`ops[0]` must be an object with a `type`, got a number (5)."),
        ([[]], "`ops[0]` must be an object with a `type`, got an array of 0 items."),
        ([{}], "`ops[0].type` is missing: say which op this is, one of move_node, resize_node"),
        ([{"id": "n1"}], "`ops[0].type` is missing"),
        ([{"type": "frob"}], "`ops[0].type` must be one of move_node, resize_node, edit_node"),
        ([{"type": "MOVE_NODE"}], "`ops[0].type` must be one of"),
        ([{"type": 3}], "`ops[0].type` must be one of"),
        ([{"type": None}], "`ops[0].type` must be one of"),
    ],
)
def test_the_ops_list_and_op_types_are_checked(ops: object, message: str) -> None:
    assert refusal(ops).startswith(message)


def test_an_unknown_type_lists_every_allowed_one() -> None:
    message = refusal([{"type": "move"}])
    assert message.endswith('reorder_edges, got a string ("move").')
    for kind in OP_FIELDS:
        assert kind in message


def move(**fields: object) -> dict[str, object]:
    return {"type": "move_node", "id": "n1", "x": 0, "y": 0, **fields}


@pytest.mark.parametrize(
    ("op", "message"),
    [
        (move(x="5"), '`ops[1].x` must be a number, got a string ("5").'),
        (move(x=True), "`ops[1].x` must be a number, got a boolean (true)."),
        (move(y=False), "`ops[1].y` must be a number, got a boolean (false)."),
        (move(x=None), "`ops[1].x` must be a number, got null."),
        (move(x=[1]), "`ops[1].x` must be a number, got an array of 1 item."),
        (move(x={"v": 1}), "`ops[1].x` must be a number, got an object."),
        (move(x=math.nan), "`ops[1].x` must be a finite number, got a number (nan)."),
        (move(y=-math.inf), "`ops[1].y` must be a finite number, got a number (-inf)."),
        (move(x=1e300), "`ops[1].x` must be between -9007199254740991 and 9007199254740991"),
        (move(x=-(2**53)), "`ops[1].x` must be between"),
        (move(id=5), "`ops[1].id` must be a string (the id of a node in the canvas), got a number"),
        (move(id=""), "`ops[1].id` must be at least 1 character long"),
        (move(id=" "), "op[1] move_node: `id` must not be empty or only whitespace"),
        (move(id="\t\n"), "op[1] move_node: `id` must not be empty"),
        (move(id="\u3000"), "op[1] move_node: `id` must not be empty"),
        (
            move(width=5),
            "`ops[1].width` is not used by move_node; resize_node takes it "
            "(a move and a resize are two ops).",
        ),
        (
            {"type": "resize_node", "id": "n1", "width": 1, "height": 1, "x": 3},
            "`ops[1].x` is not used by resize_node; move_node takes it "
            "(a move and a resize are two ops).",
        ),
        (
            move(color="1"),
            "`ops[1].color` is not used by move_node; set_node_color and edit_edge take it "
            "(each op makes one kind of change; send it in an op of its own).",
        ),
        (
            move(colour="1"),
            "`ops[1].colour` is not used by move_node, nor by any other op; "
            "move_node takes id, x and y.",
        ),
        (
            {"type": "delete_node", "id": "n1", "ids": ["n1"]},
            "`ops[1].ids` is not used by delete_node; reorder_edges takes it",
        ),
        (
            {"type": "add_node", "node": TEXT_NODE, "x": 1},
            "`ops[1].x` is not used by add_node; put the new node's x inside `node`.",
        ),
        (
            {"type": "add_node", "id": "n1", "node": TEXT_NODE},
            "`ops[1].id` is not used by add_node; put the new node's id inside `node`.",
        ),
        (
            {"type": "add_edge", "edge": EDGE, "fromNode": "n1"},
            "`ops[1].fromNode` is not used by add_edge; put the new edge's fromNode inside `edge`.",
        ),
        (
            {"type": "move_node", "x": 0, "y": 0},
            "`ops[1].id` is missing: move_node takes id, x and y.",
        ),
        ({"type": "move_node", "id": "n1", "x": 0}, "`ops[1].y` is missing"),
        ({"type": "add_node"}, "`ops[1].node` is missing: add_node takes node."),
        ({"type": "reorder_edges"}, "`ops[1].ids` is missing"),
    ],
)
def test_op_fields_are_checked_with_op_and_field_named(op: object, message: str) -> None:
    assert refusal([move(), op]).startswith(message)


def test_a_whole_number_float_is_a_number_and_comes_back_whole() -> None:
    (checked,) = validate_ops([move(x=5.0, y=-0.0)])
    assert checked == MoveNode("n1", 5, 0)
    assert isinstance(checked, MoveNode)
    assert type(checked.x) is int
    assert type(checked.y) is int


def test_a_fractional_number_is_kept_as_given() -> None:
    assert validate_ops([move(x=2.25, y=-0.5)]) == [MoveNode("n1", 2.25, -0.5)]


@pytest.mark.parametrize(
    ("op", "message"),
    [
        (
            move(x=10**5000),
            "`ops[0].x` must be between -9007199254740991 and 9007199254740991, "
            "the whole numbers a canvas app reads exactly, got a whole number of 16610 bits.",
        ),
        (
            move(id=-(10**5000)),
            "`ops[0].id` must be a string (the id of a node in the canvas), "
            "got a number (a whole number of 16610 bits).",
        ),
    ],
)
def test_a_huge_whole_number_is_named_without_its_digits(op: object, message: str) -> None:
    assert refusal([op]) == message


def test_the_largest_exact_whole_number_is_accepted() -> None:
    limit = 2**53 - 1
    assert validate_ops([move(x=limit, y=-limit)]) == [MoveNode("n1", limit, -limit)]


def test_an_id_with_unusual_characters_is_an_id() -> None:
    ops = [{"type": "delete_node", "id": "a\x00b"}, {"type": "delete_node", "id": " n1 "}]
    assert validate_ops(ops) == [DeleteNode("a\x00b"), DeleteNode(" n1 ")]


def resize(**fields: object) -> dict[str, object]:
    return {"type": "resize_node", "id": "n1", "width": 1, "height": 1, **fields}


@pytest.mark.parametrize(
    ("op", "message"),
    [
        (resize(width=0), "`ops[0].width` must be greater than 0 (a size), got 0."),
        (resize(height=-3.5), "`ops[0].height` must be greater than 0 (a size), got -3.5."),
        (resize(height=0.0), "`ops[0].height` must be greater than 0 (a size), got 0."),
        (resize(width="10"), '`ops[0].width` must be a number, got a string ("10").'),
    ],
)
def test_sizes_must_be_positive_numbers(op: object, message: str) -> None:
    assert refusal([op]) == message


def edit_node(**fields: object) -> dict[str, object]:
    return {"type": "edit_node", "id": "n1", **fields}


@pytest.mark.parametrize(
    ("op", "message"),
    [
        (
            edit_node(),
            "op[0] edit_node changes nothing: give `id` and at least one of text, file, "
            "subpath, url and label.",
        ),
        (edit_node(text=5), "`ops[0].text` must be a string, got a number (5)."),
        (edit_node(text=None), "`ops[0].text` must be a string, got null."),
        (edit_node(file=""), "`ops[0].file` must be at least 1 character long."),
        (edit_node(url=""), "`ops[0].url` must be at least 1 character long."),
        (edit_node(url=None), "`ops[0].url` must be a string, got null."),
        (edit_node(subpath="Goals"), "`ops[0].subpath` must start with #"),
        (edit_node(subpath=3), "`ops[0].subpath` must be a string, or null to remove it"),
        (edit_node(label=False), "`ops[0].label` must be a string, or null to remove it"),
        (
            edit_node(text="a", url="https://x"),
            "op[0] edit_node sets text and url, which belong to text and link nodes",
        ),
        (edit_node(label="a", subpath="#b"), "op[0] edit_node sets label and subpath"),
        (edit_node(color="1"), "`ops[0].color` is not used by edit_node; set_node_color"),
        (edit_node(x=1), "`ops[0].x` is not used by edit_node; move_node takes it"),
    ],
)
def test_edit_node_takes_one_node_types_content(op: object, message: str) -> None:
    assert refusal([op]).startswith(message)


def test_edit_node_may_remove_a_subpath_or_a_label_with_null() -> None:
    assert validate_ops([edit_node(subpath=None), edit_node(label=None)]) == [
        EditNode("n1", (("subpath", None),)),
        EditNode("n1", (("label", None),)),
    ]


def test_edit_node_may_set_an_empty_text() -> None:
    assert validate_ops([edit_node(text="")]) == [EditNode("n1", (("text", ""),))]


GOOD_COLORS = ["1", "2", "3", "4", "5", "6", "#abc", "#ABC", "#a1B2c3", "#000000"]
BAD_COLORS = ["red", "7", "0", "", " 1", "1 ", "#12", "#1234", "#ggg", "#abcdeg", "abc", "#"]


@pytest.mark.parametrize("color", GOOD_COLORS)
def test_a_preset_or_hex_color_is_accepted(color: str) -> None:
    ops = [
        {"type": "set_node_color", "id": "n1", "color": color},
        {"type": "edit_edge", "id": "e1", "color": color},
        {"type": "add_node", "node": {**TEXT_NODE, "color": color}},
        {"type": "add_edge", "edge": {**EDGE, "color": color}},
    ]
    assert len(validate_ops(ops)) == 4


@pytest.mark.parametrize("color", BAD_COLORS)
@pytest.mark.parametrize(
    ("op", "field"),
    [
        ({"type": "set_node_color", "id": "n1"}, "color"),
        ({"type": "edit_edge", "id": "e1"}, "color"),
    ],
)
def test_any_other_color_is_refused(color: str, op: dict[str, object], field: str) -> None:
    message = refusal([{**op, field: color}])
    assert message.startswith(f"`ops[0].{field}` must be a canvas color: a preset from")


@pytest.mark.parametrize("color", BAD_COLORS)
def test_a_new_node_or_edge_color_must_be_a_canvas_color(color: str) -> None:
    node_op = {"type": "add_node", "node": {**TEXT_NODE, "color": color}}
    edge_op = {"type": "add_edge", "edge": {**EDGE, "color": color}}
    assert refusal([node_op]).startswith("`ops[0].node.color` must be a canvas color")
    assert refusal([edge_op]).startswith("`ops[0].edge.color` must be a canvas color")


def test_set_node_color_removes_the_color_with_null() -> None:
    assert validate_ops([{"type": "set_node_color", "id": "n1", "color": None}]) == [
        SetNodeColor("n1", None)
    ]


def test_set_node_color_needs_a_color() -> None:
    assert refusal([{"type": "set_node_color", "id": "n1"}]).startswith(
        "`ops[0].color` is missing: set_node_color takes id and color."
    )


def edit_edge(**fields: object) -> dict[str, object]:
    return {"type": "edit_edge", "id": "e1", **fields}


@pytest.mark.parametrize(
    ("op", "message"),
    [
        (edit_edge(), "op[0] edit_edge changes nothing: give `id` and at least one of label"),
        (
            edit_edge(fromSide="middle"),
            "`ops[0].fromSide` must be one of top, right, bottom or left",
        ),
        (edit_edge(toSide="TOP"), "`ops[0].toSide` must be one of top, right, bottom or left"),
        (
            edit_edge(fromEnd="both"),
            '`ops[0].fromEnd` must be one of none or arrow, got a string ("both")',
        ),
        (edit_edge(toEnd=1), "`ops[0].toEnd` must be a string, or null to remove it, got a number"),
        (edit_edge(label=["a"]), "`ops[0].label` must be a string, or null to remove it"),
        (
            edit_edge(fromNode="n1"),
            "`ops[0].fromNode` is not used by edit_edge, nor by any other op",
        ),
        (edit_edge(id=""), "`ops[0].id` must be at least 1 character long: give the id of an edge"),
    ],
)
def test_edit_edge_fields_are_checked(op: object, message: str) -> None:
    assert refusal([op]).startswith(message)


def test_edit_edge_removes_a_key_with_null() -> None:
    assert validate_ops([edit_edge(fromSide=None, toEnd="arrow")]) == [
        EditEdge("e1", (("fromSide", None), ("toEnd", "arrow")))
    ]


@pytest.mark.parametrize(
    ("ids", "message"),
    [
        ("e1", '`ops[0].ids` must be an array of edge ids, got a string ("e1").'),
        ([], "`ops[0].ids` must not be empty: list every edge id in the new order."),
        (["e1", ""], "`ops[0].ids[1]` must be at least 1 character long"),
        (["  "], "op[0] reorder_edges: `ids[0]` must not be empty or only whitespace"),
        ([1], "`ops[0].ids[0]` must be a string (the id of an edge in the canvas), got a number"),
        (["e1", "e2", "e1"], "`ops[0].ids` lists edge e1 twice: list each edge once."),
    ],
)
def test_reorder_edges_ids_are_checked(ids: object, message: str) -> None:
    assert refusal([{"type": "reorder_edges", "ids": ids}]).startswith(message)


def node(**changes: object) -> dict[str, object]:
    fields: dict[str, object] = {**TEXT_NODE, **changes}
    return {key: value for key, value in fields.items() if value is not ...}


NEEDS = "a new node needs id, type, x, y, width and height (and text, file or url, by its type)."


@pytest.mark.parametrize(
    ("new_node", "message"),
    [
        ("n1", '`ops[0].node` must be an object, got a string ("n1").'),
        (node(id=...), f"`ops[0].node.id` is missing: {NEEDS}"),
        (node(width=...), f"`ops[0].node.width` is missing: {NEEDS}"),
        (node(type=...), f"`ops[0].node.type` is missing: {NEEDS}"),
        (
            node(id=""),
            "`ops[0].node.id` must be at least 1 character long: give the new node's id.",
        ),
        (node(id=" "), "op[0] add_node: `node.id` must not be empty or only whitespace"),
        (node(id=7), "`ops[0].node.id` must be a string (the new node's id), got a number (7)."),
        (
            node(type="image"),
            '`ops[0].node.type` must be one of text, file, link or group, got a string ("image").',
        ),
        (node(x="0"), '`ops[0].node.x` must be a number, got a string ("0").'),
        (node(y=True), "`ops[0].node.y` must be a number, got a boolean (true)."),
        (node(width=0), "`ops[0].node.width` must be greater than 0 (a size), got 0."),
        (node(height=-1), "`ops[0].node.height` must be greater than 0 (a size), got -1."),
        (node(text=...), "`ops[0].node.text` is missing: a text node needs it."),
        (node(text=None), "`ops[0].node.text` must be a string, got null."),
        (node(type="file", text=...), "`ops[0].node.file` is missing: a file node needs it."),
        (node(type="link", text=...), "`ops[0].node.url` is missing: a link node needs it."),
        (
            node(type="link", text=..., url=5),
            "`ops[0].node.url` must be a string, got a number (5).",
        ),
        (
            node(type="file", text=..., file=""),
            "`ops[0].node.file` must be at least 1 character long.",
        ),
        (
            node(type="file", file="a.md"),
            "`ops[0].node.text` is not used by a file node; text nodes take it.",
        ),
        (node(label="x"), "`ops[0].node.label` is not used by a text node; group nodes take it."),
        (
            node(subpath="#a"),
            "`ops[0].node.subpath` is not used by a text node; file nodes take it.",
        ),
        (
            node(type="group", text=..., backgroundStyle="tile"),
            "`ops[0].node.backgroundStyle` must be one of cover, ratio or repeat",
        ),
        (
            node(type="file", text=..., file="a.md", subpath="a"),
            "`ops[0].node.subpath` must start with #",
        ),
        (node(extra=math.nan), "`ops[0].node.extra` must be a finite number, got a number (nan)."),
        (
            node(extra={"deep": [1, {"v": math.inf}]}),
            "`ops[0].node.extra.deep[1].v` must be a finite number",
        ),
        (node(extra={1: "a"}), "`ops[0].node.extra` has a key that is not a string (1)."),
        (
            node(extra={"a"}),
            "`ops[0].node.extra` must be a JSON value, got a set, which is not a JSON value.",
        ),
        (node(extra=10**4000), "`ops[0].node.extra` is too large a number to write."),
    ],
)
def test_add_node_refuses_a_node_the_app_would_not_show(new_node: object, message: str) -> None:
    assert refusal([{"type": "add_node", "node": new_node}]).startswith(message)


def test_add_node_refuses_deeply_nested_extra_values() -> None:
    deep: object = "leaf"
    for _ in range(150):
        deep = [deep]
    message = refusal([{"type": "add_node", "node": node(extra=deep)}])
    assert message.startswith("`ops[0].node.extra")
    assert message.endswith("nests deeper than 100 levels.")


@pytest.mark.parametrize(
    "new_node",
    [
        node(),
        node(text=""),
        node(type="file", text=..., file="a.md", subpath="#Intro"),
        node(type="link", text=..., url="https://example.org"),
        node(type="group", text=...),
        node(type="group", text=..., label="Box", background="a.png", backgroundStyle="cover"),
        node(color="#fff", styleAttributes={}, extra=[1, "two", None, True, {"x": 1.5}]),
        node(x=-5.5, y=10**15, width=0.5),
    ],
)
def test_add_node_accepts_a_node_the_app_shows(new_node: dict[str, object]) -> None:
    (checked,) = validate_ops([{"type": "add_node", "node": new_node}])
    assert checked == AddNode(new_node)


def test_add_node_writes_whole_number_coordinates_as_integers() -> None:
    given = node(x=5.0, y=-2.0, width=100.0, height=60.5)
    (checked,) = validate_ops([{"type": "add_node", "node": given}])
    assert isinstance(checked, AddNode)
    assert [checked.node[key] for key in ("x", "y", "width", "height")] == [5, -2, 100, 60.5]
    assert type(checked.node["x"]) is int
    assert given["x"] == 5.0
    assert type(given["x"]) is float


def edge(**changes: object) -> dict[str, object]:
    fields: dict[str, object] = {**EDGE, **changes}
    return {key: value for key, value in fields.items() if value is not ...}


@pytest.mark.parametrize(
    ("new_edge", "message"),
    [
        ([], "`ops[0].edge` must be an object, got an array of 0 items."),
        (edge(id=...), "`ops[0].edge.id` is missing: a new edge needs id, fromNode and toNode."),
        (edge(fromNode=...), "`ops[0].edge.fromNode` is missing"),
        (edge(toNode=...), "`ops[0].edge.toNode` is missing"),
        (
            edge(id=""),
            "`ops[0].edge.id` must be at least 1 character long: give the new edge's id.",
        ),
        (edge(fromNode=""), "`ops[0].edge.fromNode` must be at least 1 character long"),
        (edge(toNode=" "), "op[0] add_edge: `edge.toNode` must not be empty or only whitespace"),
        (edge(fromNode=None), "`ops[0].edge.fromNode` must be a string"),
        (edge(id="\t"), "op[0] add_edge: `edge.id` must not be empty or only whitespace"),
        (edge(fromNode=" \n"), "op[0] add_edge: `edge.fromNode` must not be empty or only"),
        (edge(toNode=""), "`ops[0].edge.toNode` must be at least 1 character long"),
        (
            edge(fromSide="center"),
            "`ops[0].edge.fromSide` must be one of top, right, bottom or left, "
            'got a string ("center").',
        ),
        (
            edge(toSide=None),
            "`ops[0].edge.toSide` must be one of top, right, bottom or left, got null.",
        ),
        (edge(fromEnd="both"), "`ops[0].edge.fromEnd` must be one of none or arrow"),
        (
            edge(toEnd=True),
            "`ops[0].edge.toEnd` must be one of none or arrow, got a boolean (true).",
        ),
        (edge(label=5), "`ops[0].edge.label` must be a string, got a number (5)."),
        (edge(color="7"), "`ops[0].edge.color` must be a canvas color"),
        (edge(weight=math.nan), "`ops[0].edge.weight` must be a finite number"),
    ],
)
def test_add_edge_refuses_an_edge_the_app_would_not_show(new_edge: object, message: str) -> None:
    assert refusal([{"type": "add_edge", "edge": new_edge}]).startswith(message)


def test_add_edge_accepts_every_side_end_and_extra_keys() -> None:
    new_edge = edge(
        fromSide="top", toSide="left", fromEnd="none", toEnd="arrow", label="", weight=[1]
    )
    assert validate_ops([{"type": "add_edge", "edge": new_edge}]) == [AddEdge(new_edge)]


def test_the_first_bad_op_is_the_one_named() -> None:
    ops = [move(), move(), move(x="1"), move(y="2")]
    assert refusal(ops).startswith("`ops[2].x`")


def test_a_long_string_is_shortened_in_messages() -> None:
    message = refusal([move(x="9" * 500)])
    assert message == f'`ops[0].x` must be a number, got a string ("{"9" * 40}…").'


def test_validation_does_not_change_the_ops_given() -> None:
    ops = [{"type": "add_node", "node": node(x=5.0)}, move(x=1.0)]
    before = json.dumps(ops)
    validate_ops(ops)
    assert json.dumps(ops) == before


class TestSchema:
    def test_the_type_enum_lists_every_op(self) -> None:
        properties = CANVAS_OP_SCHEMA["properties"]
        assert isinstance(properties, dict)
        assert properties["type"]["enum"] == list(OP_FIELDS)
        assert list(OP_FIELDS) == [
            "move_node",
            "resize_node",
            "edit_node",
            "set_node_color",
            "add_node",
            "delete_node",
            "add_edge",
            "delete_edge",
            "edit_edge",
            "reorder_edges",
        ]

    def test_it_declares_every_field_an_op_takes_and_no_other(self) -> None:
        properties = CANVAS_OP_SCHEMA["properties"]
        assert isinstance(properties, dict)
        fields = {field for names in OP_FIELDS.values() for field in names}
        assert set(properties) == {"type", *fields}
        assert CANVAS_OP_SCHEMA["additionalProperties"] is False
        assert CANVAS_OP_SCHEMA["required"] == ["type"]

    def test_ids_have_a_minimum_length_of_one(self) -> None:
        properties = CANVAS_OP_SCHEMA["properties"]
        assert isinstance(properties, dict)
        assert properties["id"]["minLength"] == 1
        assert properties["ids"]["items"]["minLength"] == 1
        assert properties["ids"]["minItems"] == 1
        for holder in ("node", "edge"):
            assert properties[holder]["properties"]["id"]["minLength"] == 1
        for end in ("fromNode", "toNode"):
            assert properties["edge"]["properties"][end]["minLength"] == 1

    @pytest.mark.parametrize(
        ("field", "json_type"),
        [
            ("id", "string"),
            ("x", "number"),
            ("y", "number"),
            ("width", "number"),
            ("height", "number"),
            ("text", "string"),
            ("file", "string"),
            ("url", "string"),
            ("subpath", ["string", "null"]),
            ("label", ["string", "null"]),
            ("color", ["string", "null"]),
            ("fromSide", ["string", "null"]),
            ("toEnd", ["string", "null"]),
            ("node", "object"),
            ("edge", "object"),
            ("ids", "array"),
        ],
    )
    def test_each_field_has_its_json_type(self, field: str, json_type: object) -> None:
        properties = CANVAS_OP_SCHEMA["properties"]
        assert isinstance(properties, dict)
        assert properties[field]["type"] == json_type

    def test_null_is_declared_exactly_where_validation_accepts_it(self) -> None:
        properties = CANVAS_OP_SCHEMA["properties"]
        assert isinstance(properties, dict)
        for kind, fields in OP_FIELDS.items():
            example = next(op for op in VALID_OPS if op["type"] == kind)
            for field in fields:
                declared = properties[field]["type"]
                nullable = isinstance(declared, list) and "null" in declared
                op = {**example, field: None}
                if kind == "edit_node":
                    op = {"type": kind, "id": "n1", field: None}
                try:
                    validate_ops([op])
                    accepted = True
                except InvalidArgument:
                    accepted = False
                assert accepted == nullable, (kind, field)

    def test_it_is_plain_json(self) -> None:
        assert json.loads(json.dumps(CANVAS_OP_SCHEMA)) == CANVAS_OP_SCHEMA
