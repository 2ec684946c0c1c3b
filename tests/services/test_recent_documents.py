"""Recent documents described: what is read, what is left out and why."""

from __future__ import annotations

from pathlib import Path

from quire.core.limits import MAX_DOCUMENT_BYTES
from quire.fs.folders import AllowedFolders
from quire.services.recent_documents import describe_recent


def test_each_left_out_document_is_counted_by_its_reason(tmp_path: Path) -> None:
    workspace = tmp_path / "notes"
    workspace.mkdir()
    (tmp_path / "outside.md").write_text("# Outside\n", encoding="utf-8")
    kept = workspace / "kept.md"
    kept.write_text("# Kept\n\nbody\n", encoding="utf-8")
    folder = workspace / "now-a-folder.md"
    folder.mkdir()
    large = workspace / "large.md"
    with large.open("wb") as handle:
        handle.truncate(MAX_DOCUMENT_BYTES + 1)
    escape = workspace / "escape.md"
    escape.symlink_to(tmp_path / "outside.md")
    utf16 = workspace / "utf16.md"
    utf16.write_bytes("# Hi\n".encode("utf-16"))
    paths = [
        kept,
        workspace / "deleted.md",
        folder,
        large,
        escape,
        utf16,
        tmp_path / "outside.md",
    ]
    described = describe_recent(paths, AllowedFolders([workspace]))
    assert [doc.path for doc in described.documents] == [str(kept)]
    assert described.documents[0].title == "Kept"
    assert described.count == 1
    assert described.skipped.model_dump() == {
        "missing": 1,
        "notDocument": 1,
        "tooLarge": 1,
        "unreadable": 1,
        "notAllowed": 2,  # the symlink leads outside, as the path beside it is
    }
