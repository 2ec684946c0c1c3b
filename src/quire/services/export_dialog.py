"""Asking the person's window to show its export dialog, and exports streamed to a browser.

The dialog is a window event (``export``) the browser reacts to; a download is an export
written to a private temporary folder, read back and removed. The export itself is the
export service's; this module never renders anything.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import anyio

from quire.api.events import ExportData, ExportEvent
from quire.api.exports import ExportFormat, ExportJob, ExportResult, ExportTheme, Paper

if TYPE_CHECKING:
    from quire.services.events import EventBus
    from quire.services.export import ExportService

EXTENSIONS: dict[ExportFormat, str] = {
    "pdf": ".pdf",
    "html": ".html",
    "docx": ".docx",
    "epub": ".epub",
}
"""The extension an export of each format is saved with when the caller names no file."""

MEDIA_TYPES: dict[ExportFormat, str] = {
    "pdf": "application/pdf",
    "html": "text/html; charset=utf-8",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "epub": "application/epub+zip",
}
"""The media type a downloaded export is sent with."""


def ask_for_dialog(
    bus: EventBus, user: str, *, path: Path, doc_id: str | None, format: ExportFormat
) -> bool:
    """Publish the ``export`` event that opens the export dialog of ``path`` with ``format``
    selected in ``user``'s browsers; True when at least one browser window is listening."""
    data = ExportData(path=str(path), format=format, doc_id=doc_id)
    bus.publish(user, ExportEvent(data=data))
    return bus.subscriber_count(user) > 0


@dataclass(frozen=True)
class Download:
    """An export read back for a browser: the file name to save it as, its media type, its
    bytes and the export's result (engine, warnings, diagram errors)."""

    filename: str
    media_type: str
    content: bytes
    result: ExportResult


async def export_for_download(
    export: ExportService,
    source: Path,
    *,
    format: ExportFormat,
    theme: ExportTheme,
    paper: Paper,
    allowed: Sequence[Path],
) -> Download:
    """Export ``source`` into a private temporary folder and return the bytes; the folder is
    removed whatever happens. ``source`` must lie in ``allowed``; the output is Quire's own."""
    folder = Path(await anyio.to_thread.run_sync(lambda: tempfile.mkdtemp(prefix="quire-export-")))
    try:
        target = folder / (source.stem + EXTENSIONS[format])
        job = ExportJob(source, format, output=target, theme=theme, paper=paper)
        result = await export.export(job, allowed=allowed, scratch=folder)
        content = await anyio.to_thread.run_sync(Path(result.path).read_bytes)
    finally:
        await anyio.to_thread.run_sync(lambda: shutil.rmtree(folder, ignore_errors=True))
    return Download(target.name, MEDIA_TYPES[format], content, result)
