"""Multi mode on the document surfaces: opening, reading, rendering and changing a document
need the account's grants; without read access a document is not found exactly as a missing
one is; a reader's changes are refused and change nothing."""

from __future__ import annotations

import base64
import unicodedata
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from quire.core.views import document_id
from quire.db.user_state import KEYED_BY_NAME
from tests.support.team import team_world

pytestmark = pytest.mark.anyio


def refused(response: httpx.Response, status: int, kind: str) -> str:
    assert response.status_code == status, response.text
    detail = response.json()["error"]
    assert detail["type"] == kind, detail
    message = detail["message"]
    assert isinstance(message, str)
    return message


async def opened(client: httpx.AsyncClient, path: Path) -> dict[str, Any]:
    answer = await client.post("/api/documents/open", json={"path": str(path)})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert isinstance(body, dict)
    return body


def missing_message(path: Path | str, verb: str = "open") -> str:
    return (
        f"Cannot {verb} '{path}': the file does not exist. Check the path "
        "(absolute, or relative to the working directory)."
    )


async def test_a_reader_opens_reads_and_renders_a_granted_note(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        alice = await world.account("alice", grants=[("team", "open", "read")])
        plan = world.workspace / "open/plan.md"
        body = await opened(alice.api, plan)
        current = (await alice.api.get("/api/documents/current")).json()
        assert current["content"] == "# Plan\n\nShip it.\n"
        params = {"docId": body["docId"]}
        assert (await alice.api.get("/api/documents/render", params=params)).status_code == 200
        assert (await alice.api.get("/api/documents/blocks", params=params)).status_code == 200
        state = await alice.api.get("/api/documents/state", params=params)
        assert state.json()["path"] == str(plan)


async def test_a_note_without_a_grant_is_not_found_exactly_as_a_missing_one(
    tmp_path: Path,
) -> None:
    async with team_world(tmp_path) as world:
        alice = await world.account("alice", grants=[("team", "open", "read")])
        secret = world.workspace / "secret/keys.md"
        nowhere = world.workspace / "secret/nothing.md"
        absent = world.workspace / "open/nothing.md"
        for path in (secret, nowhere, absent):
            answer = await alice.api.post("/api/documents/open", json={"path": str(path)})
            # The same status, type and words whether the note exists or not, and the words
            # a missing note in a readable folder gets.
            assert refused(answer, 404, "FileMissing") == missing_message(path)
        window = (await alice.api.get("/api/window")).json()
        assert window["tabs"] == []


@pytest.mark.parametrize(
    "spelled",
    [
        "open/../secret/keys.md",
        "open/./../secret/keys.md",
        "open//../secret/keys.md",
        "secret/../secret/keys.md",
    ],
)
async def test_dot_dot_in_the_path_reaches_no_secret(tmp_path: Path, spelled: str) -> None:
    async with team_world(tmp_path) as world:
        alice = await world.account("alice", grants=[("team", "open", "write")])
        raw = f"{world.workspace}/{spelled}"
        answer = await alice.api.post("/api/documents/open", json={"path": raw})
        assert answer.status_code == 404, answer.text
        assert "hunter2" not in answer.text
        current = (await alice.api.get("/api/documents/current")).json()
        assert current == {"path": None, "content": ""}


async def test_a_symlink_in_a_granted_folder_does_not_lead_to_a_secret_note(
    tmp_path: Path,
) -> None:
    async with team_world(tmp_path) as world:
        link = world.workspace / "open/link.md"
        link.symlink_to(world.workspace / "secret/keys.md")
        alice = await world.account("alice", grants=[("team", "open", "write")])
        answer = await alice.api.post("/api/documents/open", json={"path": str(link)})
        assert refused(answer, 404, "FileMissing") == missing_message(link)
        listed = (await alice.api.get("/api/files")).json()
        assert [item["relPath"] for item in listed["files"]] == ["open/plan.md"]
        assert listed["total"] == 1
        exported = await alice.api.post("/api/export", json={"path": str(link), "format": "html"})
        assert exported.status_code == 404, exported.text
        assert "hunter2" not in exported.text


async def test_a_grant_on_notes_does_not_cover_notes_old(tmp_path: Path) -> None:
    notes = {"notes/a.md": "# A\n", "notes-old/b.md": "# B\n", "notes.md": "# N\n"}
    async with team_world(tmp_path, notes=notes) as world:
        alice = await world.account("alice", grants=[("team", "notes", "write")])
        await opened(alice.api, world.workspace / "notes/a.md")
        for name in ("notes-old/b.md", "notes.md"):
            path = world.workspace / name
            answer = await alice.api.post("/api/documents/open", json={"path": str(path)})
            assert refused(answer, 404, "FileMissing") == missing_message(path)
        listed = (await alice.api.get("/api/files")).json()
        assert [item["relPath"] for item in listed["files"]] == ["notes/a.md"]


async def test_an_nfd_folder_name_is_covered_by_an_nfc_grant(tmp_path: Path) -> None:
    nfd = unicodedata.normalize("NFD", "café")
    async with team_world(tmp_path, notes={f"{nfd}/menu.md": "# Menu\n"}) as world:
        alice = await world.account(
            "alice", grants=[("team", unicodedata.normalize("NFC", "café"), "read")]
        )
        body = await opened(alice.api, world.workspace / nfd / "menu.md")
        assert body["path"].endswith("menu.md")
        listed = (await alice.api.get("/api/files")).json()
        assert listed["total"] == 1
        bob = await world.account("bob", grants=[("team", "Café", "read")])
        answer = await bob.api.post(
            "/api/documents/open", json={"path": str(world.workspace / nfd / "menu.md")}
        )
        assert answer.status_code == 404  # case is not folded


async def test_a_reader_cannot_change_a_note_by_any_route(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        alice = await world.account("alice", grants=[("team", "open", "read")])
        plan = world.workspace / "open/plan.md"
        doc_id = (await opened(alice.api, plan))["docId"]
        attempts = [
            ("/api/documents/set-content", {"content": "# Mine\n", "save": True}),
            ("/api/documents/save", {}),
            ("/api/documents/edit", {"find": "Ship it.", "replace": "Stop.", "save": True}),
            ("/api/documents/stream-edit", {"find": "Ship", "replace": "x", "preview": False}),
            ("/api/documents/stream-edit-apply", {"find": "Ship", "replace": "x"}),
            ("/api/documents/toggle-task", {"docId": doc_id, "line": 1, "checked": True}),
            ("/api/documents/resolve-conflict", {"docId": doc_id, "keep": "disk"}),
        ]
        for url, body in attempts:
            message = refused(await alice.api.post(url, json=body), 403, "AccessDenied")
            assert "read-only access" in message
            assert "workspace admin" in message
        assert plan.read_text(encoding="utf-8") == "# Plan\n\nShip it.\n"
        live = world.services.documents.get(doc_id)
        assert live is not None
        assert live.text() == "# Plan\n\nShip it.\n"
        assert not live.is_dirty


async def test_a_writer_changes_and_saves_a_granted_note(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        alice = await world.account("alice", grants=[("team", "open", "write")])
        plan = world.workspace / "open/plan.md"
        await opened(alice.api, plan)
        answer = await alice.api.post(
            "/api/documents/set-content", json={"content": "# Plan\n\nShipped.\n", "save": True}
        )
        assert answer.status_code == 200, answer.text
        assert plan.read_text(encoding="utf-8") == "# Plan\n\nShipped.\n"


async def test_a_document_id_the_account_may_not_read_is_as_unknown(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        bob = await world.account("bob", grants=[("team", "open", "write")])
        secret = world.workspace / "secret/keys.md"
        secret_id = (await opened(world.owner, secret))["docId"]
        unknown = document_id(world.workspace / "open/none.md")
        for url in ("/api/documents/render", "/api/documents/blocks", "/api/documents/state"):
            denied = await bob.api.get(url, params={"docId": secret_id})
            absent = await bob.api.get(url, params={"docId": unknown})
            assert refused(denied, 409, "NotOpen") == refused(absent, 409, "NotOpen").replace(
                unknown, secret_id
            )
            assert "hunter2" not in denied.text
        for url, body in (
            ("/api/documents/toggle-task", {"line": 1, "checked": True}),
            ("/api/documents/resolve-conflict", {"keep": "disk"}),
        ):
            denied = await bob.api.post(url, json={**body, "docId": secret_id})
            refused(denied, 409, "NotOpen")
        assert secret.read_text(encoding="utf-8") == "# Keys\n\nhunter2\n"


async def test_a_tab_whose_read_access_went_shows_nothing_of_the_note(
    tmp_path: Path, database_url: str
) -> None:
    async with team_world(tmp_path, db_url=database_url) as world:
        alice = await world.account("alice", grants=[("team", "", "read")])
        secret = world.workspace / "secret/keys.md"
        await opened(alice.api, world.workspace / "open/plan.md")
        secret_id = (await opened(alice.api, secret))["docId"]
        await world.team.grants.revoke("alice", "team", "")
        await world.team.grants.grant("alice", "team", "open", access="read")
        window = (await alice.api.get("/api/window")).json()
        assert [tab["fileName"] for tab in window["tabs"]] == ["plan.md"]
        assert window["active"] is None
        current = (await alice.api.get("/api/documents/current")).json()
        assert current == {"path": None, "content": ""}
        recent = (await alice.api.get("/api/recent")).json()["recent"]
        assert [item["fileName"] for item in recent] == ["plan.md"]
        for url in ("/api/window/activate", "/api/window/close"):
            refused(await alice.api.post(url, json={"docId": secret_id}), 409, "NotOpen")
        view = {"docId": secret_id, "view": "edit"}
        refused(await alice.api.post("/api/window/view", json=view), 409, "NotOpen")
        edit = await alice.api.post("/api/documents/set-content", json={"content": "x"})
        refused(edit, 409, "NotOpen")
        presented = await alice.api.post("/api/window/present", json={})
        refused(presented, 409, "NotOpen")
        assert secret.read_text(encoding="utf-8") == "# Keys\n\nhunter2\n"


async def test_the_active_tab_stays_readable_beside_a_tab_whose_access_went(
    tmp_path: Path, database_url: str
) -> None:
    async with team_world(tmp_path, db_url=database_url) as world:
        alice = await world.account("alice", grants=[("team", "", "write")])
        plan = world.workspace / "open/plan.md"
        await opened(alice.api, world.workspace / "secret/keys.md")
        plan_id = (await opened(alice.api, plan))["docId"]
        await world.team.grants.revoke("alice", "team", "")
        await world.team.grants.grant("alice", "team", "open", access="write")
        window = (await alice.api.get("/api/window")).json()
        assert [tab["fileName"] for tab in window["tabs"]] == ["plan.md"]
        assert window["active"] == plan_id
        current = (await alice.api.get("/api/documents/current")).json()
        assert (current["path"], current["docId"]) == (str(plan), plan_id)
        edit = {"find": "Ship it.", "replace": "Shipped.", "path": str(plan)}
        assert (await alice.api.post("/api/documents/edit", json=edit)).status_code == 200
        presented = await alice.api.post("/api/window/present", json={})
        assert presented.status_code == 200, presented.text
        assert "hunter2" not in (await alice.api.get("/api/documents/current")).text


async def test_windows_and_recents_are_each_accounts_own(tmp_path: Path, database_url: str) -> None:
    async with team_world(tmp_path, db_url=database_url) as world:
        alice = await world.account("alice", grants=[("team", "", "read")])
        bob = await world.account("bob", grants=[("team", "", "read")])
        await opened(alice.api, world.workspace / "secret/keys.md")
        assert (await bob.api.get("/api/window")).json()["tabs"] == []
        assert (await bob.api.get("/api/recent")).json()["recent"] == []
        assert (await bob.api.get("/api/documents/current")).json()["path"] is None


async def test_an_account_made_again_under_a_deleted_ones_name_inherits_nothing(
    tmp_path: Path, database_url: str
) -> None:
    async with team_world(tmp_path, db_url=database_url) as world:
        first = await world.account("carol", grants=[("team", "", "read")])
        await opened(first.api, world.workspace / "secret/keys.md")
        asked = await first.api.post(
            "/api/reviews", json={"path": str(world.workspace / "open/plan.md")}
        )
        assert asked.status_code in (200, 202), asked.text
        assert (await first.api.get("/api/window")).json()["tabs"] != []  # now cached
        await world.team.accounts.delete("carol")
        async with world.services.database.session() as session:
            for table in KEYED_BY_NAME:
                assert (
                    await session.scalars(select(table).where(table.user_id == "carol"))
                ).all() == []
        again = await world.account("carol", grants=[("team", "", "read")])
        assert (await again.api.get("/api/window")).json()["tabs"] == []
        assert (await again.api.get("/api/recent")).json()["recent"] == []
        assert (await again.api.get("/api/documents/current")).json()["path"] is None


async def test_file_pages_count_and_point_only_at_readable_files(tmp_path: Path) -> None:
    notes = {
        **{f"open/n{i:02}.md": f"# {i}\n" for i in range(5)},
        **{f"secret/s{i:02}.md": f"# {i}\n" for i in range(7)},
        "zz/last.md": "# Last\n",
    }
    async with team_world(tmp_path, notes=notes) as world:
        alice = await world.account(
            "alice", grants=[("team", "open", "read"), ("team", "zz", "read")]
        )
        seen: list[str] = []
        cursor: str | None = None
        totals: set[int] = set()
        while True:
            params: dict[str, str | int] = {"limit": 2}
            if cursor is not None:
                params["cursor"] = cursor
            page = (await alice.api.get("/api/files", params=params)).json()
            seen += [item["relPath"] for item in page["files"]]
            totals.add(page["total"])
            cursor = page.get("nextCursor")
            if cursor is None:
                break
        assert seen == [*(f"open/n{i:02}.md" for i in range(5)), "zz/last.md"]
        assert totals == {6}
        owner = (await world.owner.get("/api/files")).json()
        assert owner["total"] == 13


async def test_an_account_without_grants_sees_no_file_and_no_workspace(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        nobody = await world.account("nobody")
        files = (await nobody.api.get("/api/files")).json()
        assert files["files"] == []
        assert files["total"] == 0
        assert files.get("nextCursor") is None
        assert (await nobody.api.get("/api/workspaces")).json() == {"workspaces": []}
        somebody = await world.account("somebody", grants=[("team", "open/plan.md", "read")])
        shown = (await somebody.api.get("/api/workspaces")).json()["workspaces"]
        assert [item["name"] for item in shown] == ["team"]
        owner = (await world.owner.get("/api/workspaces")).json()["workspaces"]
        assert [item["name"] for item in owner] == ["team"]


async def test_a_reader_reviews_a_granted_note_and_no_one_else_sees_the_review(
    tmp_path: Path,
    database_url: str,
) -> None:
    async with team_world(tmp_path, db_url=database_url) as world:
        alice = await world.account("alice", grants=[("team", "", "read")])
        bob = await world.account("bob", grants=[("team", "", "read")])
        plan = world.workspace / "open/plan.md"
        asked = await alice.api.post("/api/reviews", json={"path": str(plan)})
        assert asked.status_code == 200, asked.text
        review_id = asked.json()["reviewId"]
        assert (await alice.api.get(f"/api/reviews/{review_id}")).status_code == 200
        unknown = "0" * 24
        for client in (bob.api,):
            theirs = await client.get(f"/api/reviews/{review_id}")
            none = await client.get(f"/api/reviews/{unknown}")
            assert refused(theirs, 404, "ReviewNotFound") == refused(
                none, 404, "ReviewNotFound"
            ).replace(unknown, review_id)
            decided = await client.post(
                f"/api/reviews/{review_id}/decision", json={"verdict": "approved"}
            )
            refused(decided, 404, "ReviewNotFound")
        assert (await bob.api.get("/api/reviews/active")).json() == {"review": None}
        bobs = await bob.api.get("/api/annotations", params={"path": str(plan)})
        assert bobs.json()["verdict"] is None


async def test_reviews_of_a_note_the_account_may_not_read_are_not_found(
    tmp_path: Path, database_url: str
) -> None:
    async with team_world(tmp_path, db_url=database_url) as world:
        alice = await world.account("alice", grants=[("team", "", "read")])
        secret = world.workspace / "secret/keys.md"
        asked = await alice.api.post("/api/reviews", json={"path": str(secret)})
        review_id = asked.json()["reviewId"]
        await world.team.grants.revoke("alice", "team", "")
        await world.team.grants.grant("alice", "team", "open", access="read")
        refused(await alice.api.get(f"/api/reviews/{review_id}"), 404, "ReviewNotFound")
        waited = await alice.api.get(f"/api/reviews/{review_id}/wait", params={"wait_ms": 1000})
        refused(waited, 404, "ReviewNotFound")
        decided = await alice.api.post(
            f"/api/reviews/{review_id}/decision", json={"verdict": "approved"}
        )
        refused(decided, 404, "ReviewNotFound")
        assert (await alice.api.get("/api/reviews/active")).json() == {"review": None}
        again = await alice.api.post("/api/reviews", json={"path": str(secret)})
        assert refused(again, 404, "FileMissing") == missing_message(secret, "review")
        denied = (await alice.api.get("/api/annotations", params={"path": str(secret)})).json()
        nothing = world.workspace / "open/nothing.md"
        absent = (await alice.api.get("/api/annotations", params={"path": str(nothing)})).json()
        assert denied["verdict"] is None
        assert denied["tasks"] == [] == absent["tasks"]
        assert denied["tasksNote"] == absent["tasksNote"].replace(str(nothing), str(secret))


async def test_an_export_needs_read_on_the_note_and_write_where_it_is_written(
    tmp_path: Path,
) -> None:
    async with team_world(tmp_path) as world:
        alice = await world.account("alice", grants=[("team", "open", "read")])
        secret = world.workspace / "secret/keys.md"
        plan = world.workspace / "open/plan.md"
        answer = await alice.api.post("/api/export", json={"path": str(secret), "format": "html"})
        assert refused(answer, 404, "FileMissing") == missing_message(secret, "export")
        download = await alice.api.get(
            "/api/export/download", params={"path": str(secret), "format": "html"}
        )
        assert refused(download, 404, "FileMissing") == missing_message(secret, "export")
        beside = await alice.api.post("/api/export", json={"path": str(plan), "format": "html"})
        refused(beside, 403, "AccessDenied")
        elsewhere = await alice.api.post(
            "/api/export",
            json={
                "path": str(plan),
                "format": "html",
                "output_path": str(world.workspace / "secret/plan.html"),
            },
        )
        refused(elsewhere, 404, "FileMissing")
        assert not (world.workspace / "open/plan.html").exists()
        assert not (world.workspace / "secret/plan.html").exists()
        dialog = await alice.api.post(
            "/api/export/dialog", json={"path": str(secret), "format": "pdf"}
        )
        refused(dialog, 404, "FileMissing")


async def test_an_export_embeds_no_picture_from_a_folder_the_account_may_not_read(
    tmp_path: Path,
) -> None:
    notes = {
        "open/plan.md": "# Plan\n\n![mine](mine.png)\n\n![theirs](../secret/theirs.png)\n",
        "secret/keys.md": "# Keys\n",
    }
    async with team_world(tmp_path, notes=notes) as world:
        picture = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32
        (world.workspace / "open/mine.png").write_bytes(picture + b"mine")
        (world.workspace / "secret/theirs.png").write_bytes(picture + b"theirs")
        alice = await world.account("alice", grants=[("team", "open", "write")])
        answer = await alice.api.post(
            "/api/export", json={"path": str(world.workspace / "open/plan.md"), "format": "html"}
        )
        assert answer.status_code == 200, answer.text
        warnings = " ".join(answer.json()["warnings"])
        assert "theirs.png" in warnings
        assert "mine.png" not in warnings
        html = (world.workspace / "open/plan.html").read_bytes()
        assert base64.b64encode(picture + b"mine") in html
        assert base64.b64encode(picture + b"theirs") not in html
