from typing import Any

import pytest

from quire.core.errors import InvalidArgument
from quire.mcp.arguments import BLANK_PATTERN, check, closest, describe

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "minLength": 1, "pattern": BLANK_PATTERN},
        "find": {"type": "string", "minLength": 1},
        "mode": {"type": "string", "enum": ["read", "edit"]},
        "limit": {"type": "integer", "minimum": 1, "maximum": 200},
        "ratio": {"type": "number", "minimum": 0},
        "save": {"type": "boolean"},
        "docs": {"type": "array", "items": {"type": "string", "minLength": 1}},
        "ops": {"type": "array", "minItems": 1, "items": {"type": "object"}},
        "label": {"type": ["string", "null"]},
    },
    "required": ["path"],
    "additionalProperties": False,
}


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        ({"pth": "a.md"}, "`pth` is not an argument of tool. tool takes `path`"),
        ({"path": "a.md", "pth": "a.md"}, "Did you mean `path`?"),
        ({"path": "a.md", "zzzzzz": 1}, "`zzzzzz` is not an argument"),
        ({}, "`path` is required"),
        ({"path": None}, "`path` is required"),
        ({"path": ""}, "`path` must not be empty."),
        ({"path": "   "}, "`path` must not be empty or only whitespace."),
        ({"path": "\t\n"}, "`path` must not be empty or only whitespace."),
        ({"path": 5}, "`path` must be a string, got a number (5)."),
        ({"path": ["a"]}, "`path` must be a string, got an array of 1 item."),
        ({"path": {"a": 1}}, "`path` must be a string, got an object."),
        ({"path": True}, "`path` must be a string, got a boolean (true)."),
        ({"path": "a", "find": ""}, "`find` must not be empty."),
        (
            {"path": "a", "mode": "view"},
            '`mode` must be one of `read` or `edit`, got a string ("view").',
        ),
        ({"path": "a", "mode": "READ"}, "`mode` must be one of"),
        (
            {"path": "a", "limit": "5"},
            '`limit` must be an integer (a whole number), got a string ("5").',
        ),
        ({"path": "a", "limit": -5}, "`limit` must be at least 1, got -5."),
        ({"path": "a", "limit": 0}, "`limit` must be at least 1, got 0."),
        ({"path": "a", "limit": 201}, "`limit` must be at most 200, got 201."),
        ({"path": "a", "limit": 2.5}, "`limit` must be an integer"),
        (
            {"path": "a", "limit": True},
            "`limit` must be an integer (a whole number), got a boolean",
        ),
        ({"path": "a", "limit": float("nan")}, "`limit` must be an integer"),
        ({"path": "a", "limit": 10**40}, "`limit` must be at most 200"),
        ({"path": "a", "ratio": "1"}, "`ratio` must be a number"),
        ({"path": "a", "ratio": float("inf")}, "`ratio` must be a number"),
        ({"path": "a", "ratio": -0.5}, "`ratio` must be at least 0"),
        (
            {"path": "a", "save": "true"},
            '`save` must be a boolean (true or false), got a string ("true").',
        ),
        ({"path": "a", "save": "no"}, "`save` must be a boolean"),
        ({"path": "a", "save": 1}, "`save` must be a boolean"),
        ({"path": "a", "docs": "a.md"}, "`docs` must be an array"),
        ({"path": "a", "docs": ["a.md", 3]}, "`docs[1]` must be a string, got a number (3)."),
        ({"path": "a", "docs": [""]}, "`docs[0]` must not be empty."),
        ({"path": "a", "ops": []}, "`ops` must not be empty"),
        ({"path": "a", "ops": [1]}, "`ops[0]` must be an object, got a number (1)."),
        ({"path": "a", "label": 3}, "`label` must be a string or null"),
    ],
)
def test_a_bad_argument_is_refused_naming_it(arguments: dict[str, Any], fragment: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        check("tool", SCHEMA, arguments)
    assert fragment in str(caught.value)


@pytest.mark.parametrize("arguments", ["text", 5, ["path"], True])
def test_arguments_that_are_not_an_object_are_refused(arguments: object) -> None:
    with pytest.raises(InvalidArgument, match="must be a JSON object"):
        check("tool", SCHEMA, arguments)


def test_no_arguments_at_all_read_as_an_empty_object() -> None:
    with pytest.raises(InvalidArgument, match="`path` is required"):
        check("tool", SCHEMA, None)
    assert check("t", {"type": "object", "properties": {}}, None) == {}


def test_null_counts_as_not_given_and_is_dropped() -> None:
    assert check("tool", SCHEMA, {"path": "a", "mode": None, "limit": None}) == {"path": "a"}


def test_a_whole_number_written_as_a_float_is_an_integer() -> None:
    cleaned = check("tool", SCHEMA, {"path": "a", "limit": 2.0})
    assert cleaned["limit"] == 2
    assert isinstance(cleaned["limit"], int)


def test_a_find_of_spaces_is_kept_because_only_empty_is_refused() -> None:
    assert check("tool", SCHEMA, {"path": "a", "find": "  "})["find"] == "  "


def test_a_valid_call_comes_back_unchanged() -> None:
    arguments = {
        "path": "notes/a.md",
        "find": "x",
        "mode": "edit",
        "limit": 200,
        "ratio": 0,
        "save": False,
        "docs": ["a.md"],
        "ops": [{"type": "anything"}],
        "label": "l",
    }
    assert check("tool", SCHEMA, arguments) == arguments


def test_a_tool_without_arguments_says_so_for_any_argument() -> None:
    with pytest.raises(InvalidArgument, match="takes no arguments"):
        check("get_current_content", {"type": "object", "properties": {}}, {"path": "a"})


def test_a_huge_undeclared_name_is_shortened_in_the_message() -> None:
    with pytest.raises(InvalidArgument) as caught:
        check("tool", SCHEMA, {"x" * 10_000: 1, "path": "a"})
    assert len(str(caught.value)) < 400


@pytest.mark.parametrize(
    ("name", "expected"),
    [("pth", "path"), ("limt", "limit"), ("LIMIT", "limit"), ("qqqqqqq", None)],
)
def test_the_closest_name_is_the_likely_typo(name: str, expected: str | None) -> None:
    assert closest(name, ["path", "limit", "mode"]) == expected


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (None, "null"),
        (False, "a boolean (false)"),
        (3, "a number (3)"),
        ("x" * 50, "a string (" + '"' + "x" * 40 + "…" + '")'),
        ([1, 2], "an array of 2 items"),
        ({}, "an object"),
    ],
)
def test_a_refused_value_is_described_by_its_json_type(value: object, words: str) -> None:
    assert describe(value) == words
