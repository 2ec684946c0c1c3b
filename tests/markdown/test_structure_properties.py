"""Properties of the structure readers: no input crashes them, and toggling is reversible."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from quire.markdown.frontmatter import front_matter_block, parse_front_matter
from quire.markdown.metadata import export_metadata
from quire.markdown.parser import parse_blocks
from quire.markdown.tasks import extract_tasks, toggle_task
from quire.markdown.titles import _first_title, atx_headings, document_preview, document_title

# Characters that make Markdown and YAML structure, so short texts reach the interesting rules.
_SYNTAX = [*"-*+>#[]()!|:`~$\\\"'{}&?%@=._xX1 \t\n\r", "\ufeff", "é", "\x00"]
_LINES = st.lists(
    st.sampled_from(
        [
            "---",
            "...",
            "- [ ] task",
            "* [x] done",
            "> - [X] quoted",
            "1. [ ] first",
            "- [x]",
            "x[^1]",
            "[^1]: - [ ] in a footnote",
            "> [!NOTE]",
            "| a | b |",
            "|---|---|",
            "<div>",
            "```",
            "~~~",
            "    indented",
            "# Title",
            "## Sub ##",
            "key: value",
            'tags: [a, "b, c"]',
            "  - name: Ann",
            "    role: lead",
            "text: |",
            "  block",
            "[[Plan#Goals|alias]]",
            "![[embed.png]] ![alt](a.png)",
            "",
        ]
    )
    | st.text(alphabet=st.sampled_from(_SYNTAX), max_size=12),
    max_size=25,
).map("\n".join)
_MARKDOWN = _LINES | st.text(alphabet=st.sampled_from(_SYNTAX), max_size=80) | st.text(max_size=80)


@given(_MARKDOWN)
def test_no_input_crashes_a_reader(source: str) -> None:
    export_metadata(source)
    extract_tasks(source)
    document_title(source, "name.md")
    document_preview(source)
    block = front_matter_block(source)
    if block is not None:
        parse_front_matter(block)


@given(_MARKDOWN)
def test_parse_front_matter_never_raises(block: str) -> None:
    assert isinstance(parse_front_matter(block), dict)


@given(_MARKDOWN, st.data())
def test_toggling_a_task_twice_restores_the_source(source: str, data: st.DataObject) -> None:
    # A line's first task is the one toggle_task sets (`- [ ] - [ ] t` holds two).
    firsts = {task.line: task for task in reversed(extract_tasks(source))}
    if not firsts:
        return
    task = data.draw(st.sampled_from(sorted(firsts.values(), key=lambda t: t.line)))
    flipped = toggle_task(source, task.line, not task.checked)
    changed = [i for i, (a, b) in enumerate(zip(flipped, source, strict=True)) if a != b]
    assert len(changed) == 1
    assert source[changed[0] - 1] + flipped[changed[0] + 1] == "[]"
    assert task.line in {t.line for t in extract_tasks(flipped) if t.checked != task.checked}
    restored = toggle_task(flipped, task.line, task.checked)
    # An upper-case box comes back lower-case: the only change a round trip makes.
    box = source[changed[0]]
    assert restored == (
        source if box != "X" else flipped[: changed[0]] + "x" + flipped[changed[0] + 1 :]
    )


@given(_MARKDOWN, st.integers(min_value=1, max_value=40))
def test_a_title_read_from_a_window_is_the_whole_document_title(source: str, window: int) -> None:
    whole = next((text for level, text in atx_headings(parse_blocks(source)) if level == 1), None)
    assert _first_title(source, window) == whole


@given(_MARKDOWN)
def test_the_title_is_the_first_level_1_heading_export_metadata_lists(source: str) -> None:
    first = next((h.text for h in export_metadata(source).headings if h.level == 1), None)
    assert document_title(source, "fallback.md") == (first if first is not None else "fallback")
