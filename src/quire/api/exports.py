"""Exports: the formats, themes and paper sizes an export takes, and what an export answers.

Models only: the export service fills them, the routes, MCP tools and CLI dump them. The
request bodies of the export routes live beside them (added by the routes that take them).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import Field

from quire.api.base import Answer

ExportFormat = Literal["pdf", "html", "docx", "epub"]
"""What an export writes; the output file ends in ``.<format>``."""

ExportTheme = Literal["light", "dark", "print"]
"""The Read view's light or dark palette, or ``print``: black on white, for paper."""

Paper = Literal["a4", "letter", "legal", "a5"]
"""The page size of a PDF (other formats ignore it)."""

EXPORT_FORMATS: tuple[ExportFormat, ...] = ("pdf", "html", "docx", "epub")
EXPORT_THEMES: tuple[ExportTheme, ...] = ("light", "dark", "print")
PAPERS: tuple[Paper, ...] = ("a4", "letter", "legal", "a5")


@dataclass(frozen=True)
class ExportJob:
    """One export asked for in process: the Markdown file, what to make of it and where.

    The routes, the CLI and the MCP tools build it from their arguments (paths made absolute);
    the export service judges it against the folders it may use."""

    source: Path
    format: ExportFormat
    output: Path | None = None
    """Where to write; None: beside ``source`` with the format's extension."""
    overwrite: bool = False
    """Replace a file already at the output."""
    theme: ExportTheme = "light"
    paper: Paper = "a4"
    remote_images: bool = False
    """Fetch images from the network (off: they are left out, with a warning)."""


class DiagramError(Answer):
    """A Mermaid diagram that could not be drawn: its source is shown in its place."""

    line: int = Field(description="The 1-based line of the diagram's opening fence.")
    message: str = Field(description="The diagram parser's message.")


class ExportResult(Answer):
    """A written export: where, how big, which engine made it, and what did not go as asked."""

    path: str = Field(description="The absolute path of the file written.")
    format: ExportFormat
    bytes: int = Field(description="The size of the file written.")
    pages: int | None = Field(description="The number of pages (PDF only; null otherwise).")
    engine: str = Field(
        description="The engine that made the file: chromium, weasyprint, pandoc or quire-html."
    )
    warnings: list[str] = Field(
        description="What the export could not do as asked (a skipped image, no browser for "
        "math, a fallback engine), each with what to do about it."
    )
    diagram_errors: list[DiagramError] = Field(
        description="Each Mermaid diagram that could not be drawn (its source is shown instead)."
    )


class EngineStatus(Answer):
    """One export engine on this machine: whether it is there, and how to get it when not."""

    name: str = Field(description="chromium, weasyprint or pandoc.")
    available: bool
    formats: list[ExportFormat] = Field(description="The formats this engine makes.")
    path: str | None = Field(description="The program (or module) found, when available.")
    version: str | None = Field(description="Its version, when it could be asked.")
    detail: str = Field(
        description="What it is used for, or, when missing, how to install it "
        "(`apt-get install chromium`)."
    )


class Engines(Answer):
    """The export engines of the server's machine, for the export dialog and `quire doctor`."""

    engines: list[EngineStatus]
