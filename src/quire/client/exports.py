"""The export routes of the server's API as typed methods over one ``QuireApi``.

Builds each request of the ``/api/export`` table and parses its answer as the
``quire.api.exports`` or ``quire.api.export_requests`` model the route sends; sending, auth
and errors are ``QuireApi.call``'s. It never renders or writes anything itself.
"""

from __future__ import annotations

from quire.api.export_requests import ExportDialogOpened
from quire.api.exports import ExportFormat, ExportResult, ExportTheme, Paper
from quire.client.answers import parse_answer
from quire.client.api import QuireApi, _without_none

EXPORT_SECONDS = 300.0
"""How long one export may take on the server (a long document through a cold browser)."""


class ExportApi:
    """The export endpoints of the server ``api`` reaches."""

    def __init__(self, api: QuireApi) -> None:
        self._api = api

    async def export(
        self,
        path: str,
        *,
        format: ExportFormat,
        output_path: str | None,
        overwrite: bool,
        theme: ExportTheme = "light",
        paper: Paper = "a4",
    ) -> ExportResult:
        """Export the file ``path`` (absolute) on the server; ``output_path`` None writes it
        beside the file."""
        body = _without_none(
            {
                "path": path,
                "format": format,
                "output_path": output_path,
                "overwrite": overwrite,
                "theme": theme,
                "paper": paper,
            }
        )
        data = await self._api.call_bytes("POST", "/api/export", body, read_seconds=EXPORT_SECONDS)
        return parse_answer(ExportResult, data, self._api.info.url)

    async def dialog(self, format: ExportFormat, path: str | None = None) -> ExportDialogOpened:
        """Open the export dialog in the person's window (for the open document by default)."""
        body = _without_none({"path": path, "format": format})
        data = await self._api.call_bytes("POST", "/api/export/dialog", body)
        return parse_answer(ExportDialogOpened, data, self._api.info.url)
