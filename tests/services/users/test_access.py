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
