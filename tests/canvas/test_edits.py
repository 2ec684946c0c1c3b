"""Edit ops apply to a JSON Canvas document in order, all or nothing."""

from __future__ import annotations

import json

import pytest

from quire.canvas.edits import (
    CANVAS_OP_SCHEMA,
    CanvasEdit,
    apply_canvas_ops,
    is_canvas_name,
)
from quire.canvas.ops import OP_FIELDS
from quire.core.errors import DocumentInvalid, InvalidArgument

Json = dict[str, object]
UNCHANGED = "No op was applied and the file was left unchanged."


def make_node(ident: str, kind: str = "text", **extra: object) -> Json:
    contents: dict[str, Json] = {
        "text": {"text": f"# {ident}"},
        "file": {"file": f"{ident}.md"},
        "link": {"url": f"https://example.org/{ident}"},
        "group": {"label": ident.upper()},
    }
    content = contents.get(kind, {})
    return {
        "id": ident,
        "type": kind,
        **content,
        "x": 0,
        "y": 0,
        "width": 250,
        "height": 60,
        **extra,
    }


def make_edge(ident: str, start: str, end: str, **extra: object) -> Json:
    return {"id": ident, "fromNode": start, "toNode": end, **extra}


def make_canvas(nodes: list[Json], edges: list[Json] | None = None, **extra: object) -> str:
    return json.dumps({"nodes": nodes, "edges": edges or [], **extra})


SAMPLE = make_canvas(
    [make_node("n1"), make_node("n2", "file"), make_node("n3", "link"), make_node("g1", "group")],
    [make_edge("e1", "n1", "n2"), make_edge("e2", "n2", "n3"), make_edge("e3", "n3", "n1")],
)


def apply(source: str, *ops: Json) -> CanvasEdit:
    return apply_canvas_ops(source, list(ops))


def read(edit: CanvasEdit) -> Json:
    doc = json.loads(edit.content)
    assert isinstance(doc, dict)
    return doc


def nodes_of(edit: CanvasEdit) -> list[Json]:
    nodes = read(edit)["nodes"]
    assert isinstance(nodes, list)
    return nodes


def edges_of(edit: CanvasEdit) -> list[Json]:
    edges = read(edit)["edges"]
    assert isinstance(edges, list)
    return edges


def node_in(edit: CanvasEdit, ident: str) -> Json:
    return next(node for node in nodes_of(edit) if node["id"] == ident)


def edge_in(edit: CanvasEdit, ident: str) -> Json:
    return next(edge for edge in edges_of(edit) if edge["id"] == ident)


def refused(source: str, *ops: Json) -> str:
    with pytest.raises(InvalidArgument) as caught:
        apply(source, *ops)
    return caught.value.message


def move(ident: str, x: object = 0, y: object = 0) -> Json:
    return {"type": "move_node", "id": ident, "x": x, "y": y}


class TestCanvasName:
    @pytest.mark.parametrize(
        "name",
        [
            "board.canvas",
            "Board.CANVAS",
            "b.Canvas",
            "notes/plan.canvas",
            "C:\\a\\x.canvas",
            "é.canvas",
        ],
    )
    def test_a_canvas_extension_in_any_case_is_a_canvas(self, name: str) -> None:
        assert is_canvas_name(name)

    @pytest.mark.parametrize(
        "name",
        [
            "notes.md",
            "",
            ".canvas",
            "dir/.canvas",
            "board.canvas/",
            "board.canvas.md",
            "canvas",
            "board.canvass",
            "board.canva",
            "board canvas",
            "board.\uff43anvas",
        ],
    )
    def test_anything_else_is_not(self, name: str) -> None:
        assert not is_canvas_name(name)


class TestEachOp:
    def test_move_node_sets_x_and_y(self) -> None:
        edit = apply(SAMPLE, move("n2", 40, -12.5))
        assert (node_in(edit, "n2")["x"], node_in(edit, "n2")["y"]) == (40, -12.5)
        assert node_in(edit, "n1")["x"] == 0

    def test_resize_node_sets_width_and_height(self) -> None:
        edit = apply(SAMPLE, {"type": "resize_node", "id": "n1", "width": 400, "height": 0.5})
        assert (node_in(edit, "n1")["width"], node_in(edit, "n1")["height"]) == (400, 0.5)

    @pytest.mark.parametrize(
        ("ident", "fields"),
        [
            ("n1", {"text": "New **text**"}),
            ("n1", {"text": ""}),
            ("n2", {"file": "other.md"}),
            ("n2", {"file": "other.md", "subpath": "#Goals"}),
            ("n3", {"url": "https://quire.example/"}),
            ("g1", {"label": "Renamed"}),
        ],
    )
    def test_edit_node_sets_the_content_of_its_type(self, ident: str, fields: Json) -> None:
        edit = apply(SAMPLE, {"type": "edit_node", "id": ident, **fields})
        changed = node_in(edit, ident)
        assert {key: changed[key] for key in fields} == fields

    def test_edit_node_removes_a_subpath_or_label_with_null(self) -> None:
        source = make_canvas([make_node("f", "file", subpath="#a"), make_node("g", "group")])
        edit = apply(
            source,
            {"type": "edit_node", "id": "f", "subpath": None},
            {"type": "edit_node", "id": "g", "label": None},
        )
        assert "subpath" not in node_in(edit, "f")
        assert "label" not in node_in(edit, "g")

    @pytest.mark.parametrize(
        ("ident", "fields", "message"),
        [
            (
                "n2",
                {"text": "x"},
                "node n2 is a file node, so edit_node takes file and subpath for it; "
                "text is for text nodes.",
            ),
            (
                "n1",
                {"url": "https://x"},
                "node n1 is a text node, so edit_node takes text for it; url is for link nodes.",
            ),
            (
                "g1",
                {"file": "a.md"},
                "node g1 is a group node, so edit_node takes label for it; file is for file nodes.",
            ),
            (
                "n3",
                {"label": "L"},
                "node n3 is a link node, so edit_node takes url for it; label is for group nodes.",
            ),
        ],
    )
    def test_edit_node_refuses_content_of_another_type(
        self, ident: str, fields: Json, message: str
    ) -> None:
        op = {"type": "edit_node", "id": ident, **fields}
        assert refused(SAMPLE, op) == f"op[0] edit_node: {message} {UNCHANGED}"

    @pytest.mark.parametrize("kind", [None, "image", 5])
    def test_edit_node_refuses_a_node_of_no_known_type(self, kind: object) -> None:
        odd: Json = {"id": "odd", "x": 0, "y": 0, "width": 1, "height": 1, "text": "t"}
        if kind is not None:
            odd["type"] = kind
        message = refused(make_canvas([odd]), {"type": "edit_node", "id": "odd", "text": "x"})
        assert message.startswith("op[0] edit_node: node odd has type ")
        assert "not text, file, link or group" in message

    def test_a_node_of_no_known_type_can_still_move_resize_and_be_colored(self) -> None:
        odd: Json = {"id": "odd", "type": "plugin-card", "x": 0, "y": 0, "width": 1, "height": 1}
        edit = apply(
            make_canvas([odd]),
            move("odd", 3, 4),
            {"type": "resize_node", "id": "odd", "width": 5, "height": 6},
            {"type": "set_node_color", "id": "odd", "color": "2"},
        )
        assert node_in(edit, "odd") == {
            **odd,
            "x": 3,
            "y": 4,
            "width": 5,
            "height": 6,
            "color": "2",
        }

    def test_set_node_color_sets_and_removes_a_color(self) -> None:
        edit = apply(
            SAMPLE,
            {"type": "set_node_color", "id": "n1", "color": "#FF0000"},
            {"type": "set_node_color", "id": "n2", "color": "3"},
            {"type": "set_node_color", "id": "n2", "color": None},
            {"type": "set_node_color", "id": "n3", "color": None},
        )
        assert node_in(edit, "n1")["color"] == "#FF0000"
        assert "color" not in node_in(edit, "n2")
        assert "color" not in node_in(edit, "n3")

    def test_add_node_puts_the_node_last_on_top(self) -> None:
        new = make_node("n9", "link", color="5", custom={"kept": True})
        edit = apply(SAMPLE, {"type": "add_node", "node": new})
        assert nodes_of(edit)[-1] == new
        assert edit.node_ids == ["n1", "n2", "n3", "g1", "n9"]
        assert edit.nodes_count == 5

    def test_delete_node_removes_it_and_every_edge_touching_it(self) -> None:
        edit = apply(SAMPLE, {"type": "delete_node", "id": "n1"})
        assert edit.node_ids == ["n2", "n3", "g1"]
        assert edit.edge_ids == ["e2"]
        assert edit.removed_edge_ids == ["e1", "e3"]

    def test_delete_node_removes_a_loop_once(self) -> None:
        source = make_canvas(
            [make_node("a"), make_node("b")],
            [make_edge("loop", "a", "a"), make_edge("ab", "a", "b"), make_edge("keep", "b", "b")],
        )
        edit = apply(source, {"type": "delete_node", "id": "a"})
        assert edit.removed_edge_ids == ["loop", "ab"]
        assert edit.edge_ids == ["keep"]

    def test_removed_edges_gather_over_every_delete_node_in_order(self) -> None:
        edit = apply(
            SAMPLE,
            {"type": "delete_edge", "id": "e3"},
            {"type": "add_edge", "edge": make_edge("e4", "g1", "n3")},
            {"type": "delete_node", "id": "n3"},
            {"type": "delete_node", "id": "n1"},
        )
        assert edit.removed_edge_ids == ["e2", "e4", "e1"]
        assert edit.edges_count == 0
        assert edges_of(edit) == []

    def test_an_edge_added_after_a_delete_node_goes_with_its_node(self) -> None:
        edit = apply(
            SAMPLE,
            {"type": "delete_node", "id": "n1"},
            {"type": "add_edge", "edge": make_edge("e4", "n2", "g1")},
            {"type": "delete_node", "id": "g1"},
        )
        assert edit.removed_edge_ids == ["e1", "e3", "e4"]
        assert edit.edge_ids == ["e2"]

    def test_delete_node_after_a_reorder_removes_the_right_edges(self) -> None:
        edit = apply(
            SAMPLE,
            {"type": "delete_node", "id": "g1"},
            {"type": "reorder_edges", "ids": ["e2", "e3", "e1"]},
            {"type": "delete_node", "id": "n1"},
        )
        assert edit.removed_edge_ids == ["e3", "e1"]
        assert edit.edge_ids == ["e2"]

    def test_delete_node_keeps_edges_that_only_reach_other_nodes(self) -> None:
        edit = apply(SAMPLE, {"type": "delete_node", "id": "g1"})
        assert edit.removed_edge_ids == []
        assert edit.edge_ids == ["e1", "e2", "e3"]

    def test_add_edge_appends_the_edge(self) -> None:
        new = make_edge("e9", "g1", "n1", fromSide="right", toEnd="none", label="x", hue=1)
        edit = apply(SAMPLE, {"type": "add_edge", "edge": new})
        assert edges_of(edit)[-1] == new
        assert edit.edge_ids == ["e1", "e2", "e3", "e9"]

    def test_add_edge_may_reach_a_node_added_before_it(self) -> None:
        edit = apply(
            SAMPLE,
            {"type": "add_node", "node": make_node("n9")},
            {"type": "add_edge", "edge": make_edge("e9", "n1", "n9")},
        )
        assert edit.edge_ids[-1] == "e9"

    def test_delete_edge_removes_only_that_edge(self) -> None:
        edit = apply(SAMPLE, {"type": "delete_edge", "id": "e2"})
        assert edit.edge_ids == ["e1", "e3"]
        assert edit.node_ids == ["n1", "n2", "n3", "g1"]
        assert edit.removed_edge_ids == []

    def test_edit_edge_sets_and_removes_its_keys(self) -> None:
        source = make_canvas([make_node("a")], [make_edge("e", "a", "a", color="1", toEnd="arrow")])
        edit = apply(
            source,
            {"type": "edit_edge", "id": "e", "label": "why", "fromSide": "top", "color": None},
            {"type": "edit_edge", "id": "e", "toEnd": None, "fromEnd": "arrow"},
        )
        assert edge_in(edit, "e") == {
            "id": "e",
            "fromNode": "a",
            "toNode": "a",
            "label": "why",
            "fromSide": "top",
            "fromEnd": "arrow",
        }

    def test_reorder_edges_puts_the_edges_in_the_given_order(self) -> None:
        edit = apply(SAMPLE, {"type": "reorder_edges", "ids": ["e3", "e1", "e2"]})
        assert edit.edge_ids == ["e3", "e1", "e2"]
        assert [edge["id"] for edge in edges_of(edit)] == ["e3", "e1", "e2"]

    def test_reorder_edges_must_list_every_edge(self) -> None:
        message = refused(SAMPLE, {"type": "reorder_edges", "ids": ["e3", "e1"]})
        assert message == (
            "op[0] reorder_edges: `ids` must list every edge once, but it leaves out e2. "
            f"Add them where they belong in the new order. {UNCHANGED}"
        )

    def test_reorder_edges_refuses_an_edge_the_canvas_lacks(self) -> None:
        message = refused(SAMPLE, {"type": "reorder_edges", "ids": ["e3", "e1", "e2", "e4"]})
        assert message == (
            "op[0] reorder_edges: edge e4 not found. The canvas's edge ids at this op are "
            f"e1, e2, e3. {UNCHANGED}"
        )

    def test_reorder_edges_sees_the_edges_of_this_op(self) -> None:
        edit = apply(
            SAMPLE,
            {"type": "delete_edge", "id": "e1"},
            {"type": "add_edge", "edge": make_edge("e4", "n1", "g1")},
            {"type": "reorder_edges", "ids": ["e4", "e3", "e2"]},
            {"type": "delete_node", "id": "n1"},
        )
        assert edit.edge_ids == ["e2"]
        assert edit.removed_edge_ids == ["e4", "e3"]

    def test_reorder_edges_keeps_edges_without_an_id_after_the_rest(self) -> None:
        source = make_canvas(
            [make_node("a")],
            [{"fromNode": "a", "toNode": "a"}, make_edge("x", "a", "a"), make_edge("y", "a", "a")],
        )
        edit = apply(source, {"type": "reorder_edges", "ids": ["y", "x"]})
        assert edges_of(edit) == [
            make_edge("y", "a", "a"),
            make_edge("x", "a", "a"),
            {"fromNode": "a", "toNode": "a"},
        ]


class TestMissingIds:
    def test_a_missing_node_lists_the_ids_there_are(self) -> None:
        source = make_canvas([make_node("n1"), make_node("n3")])
        assert refused(source, move("n2")) == (
            "op[0] move_node: node n2 not found. The canvas's node ids at this op are n1, n3. "
            "No op was applied and the file was left unchanged."
        )

    @pytest.mark.parametrize(
        ("op", "message"),
        [
            (
                {"type": "resize_node", "id": "x", "width": 1, "height": 1},
                "op[0] resize_node: node x not found.",
            ),
            ({"type": "edit_node", "id": "x", "text": "t"}, "op[0] edit_node: node x not found."),
            (
                {"type": "set_node_color", "id": "x", "color": "1"},
                "op[0] set_node_color: node x not found.",
            ),
            ({"type": "delete_node", "id": "x"}, "op[0] delete_node: node x not found."),
            (
                {"type": "delete_edge", "id": "x"},
                "op[0] delete_edge: edge x not found. "
                "The canvas's edge ids at this op are e1, e2, e3.",
            ),
            ({"type": "edit_edge", "id": "x", "label": "l"}, "op[0] edit_edge: edge x not found."),
            (
                {"type": "add_edge", "edge": make_edge("e9", "x", "n1")},
                "op[0] add_edge: node x not found (the edge's fromNode). "
                "The canvas's node ids at this op are n1, n2, n3, g1.",
            ),
            (
                {"type": "add_edge", "edge": make_edge("e9", "n1", "y")},
                "op[0] add_edge: node y not found (the edge's toNode).",
            ),
        ],
    )
    def test_every_op_names_itself_and_the_missing_id(self, op: Json, message: str) -> None:
        got = refused(SAMPLE, op)
        assert got.startswith(message)
        assert got.endswith(UNCHANGED)

    def test_the_ids_listed_are_those_after_the_ops_before(self) -> None:
        message = refused(
            SAMPLE,
            {"type": "delete_node", "id": "n2"},
            {"type": "add_node", "node": make_node("n7")},
            move("n2"),
        )
        assert message.startswith(
            "op[2] move_node: node n2 not found. The canvas's node ids at this op are "
            "n1, n3, g1, n7."
        )

    def test_a_node_deleted_earlier_is_not_there_for_an_edge(self) -> None:
        message = refused(
            SAMPLE,
            {"type": "delete_node", "id": "n2"},
            {"type": "add_edge", "edge": make_edge("e9", "n1", "n2")},
        )
        assert message.startswith("op[1] add_edge: node n2 not found (the edge's toNode).")

    def test_at_most_twenty_ids_are_listed_then_a_count(self) -> None:
        source = make_canvas([make_node(f"n{number}") for number in range(1, 26)])
        message = refused(source, move("zz"))
        listed = ", ".join(f"n{number}" for number in range(1, 21))
        assert f"at this op are {listed} and 5 more. {UNCHANGED}" in message

    def test_an_empty_canvas_says_it_has_no_ids(self) -> None:
        assert refused("{}", move("a")) == (
            f"op[0] move_node: node a not found. The canvas has no node ids at this op. {UNCHANGED}"
        )
        assert refused('{"nodes":[]}', {"type": "delete_edge", "id": "e"}).startswith(
            "op[0] delete_edge: edge e not found. The canvas has no edge ids at this op."
        )

    def test_ids_are_compared_exactly(self) -> None:
        for ident in ("N1", " n1", "n1 ", "n\uff11"):
            assert refused(SAMPLE, move(ident)).startswith(f"op[0] move_node: node {ident} not")


class TestIds:
    def test_adding_a_node_with_a_taken_id_is_refused(self) -> None:
        assert refused(SAMPLE, {"type": "add_node", "node": make_node("n2")}) == (
            "op[0] add_node: a node with the id n2 already exists at this op; pick another id. "
            + UNCHANGED
        )

    def test_adding_an_edge_with_a_taken_id_is_refused(self) -> None:
        assert refused(SAMPLE, {"type": "add_edge", "edge": make_edge("e1", "n1", "n2")}) == (
            "op[0] add_edge: an edge with the id e1 already exists at this op; pick another id. "
            + UNCHANGED
        )

    def test_an_id_freed_by_an_earlier_op_may_be_taken_again(self) -> None:
        edit = apply(
            SAMPLE,
            {"type": "delete_node", "id": "n1"},
            {"type": "add_node", "node": make_node("n1", "group")},
            {"type": "delete_edge", "id": "e2"},
            {"type": "add_edge", "edge": make_edge("e2", "n1", "n2")},
        )
        assert edit.node_ids == ["n2", "n3", "g1", "n1"]
        assert edit.edge_ids == ["e2"]
        assert node_in(edit, "n1")["type"] == "group"

    def test_two_ops_adding_the_same_id_are_refused_at_the_second(self) -> None:
        message = refused(
            SAMPLE,
            {"type": "add_node", "node": make_node("n9")},
            {"type": "add_node", "node": make_node("n9")},
        )
        assert message.startswith("op[1] add_node: a node with the id n9 already exists")

    def test_node_and_edge_ids_are_separate(self) -> None:
        edit = apply(SAMPLE, {"type": "add_node", "node": make_node("e1")})
        assert edit.node_ids[-1] == "e1"

    def test_an_id_two_nodes_share_cannot_be_changed(self) -> None:
        source = make_canvas([make_node("d"), make_node("d"), make_node("ok")])
        message = refused(source, move("d"))
        assert message == (
            "op[0] move_node: 2 nodes have the id d, so no op can tell them apart. "
            f"Give each its own id in a text editor first. {UNCHANGED}"
        )
        edit = apply(source, move("ok", 1, 1))
        assert edit.node_ids == ["d", "d", "ok"]
        assert refused(source, {"type": "add_node", "node": make_node("d")}).startswith(
            "op[0] add_node: a node with the id d already exists"
        )

    def test_an_edge_id_two_edges_share_becomes_usable_once_one_goes(self) -> None:
        source = make_canvas(
            [make_node("a"), make_node("b")],
            [make_edge("d", "a", "a"), make_edge("d", "b", "b")],
        )
        assert refused(source, {"type": "delete_edge", "id": "d"}).startswith(
            "op[0] delete_edge: 2 edges have the id d"
        )
        edit = apply(
            source,
            {"type": "delete_node", "id": "a"},
            {"type": "edit_edge", "id": "d", "label": "left"},
        )
        assert edges_of(edit) == [make_edge("d", "b", "b", label="left")]
        assert edit.removed_edge_ids == ["d"]

    def test_entries_without_an_id_are_kept_and_never_listed(self) -> None:
        source = json.dumps(
            {
                "nodes": [{"type": "text", "text": "no id"}, {"id": 5}, make_node("a")],
                "edges": [{"fromNode": "a", "toNode": "a"}],
            }
        )
        edit = apply(source, {"type": "delete_node", "id": "a"})
        assert nodes_of(edit) == [{"type": "text", "text": "no id"}, {"id": 5}]
        assert edit.node_ids == []
        assert edit.nodes_count == 2
        assert edit.removed_edge_ids == []
        assert edit.edges_count == 0


class TestAllOrNothing:
    def test_a_failing_op_after_good_ones_produces_nothing(self) -> None:
        ops: list[object] = [
            move("n1", 100, 100),
            {"type": "delete_node", "id": "n2"},
            {"type": "edit_edge", "id": "e1", "label": "gone"},
        ]
        with pytest.raises(InvalidArgument) as caught:
            apply_canvas_ops(SAMPLE, ops)
        assert caught.value.message.startswith("op[2] edit_edge: edge e1 not found.")
        assert caught.value.message.endswith(UNCHANGED)

    def test_the_ops_given_are_not_changed(self) -> None:
        new = make_node("n9", x=1.0)
        ops: list[object] = [
            {"type": "add_node", "node": new},
            move("n9", 50, 60),
            {"type": "edit_node", "id": "n9", "text": "changed"},
        ]
        before = json.dumps(ops)
        edit = apply_canvas_ops(SAMPLE, ops)
        assert json.dumps(ops) == before
        assert node_in(edit, "n9")["text"] == "changed"

    def test_applying_twice_gives_the_same_result(self) -> None:
        ops: list[object] = [move("n1", 5, 5), {"type": "delete_node", "id": "n3"}]
        assert apply_canvas_ops(SAMPLE, ops) == apply_canvas_ops(SAMPLE, ops)

    def test_ops_are_checked_before_the_canvas_is_read(self) -> None:
        with pytest.raises(InvalidArgument, match="`ops` must not be empty"):
            apply_canvas_ops("not json", [])
        with pytest.raises(InvalidArgument, match=r"`ops\[1\].x` must be a number"):
            apply_canvas_ops("[]", [move("a"), move("a", x="5")])


class TestBrokenCanvas:
    @pytest.mark.parametrize(
        ("source", "start"),
        [
            ("", "The canvas is not valid JSON (Expecting value at line 1, column 1)"),
            ("{", "The canvas is not valid JSON"),
            ('{"nodes": [],}', "The canvas is not valid JSON"),
            ("{'nodes': []}", "The canvas is not valid JSON"),
            ('{"nodes": []} x', "The canvas is not valid JSON (Extra data at line 1, column 15)"),
            ("\x00", "The canvas is not valid JSON"),
            (
                "[]",
                "The canvas must be a JSON object with nodes and edges, not an array of 0 items",
            ),
            (
                '"canvas"',
                'The canvas must be a JSON object with nodes and edges, not a string ("canvas")',
            ),
            ("null", "The canvas must be a JSON object with nodes and edges, not null"),
            ("5", "The canvas must be a JSON object"),
            ('{"nodes": {}}', "The canvas's `nodes` must be an array of objects, not an object"),
            ('{"nodes": null}', "The canvas's `nodes` must be an array of objects, not null"),
            ('{"edges": "e1"}', "The canvas's `edges` must be an array of objects, not a string"),
            (
                '{"nodes": [{}, 1]}',
                "The canvas's `nodes` must be an array of objects, but nodes[1] is a number (1)",
            ),
            (
                '{"nodes": [], "edges": [null]}',
                "The canvas's `edges` must be an array of objects, but edges[0] is null",
            ),
            (
                '{"nodes": [[]]}',
                "The canvas's `nodes` must be an array of objects, but nodes[0] is an array",
            ),
            ('{"a": NaN}', "The canvas holds NaN, which is not a JSON number"),
            ('{"a": -Infinity}', "The canvas holds -Infinity, which is not a JSON number"),
            ('{"a": 1e400}', "The canvas holds the number 1e400, which is too large"),
            ('{"a": ' + "9" * 5000 + "}", "The canvas holds a number with too many digits to read"),
            ("[" * 100_000 + "]" * 100_000, "The canvas nests its values too deeply to read"),
        ],
    )
    def test_a_canvas_of_the_wrong_shape_is_left_untouched(self, source: str, start: str) -> None:
        with pytest.raises(DocumentInvalid) as caught:
            apply(source, move("n1"))
        message = caught.value.message
        assert message.startswith(start)
        assert "; no op was applied and the file was left untouched." in message

    def test_a_byte_order_mark_is_read_and_not_written_back(self) -> None:
        edit = apply("\ufeff" + SAMPLE, move("n1", 1, 1))
        assert not edit.content.startswith("\ufeff")
        assert node_in(edit, "n1")["x"] == 1


OBSIDIAN = """{
\t"nodes":[
\t\t{"id":"8132d7a2a1c2b5e2","x":-100,"y":-60,"width":250,"height":60,"type":"text","text":"Hi ✓"},
\t\t{"id":"28b7d169be420aea","x":-200,"y":-80,"width":350,"height":240,"color":"#803dd1","type":"file","file":"Obsidian.md"}
\t],
\t"edges":[
\t\t{"id":"a1","fromNode":"8132d7a2a1c2b5e2","fromSide":"bottom","toNode":"28b7d169be420aea","toSide":"top"}
\t],
\t"metadata":{
\t\t"version":"1.0-1.0",
\t\t"frontmatter":{}
\t}
}"""


class TestWrittenText:
    def test_a_canvas_as_the_app_writes_it_comes_back_byte_for_byte(self) -> None:
        edit = apply(OBSIDIAN, move("8132d7a2a1c2b5e2", -100, -60))
        assert edit.content == OBSIDIAN

    def test_the_layout_is_tabs_one_entry_per_line_and_no_final_newline(self) -> None:
        source = json.dumps({"nodes": [make_node("a")], "edges": [], "z": {"k": [1, 2]}})
        edit = apply(source, move("a", 3, 4))
        assert edit.content == (
            "{\n"
            '\t"nodes":[\n'
            '\t\t{"id":"a","type":"text","text":"# a","x":3,"y":4,"width":250,"height":60}\n'
            "\t],\n"
            '\t"edges":[],\n'
            '\t"z":{\n'
            '\t\t"k":[\n'
            "\t\t\t1,\n"
            "\t\t\t2\n"
            "\t\t]\n"
            "\t}\n"
            "}"
        )

    def test_a_canvas_without_nodes_or_edges_gains_both(self) -> None:
        edit = apply("{}", {"type": "add_node", "node": make_node("a")})
        assert list(read(edit)) == ["nodes", "edges"]
        assert edit.content.endswith('\t"edges":[]\n}')

    def test_a_missing_nodes_goes_first_and_a_missing_edges_after_nodes(self) -> None:
        add: Json = {"type": "add_node", "node": make_node("a")}
        only_edges = apply('{"v": 1, "edges": []}', add)
        assert list(read(only_edges)) == ["nodes", "v", "edges"]
        only_nodes = apply('{"v": 1, "nodes": [], "w": 2}', add)
        assert list(read(only_nodes)) == ["v", "nodes", "edges", "w"]

    def test_top_level_keys_keep_their_values_and_order(self) -> None:
        source = json.dumps(
            {"z": [1, {"b": None}], "edges": [], "a": "é", "nodes": [make_node("n")], "m": {}}
        )
        doc = read(apply(source, move("n", 9, 9)))
        assert list(doc) == ["z", "edges", "a", "nodes", "m"]
        assert (doc["z"], doc["a"], doc["m"]) == ([1, {"b": None}], "é", {})

    def test_unknown_keys_on_nodes_and_edges_keep_their_values_and_order(self) -> None:
        node = {
            "zz": 1,
            "id": "n",
            "styleAttributes": {"shape": "pill"},
            "type": "text",
            "text": "t",
            "x": 1.5,
            "y": 2,
            "width": 10,
            "height": 10,
            "w": [True, None],
        }
        edge = {"q": "keep", "id": "e", "fromNode": "n", "toNode": "n", "weight": 0.25}
        source = json.dumps({"nodes": [node], "edges": [edge]})
        edit = apply(source, {"type": "edit_node", "id": "n", "text": "new"})
        assert json.dumps(nodes_of(edit)) == json.dumps([{**node, "text": "new"}])
        assert json.dumps(edges_of(edit)) == json.dumps([edge])

    @pytest.mark.parametrize(
        ("given", "written"),
        [
            (5, "5"),
            (5.0, "5"),
            (-0.0, "0"),
            (2.5, "2.5"),
            (-7.0, "-7"),
            (1e15, "1000000000000000"),
            (0.1, "0.1"),
        ],
    )
    def test_move_and_resize_write_whole_numbers_as_integers(
        self, given: float, written: str
    ) -> None:
        edit = apply(
            make_canvas([make_node("a")]),
            move("a", given, given),
            {"type": "resize_node", "id": "a", "width": abs(given) or 1, "height": abs(given) or 1},
        )
        line = edit.content.splitlines()[2]
        assert f'"x":{written},"y":{written}' in line
        if given:
            assert f'"width":{written.lstrip("-")},"height":{written.lstrip("-")}' in line

    def test_numbers_no_op_touches_are_written_as_read(self) -> None:
        source = (
            '{"nodes":[{"id":"a","type":"text","text":"","x":1.0,"y":2.5,"width":3,"height":4.0}]}'
        )
        edit = apply(source, {"type": "set_node_color", "id": "a", "color": "1"})
        assert '"x":1.0,"y":2.5,"width":3,"height":4.0,"color":"1"' in edit.content

    def test_text_outside_ascii_is_written_as_is(self) -> None:
        edit = apply(SAMPLE, {"type": "edit_node", "id": "n1", "text": 'héllo 🎉 日本\n"q"'})
        assert '"text":"héllo 🎉 日本\\n\\"q\\""' in edit.content

    def test_a_lone_surrogate_is_written_escaped(self) -> None:
        source = (
            '{"nodes":[{"id":"a","type":"text","text":"\\ud800","x":0,"y":0,"width":1,"height":1}]}'
        )
        edit = apply(source, move("a"))
        assert '"text":"\\ud800"' in edit.content
        edit.content.encode("utf-8")
        assert node_in(edit, "a")["text"] == "\ud800"

    def test_a_lone_surrogate_in_an_op_is_written_escaped(self) -> None:
        edit = apply(SAMPLE, {"type": "edit_node", "id": "n1", "text": "a\udc00b"})
        assert '"text":"a\\udc00b"' in edit.content
        edit.content.encode("utf-8")

    def test_the_result_reads_back_as_the_same_canvas(self) -> None:
        edit = apply(SAMPLE, move("n1", 1, 2), {"type": "delete_edge", "id": "e2"})
        again = apply(edit.content, move("n1", 1, 2))
        assert again.content == edit.content


class TestResult:
    def test_it_reports_what_is_left(self) -> None:
        edit = apply(
            SAMPLE,
            {"type": "add_node", "node": make_node("n4")},
            {"type": "add_edge", "edge": make_edge("e4", "n4", "n1")},
            {"type": "delete_node", "id": "n2"},
        )
        assert edit.nodes_count == 4
        assert edit.edges_count == 2
        assert edit.node_ids == ["n1", "n3", "g1", "n4"]
        assert edit.edge_ids == ["e3", "e4"]
        assert edit.removed_edge_ids == ["e1", "e2"]
        assert edit.ops_applied == 3

    def test_the_schema_is_published_beside_the_function(self) -> None:
        properties = CANVAS_OP_SCHEMA["properties"]
        assert isinstance(properties, dict)
        assert properties["type"]["enum"] == list(OP_FIELDS)


class TestBigCanvas:
    """A canvas with 10,000 nodes: every op finds its node through an index, not a scan."""

    SIZE = 10_000

    def big_canvas(self) -> str:
        nodes = [make_node(f"n{number}", x=number) for number in range(self.SIZE)]
        edges = [
            make_edge(f"e{number}", f"n{number}", f"n{(number + 1) % self.SIZE}")
            for number in range(self.SIZE)
        ]
        return make_canvas(nodes, edges)

    def test_many_ops_on_a_big_canvas_apply(self) -> None:
        ops: list[object] = []
        for number in range(0, self.SIZE, 2):
            ops.append(move(f"n{number}", number, -number))
            ops.append({"type": "delete_node", "id": f"n{number + 1}"})
        ops.append({"type": "add_edge", "edge": make_edge("last", "n0", "n9998")})
        edit = apply_canvas_ops(self.big_canvas(), ops)
        assert edit.nodes_count == self.SIZE // 2
        assert edit.node_ids[:3] == ["n0", "n2", "n4"]
        # Each odd node took the edge into it and the edge out of it.
        assert edit.removed_edge_ids[:4] == ["e0", "e1", "e2", "e3"]
        assert edit.edge_ids == ["last"]
        assert node_in(edit, "n9998")["y"] == -9998
        assert edit.ops_applied == self.SIZE + 1

    def test_a_missing_id_on_a_big_canvas_lists_twenty_and_counts_the_rest(self) -> None:
        message = refused(self.big_canvas(), move("nope"))
        assert message.startswith("op[0] move_node: node nope not found. The canvas's node ids")
        assert "n18, n19 and 9980 more." in message
