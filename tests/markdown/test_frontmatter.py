"""The front matter block's boundaries and the YAML subset read from it."""

from __future__ import annotations

import pytest

from quire.markdown.frontmatter import (
    MAX_DEPTH,
    JsonValue,
    front_matter_block,
    front_matter_span,
    parse_front_matter,
)


@pytest.mark.parametrize(
    ("source", "block"),
    [
        ("---\ntitle: A\n---\nbody\n", "title: A\n"),
        ("---\ntitle: A\n...\nbody\n", "title: A\n"),
        ("\ufeff---\ntitle: A\n---\n", "title: A\n"),
        ("---  \ntitle: A\n---\t\n", "title: A\n"),
        ("---\r\ntitle: A\r\nx: 1\r\n---\r\nbody", "title: A\nx: 1\n"),
        ("---\n---\n", ""),
        ("---\na\n----\nb\n---\n", "a\n----\nb\n"),
        ("---\na\n... more\n---\n", "a\n... more\n"),
        ("---\ntitle: A\n---", "title: A\n"),
    ],
)
def test_a_closed_block_reads_the_text_between_its_delimiters(source: str, block: str) -> None:
    assert front_matter_block(source) == block


@pytest.mark.parametrize(
    "source",
    [
        "",
        "---",
        "---\ntitle: A\n",
        "---\ntitle: A\n ---\n",
        " ---\ntitle: A\n---\n",
        "--- x\ntitle: A\n---\n",
        "----\ntitle: A\n---\n",
        "text\n---\ntitle: A\n---\n",
        "\n---\ntitle: A\n---\n",
        "\ufeff\ufeff---\na\n---\n",
        "---\ntitle: A\n--- x\n",
    ],
)
def test_no_block_is_read_without_delimiters_at_column_0_on_the_first_line(source: str) -> None:
    assert front_matter_block(source) is None


def test_the_span_counts_the_byte_order_mark_and_both_delimiter_lines() -> None:
    source = "\ufeff---\r\na: 1\r\n---\r\nbody"
    span = front_matter_span(source)
    assert span is not None
    assert source[span[1] :] == "body"


SCALARS: list[tuple[str, JsonValue]] = [
    ("true", True),
    ("false", False),
    ("True", True),
    ("FALSE", False),
    ("42", 42),
    ("-7", -7),
    ("+3", 3),
    ("007", 7),
    ("3.5", 3.5),
    (".5", 0.5),
    ("-2.", -2.0),
    ("1e3", 1000.0),
    ("~", None),
    ("null", None),
    ("NULL", None),
    ("", None),
    ('""', ""),
    ("''", ""),
    ('"quoted"', "quoted"),
    ("'single'", "single"),
    ("' padded '", " padded "),
    ("'it''s'", "it's"),
    ("''''", "'"),
    ("'''", "'''"),
    ("'a''", "'a''"),
    ('"a\\', '"a\\'),
    ('"say \\"hi\\""', 'say "hi"'),
    ('"tab\\there"', "tab\there"),
    ('"caf\\u00e9"', "café"),
    ('"\\ud800"', "\\ud800"),
    ('"\\q"', "\\q"),
    ('"true"', "true"),
    ("'42'", "42"),
    ("plain text", "plain text"),
    ("10:30", "10:30"),
    ("http://example.com/a?b=c", "http://example.com/a?b=c"),
    ("1.2.3", "1.2.3"),
    ("2024-01-05", "2024-01-05"),
    ("yes", "yes"),
    ("1e999", "1e999"),
    (".inf", ".inf"),
    ("0x1F", "0x1F"),
    ("C#", "C#"),
    ("text # a comment", "text"),
    ("#tag", None),
    ('"# not a comment"', "# not a comment"),
    ('"a" # comment', "a"),
    ("- a", "- a"),
    ("text: more", "text: more"),
    ("日本語", "日本語"),
]


@pytest.mark.parametrize(("written", "value"), SCALARS)
def test_a_scalar_reads_as_json(written: str, value: JsonValue) -> None:
    assert parse_front_matter(f"key: {written}\n") == {"key": value}


def test_a_number_too_long_to_convert_stays_text() -> None:
    digits = "9" * 5000
    assert parse_front_matter(f"n: {digits}\n") == {"n": digits}


@pytest.mark.parametrize(
    ("block", "value"),
    [
        ("time: 10:30", {"time": "10:30"}),
        ("key:value", {}),
        ("a: 1\nkey:value\nb: 2", {"a": 1, "b": 2}),
        ('"quoted key": 1', {"quoted key": 1}),
        ("'a: b': 1", {"a: b": 1}),
        ("spaced key : 1", {"spaced key": 1}),
        ("a: 1\na: 2", {"a": 2}),
        ("  title: indented\n  n: 1", {"title": "indented", "n": 1}),
        ("just text\ntitle: x", {"title": "x"}),
        ("- a\n- b", {}),
        ("tab:\tvalue", {"tab": "value"}),
        ("a: 1\r\nb: 2\r\n", {"a": 1, "b": 2}),
        ("a: 1\rb: 2", {"a": 1, "b": 2}),
    ],
)
def test_a_key_is_text_before_a_colon_followed_by_a_space_or_the_line_end(
    block: str, value: dict[str, JsonValue]
) -> None:
    assert parse_front_matter(block) == value


@pytest.mark.parametrize(
    ("block", "value"),
    [
        ('tags: [a, "b, c"]', ["a", "b, c"]),
        ("tags: []", []),
        ("tags: [ ]", []),
        ("tags: [1, true, null, 2.5]", [1, True, None, 2.5]),
        ("tags: ['x, y', \"z\"]", ["x, y", "z"]),
        ("tags: ['it''s', \"a\\\"b\"]", ["it's", 'a"b']),
        ("tags: [a, [b, c]]", ["a", ["b", "c"]]),
        ("tags: [a, b,]", ["a", "b"]),
        ("tags: [,a,, b]", ["a", "b"]),
        ("tags: [a b, c]", ["a b", "c"]),
        ("tags: [a, {b: 1}]", ["a", "{b: 1}"]),
        ("tags: [a, b] # comment", ["a", "b"]),
        ("tags: [a, b", "[a, b"),
        ("tags: [a, b] extra", "[a, b] extra"),
        ('tags: ["a" b]', '["a" b]'),
        ("tags: [a, &x b]", ["a", "&x b"]),
        ("tags:\n  - a\n  - b", ["a", "b"]),
        ("tags:\n- a\n- b", ["a", "b"]),
        ("tags:\n  - 1\n  - true\n  - ~", [1, True, None]),
        ("tags:\n  -\n  - b", [None, "b"]),
        ("tags:\n  - http://x", ["http://x"]),
        ('tags:\n  - "a: b"', ["a: b"]),
        ("tags:\n  - [a, b]", [["a", "b"]]),
        ("tags:\n  - - a\n    - b\n  - c", [["a", "b"], "c"]),
        ("tags:\n  - a # comment\n  # a comment line\n  - b", ["a", "b"]),
    ],
)
def test_flow_lists_and_dash_lines_become_arrays(block: str, value: JsonValue) -> None:
    assert parse_front_matter(block + "\n") == {"tags": value}


def test_a_list_under_a_key_ends_at_the_next_key() -> None:
    assert parse_front_matter("tags:\n- a\n- b\nnext: 1\n") == {"tags": ["a", "b"], "next": 1}


@pytest.mark.parametrize(
    ("block", "value"),
    [
        ("people:\n  - name: Ann\n    role: lead", [{"name": "Ann", "role": "lead"}]),
        (
            "people:\n- name: Ann\n  role: lead\n- name: Bob",
            [{"name": "Ann", "role": "lead"}, {"name": "Bob"}],
        ),
        ("people:\n  -   name: Ann\n      role: lead", [{"name": "Ann", "role": "lead"}]),
        (
            "people:\n  - name: Ann\n    tags: [a, b]\n    links:\n      - x",
            [{"name": "Ann", "tags": ["a", "b"], "links": ["x"]}],
        ),
        (
            "people:\n  - name: Ann\n    owner:\n      name: Bob",
            [{"name": "Ann", "owner": {"name": "Bob"}}],
        ),
        ("people:\n  - name: Ann\n   role: off", [{"name": "Ann"}]),
        ("people:\n  - name:\n  - x", [{"name": None}, "x"]),
        ("people:\n  -\n    name: Ann", [{"name": "Ann"}]),
    ],
)
def test_a_dash_item_with_a_key_starts_an_object_with_its_aligned_keys(
    block: str, value: JsonValue
) -> None:
    assert parse_front_matter(block + "\n") == {"people": value}


@pytest.mark.parametrize(
    ("block", "value"),
    [
        ("owner:\n  name: value", {"owner": {"name": "value"}}),
        (
            "a:\n  b:\n    c:\n      d:\n        e: deep",
            {"a": {"b": {"c": {"d": {"e": "deep"}}}}},
        ),
        (
            "owner:\n  links: [a, b]\n  roles:\n    - r\n  empty:\n  n: 1",
            {"owner": {"links": ["a", "b"], "roles": ["r"], "empty": None, "n": 1}},
        ),
        ("owner:\n  roles:\n  - r\n  n: 1", {"owner": {"roles": ["r"], "n": 1}}),
        ("owner:\n  name: x\nnext: y", {"owner": {"name": "x"}, "next": "y"}),
        ("owner:\nnext: y", {"owner": None, "next": "y"}),
        ("owner:\n  # only a comment\nnext: y", {"owner": None, "next": "y"}),
        ("owner:\n\n  name: x", {"owner": {"name": "x"}}),
        ("owner:\n  value on its own line", {"owner": "value on its own line"}),
        ("owner:\n  first line\n  second line\nnext: 1", {"owner": "first line", "next": 1}),
    ],
)
def test_indented_keys_under_an_empty_key_become_an_object(
    block: str, value: dict[str, JsonValue]
) -> None:
    assert parse_front_matter(block + "\n") == value


@pytest.mark.parametrize(
    ("block", "value"),
    [
        ("text: |\n  line 1\n  line 2\n", "line 1\nline 2\n"),
        ("text: |\n  line 1\n    indented\n\n  # kept\n", "line 1\n  indented\n\n# kept\n"),
        ("text: >\n  one\n  two\n\n  three\n", "one two\nthree\n"),
        ("text: >\n  a\n\n\n  b\n", "a\n\nb\n"),
        ("text: >\n  a\n    more\n  b\n", "a\n  more\nb\n"),
        (
            "text: >\n\n folded\n line\n\n next\n line\n   * bullet\n\n   * list\n"
            "   * lines\n\n last\n line\n\n# Comment\n",
            "\nfolded line\nnext line\n  * bullet\n\n  * list\n  * lines\n\nlast line\n",
        ),
        ("text: |-\n  a\n\n", "a"),
        ("text: >-\n  a\n  b\n", "a b"),
        ("text: |+\n  a\n\n\n", "a\n\n\n"),
        ("text: >+\n  a\n\n", "a\n\n"),
        ("text: |\n  a\n\n\n", "a\n"),
        ("text: |2\n    four\n  two\n", "  four\ntwo\n"),
        ("text: >1-\n  x\n", " x"),
        ("text: |-2\n   a\n", " a"),
        ("text: | # comment\n  a\n", "a\n"),
        ("text: |\n", ""),
        ("text: |+\n\n\n", "\n\n"),
        ("text: |\n\n  a\n", "\na\n"),
        ("text: |\n  a\n \n  b\n", "a\n\nb\n"),
        ("text: |\r\n  a\r\n  b\r\n", "a\nb\n"),
        ("text: |foo\n", "|foo"),
    ],
)
def test_block_scalars_keep_or_fold_their_lines(block: str, value: str) -> None:
    assert parse_front_matter(block) == {"text": value}


def test_a_block_scalar_with_no_indented_line_is_empty() -> None:
    assert parse_front_matter("text: |\nnext: 1\n") == {"text": "", "next": 1}


def test_a_block_scalar_ends_at_a_line_indented_less_and_the_next_key_is_read() -> None:
    block = "a: |\n  x\n  # text\nb: >-\n  y\n  z\nc: 3\n"
    assert parse_front_matter(block) == {"a": "x\n# text\n", "b": "y z", "c": 3}


def test_a_block_scalar_in_a_list_item_is_read_under_its_dash() -> None:
    block = "items:\n  - |\n    first\n    second\n  - name: x\n    note: >\n      a\n      b\n"
    assert parse_front_matter(block) == {
        "items": ["first\nsecond\n", {"name": "x", "note": "a b\n"}]
    }


@pytest.mark.parametrize(
    ("block", "value"),
    [
        ("anchor: &a value", {"anchor": "&a value"}),
        ("alias: *a", {"alias": "*a"}),
        ("tag: !!str 5", {"tag": "!!str 5"}),
        ("map: {a: 1, b: 2}", {"map": "{a: 1, b: 2}"}),
        ("map: {a: 1} # c", {"map": "{a: 1}"}),
        ("ref: @x", {"ref": "@x"}),
        (
            "text: first line\n  continued line\n  more\nnext: 1",
            {"text": "first line", "next": 1},
        ),
        ('quoted: "open\n  still open"\nnext: 1', {"quoted": '"open', "next": 1}),
        ("quoted: 'open\n  still'\nnext: 1", {"quoted": "'open", "next": 1}),
        ("tags: [a,\n  b]\nnext: 1", {"tags": "[a,", "next": 1}),
        ("# a comment\na: 1\n  # indented comment\nb: 2", {"a": 1, "b": 2}),
        ("? complex\n: value\na: 1", {"a": 1}),
    ],
)
def test_what_the_subset_does_not_parse_stays_text_or_is_skipped(
    block: str, value: dict[str, JsonValue]
) -> None:
    assert parse_front_matter(block + "\n") == value


def test_nesting_past_the_depth_limit_reads_as_null() -> None:
    lines = [" " * level + f"k{level}:" for level in range(MAX_DEPTH + 10)]
    value: JsonValue = parse_front_matter("\n".join(lines) + "\n")
    for level in range(MAX_DEPTH + 1):
        assert isinstance(value, dict)
        value = value[f"k{level}"]
    assert value is None


@pytest.mark.parametrize(
    "block",
    [
        "",
        "\n\n\n",
        "\x00",
        "key: \x00",
        ":",
        ": value",
        "- - - -",
        "-",
        "[",
        "key: [",
        "key: " + "[" * 10_000,
        "key: " + "[" * 10_000 + "]" * 10_000,
        "key: {" * 1000,
        "key: |",
        "key: |9\n x",
        "key: >0",
        '"unclosed: x',
        "'unclosed",
        "\t\tkey:\tvalue\n\t- x",
        "a:\n" + "".join(" " * n + "- x:\n" for n in range(1, 3000, 2)),
        "".join(" " * n + "k:\n" for n in range(5000)),
        "\u2028key: a\u2029b: c\x85",
        "key: '\ud800'",
        "🙂: 🙂\n  - 🙂",
        "key: \\",
        'key: "\\',
        "key: " + "x" * 200_000,
    ],
)
def test_any_block_parses_without_raising(block: str) -> None:
    assert isinstance(parse_front_matter(block), dict)


@pytest.mark.parametrize("value", [None, b"a: 1", 42, ["a: 1"]])
def test_a_value_that_is_not_text_has_no_front_matter(value: object) -> None:
    assert parse_front_matter(value) == {}  # type: ignore[arg-type]
    assert front_matter_block(value) is None  # type: ignore[arg-type]
