"""Quire's one Markdown to HTML renderer: the Read view and every export use it.

Owns the HTML shape of each construct (heading ids, task checkboxes, math, Mermaid, code,
wikilinks, footnotes) and runs the result through ``sanitize``. Must not do file I/O, run
scripts, or typeset: KaTeX and Mermaid run in the client on the elements described below.

HTML shapes:

- ``<h2 id="slug">``: GitHub-style slugs (lowercase; letters, digits, marks, ``-`` and ``_``
  kept, other punctuation dropped, each space a ``-``), repeats suffixed ``-1``, ``-2``…
- task items: ``<li class="task-list-item"><input class="task-list-item-checkbox"
  type="checkbox" disabled="" data-line="N">`` where N is the 1-based source line.
- math: ``<span class="math math-inline">TeX</span>``, ``<div class="math math-display">``.
- Mermaid fences: ``<pre class="mermaid">source</pre>``.
- other code: ``<pre class="highlight"><code class="language-x">`` holding Pygments spans
  (classes styled by ``highlight_css``), or the escaped code for an unknown language.
- ``[[Note#Heading|text]]``: ``<a class="wikilink" href="Note.md#heading"
  data-target="Note" data-heading="Heading">text</a>``; ``.md`` is added unless the target
  already ends in a Markdown or attachment extension. ``![[a.png]]`` is ``<img class="embed">``,
  other embeds are links with class ``wikilink embed``.
- footnotes: ids ``fn:N`` and ``fnref:N`` (a colon never occurs in a heading slug).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import quote

from markdown_it import MarkdownIt
from markdown_it.common.utils import MD_TRIM_RE, escapeHtml, mdTrim, unescapeAll
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

from quire.core.collector import collection_paused
from quire.core.errors import InvalidArgument
from quire.core.limits import MARKDOWN_EXTENSIONS
from quire.markdown.clean_markup import sanitize_own
from quire.markdown.highlight import highlight
from quire.markdown.parser import build_parser, strip_bom
from quire.markdown.remote_images import diagram_fetch, diagram_notice, move_aside
from quire.markdown.sanitize import RawHtmlNesting, escape_disallowed_raw_html, sanitize

IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg", ".avif", ".bmp")
"""Embeds with these endings render as images."""

ATTACHMENT_EXTENSIONS = (
    *IMAGE_EXTENSIONS,
    *(".pdf", ".canvas", ".mp3", ".wav", ".ogg", ".m4a", ".flac", ".mp4", ".webm", ".mov"),
)
"""Wikilink targets with these endings (or a Markdown one) link to the file as named."""

_LANGUAGE = re.compile(r"[\w+#.-]{1,64}")
"""A fence language that can be a class name (``c++``, ``f#``, ``objective-c``)."""

_SIZE_ALIAS = re.compile(r"(\d{1,5})(?:x(\d{1,5}))?")

_SURROGATE = re.compile("[\ud800-\udfff]")

_HAS_MATH = "quire_has_math"
_HAS_MERMAID = "quire_has_mermaid"
_SLUGS = "quire_slugs"
_RAW_NESTING = "quire_raw_nesting"
_REMOTE_IMAGES = "quire_remote_images"
_SLUG_LOG = "quire_slug_log"
_HAS_RAW = "quire_has_raw"
_HAS_TASKS = "quire_has_tasks"


@dataclass(frozen=True)
class Rendered:
    """A rendered document: sanitised HTML and what the client must load to finish it."""

    html: str
    has_math: bool
    has_mermaid: bool
    remote_images: tuple[str, ...] = ()
    """The addresses of the remote images moved aside into placeholders, in order."""


def _is_slug_char(char: str) -> bool:
    if char in " -_":
        return True
    category = unicodedata.category(char)
    return category[0] in "LNM" or category == "Pc"


def slugify(text: str) -> str:
    """The GitHub-style anchor of a heading's text (without de-duplication): lowercase,
    letters, digits, marks, ``-`` and ``_`` kept, everything else dropped, spaces as ``-``."""
    return "".join(char for char in text.lower() if _is_slug_char(char)).replace(" ", "-")


def _unique_slug(env: EnvType, slug: str) -> str:
    # The de-duplication github-slugger does: "a", "a-1", "a-2"… skipping taken ones.
    seen: dict[str, int] = env.setdefault(_SLUGS, {})
    result = slug
    while result in seen:
        seen[slug] += 1
        result = f"{slug}-{seen[slug]}"
    seen[result] = 0
    log: list[tuple[str, str]] | None = env.get(_SLUG_LOG)
    if log is not None:
        log.append((slug, result))
    return result


def claim_slugs(seen: dict[str, int], slugs: Sequence[tuple[str, str]]) -> bool:
    """Take the ids ``slugs`` (each a slug and the id a render gave it) in ``seen`` as a render
    there would, when each would get that same id; else leave ``seen`` as it was."""
    undo: list[tuple[str, int | None]] = []
    for slug, wanted in slugs:
        result = slug
        while result in seen:
            undo.append((slug, seen[slug]))
            seen[slug] += 1
            result = f"{slug}-{seen[slug]}"
        undo.append((result, seen.get(result)))
        seen[result] = 0
        if result != wanted:
            for key, value in reversed(undo):
                if value is None:
                    del seen[key]
                else:
                    seen[key] = value
            return False
    return True


def _keeps_name(target: str) -> bool:
    suffix = PurePosixPath(target).suffix.lower()
    return suffix in MARKDOWN_EXTENSIONS or suffix in ATTACHMENT_EXTENSIONS


def _encode_path(path: str) -> str:
    encoded = quote(path, safe="/")
    # "//host" would be a link to another site: keep a rooted path rooted, nothing more.
    return "/" + encoded.lstrip("/") if encoded.startswith("//") else encoded


def wikilink_href(target: str, heading: str | None = None) -> str:
    """The href of ``[[target#heading]]``: ``target`` percent-encoded, ``.md`` added unless it
    already ends in a Markdown or attachment extension, then ``#`` and the heading's slug."""
    path = target if not target or _keeps_name(target) else f"{target}.md"
    fragment = f"#{slugify(heading)}" if heading is not None else ""
    return _encode_path(path) + fragment or "#"


def _plain_text(children: Sequence[Token] | None) -> str:
    parts: list[str] = []
    for child in children or ():
        if child.type in ("text", "code_inline", "math_inline", "math_inline_double"):
            parts.append(child.content)
        elif child.type == "wikilink":
            parts.append(_wikilink_text(child.meta))
    return "".join(parts)


def _wikilink_text(meta: dict[Any, Any]) -> str:
    return str(meta["alias"] or meta["target"] or meta["heading"] or "")


def _heading_open(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    inline = tokens[idx + 1] if idx + 1 < len(tokens) else None
    text = _plain_text(inline.children) if inline is not None and inline.type == "inline" else ""
    slug = slugify(text)
    if slug:
        tokens[idx].attrSet("id", _unique_slug(env, slug))
    return self.renderToken(tokens, idx, options, env)


def _list_item_open(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    token = tokens[idx]
    html = self.renderToken(tokens, idx, options, env)
    if "checked" not in token.meta:
        return html
    env[_HAS_TASKS] = True
    line = token.map[0] + 1 if token.map else 0
    checked = ' checked=""' if token.meta["checked"] else ""
    return (
        f'{html}<input class="task-list-item-checkbox" type="checkbox" disabled=""'
        f' data-line="{line}"{checked}> '
    )


def _fence(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    token = tokens[idx]
    info = mdTrim(unescapeAll(token.info)) if token.info else ""
    language = MD_TRIM_RE.split(info, maxsplit=1)[0] if info else ""
    if language.lower() == "mermaid":
        fetched = None if env.get(_REMOTE_IMAGES) else diagram_fetch(token.content)
        if fetched is not None:
            # Drawn, it would load a remote image: show its source instead, saying why.
            body = escapeHtml(token.content)
            return f'{diagram_notice(fetched)}<pre class="highlight"><code>{body}</code></pre>\n'
        env[_HAS_MERMAID] = True
        return f'<pre class="mermaid">{escapeHtml(token.content)}</pre>\n'
    if _LANGUAGE.fullmatch(language) is None:
        language = ""
    body = highlight(token.content, language) or escapeHtml(token.content)
    language_class = f' class="language-{language}"' if language else ""
    return f'<pre class="highlight"><code{language_class}>{body}</code></pre>\n'


def _code_block(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    return f'<pre class="highlight"><code>{escapeHtml(tokens[idx].content)}</code></pre>\n'


def _tex(content: str) -> str:
    trimmed = content.strip()
    end = len(content.rstrip())
    # "\ " is TeX's control space: trimming its space would leave a dangling backslash.
    if trimmed.endswith("\\") and content[end : end + 1] in (" ", "\t"):
        trimmed += " "
    return escapeHtml(trimmed)


def _math_inline(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    env[_HAS_MATH] = True
    return f'<span class="math math-inline">{_tex(tokens[idx].content)}</span>'


def _math_display(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    env[_HAS_MATH] = True
    token = tokens[idx]
    label = slugify(token.info) if token.type == "math_block_label" else ""
    id_attr = f' id="{escapeHtml(_unique_slug(env, label))}"' if label else ""
    return f'<div class="math math-display"{id_attr}>{_tex(token.content)}</div>\n'


def _wikilink(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    meta = tokens[idx].meta
    target: str = meta["target"]
    heading: str | None = meta["heading"]
    if meta["embed"] and target.lower().endswith(IMAGE_EXTENSIONS):
        return _image_embed(target, meta["alias"])
    attrs = f'class="{"wikilink embed" if meta["embed"] else "wikilink"}"'
    attrs += f' href="{escapeHtml(wikilink_href(target, heading))}"'
    if target:
        attrs += f' data-target="{escapeHtml(target)}"'
    if heading:
        attrs += f' data-heading="{escapeHtml(heading)}"'
    return f"<a {attrs}>{escapeHtml(_wikilink_text(meta))}</a>"


def _image_embed(target: str, alias: str | None) -> str:
    # "![[a.png|200]]" and "![[a.png|200x100]]" give a size, as in Obsidian; other text is alt.
    size = _SIZE_ALIAS.fullmatch(alias) if alias else None
    alt = target if size or not alias else alias
    attrs = f'class="embed" src="{escapeHtml(_encode_path(target))}" alt="{escapeHtml(alt)}"'
    if size:
        attrs += f' width="{size.group(1)}"'
        if size.group(2):
            attrs += f' height="{size.group(2)}"'
    return f"<img {attrs}>"


def _raw_html(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    env[_HAS_RAW] = True
    nesting: RawHtmlNesting = env.setdefault(_RAW_NESTING, RawHtmlNesting())
    return nesting.bound(escape_disallowed_raw_html(tokens[idx].content))


def _nothing(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    return ""


def _footnote_anchor_name(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    return f":{tokens[idx].meta['id'] + 1}"


@lru_cache(maxsize=1)
def _markdown() -> MarkdownIt:
    md = build_parser()
    rules = {
        "heading_open": _heading_open,
        "list_item_open": _list_item_open,
        "fence": _fence,
        "code_block": _code_block,
        "math_inline": _math_inline,
        # "$$x$$" inside a paragraph is inline math, as remark-math reads it.
        "math_inline_double": _math_inline,
        "math_block": _math_display,
        "math_block_label": _math_display,
        "wikilink": _wikilink,
        "html_block": _raw_html,
        "html_inline": _raw_html,
        "front_matter": _nothing,
        "footnote_anchor_name": _footnote_anchor_name,
    }
    for name, rule in rules.items():
        md.add_render_rule(name, rule)
    # "<br>", not "<br />": nh3 writes void elements so, and a block whose markup is already
    # written as nh3 writes it need not go through nh3 (see ``clean_markup``).
    md.options["xhtmlOut"] = False
    return md


def prepared(source: str) -> str:
    """``source`` as the renderer reads it: no BOM, lone surrogates as U+FFFD."""
    # A lone surrogate (JSON allows "\ud800") is no text nh3 can take: show U+FFFD instead.
    return _SURROGATE.sub("\ufffd", strip_bom(source))


def render(source: str, *, remote_images: bool = False) -> Rendered:
    """Render Markdown to sanitised HTML (a leading BOM ignored; the same input, same bytes).

    Remote images (any ``src`` that leaves this machine) become placeholders that keep their
    address out of every ``src`` (see ``quire.markdown.remote_images``) unless
    ``remote_images`` allows them.

    Raises InvalidArgument when ``source`` is not a str.
    """
    if not isinstance(source, str):
        raise InvalidArgument(
            f"Markdown to render must be text (str), not {type(source).__name__}; "
            "decode the file as UTF-8 first.",
            argument="source",
        )
    text = prepared(source)
    env: EnvType = {_REMOTE_IMAGES: remote_images}
    # The whole output, not each raw fragment: a raw <details> or <div> often wraps
    # Markdown between its tags. A hidden front matter block leaves a leading line break.
    with collection_paused():
        html = sanitize(_markdown().render(text, env)).lstrip("\n")
    moved: tuple[str, ...] = ()
    if not remote_images:
        html, moved = move_aside(html)
    return Rendered(
        html=html,
        remote_images=moved,
        has_math=bool(env.get(_HAS_MATH)),
        has_mermaid=bool(env.get(_HAS_MERMAID)),
    )


@dataclass(frozen=True)
class Fragment:
    """One block's HTML before sanitising, and what it took from and gave to its document:
    the heading ids it asked for (``slugs``: the slug, then the id it got), whether it holds
    math, a diagram or raw HTML, and the line it starts on when its task boxes name lines."""

    html: str
    slugs: tuple[tuple[str, str], ...]
    has_math: bool
    has_mermaid: bool
    has_raw: bool
    line: int | None


def render_fragment(
    tokens: Sequence[Token],
    *,
    seen: dict[str, int],
    line: int,
    remote_images: bool,
    nesting: RawHtmlNesting,
) -> Fragment:
    """The HTML of one block's ``tokens`` (starting on ``line``), as the whole render writes
    it there: ``seen`` holds the heading ids taken before it and gains its own; ``nesting``
    carries raw HTML open in blocks before it."""
    md = _markdown()
    env: EnvType = {
        _REMOTE_IMAGES: remote_images,
        _SLUGS: seen,
        _SLUG_LOG: [],
        _RAW_NESTING: nesting,
    }
    html = md.renderer.render(tokens, md.options, env)
    return Fragment(
        html=html,
        slugs=tuple(env[_SLUG_LOG]),
        has_math=bool(env.get(_HAS_MATH)),
        has_mermaid=bool(env.get(_HAS_MERMAID)),
        has_raw=bool(env.get(_HAS_RAW)),
        line=line if env.get(_HAS_TASKS) else None,
    )


def finish_fragment(html: str, *, remote_images: bool, has_raw: bool) -> Rendered:
    """Rendered HTML of one or more blocks' fragments joined: sanitised, remote images moved
    aside unless ``remote_images``. Math and Mermaid flags are the caller's to set.
    ``has_raw`` False (no fragment holds raw HTML) lets markup already clean skip nh3."""
    clean = sanitize(html) if has_raw else sanitize_own(html)
    moved: tuple[str, ...] = ()
    if not remote_images:
        clean, moved = move_aside(clean)
    return Rendered(html=clean, has_math=False, has_mermaid=False, remote_images=moved)


def render_html(source: str, *, remote_images: bool = False) -> str:
    """The sanitised HTML of ``source``; see ``render``."""
    return render(source, remote_images=remote_images).html
