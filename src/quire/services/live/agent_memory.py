"""What this server gave agents (the versions of live texts) and which previews they may apply,
kept in memory and, when replicas share the database, in it too: an agent's next call may reach
another replica behind the load balancer, and a ``base`` or an ``editId`` given out by one must
mean the same there.

Owns where the two live and when one is looked up in the database (only when this server does
not know it). The checks themselves are ``versions.py``'s and ``previews.py``'s.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Final

from quire.db import agent_memory
from quire.db.agent_memory import StoredPreview
from quire.db.engine import Database
from quire.services.live.previews import MAX_REMEMBERED, EditPreviews, RememberedPreview
from quire.services.live.versions import PER_DOCUMENT, ContentVersions, version_of

TRIM_EVERY: Final = 8
"""One stored version in this many forgets the older versions of its document (a delete per
version stored would double its cost); a document keeps at most about this many more."""


class AgentMemory:
    """The versions given out and the previews made, by this server or (``shared``) by any
    replica on the database."""

    def __init__(self, database: Database, *, shared: bool, clock: Callable[[], int]) -> None:
        self._database = database
        self._shared = shared
        self._clock = clock
        self.versions = ContentVersions()
        """The texts given out, as this server knows them."""
        self.previews = EditPreviews()
        """The previews, as this server knows them."""
        self._stored = 0

    async def give(self, doc_id: str, text: str) -> str:
        """Record ``text`` as given out for ``doc_id``; its version."""
        new = self._shared and self.versions.known(doc_id, version_of(text)) is None
        version = self.versions.give(doc_id, text)
        if new:
            self._stored += 1
            keep = PER_DOCUMENT if self._stored % TRIM_EVERY == 0 else None
            async with self._database.session() as session, session.begin():
                await agent_memory.give_version(
                    session, doc_id, version, text, now_ms=self._clock(), keep=keep
                )
        return version

    async def known(self, doc_id: str, version: str) -> str | None:
        """The text ``version`` names for ``doc_id``, or None when no replica remembers it."""
        text = self.versions.known(doc_id, version)
        if text is not None or not self._shared:
            return text
        async with self._database.session() as session:
            text = await agent_memory.version_text(session, doc_id, version)
        if text is not None:
            self.versions.give(doc_id, text)
        return text

    async def text(self, doc_id: str, version: str) -> str:
        """As ``known``, but InvalidArgument naming ``base`` when it is not remembered."""
        known = await self.known(doc_id, version)
        return self.versions.text(doc_id, version) if known is None else known

    async def remember(
        self,
        *,
        doc_id: str,
        path: Path,
        find: str,
        replace: str,
        version: int,
        match_count: int,
        base: str,
    ) -> str:
        """Keep a new preview; its edit id."""
        edit_id = self.previews.remember(
            doc_id=doc_id,
            path=path,
            find=find,
            replace=replace,
            version=version,
            match_count=match_count,
            base=base,
        )
        remembered = self.previews.get(edit_id)
        if self._shared and remembered is not None:
            async with self._database.session() as session, session.begin():
                await agent_memory.remember_preview(
                    session, _stored(remembered), now_ms=self._clock(), keep=MAX_REMEMBERED
                )
        return edit_id

    async def check(
        self, edit_id: str, *, doc_id: str, path: Path, find: str, replace: str
    ) -> RememberedPreview:
        """``EditPreviews.check``, on the preview as the database has it now when replicas
        share it (another may have made it, or applied it)."""
        if self._shared and isinstance(edit_id, str) and edit_id.strip():
            async with self._database.session() as session:
                stored = await agent_memory.stored_preview(session, edit_id)
            if stored is not None:
                self.previews.adopt(_remembered(stored))
        return self.previews.check(edit_id, doc_id=doc_id, path=path, find=find, replace=replace)

    async def mark_applied(self, edit_id: str) -> None:
        """Record that the preview ``edit_id`` was applied, so no replica applies it again."""
        self.previews.mark_applied(edit_id)
        if self._shared:
            async with self._database.session() as session, session.begin():
                await agent_memory.mark_preview_applied(session, edit_id)


def _stored(remembered: RememberedPreview) -> StoredPreview:
    fields = dataclasses.asdict(remembered)
    return StoredPreview(**{**fields, "path": str(remembered.path)})


def _remembered(stored: StoredPreview) -> RememberedPreview:
    fields = dataclasses.asdict(stored)
    return RememberedPreview(**{**fields, "path": Path(stored.path)})
