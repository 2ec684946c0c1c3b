"""What the live documents' edits answer: an applied edit's place, and a remembered preview.

Values only; ``documents.py`` makes them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from quire.markdown.edits import EditPreview
from quire.markdown.merge import Conflict


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
    version: str = ""
    """The version of the text right after the edit (the agent's view of it now)."""


@dataclass(frozen=True)
class ContentSet:
    """A whole-text rewrite applied: the version of the agent's text (the ``base`` of its next
    rewrite) and the regions where the person's concurrent text was kept over it."""

    version: str
    conflicts: tuple[Conflict, ...]


@dataclass(frozen=True)
class PreviewedEdit:
    """A stream-edit preview and the id an apply names it by."""

    edit_id: str
    preview: EditPreview
    version: str = ""
    """The version of the text previewed (given out: an apply may name it as its base)."""
