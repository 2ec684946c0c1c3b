"""What counts as a remote image address, and the one address a click may load.

Pure rules shared by the renderer (which moves remote ``src`` values aside) and the route that
serves a clicked image's frame (which allows exactly one address in its policy). Reads a URL
as a browser does: leading controls and spaces dropped, tabs and line breaks ignored, and a
backslash taken as a slash. No I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote, urlsplit

from quire.core.errors import InvalidArgument

MAX_REMOTE_URL = 2048
"""The longest image address a click may load (longer ones are refused, not cut)."""

LOADABLE_SCHEMES = ("http", "https")
"""The schemes a click may load; other remote addresses are only shown, never fetched."""

_LEADING = re.compile(r"^[\x00-\x20]+")
_IGNORED = re.compile(r"[\t\n\r]")
_SCHEME = re.compile(r"([a-zA-Z][a-zA-Z0-9+.-]*):")
_HOST = re.compile(r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*")
# Path characters a policy's source expression may hold as they are; the rest are escaped.
_PATH_SAFE = "/%-._~!$&()*+=:@"


def _browser_form(src: str) -> str:
    return _IGNORED.sub("", _LEADING.sub("", src)).strip()


def written_address(src: str) -> str:
    """``src`` as a browser reads it before resolving: leading controls and spaces dropped,
    tabs and line breaks removed, and the slashes of a network path (``\\\\host``) made
    plain (``//host``)."""
    text = _browser_form(src)
    if len(text) >= 2 and text[0] in "/\\" and text[1] in "/\\":
        return "//" + text[2:]
    return text


def scheme_of(src: str) -> str | None:
    """The lowercased scheme of ``src`` as a browser reads it, or None (a relative path)."""
    found = _SCHEME.match(_browser_form(src))
    return found.group(1).lower() if found else None


def is_remote(src: str) -> bool:
    """Whether loading ``src`` (an attribute value, entities already decoded) would leave this
    machine's pages: any scheme but ``data:`` and ``blob:``, or a network path (``//host``,
    ``\\\\host``, ``/\\host``)."""
    text = _browser_form(src)
    scheme = scheme_of(text)
    if scheme is not None:
        return scheme not in ("data", "blob")
    return len(text) >= 2 and text[0] in "/\\" and text[1] in "/\\"


def remote_host(src: str) -> str:
    """The host a remote ``src`` names, lowercased, for the placeholder ("" when it has none)."""
    text = _browser_form(src).replace("\\", "/")
    if scheme_of(text) is None:
        text = "http:" + text
    try:
        return urlsplit(text).hostname or ""
    except ValueError:
        return ""


@dataclass(frozen=True)
class RemoteImage:
    """One remote image a person clicked to load: its address and the policy source that
    allows that address alone."""

    url: str
    source: str
    """A Content-Security-Policy source expression matching ``url``'s scheme, host, port
    and path (a policy ignores the query)."""
    host: str

    @classmethod
    def parse(cls, raw: str) -> RemoteImage:
        """The image at ``raw``, an absolute http or https address; raises InvalidArgument
        (``url``) for any other, one with a user name or password, an IP version 6 host, or
        one longer than MAX_REMOTE_URL characters."""
        if len(raw) > MAX_REMOTE_URL:
            raise _refused(f"is {len(raw):,} characters long; at most {MAX_REMOTE_URL:,} load")
        if raw != raw.strip() or any(ord(char) < 0x21 or char in "\"'<>`" for char in raw):
            raise _refused("holds spaces, quotes or control characters; escape them as %XX")
        try:
            parts = urlsplit(raw)
            port = parts.port
        except ValueError as err:
            raise _refused(f"cannot be read ({err})") from None
        if parts.scheme.lower() not in LOADABLE_SCHEMES:
            raise _refused("is not an http or https address")
        if parts.username is not None or parts.password is not None:
            raise _refused("carries a user name or password")
        host = _ascii_host(parts.hostname or "")
        path = quote(parts.path, safe=_PATH_SAFE) or "/"
        scheme = parts.scheme.lower()
        authority = host if port is None else f"{host}:{port}"
        query = f"?{parts.query}" if parts.query else ""
        url = f"{scheme}://{authority}{path}{query}"
        return cls(url=url, source=f"{scheme}://{authority}{path}", host=host)


def _ascii_host(host: str) -> str:
    if not host:
        raise _refused("names no host")
    if ":" in host or host.startswith("["):
        raise _refused("names an IP version 6 host, which a page policy cannot name")
    try:
        ascii_host = host.encode("idna").decode("ascii").lower()
    except UnicodeError:
        raise _refused(f"names the host {host!r}, which is not a valid host name") from None
    if _HOST.fullmatch(ascii_host) is None:
        raise _refused(f"names the host {host!r}, which is not a valid host name")
    return ascii_host


def _refused(why: str) -> InvalidArgument:
    return InvalidArgument(
        f"The image address {why}, so Quire does not load it. Open the address in a browser "
        "tab instead if you trust it.",
        argument="url",
    )
