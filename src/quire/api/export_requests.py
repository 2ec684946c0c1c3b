"""The export routes' request bodies and the answer of a dialog opened for the person.

Models only; ``quire.api.exports`` holds the formats and the result of a written export.
"""

from __future__ import annotations

from typing import Literal

from quire.api.base import Answer, StrictBody
from quire.api.exports import ExportFormat, ExportTheme, Paper


class ExportBody(StrictBody):
    path: str
    format: ExportFormat
    output_path: str | None = None
    overwrite: bool = False
    theme: ExportTheme = "light"
    paper: Paper = "a4"


class ExportDialogBody(StrictBody):
    path: str | None = None
    format: ExportFormat = "pdf"


class ExportDialogOpened(Answer):
    """The export dialog was asked for in the person's window: for which file and format, and
    whether a browser window is listening (when none is, nobody sees the dialog yet)."""

    ok: Literal[True] = True
    dialog: Literal[True] = True
    path: str
    format: ExportFormat
    browser_connected: bool
