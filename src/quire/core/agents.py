"""The name an agent's changes are attributed to: cleaning it, and carrying it in one HTTP header.

Pure rules shared by the client that sends the name and the server that records it; neither
side trusts the other's cleaning, so both apply ``clean_agent_name``.
"""

from __future__ import annotations

import unicodedata
from typing import Final
from urllib.parse import quote, unquote

AGENT_HEADER: Final = "X-Quire-Agent"
"""The request header naming the agent a token request acts for (percent-encoded UTF-8)."""

FALLBACK_AGENT: Final = "agent"
"""Who a token request's changes are attributed to when it names no agent."""

MAX_AGENT_NAME: Final = 60
"""The most characters of an agent's name that are kept."""

_MAX_HEADER_CHARS: Final = 4 * 3 * MAX_AGENT_NAME
"""Enough for the percent-encoding of any name that is kept; longer headers are cut first."""

_DROPPED_CATEGORIES: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Controls, format characters (bidi overrides, zero-width ones), surrogates, private-use
and unassigned code points, and line or paragraph separators: nothing a label should show."""


def clean_agent_name(raw: str) -> str | None:
    """``raw`` as a label: unprintable, bidi and zero-width characters dropped, each run of
    whitespace one space, trimmed, at most MAX_AGENT_NAME characters; None when nothing is left.
    """
    kept = "".join(
        " " if char.isspace() else char
        for char in raw[: 8 * MAX_AGENT_NAME]
        if unicodedata.category(char) not in _DROPPED_CATEGORIES or char.isspace()
    )
    name = " ".join(kept.split())[:MAX_AGENT_NAME].strip()
    return name or None


def agent_header_value(name: str) -> str:
    """The header value carrying ``name`` (cleaned first): percent-encoded UTF-8, so any name
    fits in the ASCII a header allows. An empty string when nothing of the name is left."""
    cleaned = clean_agent_name(name)
    return "" if cleaned is None else quote(cleaned, safe="")


def agent_from_header(value: str | None) -> str | None:
    """The agent a header value names, cleaned; None when absent, empty or unreadable."""
    if value is None:
        return None
    return clean_agent_name(unquote(value[:_MAX_HEADER_CHARS], errors="ignore"))
