"""The HTML allow-list every rendered document passes through (nh3), and the GFM tag filter.

Owns which tags, attributes and URLs survive: the renderer's own markup (heading ids, task
checkboxes, math, Mermaid, Pygments spans, wikilinks, footnotes) and a reasonable set of
formatting HTML a writer may type. Must not know Markdown: it sees only HTML.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

import nh3

_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
_BLOCKS = {
    "p", "div", "section", "blockquote", "pre", "hr", "br",
    "ul", "ol", "li", "dl", "dt", "dd", "details", "summary", "figure", "figcaption",
    "table", "caption", "colgroup", "col", "thead", "tbody", "tfoot", "tr", "th", "td",
}  # fmt: skip
_INLINE = {
    "a", "img", "span", "code", "kbd", "samp", "var", "sub", "sup", "em", "strong", "b", "i",
    "u", "s", "del", "ins", "strike", "mark", "small", "abbr", "cite", "dfn", "q", "time",
    "ruby", "rt", "rp", "bdi", "wbr", "input",
}  # fmt: skip
TAGS = frozenset(_HEADINGS | _BLOCKS | _INLINE)
"""Every element that may appear in rendered HTML."""

# Removed together with everything inside them: active content, foreign markup (SVG, MathML)
# and elements whose contents the browser would never show as text anyway.
_DROPPED_WITH_CONTENT = {
    "script", "style", "iframe", "object", "embed", "applet", "noscript", "noembed",
    "noframes", "template", "svg", "math", "frame", "frameset", "xmp", "plaintext",
    "title", "textarea", "select", "head",
}  # fmt: skip

ATTRIBUTES: dict[str, set[str]] = {
    "*": {"class", "id", "title", "lang", "dir", "align"},
    "a": {"href", "data-target", "data-heading"},
    "img": {"src", "alt", "width", "height"},
    "input": {"checked", "disabled", "data-line"},
    "ol": {"start", "reversed", "type"},
    "li": {"value"},
    "th": {"style", "colspan", "rowspan", "scope"},
    "td": {"style", "colspan", "rowspan"},
    "col": {"span"},
    "colgroup": {"span"},
    "details": {"open"},
    "time": {"datetime"},
}
"""The attributes each element may keep (``*``: every element)."""

# The tags GFM's "disallowed raw HTML" rule neutralises: as raw text elements they would
# swallow the rest of the document when a writer leaves one unclosed (a <style> in prose).
_DISALLOWED_RAW = re.compile(
    r"<(?=/?(?:title|textarea|style|xmp|iframe|noembed|noframes|script|plaintext)(?:[\s/>]|$))",
    re.IGNORECASE,
)

_URL_IGNORED = re.compile(r"[\t\n\r]")
_URL_LEADING = re.compile(r"^[\x00-\x20]+")
# An absolute URL (any scheme) or a network-path one: "//host", and "\\host", "/\t/host" too,
# as browsers read backslashes and drop tabs and line breaks.
_EXTERNAL_LINK = re.compile(
    r'<a (?=[^>]*\bhref="[\x00-\x20]*(?:[a-zA-Z][a-zA-Z0-9+.-]*:|[/\\][\t\n\r]*[/\\]))'
)
EXTERNAL_REL = "noopener noreferrer"
"""The ``rel`` every link that leaves the document's own site carries."""


def escape_disallowed_raw_html(html: str) -> str:
    """``html`` with the ``<`` of title, textarea, style, xmp, iframe, noembed, noframes,
    script and plaintext tags written as ``&lt;``, so they show as text (GFM's tag filter)."""
    return _DISALLOWED_RAW.sub("&lt;", html)


MAX_RAW_DEPTH = 512
"""How deep raw HTML elements may nest (the depth browsers cap their DOM trees at)."""

_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*)")
VOID_TAGS = frozenset({
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
    "source", "track", "wbr", "keygen", "image",
})  # fmt: skip
"""Elements that never have an end tag (HTML's void elements)."""
_CLOSES_P = {
    "address", "article", "aside", "blockquote", "center", "details", "dialog", "dir", "div",
    "dl", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5",
    "h6", "header", "hgroup", "main", "menu", "nav", "ol", "p", "pre", "search", "section",
    "summary", "table", "ul",
}  # fmt: skip
_CLOSES = {
    "li": {"li", "p"},
    "dt": {"dt", "dd", "p"},
    "dd": {"dt", "dd", "p"},
    "tr": {"tr", "td", "th"},
    "td": {"td", "th"},
    "th": {"td", "th"},
    "option": {"option"},
    "rt": {"rt", "rp"},
    "rp": {"rt", "rp"},
}
_IMPLIED_END = {
    "p", "li", "dt", "dd", "option", "optgroup", "rt", "rp", "tr", "td", "th", "tbody",
    "thead", "tfoot", "caption", "colgroup",
}  # fmt: skip
_END_SEARCH = 16


class RawHtmlNesting:
    """An upper bound of how deep a document's raw HTML elements nest, kept under a limit.

    The HTML parser inside nh3 slows quadratically with depth (each block start tag searches
    the open elements), so a document of 100 000 nested ``<div>`` would take minutes. Feed
    every raw fragment in document order; a start tag past the limit is shown as text. The
    estimate only pops an element when the browser surely would, so it never undercounts.
    """

    def __init__(self, limit: int = MAX_RAW_DEPTH) -> None:
        self._limit = limit
        self._stack: list[str] = []
        self._open: Counter[str] = Counter()

    def bound(self, html: str) -> str:
        """``html`` with the ``<`` of start tags past the depth limit written as ``&lt;``."""
        return _TAG.sub(self._visit, html)

    def _visit(self, match: re.Match[str]) -> str:
        name = match.group(2).lower()
        if name in VOID_TAGS:
            return match.group(0)
        if match.group(1):
            self._close(name)
            return match.group(0)
        closes = _CLOSES.get(name) or ({"p"} if name in _CLOSES_P else None)
        while closes and self._stack and self._stack[-1] in closes:
            self._pop()
        if len(self._stack) >= self._limit:
            return "&lt;" + match.group(0)[1:]
        self._stack.append(name)
        self._open[name] += 1
        return match.group(0)

    def _close(self, name: str) -> None:
        if not self._open[name]:
            return
        # Only through elements whose end tags browsers imply (</ul> closes an open <li>).
        for depth in range(1, min(_END_SEARCH, len(self._stack)) + 1):
            current = self._stack[-depth]
            if current == name:
                for _ in range(depth):
                    self._pop()
                return
            if current not in _IMPLIED_END:
                return

    def _pop(self) -> None:
        self._open[self._stack.pop()] -= 1

    def is_empty(self) -> bool:
        """Whether no raw element is open."""
        return not self._stack


_MARKUP = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*)|<[!?]")


def nests_plainly(html: str, stack: list[str]) -> bool:
    """Whether the tags of ``html`` nest exactly (each end tag closes the innermost open
    element), given the elements ``stack`` holds open before it; ``stack`` is left holding
    those open after it. False, and ``stack`` undefined, for a stray or misnested end tag, a
    tag outside the allow-list, a comment or a declaration: HTML whose parse can reach past
    its end, so it cannot be sanitised apart from what follows."""
    for match in _MARKUP.finditer(html):
        if match.group(2) is None:
            return False
        name = match.group(2).lower()
        if name in VOID_TAGS:
            continue
        if name not in TAGS:
            return False
        if not match.group(1):
            stack.append(name)
        elif not stack or stack.pop() != name:
            return False
    return True


def _filter_attribute(tag: str, attribute: str, value: str) -> str | None:
    if attribute != "href" and attribute != "src":
        return value
    # Read the scheme as a browser does: leading controls and spaces, and every tab and
    # line break, are dropped before it.
    scheme = _URL_IGNORED.sub("", _URL_LEADING.sub("", value))[:11].lower()
    if not scheme.startswith("data:"):
        return value
    return value if tag == "img" and attribute == "src" and scheme == "data:image/" else None


@lru_cache(maxsize=1)
def _cleaner() -> nh3.Cleaner:
    return nh3.Cleaner(
        tags=set(TAGS),
        clean_content_tags=_DROPPED_WITH_CONTENT,
        attributes=ATTRIBUTES,
        attribute_filter=_filter_attribute,
        # Every input is a disabled checkbox or a disabled, formless box. One forced attribute
        # only: nh3 adds several in a hash order that changes from process to process.
        tag_attribute_values={"input": {"type": {"checkbox"}}},
        set_tag_attribute_values={"input": {"disabled": ""}},
        url_schemes=set(nh3.ALLOWED_URL_SCHEMES) | {"data"},
        filter_style_properties={"text-align"},
        strip_comments=True,
        link_rel=None,
    )


def sanitize(html: str) -> str:
    """``html`` reduced to the allow-list, with ``rel="noopener noreferrer"`` on external links.

    Removes scripts, styles, frames, SVG, event handler attributes, ``style`` except
    ``text-align`` on table cells, and URLs with a scheme outside nh3's safe list
    (``javascript:``, ``vbscript:``, ``file:``…) or a ``data:`` URL anywhere but an image's
    ``src``. The output is well-formed, deterministic HTML.
    """
    cleaned: str = _cleaner().clean(html)
    return mark_external_links(cleaned)


def mark_external_links(cleaned: str) -> str:
    """``cleaned`` (nh3's output) with ``rel="noopener noreferrer"`` on every external link."""
    # nh3 escapes < and > inside attribute values, so "<a " only ever starts an anchor tag.
    return _EXTERNAL_LINK.sub(f'<a rel="{EXTERNAL_REL}" ', cleaned)
