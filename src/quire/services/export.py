"""Exports as a service: the one place the server, the CLI and ``quire mcp`` export from.

Owns the lifetime of the export engine (its warm browser closes with the service); the work is
``quire.export``'s. Built once in ``AppServices`` as ``services.export``, and standalone by a
client with no server.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from quire.api.exports import EngineStatus, ExportFormat, ExportResult, ExportTheme, Paper
from quire.export.exporter import Exporter
from quire.services import rendering

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
        self,
        source: Path,
        *,
        format: ExportFormat,
        output: Path | None,
        overwrite: bool,
        theme: ExportTheme = "light",
        paper: Paper = "a4",
        allowed: Sequence[Path],
        remote_images: bool = False,
    ) -> ExportResult:
        """Export the Markdown document ``source`` (absolute) to ``format``.

        ``output`` None writes beside ``source`` with the format's extension; an existing file
        is replaced only with ``overwrite``. Both paths must lie inside ``allowed``. Raises
        PathRefused, FileMissing, FileTooLarge, NotUtf8 (the input or output rules),
        EngineMissing (no engine for the format: the message names the package), ExportFailed
        or StorageFailed. A diagram that cannot be drawn is not an error: it is listed in
        ``diagram_errors`` and its source shown in its place.
        """
        return await self._exporter.export(
            source,
            format=format,
            output=output,
            overwrite=overwrite,
            theme=theme,
            paper=paper,
            allowed=allowed,
            remote_images=remote_images,
        )

    def engines(self) -> list[EngineStatus]:
        """Every export engine: whether this machine has it, and how to get it when not."""
        return self._exporter.engines()

    async def aclose(self) -> None:
        """Close the warm browser (a later export starts a new one)."""
        await self._exporter.aclose()
