"""Syntax highlighting of fenced code with Pygments, and the stylesheet for its classes.

Owns the lexer choice (by the fence's language name only, never by guessing) and the CSS.
Must not decide the HTML around the code: ``render.py`` wraps the spans this returns as
``<pre class="highlight"><code class="language-x">…</code></pre>``.
"""

from __future__ import annotations

from functools import lru_cache

from pygments import highlight as pygments_highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.styles import get_all_styles
from pygments.util import ClassNotFound

from quire.core.errors import InvalidArgument

CSS_SCOPE = ".highlight"
"""The class on every code block's ``<pre>``; every rule of the stylesheet sits under it."""

_FORMATTER = HtmlFormatter(nowrap=True)

# Properties a light token rule may set; reset in dark mode so no light colour leaks through
# for a token class the dark style leaves unstyled.
_RESET = (
    "color: inherit; background-color: transparent; border: 0; "
    "font-weight: inherit; font-style: inherit; text-decoration: inherit"
)


@lru_cache(maxsize=256)
def _lexer(language: str) -> Lexer | None:
    try:
        # stripnl=False keeps leading and trailing blank lines exactly as written.
        return get_lexer_by_name(language, stripnl=False)
    except ClassNotFound:
        return None


def highlight(code: str, language: str) -> str | None:
    """HTML spans (Pygments CSS classes) for ``code`` in ``language``, or None when unknown.

    The text content of the result is ``code`` itself, HTML-escaped. The language is looked
    up by name or alias only (``python``, ``py``, ``ts``…), case-insensitively.
    """
    if not language:
        return None
    lexer = _lexer(language.lower())
    if lexer is None:
        return None
    html: str = pygments_highlight(code, lexer, _FORMATTER)
    # Pygments ends every text with a newline; keep the code's own ending instead.
    if not code.endswith("\n") and html.endswith("\n"):
        html = html[:-1]
    return html


def _formatter(style: str, argument: str) -> HtmlFormatter[str]:
    try:
        return HtmlFormatter(style=style)
    except ClassNotFound:
        styles = ", ".join(sorted(get_all_styles()))
        raise InvalidArgument(
            f"There is no code highlighting style named {style!r}. Use one of: {styles}.",
            argument=argument,
        ) from None


def _rules(formatter: HtmlFormatter[str]) -> list[str]:
    # The Pygments stubs leave these two untyped; both return one CSS rule per line.
    background: list[str] = formatter.get_background_style_defs(CSS_SCOPE)  # type: ignore[no-untyped-call]
    tokens: list[str] = formatter.get_token_style_defs(CSS_SCOPE)  # type: ignore[no-untyped-call]
    return [*background, *tokens]


def highlight_css(style: str = "default", dark_style: str = "monokai") -> str:
    """The stylesheet for highlighted code: ``style`` for light pages, and ``dark_style``
    inside ``@media (prefers-color-scheme: dark)``.

    Raises InvalidArgument naming the styles Pygments has when either name is unknown.
    """
    light = _rules(_formatter(style, "style"))
    dark = _rules(_formatter(dark_style, "dark_style"))
    token_selectors = sorted(
        {rule.split(" {", 1)[0] for rule in light if rule.startswith(f"{CSS_SCOPE} .")}
    )
    lines = [f"/* Code highlighting: {style} (light), {dark_style} (dark) */", *light]
    lines.append("@media (prefers-color-scheme: dark) {")
    if token_selectors:
        lines.append(f"  {', '.join(token_selectors)} {{ {_RESET} }}")
    lines.extend(f"  {rule}" for rule in dark)
    lines.append("}")
    return "\n".join(lines) + "\n"
