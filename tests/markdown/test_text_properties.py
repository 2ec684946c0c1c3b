"""Properties of export_text over generated documents."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from quire.markdown.text import PlainText, count_words, export_text

MARKDOWN_PIECES = st.sampled_from(
    [
        "\n",
        "\n\n",
        " ",
        "    ",
        "\t",
        "# ",
        "> ",
        "- ",
        "1) ",
        "* ",
        "[ ] ",
        "```",
        "~~~",
        "---",
        "===",
        "|",
        "\\|",
        "`",
        "$",
        "$$",
        "*",
        "_",
        "~~",
        "[",
        "]",
        "(",
        ")",
        "[[",
        "]]",
        "![[",
        "[^1]",
        "[^1]: ",
        "[x]: /u",
        "<div>",
        "</div>",
        "<!--",
        "-->",
        "<b>",
        "&amp;",
        "\ufeff",
        "\x00",
        "\r\n",
        "word",
        "é",
        "🙂",
    ]
)

MARKDOWN = st.lists(MARKDOWN_PIECES | st.text(max_size=5), max_size=60).map("".join)


def check_invariants(result: PlainText) -> None:
    text = result.text
    assert result.char_count == len(text)
    assert result.word_count == count_words(text)
    assert text == text.rstrip()
    assert not text or text.split("\n", 1)[0].strip(), "the text starts with a blank line"


@given(st.text())
def test_no_text_crashes_export_text(source: str) -> None:
    check_invariants(export_text(source))


@example("[^1]: > > [^1]: ")  # markdown-it leaves two quote closes without their opens
@given(MARKDOWN)
def test_no_markdown_soup_crashes_export_text(source: str) -> None:
    check_invariants(export_text(source))


PROSE_LINE = st.from_regex(r"[A-Za-z0-9#*_\[\]()! ]{0,30}", fullmatch=True)
CODE_LINE = st.from_regex(r"[a-z0-9#*_=]([a-z0-9#*_= ]{0,20}[a-z0-9#*_=])?", fullmatch=True)
INFO = st.from_regex(r"[a-z][a-z0-9+.-]{0,12}( [a-z=]{1,8})?", fullmatch=True)


@st.composite
def fenced_documents(draw: st.DrawFn) -> tuple[str, str, str]:
    """A document with a fenced block somewhere: (source, opening fence line, code)."""
    before = draw(st.lists(PROSE_LINE, max_size=4))
    after = draw(st.lists(PROSE_LINE, max_size=4))
    fence = draw(st.sampled_from(["```", "~~~", "````", "~~~~~"]))
    opening = fence + draw(st.sampled_from(["", " "])) + draw(INFO)
    body = draw(st.lists(CODE_LINE, min_size=1, max_size=5))
    closed = draw(st.booleans())
    block = [opening, *body, *([fence] if closed else [])]
    container = draw(st.sampled_from(["", "> ", "- ", "1) "]))
    if container:
        continuation = "> " if container == "> " else " " * len(container)
        block = [container + block[0], *(continuation + line for line in block[1:])]
    parts = ["\n".join(before), "\n".join(block), "\n".join(after) if closed else ""]
    return "\n\n".join(parts), opening, "\n".join(body)


@given(fenced_documents())
def test_a_fence_opening_line_never_reaches_the_text(document: tuple[str, str, str]) -> None:
    source, opening, code = document
    result = export_text(source)
    check_invariants(result)
    assert opening not in result.text.split("\n")
    assert code in result.text
