"""The three-way merge of a rewrite: properties over random documents and concurrent edits."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from quire.markdown.merge import Conflict, merge3

LINES = st.lists(
    st.sampled_from(
        ["# Title\n", "alpha\n", "beta\r\n", "\n", "- item\n", "end", "f\x0cg\u2028h\n"]
    )
)


@st.composite
def edited(draw: st.DrawFn, base: list[str], mark: str) -> list[str]:
    """``base`` with random lines replaced, deleted and inserted; new lines carry ``mark``."""
    out: list[str] = []
    for index, line in enumerate(base):
        action = draw(st.sampled_from(["keep", "keep", "keep", "drop", "change", "insert"]))
        if action == "keep":
            out.append(line)
        elif action == "change":
            out.append(f"{mark}{index} changed\n")
        elif action == "insert":
            out.extend([line, f"{mark}{index} added\n"])
    if draw(st.booleans()):
        out.append(f"{mark} at the end\n")
    return out


@st.composite
def scenario(draw: st.DrawFn) -> tuple[str, str, str]:
    base = draw(LINES)
    return "".join(base), "".join(draw(edited(base, "P"))), "".join(draw(edited(base, "G")))


@settings(max_examples=300, deadline=None)
@given(scenario())
def test_nothing_the_person_typed_is_lost(case: tuple[str, str, str]) -> None:
    base, live, new = case
    merged = merge3(base, live, new)
    typed = [line for line in live.splitlines() if line.startswith("P")]
    assert all(line in merged.text.splitlines() for line in typed)


@settings(max_examples=300, deadline=None)
@given(scenario())
def test_every_agent_line_lands_unless_its_region_is_a_conflict(
    case: tuple[str, str, str],
) -> None:
    base, live, new = case
    merged = merge3(base, live, new)
    refused = "".join(conflict.agent_text for conflict in merged.conflicts).splitlines()
    wanted = [line for line in new.splitlines() if line.startswith("G")]
    assert all(line in merged.text.splitlines() or line in refused for line in wanted)


@settings(max_examples=200, deadline=None)
@given(scenario())
def test_with_no_concurrent_change_the_result_is_exactly_the_rewrite(
    case: tuple[str, str, str],
) -> None:
    base, _live, new = case
    assert merge3(base, base, new).text == new
    assert merge3(base, base, new).conflicts == ()


@settings(max_examples=200, deadline=None)
@given(scenario())
def test_conflict_lines_point_at_the_persons_text_in_the_result(
    case: tuple[str, str, str],
) -> None:
    base, live, new = case
    merged = merge3(base, live, new)
    lines = merged.text.splitlines(keepends=True)
    for conflict in merged.conflicts:
        assert 1 <= conflict.start_line <= conflict.end_line + 1 <= len(lines) + 1


def test_two_sections_rewritten_by_each_side_both_land() -> None:
    base = "# Plan\n\n## A\nfirst\n\n## B\nsecond\n"
    live = base.replace("first\n", "first\nthe person's line\n")
    new = base.replace("second", "second, rewritten by the agent")
    merged = merge3(base, live, new)
    assert merged.text == (
        "# Plan\n\n## A\nfirst\nthe person's line\n\n## B\nsecond, rewritten by the agent\n"
    )
    assert merged.conflicts == ()


def test_the_same_line_changed_by_both_keeps_the_persons_and_reports_the_agents() -> None:
    base = "one\ntwo\nthree\n"
    merged = merge3(base, "one\ntwo (person)\nthree\n", "one\ntwo (agent)\nthree\n")
    assert merged.text == "one\ntwo (person)\nthree\n"
    assert merged.conflicts == (Conflict(2, 2, "two (agent)\n"),)


def test_the_same_change_on_both_sides_is_no_conflict() -> None:
    base = "a\nb\n"
    assert merge3(base, "a\nB\n", "a\nB\n").conflicts == ()


def test_insertions_at_one_point_conflict_and_keep_the_persons() -> None:
    merged = merge3("a\nb\n", "a\nperson\nb\n", "a\nagent\nb\n")
    assert merged.text == "a\nperson\nb\n"
    assert merged.conflicts == (Conflict(2, 2, "agent\n"),)
