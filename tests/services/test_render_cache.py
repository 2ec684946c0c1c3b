"""The block cache: byte for byte the whole render, after any edit, with only changed blocks
rendered again and sent."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from quire.markdown.render import render
from quire.services.render_cache import BlockCache
from tests.markdown.test_blocks import DOCUMENTS, edits

SECTIONS = "".join(
    f"## Part {number}\n\nText of part {number} with $x_{number}$.\n\n- [ ] task {number}\n\n"
    for number in range(60)
)


@settings(max_examples=300)
@given(edits(), st.booleans())
def test_a_render_by_block_after_edits_is_the_whole_render(
    pair: tuple[str, str], remote: bool
) -> None:
    cache = BlockCache()
    before, after = pair
    assert cache.render(before, remote_images=remote) == render(before, remote_images=remote)
    assert cache.render(after, remote_images=remote) == render(after, remote_images=remote)
    assert cache.render(before, remote_images=remote) == render(before, remote_images=remote)


@given(st.lists(DOCUMENTS, min_size=2, max_size=4))
def test_one_cache_serves_unrelated_texts_in_turn(texts: list[str]) -> None:
    cache = BlockCache(budget=2000)
    for text in texts * 2:
        assert cache.render(text) == render(text)


def test_an_edit_of_one_block_sends_only_that_block() -> None:
    cache = BlockCache()
    first = cache.view(SECTIONS)
    second = cache.view(SECTIONS.replace("Text of part 30 ", "Text of part thirty "))
    splice = cache.splice(second, first.version)
    assert splice.base == first.version
    assert splice.delete_count == 1
    assert [unit.html for unit in splice.units] == [
        '<p>Text of part thirty with <span class="math math-inline">x_30</span>.</p>\n'
    ]
    assert second.rendered == render(SECTIONS.replace("Text of part 30 ", "Text of part thirty "))


def test_a_heading_added_above_renames_a_later_duplicate() -> None:
    cache = BlockCache()
    text = "# Intro\n\ntext\n\n# Body\n\nmore\n"
    cache.view(text)
    edited = "# Body\n\n" + text
    assert cache.render(edited) == render(edited)
    assert 'id="body-1"' in cache.render(edited).html


def test_lines_added_above_renumber_task_boxes_below() -> None:
    cache = BlockCache()
    cache.view(SECTIONS)
    edited = "New line\n\n" + SECTIONS
    assert cache.render(edited) == render(edited)


def test_an_unknown_version_gets_every_block() -> None:
    cache = BlockCache()
    view = cache.view(SECTIONS)
    splice = cache.splice(view, "0123456789abcdef")
    assert splice.base is None
    assert splice.units == view.units
    assert "".join(unit.html for unit in view.units) == view.rendered.html


def test_raw_html_open_across_blocks_is_one_unit() -> None:
    cache = BlockCache()
    view = cache.view("# A\n\n<details>\n\ninside\n\n</details>\n\nafter\n")
    assert [unit.html.split(">")[0] for unit in view.units] == ['<h1 id="a"', "<details", "<p"]


def test_references_render_the_text_whole() -> None:
    text = "[a]\n\n[a]: /u\n"
    view = BlockCache().view(text)
    assert len(view.units) == 1
    assert view.rendered == render(text)
