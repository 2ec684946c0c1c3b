"""The search service over real files and the real watcher: freshness (another program's
write, an editor's atomic save, a move, a delete, a folder moved in, a save in Quire), the
note while the first build runs, and an adversarial vault."""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import anyio
import pytest

from quire.api.search import SearchPage
from quire.core.errors import InvalidArgument
from quire.core.limits import MAX_DOCUMENT_BYTES
from quire.fs.documents import FoundFile, read_document
from quire.fs.folders import AllowedFolders
from quire.search import index as index_module
from quire.services.app import AppServices, open_services
from quire.services.search import INDEX_FILE, SearchService
from quire.settings.model import Settings
from quire.vault.workspaces import Workspaces
from tests.support.machines import machine_under

pytestmark = pytest.mark.anyio

WAIT_S = 10


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    write(folder / "start.md", "# Start\n\nalready here\n")
    return folder.resolve()


@pytest.fixture
async def service(tmp_path: Path, workspace: Path) -> AsyncIterator[SearchService]:
    async with SearchService(Workspaces([workspace]), tmp_path / "state" / INDEX_FILE) as opened:
        with anyio.fail_after(WAIT_S):
            await opened.built.wait()
        yield opened


async def until(service: SearchService, check: Callable[[SearchPage], bool], query: str) -> None:
    """Wait (bounded) until a search for ``query`` satisfies ``check``, woken by each batch
    of watched changes the index takes in."""
    with anyio.fail_after(WAIT_S):
        while True:
            applied = service.applied()
            if check(await service.search(query)):
                return
            await applied.wait()


def paths(page: SearchPage) -> list[str]:
    return sorted(hit.rel_path for hit in page.hits)


async def test_a_write_from_another_program_becomes_searchable(
    service: SearchService, workspace: Path
) -> None:
    assert paths(await service.search("already")) == ["start.md"]
    write(workspace / "deep" / "er" / "new.md", "# New\n\na fresh kingfisher\n")
    await until(service, lambda page: paths(page) == ["deep/er/new.md"], "kingfisher")


async def test_an_editors_atomic_save_is_one_change(
    service: SearchService, workspace: Path
) -> None:
    temp = write(workspace / ".start.md.swp", "# Start\n\nreplaced by the editor\n")
    temp.replace(workspace / "start.md")
    await until(service, lambda page: paths(page) == ["start.md"], "replaced by the editor")
    assert (await service.search("already")).hits == []
    assert (await service.search("editor")).indexed == 1


async def test_a_move_keeps_the_note_and_a_delete_removes_it(
    tmp_path: Path, service: SearchService, workspace: Path
) -> None:
    (workspace / "start.md").rename(workspace / "moved.md")
    await until(service, lambda page: paths(page) == ["moved.md"], "already")
    db = sqlite3.connect(tmp_path / "state" / INDEX_FILE)
    assert db.execute("SELECT rel_path FROM notes").fetchall() == [("moved.md",)]
    db.close()
    (workspace / "moved.md").unlink()
    await until(service, lambda page: page.hits == [] and page.indexed == 0, "already")


async def test_a_folder_moved_in_brings_its_notes(
    tmp_path: Path, service: SearchService, workspace: Path
) -> None:
    outside = write(tmp_path / "elsewhere" / "inner" / "n.md", "# N\n\nmigrated heron\n")
    (outside.parent.parent).rename(workspace / "arrived")
    await until(service, lambda page: paths(page) == ["arrived/inner/n.md"], "heron")
    (workspace / "arrived").rename(tmp_path / "gone")
    await until(service, lambda page: page.hits == [], "heron")


async def test_a_file_that_cannot_be_read_is_listed_until_it_is_fixed(
    service: SearchService, workspace: Path
) -> None:
    bad = write(workspace / "latin.md", b"caf\xe9 owl\n")
    await until(service, lambda page: [u.path for u in page.unreadable] == [str(bad)], "owl")
    page = await service.search("owl")
    assert page.unreadable[0].reason.startswith("not UTF-8 text (byte 4")
    assert page.note is not None and "1 file was not searched" in page.note
    write(bad, "café owl\n")
    await until(service, lambda page: paths(page) == ["latin.md"] and not page.unreadable, "owl")


async def test_a_save_in_quire_is_searchable_when_the_save_returns(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    note = write(folder / "draft.md", "# Draft\n\nold words\n").resolve()
    settings = Settings(workspaces=(folder,), state_dir=tmp_path / "state")
    async with open_services(
        settings, token="t" * 64, clock=lambda: 0, machine=machine_under(tmp_path)
    ) as services:
        search = require_search(services)
        with anyio.fail_after(WAIT_S):
            await search.built.wait()
        live = await services.documents.open(note)
        await services.documents.set_content(
            live.doc_id, "# Draft\n\nbrand new osprey\n", author="person"
        )
        await services.documents.save(live.doc_id)
        page = await search.search("osprey")
    assert [hit.path for hit in page.hits] == [str(note)]


def require_search(services: AppServices) -> SearchService:
    assert services.search is not None
    return services.search


async def test_a_search_during_the_first_build_says_how_far_it_got(
    tmp_path: Path, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for number in range(30):
        write(workspace / f"n{number:02}.md", f"# N{number}\n\ncommon\n")
    gate = threading.Event()
    real = read_document
    reads = 0

    def slow_read(folders: AllowedFolders, path: Path) -> tuple[FoundFile, str]:
        nonlocal reads
        reads += 1
        if reads > 5:
            gate.wait(WAIT_S)
        return real(folders, path)

    monkeypatch.setattr(index_module, "read_document", slow_read)
    async with SearchService(Workspaces([workspace]), tmp_path / INDEX_FILE) as search:
        page = await search.search("common")
        assert page.note is not None
        assert "The index is still being built" in page.note
        gate.set()
        with anyio.fail_after(WAIT_S):
            await search.built.wait()
        done = await search.search("common")
    assert len(done.hits) == 30
    assert done.note is None


async def test_the_adversarial_vault_is_indexed_by_the_walkers_rules(
    tmp_path: Path, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = write(tmp_path / "outside" / "secret.md", "needle outside\n")
    (workspace / "link-out.md").symlink_to(secret)
    (workspace / "loop").mkdir()
    (workspace / "loop" / "again").symlink_to(workspace, target_is_directory=True)
    target = write(workspace / "real.md", "needle in the real file\n")
    (workspace / "alias.md").symlink_to(target)
    deep = workspace
    for level in range(40):
        deep = deep / f"d{level}"
    write(deep / "too-deep.md", "needle too deep\n")
    write(workspace / "/".join(f"d{level}" for level in range(31)) / "ok.md", "needle deep\n")
    write(workspace / "latin.md", b"needle caf\xe9\n")
    big = b"x" * (MAX_DOCUMENT_BYTES - len(b"\nneedle at the end\n")) + b"\nneedle at the end\n"
    write(workspace / "big.md", big)
    write(workspace / "huge.md", b"needle" + b"y" * MAX_DOCUMENT_BYTES)
    os.mkfifo(workspace / "fifo.md")
    vanishing = write(workspace / "vanishing.md", "needle then gone\n")
    changing = write(workspace / "changing.md", "needle before\n")
    read: list[Path] = []
    real = read_document

    def watched_read(folders: AllowedFolders, path: Path) -> tuple[FoundFile, str]:
        read.append(path)
        if path == vanishing:
            path.unlink()
        found = real(folders, path)
        if path == changing:
            path.write_text("needle after the change\n", encoding="utf-8")
        return found

    monkeypatch.setattr(index_module, "read_document", watched_read)
    async with SearchService(Workspaces([workspace]), tmp_path / INDEX_FILE) as search:
        with anyio.fail_after(60):
            await search.built.wait()
        await until(search, lambda page: "changing.md" in paths(page), "after the change")
        page = await search.search("needle", limit=200)
    found = paths(page)
    assert found == sorted(
        [
            "real.md",
            "/".join(f"d{level}" for level in range(31)) + "/ok.md",
            "big.md",
            "changing.md",
        ]
    )
    big_hit = next(hit for hit in page.hits if hit.rel_path == "big.md")
    assert big_hit.line == 2
    reasons = {Path(item.path).name: item.reason for item in page.unreadable}
    assert reasons == {
        "latin.md": "not UTF-8 text (byte 11 (0xE9) on line 1)",
        "huge.md": "larger than 16 MiB",
    }
    assert all(path.is_relative_to(workspace) for path in read)
    assert read.count(target) == 1
    assert (await search.search("before")).hits == []


async def test_a_query_of_no_words_finds_nothing_and_a_bad_mode_is_refused(
    service: SearchService,
) -> None:
    assert (await service.search("...", mode="words")).hits == []
    with pytest.raises(InvalidArgument) as caught:
        await service.search("x", mode="regex")  # type: ignore[arg-type]
    assert caught.value.argument == "mode"


async def test_reindex_rebuilds_everything_and_reports_progress(
    service: SearchService, workspace: Path
) -> None:
    for number in range(5):
        write(workspace / f"n{number}.md", f"# N{number}\n")
    seen: list[tuple[int, int]] = []
    indexed = await service.reindex(lambda done, total: seen.append((done, total)))
    assert indexed == 6
    assert seen[-1] == (6, 6)
    assert len(await service.titles("n", 50)) == 5
