"""Multi mode's grants on the file operations: create, append, upload, move, copy, delete,
download and the trash, over HTTP as an account with a write grant on ``open``, a read grant
on ``docs`` and nothing on ``secret``; traversal and symlinks included."""

from __future__ import annotations

import io
import os
import zipfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from quire.api.events import TreeEvent
from quire.api.files import TreeChange, TreeData
from quire.core.errors import AccessDenied
from quire.core.teams.grants import Grant
from quire.services.event_access import visible_event
from quire.services.files.checks import require_whole
from quire.services.users.access import EVERYTHING, GrantedAccess, acting_as
from quire.services.users.identity import Identity
from tests.support.team import Member, TeamWorld, team_world

pytestmark = pytest.mark.anyio

NOTES = {
    "welcome.md": "# Welcome\n",
    "open/plan.md": "# Plan\n\nShip it.\n",
    "docs/readme.md": "# Readme\n",
    "secret/keys.md": "# Keys\n\nhunter2\n",
}
GRANTS = [("team", "open", "write"), ("team", "docs", "read")]


@asynccontextmanager
async def alice_world(tmp_path: Path) -> AsyncIterator[tuple[TeamWorld, Member]]:
    async with team_world(tmp_path, notes=NOTES) as world:
        yield world, await world.account("alice", grants=GRANTS)


def error(reply: httpx.Response, status: int) -> str:
    assert reply.status_code == status, reply.text
    message = reply.json()["error"]["message"]
    assert isinstance(message, str)
    return message


def same_shape(
    hidden: str,
    missing: str,
    hidden_path: Path,
    missing_path: Path,
    verbs: tuple[str, str] | None = None,
) -> None:
    """A refusal of ``hidden_path`` reads exactly as the answer of the missing path (with
    ``verbs``: the first in the refusal and the second in the answer as one)."""
    plain = hidden.replace(str(hidden_path), "P").replace(str(hidden_path.parent), "F")
    absent = missing.replace(str(missing_path), "P").replace(str(missing_path.parent), "F")
    if verbs is not None:
        plain = plain.replace(f"Cannot {verbs[0]} ", "Cannot V ")
        absent = absent.replace(f"Cannot {verbs[1]} ", "Cannot V ")
    assert plain == absent


async def post(member: Member, url: str, body: dict[str, Any]) -> httpx.Response:
    return await member.api.post(url, json=body)


# Create, append, upload


async def test_a_note_is_created_only_where_the_account_may_write(tmp_path: Path) -> None:
    async with alice_world(tmp_path) as (world, alice):
        ws = world.workspace
        made = await post(alice, "/api/files/note", {"path": str(ws / "open/new.md")})
        assert made.status_code == 200, made.text
        read_only = await post(alice, "/api/files/note", {"path": str(ws / "docs/new.md")})
        assert "read-only access" in error(read_only, 403)
        hidden = await post(alice, "/api/files/note", {"path": str(ws / "secret/new.md")})
        folder = await post(alice, "/api/files/folder", {"path": str(ws / "secret/sub")})
        assert error(folder, 404)
        # The same answer as a move into a folder that is not there.
        missing = await post(
            alice,
            "/api/files/move",
            {"path": str(ws / "open/plan.md"), "to": str(ws / "open/none/new.md")},
        )
        same_shape(
            error(hidden, 404),
            error(missing, 404),
            ws / "secret/new.md",
            ws / "open/none/new.md",
            verbs=("create", "move"),
        )
        assert not (ws / "secret/new.md").exists()
        assert not (ws / "secret/sub").exists()
        assert not (ws / "docs/new.md").exists()


async def test_a_template_the_account_cannot_read_is_not_found(tmp_path: Path) -> None:
    async with alice_world(tmp_path) as (world, alice):
        ws = world.workspace
        body = {"path": str(ws / "open/copy.md"), "template": str(ws / "secret/keys.md")}
        hidden = await post(alice, "/api/files/note", body)
        body["template"] = str(ws / "open/none.md")
        missing = await post(alice, "/api/files/note", body)
        same_shape(
            error(hidden, 404), error(missing, 404), ws / "secret/keys.md", ws / "open/none.md"
        )
        assert not (ws / "open/copy.md").exists()


async def test_append_needs_write_access(tmp_path: Path) -> None:
    async with alice_world(tmp_path) as (world, alice):
        ws = world.workspace
        ok = await post(
            alice, "/api/files/append", {"path": str(ws / "open/plan.md"), "content": "x"}
        )
        assert ok.status_code == 200, ok.text
        ro = await post(
            alice, "/api/files/append", {"path": str(ws / "docs/readme.md"), "content": "x"}
        )
        assert error(ro, 403)
        hidden = await post(
            alice, "/api/files/append", {"path": str(ws / "secret/keys.md"), "content": "x"}
        )
        missing = await post(
            alice, "/api/files/append", {"path": str(ws / "open/none.md"), "content": "x"}
        )
        same_shape(
            error(hidden, 404), error(missing, 404), ws / "secret/keys.md", ws / "open/none.md"
        )
        assert (ws / "secret/keys.md").read_text() == NOTES["secret/keys.md"]
        assert (ws / "docs/readme.md").read_text() == NOTES["docs/readme.md"]


async def test_an_upload_lands_only_where_the_account_may_write(tmp_path: Path) -> None:
    async with alice_world(tmp_path) as (world, alice):
        ws = world.workspace
        up = "/api/files/upload"
        ok = await alice.api.post(up, params={"path": str(ws / "open/a.png")}, content=b"png")
        assert ok.status_code == 200, ok.text
        ro = await alice.api.post(up, params={"path": str(ws / "docs/a.png")}, content=b"png")
        assert error(ro, 403)
        for sneaky in ("secret/a.png", "open/../secret/a.png", "open/../../team/secret/a.png"):
            reply = await alice.api.post(up, params={"path": f"{ws}/{sneaky}"}, content=b"png")
            assert error(reply, 404), sneaky
        beside = await alice.api.post(
            up, params={"note": str(ws / "secret/keys.md"), "name": "a.png"}, content=b"png"
        )
        assert error(beside, 404)
        assert sorted(p.name for p in (ws / "secret").iterdir()) == ["keys.md"]


# Move and copy


async def test_move_needs_write_on_both_ends(tmp_path: Path) -> None:
    async with alice_world(tmp_path) as (world, alice):
        ws = world.workspace
        move = "/api/files/move"
        into_secret = await post(
            alice, move, {"path": str(ws / "open/plan.md"), "to": str(ws / "secret/plan.md")}
        )
        assert error(into_secret, 404)
        into_read_only = await post(
            alice, move, {"path": str(ws / "open/plan.md"), "to": str(ws / "docs/plan.md")}
        )
        assert error(into_read_only, 403)
        from_read_only = await post(
            alice, move, {"path": str(ws / "docs/readme.md"), "to": str(ws / "open/readme.md")}
        )
        assert error(from_read_only, 403)
        from_secret = await post(
            alice, move, {"path": str(ws / "secret/keys.md"), "to": str(ws / "open/keys.md")}
        )
        from_nowhere = await post(
            alice, move, {"path": str(ws / "open/none.md"), "to": str(ws / "open/keys.md")}
        )
        same_shape(
            error(from_secret, 404),
            error(from_nowhere, 404),
            ws / "secret/keys.md",
            ws / "open/none.md",
        )
        assert (ws / "open/plan.md").exists()
        assert (ws / "docs/readme.md").exists()
        assert (ws / "secret/keys.md").exists()
        assert not (ws / "open/keys.md").exists()
        renamed = await post(
            alice, move, {"path": str(ws / "open/plan.md"), "to": str(ws / "open/done.md")}
        )
        assert renamed.status_code == 200, renamed.text


async def test_traversal_in_move_and_copy_is_judged_where_it_leads(tmp_path: Path) -> None:
    async with alice_world(tmp_path) as (world, alice):
        ws = world.workspace
        for url in ("/api/files/move", "/api/files/copy"):
            out = await post(
                alice, url, {"path": str(ws / "open/plan.md"), "to": f"{ws}/open/../secret/x.md"}
            )
            assert error(out, 404), url
            into = await post(
                alice, url, {"path": f"{ws}/open/../secret/keys.md", "to": str(ws / "open/k.md")}
            )
            assert error(into, 404), url
        assert sorted(p.name for p in (ws / "secret").iterdir()) == ["keys.md"]
        assert sorted(p.name for p in (ws / "open").iterdir()) == ["plan.md"]


async def test_copy_needs_read_on_the_source_and_write_at_the_destination(
    tmp_path: Path,
) -> None:
    async with alice_world(tmp_path) as (world, alice):
        ws = world.workspace
        copy = "/api/files/copy"
        ok = await post(alice, copy, {"path": str(ws / "docs"), "to": str(ws / "open/docs")})
        assert ok.status_code == 200, ok.text
        assert (ws / "open/docs/readme.md").exists()
        into_read_only = await post(
            alice, copy, {"path": str(ws / "open/plan.md"), "to": str(ws / "docs/plan.md")}
        )
        assert error(into_read_only, 403)
        from_secret = await post(
            alice, copy, {"path": str(ws / "secret"), "to": str(ws / "open/stolen")}
        )
        assert error(from_secret, 404)
        assert not (ws / "open/stolen").exists()


async def test_a_symlink_into_secret_gives_no_way_in(tmp_path: Path) -> None:
    async with alice_world(tmp_path) as (world, alice):
        ws = world.workspace
        (ws / "open/way").symlink_to(ws / "secret", target_is_directory=True)
        (ws / "open/keys-link.md").symlink_to(ws / "secret/keys.md")
        for path in ("open/way/keys.md", "open/keys-link.md"):
            got = await alice.api.get("/api/files/download", params={"path": str(ws / path)})
            assert error(got, 404), path
            copied = await post(
                alice, "/api/files/copy", {"path": str(ws / path), "to": str(ws / "open/k.md")}
            )
            assert error(copied, 404), path
            appended = await post(
                alice, "/api/files/append", {"path": str(ws / path), "content": "pwned"}
            )
            assert error(appended, 404), path
        made = await post(alice, "/api/files/note", {"path": str(ws / "open/way/new.md")})
        assert error(made, 404)
        moved = await post(
            alice,
            "/api/files/move",
            {"path": str(ws / "open/plan.md"), "to": str(ws / "open/way/p.md")},
        )
        assert error(moved, 404)
        zipped = await alice.api.get("/api/files/download", params={"path": str(ws / "open")})
        assert zipped.status_code == 200
        names = zipfile.ZipFile(io.BytesIO(zipped.content)).namelist()
        assert names == ["open/plan.md"]
        assert sorted(p.name for p in (ws / "secret").iterdir()) == ["keys.md"]
        assert "pwned" not in (ws / "secret/keys.md").read_text()


# Delete


async def test_delete_needs_write_access(tmp_path: Path) -> None:
    async with alice_world(tmp_path) as (world, alice):
        ws = world.workspace
        delete = "/api/files/delete"
        assert error(await post(alice, delete, {"path": str(ws / "docs/readme.md")}), 403)
        hidden = await post(alice, delete, {"path": str(ws / "secret/keys.md")})
        missing = await post(alice, delete, {"path": str(ws / "open/none.md")})
        same_shape(
            error(hidden, 404), error(missing, 404), ws / "secret/keys.md", ws / "open/none.md"
        )
        assert error(await post(alice, delete, {"path": str(ws / "secret")}), 404)
        assert (ws / "secret/keys.md").exists()
        assert (ws / "docs/readme.md").exists()
        ok = await post(alice, delete, {"path": str(ws / "open/plan.md")})
        assert ok.status_code == 200, ok.text


async def test_a_folder_holding_anything_not_writable_is_not_deleted(tmp_path: Path) -> None:
    async with alice_world(tmp_path) as (world, alice):
        ws = world.workspace
        (ws / "open/deep").mkdir()
        (ws / "open/deep/note.md").write_text("x\n")
        (ws / "open/deep/keys").symlink_to(ws / "secret/keys.md")
        for url, body in (
            ("/api/files/delete", {"path": str(ws / "open")}),
            ("/api/files/move", {"path": str(ws / "open/deep"), "to": str(ws / "open/moved")}),
        ):
            message = error(await post(alice, url, body), 403)
            assert "Access denied" in message
            assert "keys" not in message
            assert "secret" not in message
        assert (ws / "open/deep/note.md").exists()
        assert (ws / "open/plan.md").exists()
        assert (ws / "open/deep/keys").is_symlink()


async def test_a_folder_with_a_file_the_check_refuses_is_refused_whole(tmp_path: Path) -> None:
    """As a private chat the account is not a member of: the folder is not deleted, moved or
    copied, and the refusal names nothing inside."""
    (tmp_path / "team/open/chats").mkdir(parents=True)
    (tmp_path / "team/open/chats/private.md").write_text("x\n")
    (tmp_path / "team/open/a.md").write_text("a\n")
    access = _Hiding(
        Identity("u1", "alice", "collaborator"),
        (Grant("team", ("open",), "write"),),
        ((tmp_path / "team").resolve(), "team"),
        hidden=(tmp_path / "team/open/chats/private.md").resolve(),
    )
    for verb, write in (("delete", True), ("move", True), ("copy", False)):
        with pytest.raises(AccessDenied) as refused:
            require_whole(access, tmp_path / "team/open", verb, write=write)
        assert "private" not in str(refused.value)
        assert "chats" not in str(refused.value)
    require_whole(access, tmp_path / "team/open/a.md", "delete", write=True)
    require_whole(EVERYTHING, tmp_path / "team/open", "delete", write=True)


# Download


async def test_download_gives_only_what_the_account_may_read(tmp_path: Path) -> None:
    async with alice_world(tmp_path) as (world, alice):
        ws = world.workspace
        got = await alice.api.get(
            "/api/files/download", params={"path": str(ws / "docs/readme.md")}
        )
        assert got.status_code == 200 and got.content == NOTES["docs/readme.md"].encode()
        for path in ("secret/keys.md", "secret", "open/../secret/keys.md"):
            refused = await alice.api.get("/api/files/download", params={"path": f"{ws}/{path}"})
            assert error(refused, 404), path
        hidden = await alice.api.get(
            "/api/files/download", params={"path": str(ws / "secret/keys.md")}
        )
        missing = await alice.api.get(
            "/api/files/download", params={"path": str(ws / "docs/none.md")}
        )
        same_shape(
            error(hidden, 404), error(missing, 404), ws / "secret/keys.md", ws / "docs/none.md"
        )


async def test_a_folder_zip_leaves_out_what_the_account_may_not_read(tmp_path: Path) -> None:
    """A secret subfolder (hidden by the check, as a private chat is) is left out, unnamed."""
    async with team_world(tmp_path, notes=NOTES | {"open/sub/hidden.md": "hunter2\n"}) as world:
        ws = world.workspace
        access = _Hiding(
            Identity("u1", "alice", "collaborator"),
            (Grant("team", ("open",), "write"),),
            (ws, "team"),
            hidden=ws / "open/sub",
        )
        assert world.services.files is not None
        with acting_as(access):
            got = await world.services.files.download(ws / "open")
        data = b"".join(got.chunks)
        assert zipfile.ZipFile(io.BytesIO(data)).namelist() == ["open/plan.md"]
        assert b"hunter2" not in data


# Trash


async def test_the_trash_shows_and_restores_only_what_the_account_may_reach(
    tmp_path: Path,
) -> None:
    async with alice_world(tmp_path) as (world, alice):
        ws = world.workspace
        (ws / "open/old.md").write_text("old\n")
        for path in ("secret/keys.md", "open/old.md", "docs/readme.md"):
            done = await world.owner.post("/api/files/delete", json={"path": str(ws / path)})
            assert done.status_code == 200, done.text
        listed = (await alice.api.get("/api/trash")).json()["items"]
        assert sorted(Path(item["path"]).name for item in listed) == ["old.md", "readme.md"]
        everything = (await world.owner.get("/api/trash")).json()["items"]
        secret_id = next(i["id"] for i in everything if i["path"].endswith("keys.md"))
        old_id = next(i["id"] for i in listed if i["path"].endswith("old.md"))
        docs_id = next(i["id"] for i in listed if i["path"].endswith("readme.md"))
        restore = "/api/trash/restore"
        hidden = await post(alice, restore, {"id": secret_id, "to": str(ws / "open/keys.md")})
        missing = await post(alice, restore, {"id": "1-00000000"})
        assert error(hidden, 404).replace(secret_id, "ID") == error(missing, 404).replace(
            "1-00000000", "ID"
        )
        assert error(await post(alice, restore, {"id": docs_id}), 403)
        assert error(await post(alice, restore, {"id": old_id, "to": str(ws / "secret/o.md")}), 404)
        assert error(await post(alice, restore, {"id": old_id, "to": str(ws / "docs/o.md")}), 403)
        back = await post(alice, restore, {"id": old_id})
        assert back.status_code == 200, back.text
        assert (ws / "open/old.md").read_text() == "old\n"
        assert not (ws / "open/keys.md").exists()


async def test_an_account_empties_only_its_own_part_of_the_trash(tmp_path: Path) -> None:
    async with alice_world(tmp_path) as (world, alice):
        ws = world.workspace
        for path in ("secret/keys.md", "docs/readme.md"):
            await world.owner.post("/api/files/delete", json={"path": str(ws / path)})
        await post(alice, "/api/files/delete", {"path": str(ws / "open/plan.md")})
        emptied = await post(alice, "/api/trash/empty", {})
        assert emptied.json()["removed"] == 1
        left = (await world.owner.get("/api/trash")).json()["items"]
        assert sorted(Path(item["path"]).name for item in left) == ["keys.md", "readme.md"]
        everyone = await world.owner.post("/api/trash/empty", json={})
        assert everyone.json()["removed"] == 2


# Link updates and tree events


async def test_a_move_rewrites_and_lists_only_notes_the_account_may_change(
    tmp_path: Path,
) -> None:
    notes = NOTES | {
        "secret/keys.md": "See [[plan]] and hunter2.\n",
        "docs/readme.md": "See [[plan]].\n",
        "open/todo.md": "See [[plan]].\n",
    }
    async with team_world(tmp_path, notes=notes) as world:
        alice = await world.account("alice", grants=GRANTS)
        ws = world.workspace
        body = {"path": str(ws / "open/plan.md"), "to": str(ws / "open/roadmap.md")}
        planned = (await post(alice, "/api/files/links", body)).json()
        assert [Path(item["path"]).name for item in planned["notes"]] == ["todo.md"]
        moved = await post(alice, "/api/files/move", body | {"update_links": True})
        assert moved.status_code == 200, moved.text
        assert [Path(path).name for path in moved.json()["linksUpdated"]] == ["todo.md"]
        assert (ws / "secret/keys.md").read_text() == notes["secret/keys.md"]
        assert (ws / "docs/readme.md").read_text() == notes["docs/readme.md"]
        assert (ws / "open/todo.md").read_text() == "See [[roadmap]].\n"


def test_tree_events_show_an_account_only_the_paths_it_may_see(tmp_path: Path) -> None:
    ws = tmp_path / "team"
    for folder in ("open", "secret", "docs/deep"):
        (ws / folder).mkdir(parents=True)
    ws = ws.resolve()
    access = GrantedAccess(
        Identity("u1", "alice", "collaborator"),
        (Grant("team", ("open",), "write"), Grant("team", ("docs", "deep"), "read")),
        ((ws, "team"),),
    )

    def change(action: str, path: str, to: str | None = None, folder: bool = False) -> TreeChange:
        return TreeChange.model_validate(
            {
                "action": action,
                "path": str(ws / path),
                "to": None if to is None else str(ws / to),
                "is_folder": folder,
            }
        )

    data = TreeData(
        workspace=str(ws),
        changes=(
            change("created", "open/a.md"),
            change("created", "secret/a.md"),
            change("deleted", "secret/b.md"),
            change("moved", "open/c.md", "secret/c.md"),
            change("moved", "secret/d.md", "open/d.md"),
            change("moved", "secret/e.md", "secret/f.md"),
            change("created", "docs", folder=True),
            change("created", "secret/sub", folder=True),
        ),
        rescan=False,
    )
    seen = visible_event(TreeEvent(data=data), access)
    assert isinstance(seen, TreeEvent)
    assert [(c.action, c.path, c.to) for c in seen.data.changes] == [
        ("created", str(ws / "open/a.md"), None),
        ("deleted", str(ws / "open/c.md"), None),
        ("created", str(ws / "open/d.md"), None),
        ("created", str(ws / "docs"), None),
    ]
    only_secret = TreeEvent(
        data=TreeData(workspace=str(ws), changes=data.changes[1:3], rescan=False)
    )
    assert visible_event(only_secret, access) is None
    everything = TreeEvent(data=data)
    assert visible_event(everything, EVERYTHING) is everything
    rescan = TreeEvent(data=TreeData(workspace=str(ws), changes=(), rescan=True))
    assert visible_event(rescan, access) is rescan


class _Hiding(GrantedAccess):
    """Grants as given, but ``hidden`` (and everything below it) is neither read nor written,
    as a private chat is for an account that is not its member."""

    def __init__(
        self,
        account: Identity,
        grants: tuple[Grant, ...],
        workspace: tuple[Path, str],
        *,
        hidden: Path,
    ) -> None:
        super().__init__(account, grants, (workspace,))
        object.__setattr__(self, "_hidden", hidden)

    def level(self, path: Path) -> Any:
        hidden: Path = object.__getattribute__(self, "_hidden")
        real = Path(os.path.realpath(path))
        if real == hidden or real.is_relative_to(hidden):
            return None
        return super().level(path)


async def test_the_file_grants_hold_on_sqlite_and_postgresql(
    tmp_path: Path, database_url: str
) -> None:
    async with team_world(tmp_path, notes=NOTES, db_url=database_url) as world:
        alice = await world.account("alice", grants=GRANTS)
        ws = world.workspace
        move = {"path": str(ws / "open/plan.md"), "to": str(ws / "secret/plan.md")}
        assert error(await post(alice, "/api/files/move", move), 404)
        assert error(await post(alice, "/api/files/delete", {"path": str(ws / "docs")}), 403)
        got = await alice.api.get("/api/files/download", params={"path": str(ws / "secret")})
        assert error(got, 404)
        done = await post(alice, "/api/files/delete", {"path": str(ws / "open/plan.md")})
        assert done.status_code == 200, done.text


async def test_a_grant_covers_whole_segments_in_their_case(tmp_path: Path) -> None:
    """`open` covers neither `open-old/` nor `Open/` nor `open.md`; an NFD name in `open/` is
    still in `open/`, and an NFD spelling of a granted name is that name."""
    notes = NOTES | {"open-old/a.md": "a\n", "Open/b.md": "b\n", "open.md": "c\n"}
    async with team_world(tmp_path, notes=notes) as world:
        alice = await world.account("alice", grants=[*GRANTS, ("team", "caf\u00e9", "write")])
        ws = world.workspace
        for path in ("open-old/a.md", "Open/b.md", "open.md"):
            got = await alice.api.get("/api/files/download", params={"path": str(ws / path)})
            assert error(got, 404), path
            deleted = await post(alice, "/api/files/delete", {"path": str(ws / path)})
            assert error(deleted, 404), path
        for path in ("open-old/new.md", "Open/new.md"):
            made = await post(alice, "/api/files/note", {"path": str(ws / path)})
            assert error(made, 404), path
        for path in ("open/cafe\u0301.md", "cafe\u0301/note.md"):
            made = await post(alice, "/api/files/note", {"path": str(ws / path)})
            assert made.status_code == 200, (path, made.text)
