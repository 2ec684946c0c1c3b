"""The renderer's own markup recognised as already clean, so a block skips the HTML parser.

Owns one shortcut of ``sanitize``: HTML with no raw HTML from the writer, whose every tag,
attribute, URL and character reference is one nh3 keeps as written, needs only nh3's
serialisation (``&quot;`` and ``&#39;`` in text as quotes, U+00A0 as ``&nbsp;``), not its
parse. The check is a few C-speed scans; anything it does not recognise goes through nh3.
Must not be given raw HTML: its tags need not nest as written, and only nh3 can tell.
"""

from __future__ import annotations

import re
from functools import lru_cache

from quire.markdown.sanitize import (
    ATTRIBUTES,
    TAGS,
    VOID_TAGS,
    mark_external_links,
    sanitize,
)

# An attribute value as markdown-it and Pygments escape it, and as nh3 writes it back.
_VALUE = r'(?:[^"&<>]|&(?:amp|lt|gt|quot|#39);)*'
# A URL nh3 keeps as written: a relative one (no scheme: the url crate then parses nothing),
# or http(s) to a plain host name nh3's URL parser surely accepts, or a plain mailto.
_URL_CHARS = r'(?:[^"&<>\x00-\x20]|&amp;)*'
_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
_HOST = rf"(?:(?!xn--){_LABEL}\.)*(?!xn--)[a-z](?:[a-z0-9-]{{0,61}}[a-z0-9])?"
_URL = (
    rf"(?![a-zA-Z][a-zA-Z0-9+.-]*:){_URL_CHARS}"
    rf"|https?://{_HOST}(?::[0-9]{{1,4}})?(?:[/?#]{_URL_CHARS})?"
    r"|mailto:[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+"
)
_STYLE = "text-align:(?:left|right|center)"
# nh3 forces an input to a disabled checkbox: only the task box the renderer writes is kept.
_TASK_BOX = (
    'input class="task-list-item-checkbox" type="checkbox" disabled="" data-line="[0-9]+"'
    '(?: checked="")?'
)
_COMMON = ("span", "li", "p", "a", "code", "td", "th", "tr", "ul", "em", "strong", "s", "h2")


def _start_tag(tag: str) -> str:
    allowed = ATTRIBUTES["*"] | ATTRIBUTES.get(tag, set())
    plain = sorted(allowed - {"href", "src", "style"})
    choices = [f'(?:{"|".join(plain)})="{_VALUE}"']
    choices += [f'{name}="(?:{_URL})"' for name in ("href", "src") if name in allowed]
    if "style" in allowed:
        choices.append(f'style="{_STYLE}"')
    return f"{tag}(?: (?:{'|'.join(choices)}))*"


def _tags() -> str:
    # The common tags first: the alternatives are tried in order at every "<".
    names = [*_COMMON, *sorted(TAGS - set(_COMMON) - {"input"})]
    starts = "|".join([*(_start_tag(tag) for tag in names), _TASK_BOX])
    ends = "|".join(tag for tag in names if tag not in VOID_TAGS)
    return rf"<(?!/(?:{ends})>|(?:{starts})>)"


@lru_cache(maxsize=1)
def _unclean() -> tuple[re.Pattern[str], ...]:
    """The scans, each its own: a pattern that starts with a literal is searched for at C
    speed. Compiled on first use (some 10 ms), not while a server starts."""
    return tuple(
        re.compile(pattern)
        for pattern in (
            _tags(),
            # Any character reference but the five the renderer writes.
            r"&(?!(?:amp|lt|gt|quot|#39);)",
            # Controls and noncharacters: the HTML parser may replace or drop them.
            r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ufdd0-\ufdef\ufffe\uffff]",
            # The parser drops a line break that starts a <pre>.
            r"<pre\b[^>]*>\n",
            # A link inside a link (an autolink in a link's text): the parser closes the outer
            # one.
            r"<a\b[^>]*>[^<]*(?:<(?!/a>)[^<]*)*<a\b",
        )
    )


_TEXT_QUOTE = re.compile(r"&quot;(?=[^<>]*(?:<|\Z))")


def already_clean(html: str) -> str | None:
    """What nh3 gives for ``html`` (rendered Markdown without raw HTML) when this cheap
    check can tell, else None."""
    if html.count("<") != html.count(">") or any(p.search(html) for p in _unclean()):
        return None
    if "&quot;" in html:
        html = _TEXT_QUOTE.sub('"', html)
    return html.replace("&#39;", "'").replace("\xa0", "&nbsp;")


def sanitize_own(html: str) -> str:
    """``sanitize(html)`` for rendered Markdown without raw HTML, skipping nh3's parse when
    the markup is recognised as already clean."""
    clean = already_clean(html)
    return sanitize(html) if clean is None else mark_external_links(clean)
