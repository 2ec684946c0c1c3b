"""Search cursors: where the next page starts, signed so only cursors this server gave out pass.

A cursor names the query, mode and folder it belongs to and a position (the last rowid of a
grep page, the offset of a words page), under an HMAC with a key made when the server starts:
a cursor from another query, another server or a restart, or one typed by hand, is refused.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets

from quire.core.errors import InvalidArgument

_MAC_BYTES = 12


class Cursors:
    """Makes and checks the cursors of one server."""

    def __init__(self, key: bytes | None = None) -> None:
        self._key = key or secrets.token_bytes(32)

    def make(self, query: str, mode: str, workspace: str | None, position: int) -> str:
        """The cursor of the page after ``position`` for this query, mode and folder."""
        payload = json.dumps([query, mode, workspace, position], ensure_ascii=False).encode()
        mac = hmac.new(self._key, payload, hashlib.sha256).digest()[:_MAC_BYTES]
        return f"{_b64(payload)}.{_b64(mac)}"

    def position(self, cursor: str, query: str, mode: str, workspace: str | None) -> int:
        """Where the page ``cursor`` names starts. Raises InvalidArgument naming ``cursor`` for
        one this server did not give out, or gave out for another query, mode or folder."""
        refused = InvalidArgument(
            f"`cursor` {cursor[:80]!r} is not a cursor this server gave out. Pass back the "
            "nextCursor of the previous page exactly, with the same query, or leave cursor out "
            "to start from the first page.",
            argument="cursor",
        )
        encoded, dot, signature = cursor.partition(".")
        if not dot or len(cursor) > 8192:
            raise refused
        try:
            payload, mac = _unb64(encoded), _unb64(signature)
            expected = hmac.new(self._key, payload, hashlib.sha256).digest()[:_MAC_BYTES]
            if not hmac.compare_digest(mac, expected):
                raise refused
            given = json.loads(payload)
        except (ValueError, binascii.Error, UnicodeError):
            raise refused from None
        if not isinstance(given, list) or len(given) != 4 or not isinstance(given[3], int):
            raise refused
        if given[:3] != [query, mode, workspace]:
            raise InvalidArgument(
                f"`cursor` belongs to another search (query {given[0]!r}, mode {given[1]}). "
                "Pass it with the query and mode it came with, or leave cursor out to start "
                "this search from its first page.",
                argument="cursor",
            )
        return int(given[3])


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text.encode("ascii") + b"=" * (-len(text) % 4))
