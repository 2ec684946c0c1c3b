"""Remembered stream-edit previews: which edit ids an apply may use, and what each refusal says."""

from __future__ import annotations

from pathlib import Path

import pytest

from quire.core.errors import EditRefused, InvalidArgument
from quire.services.live.previews import EditPreviews

PLAN = Path("/notes/plan.md")
OTHER = Path("/notes/other.md")
NEXT_STEP = "Call stream_edit again for a fresh preview, then stream_edit_apply with its editId."


def remembered(previews: EditPreviews, *, version: int = 3, match_count: int = 2) -> str:
    return previews.remember(
        doc_id="plan",
        path=PLAN,
        find="old",
        replace="new",
        version=version,
        match_count=match_count,
    )


def test_a_fresh_preview_passes_its_checks() -> None:
    previews = EditPreviews()
    edit_id = remembered(previews)
    preview = previews.check(edit_id, doc_id="plan", path=PLAN, find="old", replace="new")
    assert (preview.doc_id, preview.find, preview.replace, preview.version) == (
        "plan",
        "old",
        "new",
        3,
    )
    assert not preview.applied


def test_edit_ids_are_distinct() -> None:
    previews = EditPreviews()
    assert len({remembered(previews) for _ in range(50)}) == 50


@pytest.mark.parametrize(
    ("scenario", "doc_id", "path", "find", "replace", "message"),
    [
        ("unknown", "plan", PLAN, "old", "new", "Unknown or stale editId 'nope': no preview"),
        ("applied", "plan", PLAN, "old", "new", "was already applied, and a preview applies once"),
        (
            "fresh",
            "other",
            OTHER,
            "old",
            "new",
            f"it previews '{PLAN}', but the open document is now '{OTHER}'.",
        ),
        ("fresh", "plan", PLAN, "older", "new", "another find/replace than this call sends"),
        ("fresh", "plan", PLAN, "old", "newer", "another find/replace than this call sends"),
    ],
)
def test_an_apply_that_cannot_use_the_preview_is_refused_with_the_next_step(
    scenario: str, doc_id: str, path: Path, find: str, replace: str, message: str
) -> None:
    previews = EditPreviews()
    edit_id = remembered(previews)
    if scenario == "unknown":
        edit_id = "nope"
    if scenario == "applied":
        previews.mark_applied(edit_id)
    with pytest.raises(EditRefused) as caught:
        previews.check(edit_id, doc_id=doc_id, path=path, find=find, replace=replace)
    assert message in str(caught.value)
    assert str(caught.value).endswith(NEXT_STEP)
    assert caught.value.match_count is None


@pytest.mark.parametrize("edit_id", ["", " ", "\t\n"])
def test_an_empty_edit_id_is_an_invalid_argument(edit_id: str) -> None:
    with pytest.raises(InvalidArgument, match="`edit_id` must not be empty") as caught:
        EditPreviews().check(edit_id, doc_id="plan", path=PLAN, find="old", replace="new")
    assert caught.value.argument == "edit_id"


def test_the_oldest_preview_is_forgotten_past_the_limit() -> None:
    previews = EditPreviews(limit=2)
    first, second, third = (remembered(previews) for _ in range(3))
    with pytest.raises(EditRefused, match="Unknown or stale editId"):
        previews.check(first, doc_id="plan", path=PLAN, find="old", replace="new")
    for edit_id in (second, third):
        previews.check(edit_id, doc_id="plan", path=PLAN, find="old", replace="new")


@pytest.mark.parametrize(
    ("version", "match_count", "refused"),
    [
        (3, 2, False),  # nothing changed
        (3, 5, False),  # same version: the count cannot have changed
        (9, 2, False),  # typed elsewhere: the occurrences are as previewed
        (9, 3, True),
        (9, 1, True),
    ],
)
def test_a_preview_is_stale_once_the_occurrences_it_showed_changed(
    version: int, match_count: int, refused: bool
) -> None:
    previews = EditPreviews()
    edit_id = remembered(previews)
    preview = previews.check(edit_id, doc_id="plan", path=PLAN, find="old", replace="new")
    if not refused:
        previews.check_current(preview, version=version, match_count=match_count)
        return
    with pytest.raises(EditRefused) as caught:
        previews.check_current(preview, version=version, match_count=match_count)
    assert f"`find` now occurs {match_count} time(s) instead of 2" in str(caught.value)
    assert str(caught.value).startswith(f"Stale editId '{edit_id}'")
    assert str(caught.value).endswith(NEXT_STEP)
    assert caught.value.match_count == match_count


def test_marking_an_unknown_preview_applied_does_nothing() -> None:
    previews = EditPreviews()
    previews.mark_applied("never")
    with pytest.raises(EditRefused, match="no preview with this id exists"):
        previews.check("never", doc_id="plan", path=PLAN, find="old", replace="new")
