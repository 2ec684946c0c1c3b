"""Remote images moved aside: every ``<img>`` whose ``src`` leaves this machine becomes a
placeholder that names the host and keeps the address where no browser fetches it.

Runs on the sanitiser's output (well-formed, attributes double-quoted, ``<`` and ``>`` escaped
inside values), so a tag pattern is exact there. Owns the placeholder's markup:

``<span class="remote-image" data-src="URL" data-host="HOST" data-alt="ALT" [data-width]
[data-height]>Image from HOST not loaded: ALT</span>``. ``data-src`` is present only for an
address a click may load (http, https, or a network path ``//host``); the web UI adds the
buttons, an export shows the sentence. Must not fetch anything or know the setting.
"""

from __future__ import annotations

import re
from html import escape, unescape

from quire.core.remote_images import is_remote, remote_host, scheme_of, written_address

_IMG = re.compile(r"<img\b([^>]*)>")
# The places a Mermaid diagram fetches from: a node's image field and a CSS url() in a style.
_DIAGRAM_IMAGE = re.compile(r"""\bimg\s*:\s*(?:"([^"]*)"|'([^']*)'|([^\s,}]*))""", re.IGNORECASE)
_CSS_URL = re.compile(r"""url\(\s*(?:"([^"]*)"|'([^']*)'|([^)]*))""", re.IGNORECASE)
_ATTRIBUTE = re.compile(r'([a-zA-Z][a-zA-Z0-9:_-]*)(?:="([^"]*)")?')
_KEPT = ("width", "height")


def _attributes(text: str) -> dict[str, str]:
    return {name.lower(): value or "" for name, value in _ATTRIBUTE.findall(text)}


def _placeholder(attributes: dict[str, str]) -> str:
    src = unescape(attributes["src"])
    host = remote_host(src)
    alt = unescape(attributes.get("alt", ""))
    scheme = scheme_of(src)
    loadable = scheme in ("http", "https") or (scheme is None and host != "")
    parts = ['class="remote-image"']
    if loadable:
        parts.append(f'data-src="{escape(written_address(src))}"')
    parts.append(f'data-host="{escape(host)}"')
    parts.append(f'data-alt="{escape(alt)}"')
    parts.extend(f'data-{name}="{attributes[name]}"' for name in _KEPT if name in attributes)
    where = f"from {host}" if host else "at a remote address"
    if not loadable:
        where += f" ({scheme}: addresses never load)" if scheme else ""
    label = f"Image {where} not loaded" + (f": {alt}" if alt else "")
    return f"<span {' '.join(parts)}>{escape(label, quote=False)}</span>"


def diagram_fetch(source: str) -> str | None:
    """The first remote address a Mermaid diagram's ``source`` would fetch (an image node's
    ``img:`` field or a style's ``url()``), or None. An address hidden behind an entity or
    escape counts as remote, since the diagram library may decode it."""
    for pattern in (_DIAGRAM_IMAGE, _CSS_URL):
        for match in pattern.finditer(source):
            value = next(group for group in match.groups() if group is not None)
            if is_remote(unescape(value)) or "#" in value or "\\" in value or "&" in value:
                return written_address(unescape(value))
    return None


def diagram_notice(address: str) -> str:
    """The note shown above a diagram that is not drawn because it would fetch ``address``."""
    host = remote_host(address)
    where = f"from {host}" if host else "from a remote address"
    return (
        '<p class="remote-image remote-diagram">Diagram not drawn: '
        f"it loads an image {escape(where, quote=False)}, and remote images are off for this "
        "note.</p>\n"
    )


def move_aside(html: str) -> tuple[str, tuple[str, ...]]:
    """``html`` (sanitised) with each remote image replaced by its placeholder, and the
    addresses moved aside in document order; local paths and ``data:`` images stay."""
    if "<img" not in html:
        return html, ()
    moved: list[str] = []

    def replace(match: re.Match[str]) -> str:
        attributes = _attributes(match.group(1))
        src = attributes.get("src")
        if src is None or not is_remote(unescape(src)):
            return match.group(0)
        moved.append(written_address(unescape(src)))
        return _placeholder(attributes)

    return _IMG.sub(replace, html), tuple(moved)
