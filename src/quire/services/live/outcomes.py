"""What the live documents' edits answer: an applied edit's place, and a remembered preview.

Values only; ``documents.py`` makes them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from quire.markdown.edits import EditPreview


@dataclass(frozen=True)
class EditOutcome:
    """An applied agent edit: which occurrence (0-based), the line it starts on, where the new
    text sits (``start``..``end``, character offsets in the new text) and whether it was saved."""

    doc_id: str
    path: Path
    match_index: int
    line: int
    start: int
    end: int
    saved: bool


@dataclass(frozen=True)
class PreviewedEdit:
    """A stream-edit preview and the id an apply names it by."""

    edit_id: str
    preview: EditPreview
