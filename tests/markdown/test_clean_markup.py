"""The sanitiser's shortcut: rendered markup it skips nh3 for is exactly what nh3 writes."""

from __future__ import annotations

from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quire.markdown import sanitize as sanitize_module
from quire.markdown.blocks import normalize, split
from quire.markdown.clean_markup import already_clean, sanitize_own
from quire.markdown.parser import parse
from quire.markdown.render import Fragment, finish_fragment, prepared, render_fragment
from quire.markdown.sanitize import RawHtmlNesting, mark_external_links, sanitize
from quire.markdown.sanitize import _cleaner as cleaner

# Markdown structure and words: HTML the shortcut should take.
SYNTAX = st.sampled_from(
    [
        *("\n", "\n\n", " ", "  \n", "    ", "\t", "# ", "## ", "> ", "- ", "1. ", "0. "),
        *("- [ ] ", "- [x] ", "> [!NOTE]\n> ", "---\n", "***", "*", "_", "**", "~~", "~"),
        *("`", "``", "$", "$$", "$$\n", "\\", "[[", "]]", "![[", "|", "#", "^", "[^1]"),
        *("```\n", "```python\n", "```mermaid\n", "~~~", "[", "]", "(", ")", "&", "<", ">"),
        *("| a | b |\n", "|:-|-:|\n", "|:-:|---|\n", "[a](b)", "[a](b 'c')", "![a](b.png)"),
        *("<http://a.org>", "<a@b.org>", "www.x.org", "https://x.org/a?b=1&c=2", "//x.org"),
        *("[x](<a b>)", "[x](a/b:c)", "[x](#h)", "[x](mailto:a@b.org)", "[x](?q=1)"),
        *("[[Note]]", "[[a b#C d|e]]", "![[p.png|20x30]]", "![[f.pdf]]", "[[#h]]"),
        *("plan", "agent", "review", "note", "x", "é", "🙂"),
    ]
)
# What the shortcut must send to nh3, or must write as nh3 does.
EDGES = st.sampled_from(
    [
        *('"', "'", '"q"', "'q'", "it's", "\xa0", "&nbsp;", "&#xA0;", "&quot;", "&#39;"),
        *("&amp;", "&lt;", "&gt;", "&copy;", "&#0;", "&#13;", "&#x85;", "&#xFFFE;", "&bogus;"),
        *("\x0c", "\x01", "\x85", "\u2028", "\ufdd0", "\ufffe", "\r", "\x00"),
        *("[x](foo:bar)", "[x](c:\\x)", "[x](irc://x.org)", "[x](ftp://x.org)", "<foo:bar>"),
        *("[x](data:image/png,x)", "![x](data:image/png;base64,x)", "[x](data:text/html,x)"),
        *("[x](https://)", "[x](http://999.1.1.1/)", "[x](http://x.org:99999/)"),
        *("[x](http://xn--zz.org/)", "[x](HTTPS://X.ORG)", "[x](http://A.org)", "[x](http:x)"),
        *("[x](https://x_y.org)", "[x](http://-x.org)", "[x](mailto:)", "[x](javascript:x)"),
        *("[<https://x.org>](y)", "[a <b@c.org>](y)", '[x](y "t\'i"t")', '![a "b"](c)'),
        *("\n\n```mermaid\n\nx\n```\n", "\n\n```\n\nx\n```\n", "\n\n```py\n'a' + \"b\"\n```\n"),
        *(
            "\n\n```mermaid\nA[img: https://x.org/a.png]\n```\n",
            "\n\n```mermaid\nB[img: //a]\n```\n",
        ),
        *(
            "\n\n```mermaid\nstyle A fill:url('http://e.org/&\"x')\n```\n",
            "![a](http://x.org/i.png)",
        ),
        *("\n\n| a |\n|-|\n| &#13; |\n", "\n\n<div>\n\n*a*\n\n</div>\n", "\n\n<!--\n\nx\n"),
        *("<b>", "</b>", "<div>", "</div>", "<em>", "<p>", "<br>", "<!-- c -->", "<x y>"),
        *("<a href=x>", "</a>", "<img src=x>", "<input>", "<span title='a\"b'>", "</span>"),
        *("<script>", "<style>", "<pre>\n", "</pre>", "<table>", "<td>", "&#106;s:"),
    ]
)
_CLEAN = st.lists(SYNTAX, max_size=20).map("".join)
# Mostly one edge in clean Markdown, so that no other piece sends its block to nh3 anyway.
_EDGES = st.lists(EDGES | st.text(max_size=3), min_size=1, max_size=3).map("".join)
MARKDOWN = st.tuples(_CLEAN, EDGES | _EDGES, _CLEAN).map("".join)


def _fragments(source: str, remote_images: bool) -> list[Fragment]:
    """The HTML the block cache sanitises: each block's, and the whole text's."""
    text = normalize(prepared(source))
    seen: dict[str, int] = {}
    fragments = [
        render_fragment(
            parse(text), seen={}, line=0, remote_images=remote_images, nesting=RawHtmlNesting()
        )
    ]
    cut = split(text)
    for index, block in enumerate(cut.blocks):
        fragments.append(
            render_fragment(
                cut.fresh[index],
                seen=seen,
                line=block.start,
                remote_images=remote_images,
                nesting=RawHtmlNesting(),
            )
        )
    return fragments


@settings(max_examples=500)
@given(MARKDOWN, st.booleans())
def test_markup_taken_as_clean_is_what_nh3_writes(source: str, remote_images: bool) -> None:
    for fragment in _fragments(source, remote_images):
        if fragment.has_raw:
            continue
        clean = already_clean(fragment.html)
        if clean is not None:
            assert mark_external_links(clean) == sanitize(fragment.html)
        assert sanitize_own(fragment.html) == sanitize(fragment.html)


class _Recorded:
    """nh3's cleaner, noting what it is given."""

    def __init__(self) -> None:
        self.given: list[str] = []

    def clean(self, html: str) -> str:
        self.given.append(html)
        cleaned: str = cleaner().clean(html)
        return cleaned


@settings(max_examples=500)
@given(MARKDOWN, st.booleans())
def test_markup_outside_the_condition_goes_through_nh3(source: str, remote_images: bool) -> None:
    for fragment in _fragments(source, remote_images):
        expected = sanitize(fragment.html)
        nh3 = _Recorded()
        with patch.object(sanitize_module, "_cleaner", return_value=nh3):
            finished = finish_fragment(fragment.html, remote_images=True, has_raw=fragment.has_raw)
        # Raw HTML always goes through nh3, however clean it looks.
        skipped = not fragment.has_raw and already_clean(fragment.html) is not None
        assert nh3.given == ([] if skipped else [fragment.html])
        assert finished.html == expected


@pytest.mark.parametrize(
    "html",
    [
        '<p><a href="foo:bar">x</a></p>\n',
        '<p><a href="data:image/png,x">x</a></p>\n',
        '<p><a href="https://">x</a></p>\n',
        '<p><a href="http://999.1.1.1/">x</a></p>\n',
        '<p><a href="http://x.org:99999/">x</a></p>\n',
        '<p><a href="HTTPS://X.ORG">x</a></p>\n',
        '<p><a href="b"><a href="http://a.org">http://a.org</a></a></p>\n',
        '<pre class="mermaid">\nx\n</pre>\n',
        "<p>a&copy;b</p>\n",
        "<p>a\rb</p>\n",
        "<p>a\x01b</p>\n",
        '<p><span onclick="x">a</span></p>\n',
        "<p><script>x</script></p>\n",
        '<th style="color:red">x</th>\n',
        '<input type="text">',
        "<br/>",
        "<p>a > b</p>",
    ],
)
def test_markup_nh3_would_change_is_not_taken_as_clean(html: str) -> None:
    assert already_clean(html) is None


@pytest.mark.parametrize(
    ("html", "written"),
    [
        ("<p>&quot;a&quot; &#39;b&#39;</p>\n", "<p>\"a\" 'b'</p>\n"),
        ('<p><img src="a.png" alt="&quot;q&quot;"></p>\n', None),
        ("<p>a\xa0b</p>\n", "<p>a&nbsp;b</p>\n"),
        ('<p><a href="https://x.org/a?b=1&amp;c=2">x</a></p>\n', None),
        ('<p><a href="mailto:a@b.org">a@b.org</a></p>\n', None),
        ('<a class="wikilink" href="N%201.md#h" data-target="N 1" data-heading="H">t</a>', None),
        ('<li class="task-list-item"><input class="task-list-item-checkbox" type="checkbox"'
         ' disabled="" data-line="3" checked=""> a</li>', None),
        ('<table>\n<thead>\n<tr>\n<th style="text-align:right">a</th>\n</tr>\n</thead>'
         '\n</table>', None),
    ],
)  # fmt: skip
def test_common_markup_is_written_as_nh3_writes_it(html: str, written: str | None) -> None:
    # None: nh3 writes it back unchanged.
    expected = written if written is not None else html
    assert already_clean(html) == expected
    assert mark_external_links(expected) == sanitize(html)
