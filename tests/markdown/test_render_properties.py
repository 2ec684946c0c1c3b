"""Properties of the renderer over generated documents: it never fails and never lets script in."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from hypothesis import assume, given
from hypothesis import strategies as st

from quire.markdown.highlight import highlight
from quire.markdown.render import render, render_html
from quire.markdown.sanitize import TAGS
from quire.markdown.tasks import extract_tasks

PIECES = st.sampled_from(
    [
        "\n",
        "\n\n",
        " ",
        "    ",
        "\t",
        "# ",
        "## ",
        "> ",
        "- ",
        "1. ",
        "[ ] ",
        "[x] ",
        "```",
        "```mermaid\n",
        "```python\n",
        "~~~",
        "---",
        "|",
        "|-|\n",
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
        "|",
        "#",
        "[^1]",
        "[^1]: ",
        "[x]: ",
        "![a](",
        "<",
        ">",
        '"',
        "'",
        "=",
        "/",
        "&",
        "&#",
        ";",
        ":",
        "x",
        "on",
        "onerror=",
        " onload=alert(1)",
        "alert(1)",
        "javascript:",
        "JaVaScRiPt:",
        "java\tscript:",
        "&#106;avascript:",
        "vbscript:",
        "data:text/html,",
        "data:image/png,",
        "<script>",
        "</script>",
        "<SCRIPT",
        "<style>",
        "<iframe ",
        "<svg ",
        "<math>",
        "<img src=",
        "<a href=",
        "<div>",
        "</div>",
        "<details>",
        "<input ",
        "<!--",
        "-->",
        "<![CDATA[",
        "<?",
        "<b>",
        "</b>",
        "<noscript>",
        "<textarea>",
        "<title>",
        "<plaintext>",
        "<xmp>",
        "https://x.org",
        "www.x.org",
        "\ufeff",
        "\x00",
        "\r\n",
        "é",
        "🙂",
        "\u2028",
        "\ud800",
    ]
)

MARKDOWN = st.lists(PIECES | st.text(max_size=4), max_size=50).map("".join)

_BAD_SCHEMES = ("javascript:", "vbscript:", "data:", "file:")
_URL_NOISE = re.compile(r"[\x00-\x20]")


class _Elements(HTMLParser):
    """Every start tag and its attributes, as a browser's tokenizer reads them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, attrs))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, attrs))


def _elements(html: str) -> list[tuple[str, list[tuple[str, str | None]]]]:
    parser = _Elements()
    parser.feed(html)
    parser.close()
    return parser.elements


def _is_safe_url(tag: str, name: str, value: str) -> bool:
    url = _URL_NOISE.sub("", value).lower()
    if tag == "img" and name == "src" and url.startswith("data:image/"):
        return True
    return not url.startswith(_BAD_SCHEMES)


@given(MARKDOWN)
def test_no_input_crashes_render(source: str) -> None:
    rendered = render(source)
    assert isinstance(rendered.html, str)


@given(MARKDOWN)
def test_the_output_never_holds_script_handlers_or_script_urls(source: str) -> None:
    html = render_html(source)
    assert "<script" not in html.lower()
    for tag, attrs in _elements(html):
        assert tag in TAGS
        for name, value in attrs:
            assert not name.startswith("on")
            if name in ("href", "src"):
                assert _is_safe_url(tag, name, value or "")


@given(MARKDOWN)
def test_no_tag_ever_carries_an_event_handler_or_javascript_url(source: str) -> None:
    # Read as plain text, not through a parser: the sanitiser escapes < and > in attribute
    # values, so every < starts a tag and every attribute value is quoted with ".
    html = render_html(source)
    for tag in re.findall(r"<[a-zA-Z][^>]*>", html):
        for name, value in re.findall(r'\s([^\s="/>]+)(?:="([^"]*)")?', tag):
            assert re.fullmatch(r"on[a-z]+", name.lower()) is None
            if name in ("href", "src"):
                assert "javascript:" not in value.lower()


@given(MARKDOWN)
def test_rendering_twice_gives_the_same_bytes(source: str) -> None:
    assert render(source) == render(source)


@given(MARKDOWN)
def test_a_leading_bom_changes_nothing(source: str) -> None:
    assume(not source.startswith("\ufeff"))
    assert render_html("\ufeff" + source) == render_html(source)


@given(MARKDOWN)
def test_ids_are_unique(source: str) -> None:
    html = render_html(source)
    ids = [value for _, attrs in _elements(html) for name, value in attrs if name == "id"]
    assert len(ids) == len(set(ids))


@given(MARKDOWN)
def test_checkboxes_sit_on_the_lines_the_task_reader_reports(source: str) -> None:
    html = render_html(source)
    lines = [int(line) for line in re.findall(r'data-line="(\d+)"', html)]
    assert sorted(lines) == sorted(task.line for task in extract_tasks(source))


@given(
    st.text(alphabet=st.characters(blacklist_characters="\r\ufeff"), max_size=200),
    st.sampled_from(["python", "js", "c", "html", "json", "bash", "text", "nosuch"]),
)
def test_highlighting_never_changes_the_code(code: str, language: str) -> None:
    spans = highlight(code, language)
    if spans is None:
        return
    text = re.sub(r"<[^>]+>", "", spans)
    assert text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&") == code
