"""The stream-edit previews the server remembers, so an apply can name the preview it applies.

Owns the edit ids and the checks an apply makes against them (unknown, already applied, another
document, other find/replace, a document changed under it). It never touches a document.
"""

from __future__ import annotations

import secrets
from collections import OrderedDict
from dataclasses import dataclass, replace
from pathlib import Path

from quire.core.errors import EditRefused, InvalidArgument

MAX_REMEMBERED = 256
"""How many previews are kept; the oldest is forgotten first."""

_NEXT_STEP = "Call stream_edit again for a fresh preview, then stream_edit_apply with its editId."


@dataclass(frozen=True)
class RememberedPreview:
    """A preview as it was made: of which document, with which find and replace, at which
    version of the document (its update count, and ``base``: the version of its text given
    out, see ``versions``), how many occurrences it showed, and whether it was applied."""

    edit_id: str
    doc_id: str
    path: Path
    find: str
    replace: str
    version: int
    match_count: int
    base: str = ""
    applied: bool = False


class EditPreviews:
    """The remembered previews of one server run (a restart forgets them)."""

    def __init__(self, *, limit: int = MAX_REMEMBERED) -> None:
        self._limit = limit
        self._previews: OrderedDict[str, RememberedPreview] = OrderedDict()

    def remember(
        self,
        *,
        doc_id: str,
        path: Path,
        find: str,
        replace: str,
        version: int,
        match_count: int,
        base: str = "",
    ) -> str:
        """Keep a new preview and return its edit id."""
        edit_id = secrets.token_hex(8)
        self._previews[edit_id] = RememberedPreview(
            edit_id=edit_id,
            doc_id=doc_id,
            path=path,
            find=find,
            replace=replace,
            version=version,
            match_count=match_count,
            base=base,
        )
        while len(self._previews) > self._limit:
            self._previews.popitem(last=False)
        return edit_id

    def get(self, edit_id: str) -> RememberedPreview | None:
        """The preview ``edit_id`` as remembered here, or None."""
        return self._previews.get(edit_id)

    def adopt(self, preview: RememberedPreview) -> None:
        """Remember ``preview`` as it is (made, or applied, by another replica)."""
        self._previews[preview.edit_id] = preview
        self._previews.move_to_end(preview.edit_id)
        while len(self._previews) > self._limit:
            self._previews.popitem(last=False)

    def check(
        self, edit_id: str, *, doc_id: str, path: Path, find: str, replace: str
    ) -> RememberedPreview:
        """The preview ``edit_id`` names, when an apply of ``find``/``replace`` to the document
        ``doc_id`` (at ``path``) may use it.

        Raises InvalidArgument for an empty or blank id, and EditRefused, saying to preview
        again, for an id that names no preview (never made, forgotten, or made before the
        server last started), a preview already applied, a preview of another document, or
        one of another find or replace.
        """
        if not isinstance(edit_id, str) or not edit_id.strip():
            raise InvalidArgument("`edit_id` must not be empty.", argument="edit_id")
        preview = self._previews.get(edit_id)
        if preview is None:
            raise EditRefused(
                f"Unknown or stale editId '{edit_id}': no preview with this id exists (it was "
                "never made, or it was made before the server last started, or too many "
                f"previews came after it). {_NEXT_STEP}"
            )
        if preview.applied:
            raise EditRefused(
                f"Unknown or stale editId '{edit_id}': that preview was already applied, and a "
                f"preview applies once. {_NEXT_STEP}"
            )
        if preview.doc_id != doc_id:
            raise EditRefused(
                f"Stale editId '{edit_id}': it previews '{preview.path}', but the open document "
                f"is now '{path}'. {_NEXT_STEP}"
            )
        if preview.find != find or preview.replace != replace:
            raise EditRefused(
                f"Stale editId '{edit_id}': it previews another find/replace than this call "
                f"sends; pass the same find and replace as the preview. {_NEXT_STEP}"
            )
        return preview

    def check_current(self, preview: RememberedPreview, *, version: int, match_count: int) -> None:
        """Refuse a preview whose document changed so that ``find`` no longer occurs as often
        as the preview showed (its candidates, and so a match_index, may now mean other text).

        Edits elsewhere in the document (a person typing) leave it usable: the apply finds
        ``find`` again in the live text.
        """
        if version != preview.version and match_count != preview.match_count:
            raise EditRefused(
                f"Stale editId '{preview.edit_id}': the document changed since the preview, and "
                f"`find` now occurs {match_count} time(s) instead of {preview.match_count}. "
                f"{_NEXT_STEP}",
                match_count=match_count,
            )

    def check_base(self, preview: RememberedPreview, base: str) -> None:
        """Refuse an apply whose ``base`` (the text the agent says it chose from) is not the
        text the preview was made from: its match_index counts occurrences in another text,
        one the agent never saw the candidates of."""
        if base != preview.base:
            raise EditRefused(
                f"Stale editId '{preview.edit_id}': it previews version {preview.base!r} of the "
                f"document, but base is {base[:40]!r}; its match_index counts occurrences in a "
                "text you did not name. Apply with the version the preview returned as base "
                f"(or leave base out). {_NEXT_STEP}"
            )

    def mark_applied(self, edit_id: str) -> None:
        """Record that the preview ``edit_id`` was applied, so it cannot be applied again."""
        preview = self._previews.get(edit_id)
        if preview is not None:
            self._previews[edit_id] = replace(preview, applied=True)
