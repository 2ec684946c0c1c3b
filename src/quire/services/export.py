"""Exports as a service: the one place the server, the CLI and ``quire mcp`` export from.

Owns the lifetime of the export engine (its warm browser closes with the service) and what an
account may export; the work is ``quire.export``'s. Built once in ``AppServices`` as
``services.export``, and standalone by a client with no server.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from quire.api.exports import EngineStatus, ExportJob, ExportResult
from quire.export.exporter import Exporter
from quire.export.targets import default_output
from quire.services import rendering
from quire.services.document_access import require_readable, require_writable
from quire.services.users.access import Access, GrantedAccess, current_access

__all__ = ["ExportService"]


class ExportService:
    """Export Markdown documents to PDF, HTML, DOCX and EPUB inside allowed folders."""

    def __init__(self, *, browser: Path | None = None, idle_seconds: float = 60.0) -> None:
        """``browser``: the ``export.browser`` setting (None: look for one on this machine);
        the browser closes ``idle_seconds`` after the last export. Documents render through
        the Read view's block cache, so exporting an open document reuses its blocks."""
        self._exporter = Exporter(
            browser=browser, idle_seconds=idle_seconds, renderer=rendering.render_whole
        )

    async def export(
        self, job: ExportJob, *, allowed: Sequence[Path], scratch: Path | None = None
    ) -> ExportResult:
        """Export the Markdown document ``job.source`` (absolute) to ``job.format``.

        ``job.output`` None writes beside the source with the format's extension; an existing
        file is replaced only with ``job.overwrite``. Both paths must lie inside ``allowed``. Raises
        PathRefused, FileMissing, FileTooLarge, NotUtf8 (the input or output rules),
        EngineMissing (no engine for the format: the message names the package), ExportFailed
        or StorageFailed. A diagram that cannot be drawn is not an error: it is listed in
        ``diagram_errors`` and its source shown in its place.

        ``scratch`` is a private folder of Quire's own the export may be written into besides
        ``allowed`` (a download). In multi mode the account must be able to read the source
        (else it is not found, as a missing file is) and write the output unless it goes to
        ``scratch``; the export reads (images included) only inside the folders its grants
        cover.
        """
        access = current_access()
        if access.restricted:
            require_readable(job.source, "export")
            target = default_output(job.source, job.format) if job.output is None else job.output
            if scratch is None or not target.is_relative_to(scratch):
                require_writable(target, "write the export to")
            allowed = _granted_folders(access, allowed)
        return await self._exporter.export(
            job, allowed=allowed if scratch is None else [*allowed, scratch]
        )

    def engines(self) -> list[EngineStatus]:
        """Every export engine: whether this machine has it, and how to get it when not."""
        return self._exporter.engines()

    async def aclose(self) -> None:
        """Close the warm browser (a later export starts a new one)."""
        await self._exporter.aclose()


def _granted_folders(access: Access, allowed: Sequence[Path]) -> list[Path]:
    """The folders inside ``allowed`` an account's grants cover whole: each granted folder
    that exists as written (no symlink on the way, so it is the folder the grant names). A
    grant on a single file gives no folder, so images beside it are never read."""
    if not isinstance(access, GrantedAccess):
        return []
    inside = [Path(os.path.realpath(folder)) for folder in allowed]
    found: list[Path] = []
    for grant in access.grants:
        for folder, name in access.workspaces:
            root = folder.joinpath(*grant.prefix)
            if name != grant.workspace or root in found:
                continue
            if not any(root.is_relative_to(place) for place in inside):
                continue
            if root.is_dir() and Path(os.path.realpath(root)) == root:
                found.append(root)
    return found
