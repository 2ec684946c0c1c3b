"""The shared parser: text runs that stop only where a rule can start give the same tokens."""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from mdit_py_plugins.gfm import gfm_plugin

from quire.markdown.parser import build_parser, shared_parser

PIECES = st.sampled_from(
    [
        *("w", "ww", "www", "www.", "wwww.", "W", "WWW.", ".", " ", "\n", "\n\n", "x", "é"),
        *("www.x.org", "www.x.org/a?b", "(www.x.org)", "*www.x.org*", "_www.x.org_", "~"),
        *("[www.x.org](y)", "[a www.x.org]", "[", "]", "(", ")", "<www.x.org>", "![w](w)"),
        *("http://www.x.org", "https://", ":", "@", "a@www.x.org", "mailto:w@w.org", "`w`"),
        *("[[www.x]]", "$w$", "**", "\\", "&w;", "# ", "> ", "- ", "| w |\n|-|\n", "[^w]"),
    ]
)
TEXT = st.lists(PIECES | st.text(alphabet="w. x[]*_\n", max_size=4), max_size=30).map("".join)


def _reference() -> MarkdownIt:
    """The shared parser with the GFM plugin's own text stops (every "w")."""
    md = build_parser()
    plain = MarkdownIt("commonmark")
    gfm_plugin(plain)
    md.inline.terminator_re = plain.inline.terminator_re
    return md


REFERENCE = _reference()


def _tokens(md: MarkdownIt, text: str) -> list[MutableMapping[str, Any]]:
    return [token.as_dict() for token in md.parse(text)]


def test_text_runs_stop_at_a_w_only_before_ww_dot() -> None:
    stops = build_parser().inline.terminator_re
    assert stops.search("a window") is None
    assert stops.search("see www.x.org") is not None
    assert REFERENCE.inline.terminator_re.search("a window") is not None


@settings(max_examples=500)
@given(TEXT)
def test_the_shared_parser_gives_the_tokens_of_every_w_stop(text: str) -> None:
    assert _tokens(shared_parser(), text) == _tokens(REFERENCE, text)
