"""The access check's mapping of paths onto workspace names, outside any request."""

from __future__ import annotations

import unicodedata
from pathlib import Path

from quire.core.teams.grants import Grant
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


def test_a_request_remembers_levels_and_the_next_one_looks_again(tmp_path: Path) -> None:
    folder = tmp_path / "team"
    (folder / "open").mkdir(parents=True)
    (folder / "secret").mkdir()
    (folder / "secret" / "keys.md").write_text("# Keys\n", encoding="utf-8")
    note = folder / "open" / "plan.md"
    note.write_text("# Plan\n", encoding="utf-8")
    access = _access(folder, (Grant("team", ("open",), "read"),))
    first = access.for_request()
    assert first.may_read(note)
    note.unlink()
    note.symlink_to(folder / "secret" / "keys.md")  # now leads into the secret folder
    assert access.for_request().may_read(note) is False
    assert access.for_request() == access  # the remembered levels are not part of equality
