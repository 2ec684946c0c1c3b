"""The versions of live texts the server gave out, so a rewrite can name the text it started from.

A version is an opaque string (a digest of the text). Every read an agent may base a rewrite on
(``/api/documents/current``, an open, a rewrite's own result) records the text under its version;
a rewrite that names a version (``base``) is merged from that text (``quire.markdown.merge``). A
version the server never gave out (or forgot: the store keeps the newest per document, within a
byte budget) is refused by name. In memory only: after a restart an agent reads again.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from typing import Final

from quire.core.errors import InvalidArgument

PER_DOCUMENT: Final = 16
"""How many versions of one document are kept."""
MAX_BYTES: Final = 64 * 1024 * 1024
"""How many bytes of text all kept versions may hold together; the oldest go first."""


def version_of(text: str) -> str:
    """The version of ``text``: ``v`` and 24 hex digits of its BLAKE2b digest."""
    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=12)
    return "v" + digest.hexdigest()


class ContentVersions:
    """The texts behind the versions given out, per document, newest last."""

    def __init__(self, *, per_document: int = PER_DOCUMENT, max_bytes: int = MAX_BYTES) -> None:
        self._texts: OrderedDict[tuple[str, str], str] = OrderedDict()
        self._per_document = per_document
        self._max_bytes = max_bytes
        self._bytes = 0

    def give(self, doc_id: str, text: str) -> str:
        """Record ``text`` as given out for ``doc_id``; its version."""
        version = version_of(text)
        key = (doc_id, version)
        if key in self._texts:
            self._texts.move_to_end(key)
            return version
        self._texts[key] = text
        self._bytes += len(text)
        self._trim(doc_id)
        return version

    def text(self, doc_id: str, version: str) -> str:
        """The text ``version`` names for ``doc_id``; InvalidArgument naming ``base`` when the
        server never gave it out (or no longer remembers it)."""
        text = self._texts.get((doc_id, version))
        if text is None:
            raise InvalidArgument(
                f"`base` {version[:40]!r} is not a version of the open document this server gave "
                "out (or it is too old to remember). Read the document again "
                "(get_current_content) and pass the version it returns, or leave base out.",
                argument="base",
            )
        return text

    def known(self, doc_id: str, version: str) -> str | None:
        """The text ``version`` names for ``doc_id``, or None when it is not remembered."""
        return self._texts.get((doc_id, version))

    def forget(self, doc_id: str) -> None:
        """Drop every version of ``doc_id`` (it was closed or renamed)."""
        for key in [key for key in self._texts if key[0] == doc_id]:
            self._bytes -= len(self._texts.pop(key))

    def _trim(self, doc_id: str) -> None:
        mine = [key for key in self._texts if key[0] == doc_id]
        for key in mine[: max(0, len(mine) - self._per_document)]:
            self._bytes -= len(self._texts.pop(key))
        while self._bytes > self._max_bytes and len(self._texts) > 1:
            _key, text = self._texts.popitem(last=False)
            self._bytes -= len(text)
