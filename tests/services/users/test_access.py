"""The access check's mapping of paths onto workspace names, outside any request."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

from quire.core.teams.grants import Access as Level
from quire.core.teams.grants import Grant, access_to
from quire.services.users.access import EVERYTHING, GrantedAccess, current_access
from quire.services.users.identity import Identity
from quire.services.users.team import workspace_names

ALICE = Identity("u-1", "alice", "collaborator")


def _access(folder: Path, grants: tuple[Grant, ...]) -> GrantedAccess:
    return GrantedAccess(account=ALICE, grants=grants, workspaces=workspace_names([folder]))


def test_a_workspace_folder_named_in_nfd_matches_a_grant_stored_in_nfc(tmp_path: Path) -> None:
    folder = tmp_path / unicodedata.normalize("NFD", "Café")
    (folder / "notes").mkdir(parents=True)
    (folder / "notes" / "a.md").write_text("# A\n", encoding="utf-8")
    grant = Grant(unicodedata.normalize("NFC", "Café"), ("notes",), "read")
    access = _access(folder, (grant,))
    assert access.may_read(folder / "notes" / "a.md")
    assert not access.may_write(folder / "notes" / "a.md")
    assert not access.may_read(folder / "other.md")


def test_outside_any_request_the_access_is_everything() -> None:
    assert current_access() is EVERYTHING
    assert not EVERYTHING.restricted and EVERYTHING.may_write(Path("/anywhere.md"))


def _readable_note(tmp_path: Path) -> tuple[GrantedAccess, Path, Callable[[], None]]:
    """Read access to ``open/``, a note there, and what turns the note into a link to a note
    in ``secret/``."""
    folder = tmp_path / "team"
    (folder / "open").mkdir(parents=True)
    (folder / "secret").mkdir()
    (folder / "secret" / "keys.md").write_text("# Keys\n", encoding="utf-8")
    note = folder / "open" / "plan.md"
    note.write_text("# Plan\n", encoding="utf-8")

    def swap() -> None:
        note.unlink()
        note.symlink_to(folder / "secret" / "keys.md")  # now leads into the secret folder

    return _access(folder, (Grant("team", ("open",), "read"),)), note, swap


def test_a_request_remembers_levels_and_the_next_one_looks_again(tmp_path: Path) -> None:
    access, note, swap = _readable_note(tmp_path)
    first = access.for_request()
    assert first.may_read(note)
    swap()
    assert access.for_request().may_read(note) is False
    assert access.for_request() == access  # the remembered levels are not part of equality


def test_the_access_itself_as_a_socket_holds_it_looks_every_path_up_afresh(
    tmp_path: Path,
) -> None:
    access, note, swap = _readable_note(tmp_path)
    assert access.may_read(note)
    swap()
    assert access.may_read(note) is False


def test_what_the_grants_give_a_resolved_path_is_worked_out_once_per_access(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every request's copy shares it; another access (new grants, a chat made private)
    works it out again by its own grants."""
    folder = tmp_path / "team"
    (folder / "open").mkdir(parents=True)
    note = folder / "open" / "plan.md"
    note.write_text("# Plan\n", encoding="utf-8")
    worked_out: list[tuple[str, str]] = []

    def counted(grants: Iterable[Grant], workspace: str, path: str) -> Level | None:
        worked_out.append((workspace, path))
        return access_to(grants, workspace, path)

    monkeypatch.setattr("quire.services.users.access.access_to", counted)
    reader = _access(folder, (Grant("team", ("open",), "read"),))
    for _ in range(3):
        request = reader.for_request()
        assert request.may_read(note) and not request.may_write(note)
        assert reader.may_read_resolved(note)
    assert worked_out == [("team", "open/plan.md")]
    writer = _access(folder, (Grant("team", ("open",), "write"),))
    assert writer.for_request().may_write(note)
    hidden = GrantedAccess(
        account=ALICE,
        grants=(Grant("team", ("open",), "write"),),
        workspaces=workspace_names([folder]),
        hidden=frozenset({note}),
    )
    assert not hidden.for_request().may_read(note)
    assert reader.for_request().may_read(note) and not reader.for_request().may_write(note)
    assert len(worked_out) == 2  # the hidden chat is refused before any grant is looked at
