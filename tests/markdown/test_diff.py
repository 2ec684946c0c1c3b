import random
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any, cast

import pytest

from quire.core.errors import InvalidArgument
from quire.markdown.diff import Diff, change_diff, split_lines, unified_diff

_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@\n")
_MARKER = "\\ No newline at end of file\n"


def apply_unified_diff(a: str, diff: str) -> str:
    """Apply the hunks of a unified diff to ``a``, checking every context and removed line."""
    if not diff:
        return a
    source = split_lines(a)
    lines = split_lines(diff)
    assert lines[0].startswith("--- ")
    assert lines[1].startswith("+++ ")
    out: list[str] = []
    position = 0
    index = 2
    while index < len(lines):
        header = _HUNK.fullmatch(lines[index])
        assert header, f"not a hunk header: {lines[index]!r}"
        old_start, old_len = int(header[1]), int(header[2] or 1)
        new_len = int(header[4] or 1)
        start = old_start if old_len == 0 else old_start - 1
        assert start >= position
        out.extend(source[position:start])
        position = start
        index += 1
        seen_old = seen_new = 0
        while index < len(lines) and not lines[index].startswith("@@"):
            kind, body = lines[index][0], lines[index][1:]
            index += 1
            if index < len(lines) and lines[index] == _MARKER:
                body = body.removesuffix("\n")
                index += 1
            assert kind in " -+", f"unexpected diff line {kind + body!r}"
            if kind in " -":
                assert source[position] == body
                position += 1
                seen_old += 1
            if kind in " +":
                out.append(body)
                seen_new += 1
        assert (seen_old, seen_new) == (old_len, new_len)
    out.extend(source[position:])
    return "".join(out)


def _hunk_headers(diff: str) -> list[str]:
    return [line for line in diff.split("\n") if line.startswith("@@")]


# Each pair has one shortest alignment, so every correct diff tool prints the same hunks.
SYSTEM_DIFF_CASES: list[tuple[str, str, str, int]] = [
    ("one changed line", "a\nb\nc\n", "a\nB\nc\n", 3),
    ("identical", "a\nb\n", "a\nb\n", 3),
    ("both empty", "", "", 3),
    ("from empty", "", "one\ntwo\n", 3),
    ("to empty", "one\ntwo\n", "", 3),
    ("insert at start", "b\nc\n", "a\nb\nc\n", 3),
    ("insert at end", "a\nb\n", "a\nb\nc\n", 3),
    ("delete in middle", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\n6\n7\n8\n9\n", 3),
    ("crlf versus lf", "a\r\nb\r\n", "a\nb\n", 3),
    ("one line gains crlf", "a\nb\nc\n", "a\nb\r\nc\n", 3),
    ("final newline added", "a\nb", "a\nb\n", 3),
    ("final newline removed", "a\nb\n", "a\nb", 3),
    ("last line without newline in context", "a\nb\nc", "A\nb\nc", 3),
    ("last line without newline changed", "a\nb", "a\nc", 3),
    ("no newline anywhere", "x", "y", 3),
    ("lone carriage return stays in a line", "a\rb\nc\n", "a\rB\nc\n", 3),
    ("context zero", "1\n2\n3\n4\n5\n", "1\nX\n3\n4\n5\n", 0),
    ("context zero insertion", "1\n2\n3\n", "1\n2\nnew\n3\n", 0),
    ("context zero deletion", "1\n2\n3\n", "1\n3\n", 0),
    ("context one", "1\n2\n3\n4\n5\n", "1\n2\nX\n4\n5\n", 1),
    ("huge context", "1\n2\n3\n4\n5\n", "1\n2\nX\n4\n5\n", 10000),
    (
        "gap of twice the context joins hunks",
        "1\n2\n3\n4\n5\n6\n7\n8\n",
        "X\n2\n3\n4\n5\nY\n7\n8\n",
        2,
    ),
    (
        "gap over twice the context splits hunks",
        "1\n2\n3\n4\n5\n6\n7\n8\n",
        "X\n2\n3\n4\n5\n6\nY\n8\n",
        2,
    ),
    ("replace block", "h\nold 1\nold 2\nt\n", "h\nnew 1\nnew 2\nnew 3\nt\n", 3),
    ("unicode text", "café\n日本\n", "café\n日本語\n", 3),
    ("nul and control characters", "a\x00b\n\x1b[0m\n", "a\x00c\n\x1b[0m\n", 3),
    ("trailing whitespace matters", "a \nb\n", "a\nb\n", 3),
    ("byte order mark", "\ufeff# T\nx\n", "# T\nx\n", 3),
    (
        "markdown edit",
        "# Title\n\nIntro.\n\n## A\n\nText.\n",
        "# Title\n\nIntro.\n\n## A\n\nBetter text.\n",
        3,
    ),
]


def _system_diff(tmp_path: Path, a: str, b: str, context: int) -> str:
    path_a = tmp_path / "a.md"
    path_b = tmp_path / "b.md"
    path_a.write_bytes(a.encode("utf-8"))
    path_b.write_bytes(b.encode("utf-8"))
    result = subprocess.run(
        ["diff", "-a", f"-U{context}", str(path_a), str(path_b)],
        capture_output=True,
        check=False,
    )
    assert result.returncode in (0, 1), result.stderr
    text = result.stdout.decode("utf-8")
    # The header lines carry the file name and a timestamp after a tab: keep the label only.
    return re.sub(
        r"^(---|\+\+\+) [^\n]*?/([ab])\.md\t[^\n]*\n", r"\1 \2\n", text, count=2, flags=re.M
    )


@pytest.mark.skipif(shutil.which("diff") is None, reason="the system `diff` is not installed")
@pytest.mark.parametrize(("name", "a", "b", "context"), SYSTEM_DIFF_CASES)
def test_the_diff_matches_the_system_diff_u(
    tmp_path: Path, name: str, a: str, b: str, context: int
) -> None:
    ours = unified_diff(a, b, label_a="a", label_b="b", context_lines=context)
    assert ours.diff == _system_diff(tmp_path, a, b, context), name


@pytest.mark.parametrize(("name", "a", "b", "context"), SYSTEM_DIFF_CASES)
def test_applying_the_diff_to_the_first_text_gives_the_second(
    name: str, a: str, b: str, context: int
) -> None:
    ours = unified_diff(a, b, label_a="a", label_b="b", context_lines=context)
    assert apply_unified_diff(a, ours.diff) == b, name


def test_a_changed_line_reads_as_diff_u_prints_it() -> None:
    result = unified_diff("a\nb\nc\n", "a\nB\nc\n", label_a="old.md", label_b="new.md")
    assert result == Diff(
        diff="--- old.md\n+++ new.md\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n",
        hunks=1,
        added=1,
        removed=1,
    )


@pytest.mark.parametrize(("a", "b"), [("", ""), ("same\n", "same\n"), ("x", "x"), ("\r\n", "\r\n")])
def test_identical_texts_give_an_empty_diff_and_zero_counts(a: str, b: str) -> None:
    assert unified_diff(a, b, label_a="a", label_b="b") == Diff("", 0, 0, 0)


def test_crlf_and_lf_lines_differ_and_the_carriage_return_stays_visible() -> None:
    result = unified_diff("a\r\n", "a\n", label_a="a", label_b="b")
    assert result.diff == "--- a\n+++ b\n@@ -1 +1 @@\n-a\r\n+a\n"
    assert (result.hunks, result.added, result.removed) == (1, 1, 1)


def test_a_missing_final_newline_is_marked_as_diff_u_marks_it() -> None:
    result = unified_diff("a\nb", "a\nb\n", label_a="a", label_b="b")
    assert result.diff == (
        "--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"
    )


def test_an_unchanged_last_line_without_newline_is_marked_once_in_the_context() -> None:
    result = unified_diff("a\nz", "b\nz", label_a="a", label_b="b")
    assert (
        result.diff == "--- a\n+++ b\n@@ -1,2 +1,2 @@\n-a\n+b\n z\n\\ No newline at end of file\n"
    )


def test_distant_changes_make_separate_hunks_with_their_own_counts() -> None:
    a = "".join(f"{n}\n" for n in range(1, 21))
    b = a.replace("2\n", "two\n", 1).replace("18\n", "", 1) + "21\n"
    result = unified_diff(a, b, label_a="a", label_b="b", context_lines=1)
    assert _hunk_headers(result.diff) == ["@@ -1,3 +1,3 @@", "@@ -17,4 +17,4 @@"]
    assert (result.hunks, result.added, result.removed) == (2, 2, 2)


@pytest.mark.parametrize(
    ("b", "hunks"),
    [
        ("X\n2\n3\n4\n5\nY\n7\n8\n", 1),
        ("X\n2\n3\n4\n5\n6\nY\n8\n", 2),
    ],
)
def test_changes_at_most_twice_the_context_apart_share_a_hunk(b: str, hunks: int) -> None:
    a = "1\n2\n3\n4\n5\n6\n7\n8\n"
    assert unified_diff(a, b, label_a="a", label_b="b", context_lines=2).hunks == hunks


@pytest.mark.parametrize("context", [0, 1, 3, 10000])
def test_the_context_lines_around_a_change_are_as_many_as_asked(context: int) -> None:
    a = "".join(f"{n}\n" for n in range(1, 11))
    b = a.replace("5\n", "five\n")
    lines = unified_diff(a, b, label_a="a", label_b="b", context_lines=context).diff.split("\n")
    assert sum(1 for line in lines if line.startswith(" ")) == min(context, 4) + min(context, 5)


@pytest.mark.parametrize("value", [-1, 10001, 2**64, True, 1.5, "3", None])
def test_context_lines_outside_0_to_10000_are_refused(value: object) -> None:
    with pytest.raises(InvalidArgument) as caught:
        unified_diff("a", "b", label_a="a", label_b="b", context_lines=cast(Any, value))
    assert caught.value.argument == "context_lines"
    assert "`context_lines`" in str(caught.value)
    assert "0 to 10000" in str(caught.value)


@pytest.mark.parametrize(
    ("a", "b", "name"), [(None, "b", "a"), ("a", b"b", "b"), (1, 2, "a"), (["a"], "b", "a")]
)
def test_a_text_that_is_not_a_string_is_refused(a: object, b: object, name: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        unified_diff(cast(Any, a), cast(Any, b), label_a="a", label_b="b")
    assert caught.value.argument == name


@pytest.mark.parametrize(
    ("label", "header"),
    [
        ("/notes/plan.md", "--- /notes/plan.md\n"),
        ("dir with spaces/é.md", "--- dir with spaces/é.md\n"),
        ("tab\there.md", '--- "tab\\there.md"\n'),
        ("line\nbreak.md", '--- "line\\nbreak.md"\n'),
        ('quote"and\\slash\r.md', '--- "quote\\"and\\\\slash\\r.md"\n'),
        ("bell\x07.md", '--- "bell\\007.md"\n'),
    ],
)
def test_a_label_with_a_control_character_is_quoted_so_the_header_stays_one_line(
    label: str, header: str
) -> None:
    result = unified_diff("a\n", "b\n", label_a=label, label_b="b")
    assert result.diff.startswith(header)


def test_one_change_in_a_16_mib_document_is_one_small_hunk() -> None:
    lines = [f"line {n} of a long document\n" for n in range(600_000)]
    a = "".join(lines)
    lines[300_000] = "a changed line\n"
    result = unified_diff(a, "".join(lines), label_a="a", label_b="b")
    assert len(a) > 16 * 1024 * 1024
    assert _hunk_headers(result.diff) == ["@@ -299998,7 +299998,7 @@"]
    assert (result.hunks, result.added, result.removed) == (1, 1, 1)


def test_scattered_changes_in_a_large_document_are_each_found() -> None:
    rng = random.Random(7)
    lines = [f"paragraph {n}: {'word ' * rng.randint(0, 12)}\n" for n in range(20_000)]
    a = "".join(lines)
    changed = sorted(rng.sample(range(20_000), 150))
    for n in changed:
        lines[n] = f"edited {n}\n"
    b = "".join(lines)
    result = unified_diff(a, b, label_a="a", label_b="b", context_lines=0)
    assert (result.added, result.removed) == (150, 150)
    assert apply_unified_diff(a, result.diff) == b


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_large_texts_of_repeated_lines_still_diff_into_a_patch_that_applies(seed: int) -> None:
    rng = random.Random(seed)
    pool = ["\n", "- item\n", "text\n", "---\n", "| a | b |\n"]
    a = "".join(rng.choice(pool) for _ in range(3000))
    b = "".join(rng.choice(pool) for _ in range(3000))
    result = unified_diff(a, b, label_a="a", label_b="b")
    assert apply_unified_diff(a, result.diff) == b
    assert result.diff.count("\n+") - result.diff.count("\n+++") == result.added


def test_a_diff_of_a_window_carries_the_document_line_numbers() -> None:
    result = change_diff(
        "h1\nh2\n", "old\n", "new\n", "t1\n", first_line=40, label="doc.md", context_lines=2
    )
    assert result.diff == "--- doc.md\n+++ doc.md\n@@ -40,4 +40,4 @@\n h1\n h2\n-old\n+new\n t1\n"


def test_a_window_whose_change_is_no_change_gives_an_empty_diff() -> None:
    assert change_diff("h\n", "x\n", "x\n", "", first_line=1, label="d", context_lines=3) == Diff(
        "", 0, 0, 0
    )


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ("", []),
        ("a", ["a"]),
        ("a\n", ["a\n"]),
        ("a\r\nb", ["a\r\n", "b"]),
        ("a\rb\n", ["a\rb\n"]),
        ("a\x0bb\x0cc\u2028d\n", ["a\x0bb\x0cc\u2028d\n"]),
        ("\n\n", ["\n", "\n"]),
    ],
)
def test_only_a_line_feed_ends_a_line(text: str, lines: list[str]) -> None:
    assert split_lines(text) == lines
