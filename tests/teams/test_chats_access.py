"""Private chats and chat ownership in multi mode: who can see a chat, who can delete it, and
the account written beside a label (reference B's rules, members keyed by the chat's identity
in the database so they follow moves made inside Quire)."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from quire.db.accounts import account_named
from quire.services.chat.privacy import live_chat_guard
from quire.services.live.document import Origin
from quire.services.users.access import GrantedAccess
from quire.services.users.identity import Identity
from quire.web.connections import _keeps
from tests.support.team import TeamWorld, team_world

pytestmark = pytest.mark.anyio

WRITE = [("team", "", "write")]
READ = [("team", "", "read")]


async def _private_chat(world: TeamWorld, owner: str, name: str, invite: list[str]) -> str:
    path = str(world.workspace / "Chats" / f"{name}.md")
    answer = await world.members[owner].api.post(
        "/api/chats", json={"path": path, "title": name, "private": True, "invite": invite}
    )
    assert answer.status_code == 200, answer.text
    assert answer.json()["private"] is True
    return path


async def test_a_private_chat_opens_for_its_members_only(tmp_path: Path, database_url: str) -> None:
    async with team_world(tmp_path, db_url=database_url) as world:
        alice = await world.account("alice", grants=WRITE)
        carol = await world.account("carol", grants=WRITE)
        bob = await world.account("bob", grants=WRITE)
        stranger = await world.account("eve", grants=[("team", "open", "write")])
        path = await _private_chat(world, "alice", "plans", ["carol"])

        for member in (alice, carol):
            seen = await member.api.get("/api/chats/read", params={"path": path})
            assert seen.status_code == 200, seen.text
        refused = await bob.api.get("/api/chats/read", params={"path": path})
        assert refused.status_code == 403
        assert "this chat is private and your account (bob) is not a member" in refused.text
        # Someone whose grants do not reach the note gets the very answer a missing note gets.
        hidden = await stranger.api.get("/api/chats/read", params={"path": path})
        missing = await stranger.api.get(
            "/api/chats/read", params={"path": str(world.workspace / "Chats" / "nope.md")}
        )
        assert hidden.status_code == missing.status_code == 404
        assert hidden.json()["error"] == {
            **missing.json()["error"],
            "message": missing.json()["error"]["message"].replace("nope", "plans"),
        }
        posted = await bob.api.post(
            "/api/chats/post", json={"path": path, "as": "bob", "body": "let me in"}
        )
        assert posted.status_code == 403
        listed = await bob.api.get("/api/chats")
        assert path not in [chat["path"] for chat in listed.json()["chats"]]
        mine = await carol.api.get("/api/chats")
        assert [chat["private"] for chat in mine.json()["chats"] if chat["path"] == path] == [True]


async def test_api_and_cli_style_creation_is_open_unless_asked(
    tmp_path: Path, database_url: str
) -> None:
    async with team_world(tmp_path, db_url=database_url) as world:
        alice = await world.account("alice", grants=WRITE)
        bob = await world.account("bob", grants=READ)
        path = str(world.workspace / "Chats" / "open.md")
        made = await alice.api.post("/api/chats", json={"path": path})
        assert made.json()["private"] is False
        assert "owner: alice" in await anyio.Path(path).read_text()
        seen = await bob.api.get("/api/chats/read", params={"path": path})
        assert seen.status_code == 200
        members = await bob.api.get("/api/chats/members", params={"path": path})
        assert members.json() == {"path": path, "private": False, "members": [], "owner": "alice"}


async def test_a_private_chat_cannot_take_over_an_existing_note(
    tmp_path: Path, database_url: str
) -> None:
    async with team_world(tmp_path, db_url=database_url) as world:
        alice = await world.account("alice", grants=WRITE)
        path = str(world.workspace / "welcome.md")
        answer = await alice.api.post("/api/chats", json={"path": path, "private": True})
        assert answer.status_code == 400
        assert "only be made as a new note" in answer.text
        accented = str(world.workspace / "Chats" / "café.md")
        answer = await alice.api.post("/api/chats", json={"path": accented, "private": True})
        assert answer.status_code == 400
        assert "plain ASCII" in answer.text


async def test_only_accounts_with_the_workspace_can_be_invited(
    tmp_path: Path, database_url: str
) -> None:
    async with team_world(tmp_path, db_url=database_url) as world:
        await world.account("alice", grants=WRITE)
        await world.account("nobody")
        path = str(world.workspace / "Chats" / "x.md")
        answer = await world.members["alice"].api.post(
            "/api/chats", json={"path": path, "private": True, "invite": ["nobody"]}
        )
        assert answer.status_code == 400
        assert "no access to the workspace" in answer.text
        assert not await anyio.Path(path).exists()


async def test_members_add_and_remove_and_the_last_one_stays(
    tmp_path: Path, database_url: str
) -> None:
    async with team_world(tmp_path, db_url=database_url) as world:
        alice = await world.account("alice", grants=WRITE)
        bob = await world.account("bob", grants=WRITE)
        path = await _private_chat(world, "alice", "pair", [])
        added = await alice.api.post(
            "/api/chats/members", json={"path": path, "action": "add", "username": "bob"}
        )
        assert added.json()["members"] == ["alice", "bob"]
        assert (await bob.api.get("/api/chats/read", params={"path": path})).status_code == 200
        # Any member may remove anyone, themselves included.
        gone = await bob.api.post(
            "/api/chats/members", json={"path": path, "action": "remove", "username": "alice"}
        )
        assert gone.json()["members"] == ["bob"]
        assert (await alice.api.get("/api/chats/read", params={"path": path})).status_code == 403
        last = await bob.api.post(
            "/api/chats/members", json={"path": path, "action": "remove", "username": "bob"}
        )
        assert last.status_code == 400
        assert "last member" in last.text


async def test_adding_someone_to_an_open_chat_makes_it_private(
    tmp_path: Path, database_url: str
) -> None:
    async with team_world(tmp_path, db_url=database_url) as world:
        alice = await world.account("alice", grants=WRITE)
        await world.account("bob", grants=WRITE)
        carol = await world.account("carol", grants=WRITE)
        path = str(world.workspace / "Chats" / "team.md")
        await alice.api.post("/api/chats", json={"path": path})
        assert (await carol.api.get("/api/chats/read", params={"path": path})).status_code == 200
        added = await alice.api.post(
            "/api/chats/members", json={"path": path, "action": "add", "username": "bob"}
        )
        assert added.json()["private"] is True
        assert added.json()["members"] == ["alice", "bob"]
        assert (await carol.api.get("/api/chats/read", params={"path": path})).status_code == 403


async def test_privacy_follows_a_move_and_a_copy_made_in_quire(
    tmp_path: Path, database_url: str
) -> None:
    async with team_world(tmp_path, db_url=database_url) as world:
        alice = await world.account("alice", grants=WRITE)
        bob = await world.account("bob", grants=WRITE)
        path = await _private_chat(world, "alice", "secret-plan", [])
        moved_to = str(world.workspace / "Archive" / "renamed.md")
        (world.workspace / "Archive").mkdir()
        moved = await alice.api.post("/api/files/move", json={"path": path, "to": moved_to})
        assert moved.status_code == 200, moved.text
        assert (
            await alice.api.get("/api/chats/read", params={"path": moved_to})
        ).status_code == 200
        assert (await bob.api.get("/api/chats/read", params={"path": moved_to})).status_code == 403
        copied_to = str(world.workspace / "Archive" / "copy.md")
        copied = await alice.api.post("/api/files/copy", json={"path": moved_to, "to": copied_to})
        assert copied.status_code == 200, copied.text
        members = await alice.api.get("/api/chats/members", params={"path": copied_to})
        assert members.json()["members"] == ["alice"]
        assert (await bob.api.get("/api/chats/read", params={"path": copied_to})).status_code == 403


async def test_case_and_unicode_form_do_not_open_a_private_chat(
    tmp_path: Path, database_url: str
) -> None:
    async with team_world(tmp_path, db_url=database_url) as world:
        await world.account("alice", grants=WRITE)
        bob = await world.account("bob", grants=WRITE)
        path = await _private_chat(world, "alice", "quiet", [])
        access = await world.team.access_of(
            Identity(user_id=await _user_id(world, "bob"), username="bob", role="collaborator")
        )
        assert not access.may_read(Path(path))
        assert not access.may_read(Path(path.replace("Chats", "CHATS")))
        assert not access.may_read(Path(path.replace("quiet", "QUIET")))
        assert not access.may_read(world.workspace / "Chats" / ".." / "Chats" / "quiet.md")
        listing = await bob.api.get("/api/chats")
        assert listing.json()["chats"] == []


async def test_only_the_owner_or_an_admin_deletes_a_chat(tmp_path: Path, database_url: str) -> None:
    async with team_world(tmp_path, db_url=database_url) as world:
        alice = await world.account("alice", grants=WRITE)
        bob = await world.account("bob", grants=WRITE)
        admin = await world.account("ada", role="admin", grants=WRITE)
        first = str(world.workspace / "Chats" / "one.md")
        second = str(world.workspace / "Chats" / "two.md")
        for path in (first, second):
            await alice.api.post("/api/chats", json={"path": path})
        for route in ("/api/chats/delete", "/api/files/delete"):
            refused = await bob.api.post(route, json={"path": first})
            assert refused.status_code == 403, refused.text
            assert "owned by alice" in refused.text
        folder = await bob.api.post("/api/files/delete", json={"path": str(Path(first).parent)})
        assert folder.status_code == 403
        assert "owned by alice" in folder.text
        assert await anyio.Path(first).exists()
        assert (await alice.api.post("/api/chats/delete", json={"path": first})).status_code == 200
        assert (await admin.api.post("/api/files/delete", json={"path": second})).status_code == 200


async def test_an_old_chat_is_owned_by_its_first_poster(tmp_path: Path, database_url: str) -> None:
    old = "---\nquire-chat: true\n---\n\n#### claude (via alice) · 2026-01-01T00:00:00Z\n\nhi\n"
    empty = "---\nquire-chat: true\n---\n"
    async with team_world(
        tmp_path, db_url=database_url, notes={"old.md": old, "empty.md": empty}
    ) as world:
        await world.account("alice", grants=WRITE)
        bob = await world.account("bob", grants=WRITE)
        refused = await bob.api.post(
            "/api/chats/delete", json={"path": str(world.workspace / "old.md")}
        )
        assert refused.status_code == 403
        done = await bob.api.post(
            "/api/chats/delete", json={"path": str(world.workspace / "empty.md")}
        )
        assert done.status_code == 200


async def test_an_edit_that_unmakes_the_chat_or_changes_its_owner_is_refused(
    tmp_path: Path,
    database_url: str,
) -> None:
    async with team_world(tmp_path, db_url=database_url) as world:
        alice = await world.account("alice", grants=WRITE)
        bob = await world.account("bob", grants=WRITE)
        path = str(world.workspace / "Chats" / "c.md")
        await alice.api.post("/api/chats", json={"path": path})
        opened = await bob.api.post("/api/documents/open", json={"path": path})
        assert opened.status_code == 200, opened.text
        for find, replace in (("owner: alice", "owner: bob"), ("quire-chat: true", "")):
            answer = await bob.api.post(
                "/api/documents/edit", json={"path": path, "find": find, "replace": replace}
            )
            assert answer.status_code == 403, answer.text
        assert "owner: alice" in await anyio.Path(path).read_text()
        fine = await bob.api.post(
            "/api/documents/edit",
            json={"path": path, "find": "owner: alice", "replace": "owner: alice\ntopic: x"},
        )
        assert fine.status_code == 200, fine.text


async def test_a_folder_holding_someone_elses_private_chat_stays(
    tmp_path: Path, database_url: str
) -> None:
    async with team_world(tmp_path, db_url=database_url) as world:
        await world.account("alice", grants=WRITE)
        bob = await world.account("bob", grants=WRITE)
        path = await _private_chat(world, "alice", "hidden", [])
        folder = str(Path(path).parent)
        refused = await bob.api.post("/api/files/delete", json={"path": folder})
        assert refused.status_code in (403, 404)
        assert "hidden" not in refused.text
        assert await anyio.Path(path).exists()
        elsewhere = str(world.workspace / "Elsewhere")
        for route, body in (
            ("/api/files/move", {"path": folder, "to": elsewhere}),
            ("/api/files/copy", {"path": folder, "to": elsewhere}),
            ("/api/files/move", {"path": path, "to": elsewhere + ".md"}),
        ):
            answer = await bob.api.post(route, json=body)
            assert answer.status_code in (403, 404), (route, answer.text)
            assert body["path"] == path or "hidden" not in answer.text
        assert not await anyio.Path(elsewhere).exists()
        assert await anyio.Path(path).exists()


async def test_a_label_is_written_with_the_account_beside_it(
    tmp_path: Path, database_url: str
) -> None:
    async with team_world(tmp_path, db_url=database_url) as world:
        alice = await world.account("alice", grants=WRITE)
        path = str(world.workspace / "Chats" / "talk.md")
        await alice.api.post("/api/chats", json={"path": path})
        for name in ("claude", "alice"):
            posted = await alice.api.post(
                "/api/chats/post", json={"path": path, "as": name, "body": f"from {name}"}
            )
            assert posted.status_code == 200, posted.text
        authors = [
            message["author"]
            for message in (await alice.api.get("/api/chats/read", params={"path": path})).json()[
                "messages"
            ]
        ]
        assert authors == ["claude (via alice)", "alice"]
        assert "#### claude (via alice) · " in await anyio.Path(path).read_text()


async def test_a_removed_member_loses_an_open_wait_at_once(
    tmp_path: Path, database_url: str
) -> None:
    async with team_world(tmp_path, db_url=database_url) as world:
        alice = await world.account("alice", grants=WRITE)
        bob = await world.account("bob", grants=WRITE)
        path = await _private_chat(world, "alice", "live", ["bob"])
        answers: list[int] = []
        answered = anyio.Event()

        async def wait() -> None:
            answer = await bob.api.post(
                "/api/chats/wait", json={"path": path, "as": "bob", "timeoutMs": 30_000}
            )
            answers.append(answer.status_code)
            answered.set()

        async with anyio.create_task_group() as group:
            group.start_soon(wait)
            await anyio.sleep(0.3)
            removed = await alice.api.post(
                "/api/chats/members", json={"path": path, "action": "remove", "username": "bob"}
            )
            assert removed.status_code == 200
            with anyio.fail_after(5):
                await answered.wait()
        assert answers == [403]


async def test_a_chat_created_private_ends_nobody_elses_connections(tmp_path: Path) -> None:
    workspace = tmp_path
    who = Identity("u1", "bob", "collaborator")
    chat = workspace / "c.md"
    before = GrantedAccess(who, (), ((workspace, "team"),))
    born = GrantedAccess(
        who, (), ((workspace, "team"),), hidden=frozenset({chat}), born_private=frozenset({chat})
    )
    made_private = GrantedAccess(who, (), ((workspace, "team"),), hidden=frozenset({chat}))
    member = GrantedAccess(who, (), ((workspace, "team"),), joined=frozenset({chat}))
    removed = GrantedAccess(
        who, (), ((workspace, "team"),), hidden=frozenset({chat}), born_private=frozenset({chat})
    )
    assert _keeps(before, born)
    assert not _keeps(before, made_private)
    assert not _keeps(member, removed)


async def _user_id(world: TeamWorld, username: str) -> str:
    async with world.services.database.session() as session:
        found = await account_named(session, username)
    assert found is not None
    return found.user_id


async def test_private_chats_on_each_database(tmp_path: Path, database_url: str) -> None:
    async with team_world(tmp_path, db_url=database_url) as world:
        alice = await world.account("alice", grants=WRITE)
        bob = await world.account("bob", grants=WRITE)
        await world.account("carol", grants=WRITE)
        path = await _private_chat(world, "alice", "db", ["carol"])
        people = await alice.api.get(
            "/api/chats/people", params={"workspace": str(world.workspace)}
        )
        assert people.json() == {"people": ["alice", "bob", "carol"]}
        assert (await bob.api.get("/api/chats/read", params={"path": path})).status_code == 403
        added = await alice.api.post(
            "/api/chats/members", json={"path": path, "action": "add", "username": "bob"}
        )
        assert added.json()["members"] == ["alice", "bob", "carol"]
        assert (await bob.api.get("/api/chats/read", params={"path": path})).status_code == 200
        moved_to = str(world.workspace / "Chats" / "renamed.md")
        await alice.api.post("/api/files/move", json={"path": path, "to": moved_to})
        await alice.api.post(
            "/api/chats/members", json={"path": moved_to, "action": "remove", "username": "bob"}
        )
        assert (await bob.api.get("/api/chats/read", params={"path": moved_to})).status_code == 403
        await world.team.accounts.delete("carol")
        members = await alice.api.get("/api/chats/members", params={"path": moved_to})
        assert members.json()["members"] == ["alice"]
        refused = await bob.api.post("/api/chats/delete", json={"path": moved_to})
        assert refused.status_code == 403


async def test_new_in_the_window_is_private_by_default_for_an_account(
    tmp_path: Path, database_url: str
) -> None:
    async with team_world(tmp_path, db_url=database_url) as world:
        alice = await world.account("alice", grants=WRITE)
        bob = await world.account("bob", grants=WRITE)
        window = str(world.workspace / "Chats" / "window.md")
        made = await alice.api.post("/api/chats", json={"path": window, "privateByDefault": True})
        assert made.json()["private"] is True
        assert (await bob.api.get("/api/chats/read", params={"path": window})).status_code == 403
        unticked = str(world.workspace / "Chats" / "open.md")
        made = await alice.api.post(
            "/api/chats", json={"path": unticked, "privateByDefault": True, "private": False}
        )
        assert made.json()["private"] is False
        # The server's own token has no account to be a member: the chat stays open.
        owner = str(world.workspace / "Chats" / "owner.md")
        made = await world.owner.post("/api/chats", json={"path": owner, "privateByDefault": True})
        assert made.json()["private"] is False


async def test_a_live_editor_cannot_unmake_someone_elses_chat(
    tmp_path: Path, database_url: str
) -> None:
    async with team_world(tmp_path, db_url=database_url) as world:
        alice = await world.account("alice", grants=WRITE)
        await world.account("bob", grants=WRITE)
        path = world.workspace / "Chats" / "live.md"
        await alice.api.post("/api/chats", json={"path": str(path)})
        live = await world.services.documents.open(path)
        before = live.text()
        bob = await world.team.access_of(
            Identity(await _user_id(world, "bob"), "bob", "collaborator")
        )
        alice_access = await world.team.access_of(
            Identity(await _user_id(world, "alice"), "alice", "collaborator")
        )
        assert live_chat_guard(alice_access, live) is None  # the owner may

        guard = live_chat_guard(bob, live)
        assert guard is not None
        start = before.index("owner: alice")
        with live.change(Origin("person", "editor-bob")):
            live.content[start : start + len("owner: alice")] = "owner: bob"
        assert guard.after() is False
        assert live.text() == before

        guard = live_chat_guard(bob, live)
        assert guard is not None
        with live.change(Origin("person", "editor-bob")):
            live.content.insert(len(before), "A note under the chat.\n")
        assert guard.after() is True
        assert live.text().endswith("A note under the chat.\n")


async def test_the_invite_picker_lists_the_workspaces_people(
    tmp_path: Path, database_url: str
) -> None:
    async with team_world(tmp_path, db_url=database_url) as world:
        alice = await world.account("alice", grants=WRITE)
        await world.account("bob", grants=[("team", "open", "read")])
        await world.account("nobody")
        await world.account("gone", grants=WRITE)
        await world.team.accounts.set_disabled("gone", True)
        await world.account("grouped")
        await world.team.grants.add_group("crew")
        await world.team.grants.add_member("crew", "grouped")
        await world.team.grants.grant_group("crew", "team", access="read")
        people = await alice.api.get(
            "/api/chats/people", params={"workspace": str(world.workspace)}
        )
        assert people.json() == {"people": ["alice", "bob", "grouped"]}
        owner = await world.owner.get(
            "/api/chats/people", params={"workspace": str(world.workspace)}
        )
        assert owner.json() == {"people": []}
