"""The window's search service: the listing it searches, its cap and its note, and the
checks it makes before reading anything."""

from __future__ import annotations

from pathlib import Path

import pytest

from quire.core.errors import InvalidArgument
from quire.services import search
from quire.services.search import search_documents, served_folder
from quire.vault.workspaces import Workspaces

pytestmark = pytest.mark.anyio


def workspace_of(tmp_path: Path, count: int) -> Workspaces:
    folder = tmp_path / "ws"
    folder.mkdir()
    for number in range(count):
        (folder / f"{number:02}.md").write_text(f"# N{number}\n\nneedle\n", encoding="utf-8")
    return Workspaces([folder])


async def test_past_the_file_cap_the_search_says_what_it_left_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(search, "MAX_FILES", 3)
    answer = await search_documents(workspace_of(tmp_path, 7), [], "needle")
    assert answer.searched == 3
    assert answer.truncated
    assert answer.note == (
        "Only the first 3 of the 7 workspace files were searched; pick a workspace to search "
        "the rest."
    )


async def test_a_recent_document_already_listed_is_searched_once(tmp_path: Path) -> None:
    workspaces = workspace_of(tmp_path, 2)
    listed = workspaces.folders[0] / "00.md"
    answer = await search_documents(workspaces, [listed, listed], "needle")
    assert answer.searched == 2
    assert answer.total == 2


async def test_a_workspace_outside_the_served_folders_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidArgument) as caught:
        await search_documents(workspace_of(tmp_path, 1), [], "x", workspace=tmp_path)
    assert caught.value.argument == "workspace"


@pytest.mark.parametrize("limit", [0, 201, True])
async def test_a_limit_outside_the_range_is_refused(tmp_path: Path, limit: int) -> None:
    with pytest.raises(InvalidArgument) as caught:
        await search_documents(workspace_of(tmp_path, 1), [], "x", limit=limit)
    assert caught.value.argument == "limit"


def test_a_served_folder_is_named_by_its_path(tmp_path: Path) -> None:
    workspaces = workspace_of(tmp_path, 0)
    folder = workspaces.folders[0]
    assert served_folder(workspaces, str(folder)) == folder
    assert served_folder(workspaces, str(folder) + "/") == folder
    for other in ["ws", str(folder.parent), str(folder / "sub"), ""]:
        with pytest.raises(InvalidArgument, match="is not a folder this server serves"):
            served_folder(workspaces, other)
