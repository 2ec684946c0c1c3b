"""Recent documents described for an agent: each one's title, modification time and preview.

Reads each file through ``quire.fs`` beneath the given folders, so only documents inside them
are read, and counts those it leaves out by reason. Used by ``GET /api/recent/documents`` (the
``quire://recent-documents`` resource reads it through the server).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from quire.api.windows import RecentDetail, RecentDocuments, RecentSkipped
from quire.core.errors import FileMissing, FileTooLarge, PathRefused, QuireError
from quire.fs.documents import read_document
from quire.fs.folders import AllowedFolders
from quire.markdown.titles import document_preview, document_title

PREVIEW_CHARS = 200


def describe_recent(paths: Iterable[Path], allowed: AllowedFolders) -> RecentDocuments:
    """The documents of ``paths`` that can be read beneath ``allowed``, described, in order."""
    documents: list[RecentDetail] = []
    skipped: Counter[str] = Counter()
    for path in paths:
        if not allowed.contains(path):
            skipped["not_allowed"] += 1
            continue
        try:
            _found, source = read_document(allowed, path)
            mtime = path.stat().st_mtime_ns // 1_000_000
        except FileMissing:
            skipped["missing"] += 1
            continue
        except PathRefused:
            skipped["not_document"] += 1
            continue
        except FileTooLarge:
            skipped["too_large"] += 1
            continue
        except (QuireError, OSError):
            skipped["unreadable"] += 1
            continue
        documents.append(
            RecentDetail(
                path=str(path),
                title=document_title(source, path.name),
                mtime_ms=mtime,
                preview=document_preview(source, PREVIEW_CHARS),
            )
        )
    return RecentDocuments(
        documents=tuple(documents), count=len(documents), skipped=RecentSkipped(**skipped)
    )
