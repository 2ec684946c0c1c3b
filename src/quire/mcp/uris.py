"""Resource URIs: ``file://`` URIs of paths (RFC 3986/8089 percent-encoding) and the strict
query of ``text://vault-search``.

Pure text rules; a bad URI raises InvalidArgument, which the resource layer answers -32602.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote, unquote_to_bytes

from quire.core.errors import InvalidArgument
from quire.mcp.arguments import closest, quoted_list
from quire.mcp.search import LIMIT, MODES

FILE_SAFE = "/-._~!$&'()*+,;=:@"
"""What a file URI's path keeps as written; every other byte is %XX (letters and digits too
are kept, by ``quote``)."""

SEARCH_PREFIX = "text://vault-search?"
SEARCH_PARAMETERS = ("q", "limit", "vault", "semantic", "mode", "cursor")
_BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")
_DIGITS = re.compile(r"[0-9]+")


@dataclass(frozen=True)
class SearchQuery:
    """The parameters of a ``text://vault-search`` URI."""

    query: str
    limit: int
    vault: str | None
    semantic: bool | None
    mode: str | None = None
    cursor: str | None = None


def file_uri(path: str) -> str:
    """The ``file://`` URI of an absolute POSIX path, percent-encoded (UTF-8 bytes)."""
    return "file://" + quote(path, safe=FILE_SAFE)


def file_uri_candidates(uri: str) -> tuple[str, str | None] | None:
    """The path a ``file://`` URI names: (as written, decoded); None when it is no file URI.

    ``file://localhost/...`` counts as ``file:///...``. The decoded form is None when the
    URI holds no escape; a malformed escape or one that is not UTF-8 raises InvalidArgument.
    """
    if not uri.startswith("file://"):
        return None
    rest = uri[len("file://") :]
    if rest.startswith("localhost/"):
        rest = rest[len("localhost") :]
    if not rest.startswith("/"):
        return None
    if "%" not in rest:
        return rest, None
    return rest, decode(rest, "uri")


def decode(text: str, where: str, *, plus_is_space: bool = False) -> str:
    """Percent-decode ``text`` strictly: a malformed escape or non-UTF-8 bytes are refused."""
    bad = _BAD_ESCAPE.search(text)
    if bad is not None:
        raise InvalidArgument(
            f"The {where} holds a malformed escape at {text[bad.start() : bad.start() + 3]!r}: "
            "a % must be followed by two hex digits. Write a literal % as %25.",
            argument=where,
        )
    if plus_is_space:
        text = text.replace("+", " ")
    try:
        return unquote_to_bytes(text).decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidArgument(
            f"The {where} holds escapes that do not decode to UTF-8 text (such as %FF). "
            "Percent-encode the UTF-8 bytes of the text.",
            argument=where,
        ) from None


def parse_search(uri: str) -> SearchQuery:
    """Read a ``text://vault-search?q=…`` URI by the strict parameter rules."""
    if not uri.startswith(SEARCH_PREFIX):
        raise InvalidArgument(
            f"A search URI starts with {SEARCH_PREFIX}q=, got {uri[:60]!r}.", argument="uri"
        )
    values: dict[str, str] = {}
    for part in uri[len(SEARCH_PREFIX) :].split("&"):
        name, equals, raw = part.partition("=")
        name = decode(name, "search URI", plus_is_space=True)
        if name not in SEARCH_PARAMETERS:
            guess = closest(name, list(SEARCH_PARAMETERS))
            hint = f" Did you mean `{guess}`?" if guess else ""
            raise InvalidArgument(
                f"`{name}` is not a parameter of the search URI, which takes "
                f"{quoted_list(list(SEARCH_PARAMETERS))}.{hint}",
                argument=name,
            )
        if not equals:
            raise InvalidArgument(
                f"The search URI's `{name}` has no value: write {name}=VALUE.", argument=name
            )
        if name in values:
            raise InvalidArgument(
                f"The search URI gives `{name}` twice; give it once.", argument=name
            )
        values[name] = decode(raw, "search URI", plus_is_space=True)
    if "q" not in values or not values["q"].strip():
        raise InvalidArgument(
            "The search URI needs a non-empty `q`: text://vault-search?q=WORDS.", argument="q"
        )
    return SearchQuery(
        query=values["q"],
        limit=_limit(values.get("limit")),
        vault=values.get("vault"),
        semantic=_semantic(values.get("semantic")),
        mode=_mode(values.get("mode")),
        cursor=values.get("cursor"),
    )


def _limit(raw: str | None) -> int:
    if raw is None:
        return LIMIT[2]
    if not _DIGITS.fullmatch(raw) or not LIMIT[0] <= int(raw) <= LIMIT[1]:
        raise InvalidArgument(
            f"The search URI's `limit` must be a whole number from {LIMIT[0]} to {LIMIT[1]}, "
            f"got {raw!r}.",
            argument="limit",
        )
    return int(raw)


def _mode(raw: str | None) -> str | None:
    if raw is not None and raw not in MODES:
        raise InvalidArgument(
            f"The search URI's `mode` must be grep or words, got {raw!r}.", argument="mode"
        )
    return raw


def _semantic(raw: str | None) -> bool | None:
    if raw is None:
        return None
    if raw not in ("true", "false"):
        raise InvalidArgument(
            f"The search URI's `semantic` must be true or false, got {raw!r}.",
            argument="semantic",
        )
    return raw == "true"


PAGE_PARAMETERS = ("offset", "limit")


def split_page_query(uri: str) -> tuple[str, dict[str, int]]:
    """A document resource URI without its ``?offset=N&limit=M`` query, and those values.

    A file URI writes a ``?`` of its path as %3F, so a bare ``?`` always starts the query.
    Any other parameter, a repeated one or a value that is not a whole number from 1 up is
    refused.
    """
    base, mark, query = uri.partition("?")
    if not mark:
        return uri, {}
    values: dict[str, int] = {}
    for part in query.split("&"):
        name, _, raw = part.partition("=")
        if name not in PAGE_PARAMETERS:
            raise InvalidArgument(
                f"`{name[:40]}` is not a parameter of a document resource, which takes "
                f"{quoted_list(list(PAGE_PARAMETERS))} (in lines).",
                argument=name[:40],
            )
        if name in values:
            raise InvalidArgument(f"The URI gives `{name}` twice; give it once.", argument=name)
        if not _DIGITS.fullmatch(raw) or not 1 <= int(raw) <= 100_000_000:
            raise InvalidArgument(
                f"The URI's `{name}` must be a whole number from 1 to 100000000, got {raw[:40]!r}.",
                argument=name,
            )
        values[name] = int(raw)
    return base, values
