"""The admin page's API: who may manage accounts, groups and grants (superadmin, the server's
own token, a workspace admin on the workspaces it holds whole), refusals for everyone else,
tokens versus the browser, and open connections closed when a change takes access away."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from quire.api.operations import OPERATIONS
from quire.core.teams.accounts import Role
from quire.core.teams.grants import Grant
from quire.services.users.admin import Actor, administered
from quire.services.users.identity import Identity
from quire.web.openapi import openapi_document, route_table
from tests.support.team import PASSWORD, TeamWorld, team_world
from tests.web.live_server import live_server

pytestmark = pytest.mark.anyio

OTHER_PASSWORD = "another long passphrase here"
CHANGES: list[tuple[str, dict[str, Any]]] = [
    ("/api/admin/users", {"username": "carol", "password": OTHER_PASSWORD}),
    ("/api/admin/users/role", {"username": "bob", "role": "admin"}),
    ("/api/admin/users/disable", {"username": "bob", "disabled": True}),
    ("/api/admin/users/password", {"username": "bob", "password": OTHER_PASSWORD}),
    ("/api/admin/grants", {"username": "bob", "workspace": "team", "access": "read"}),
    ("/api/admin/grants/revoke", {"username": "bob", "workspace": "team"}),
    ("/api/admin/groups", {"name": "writers"}),
    ("/api/admin/groups/members", {"group": "readers", "username": "bob"}),
    ("/api/admin/groups/members/remove", {"group": "readers", "username": "bob"}),
    ("/api/admin/groups/delete", {"name": "readers"}),
    ("/api/admin/users/delete", {"username": "bob"}),
]


async def _close_code(socket: ClientConnection) -> int | None:
    with anyio.fail_after(5):
        try:
            while True:
                await socket.recv()
        except ConnectionClosed as closed:
            return closed.rcvd.code if closed.rcvd else None


async def _people(world: TeamWorld) -> None:
    """boss (superadmin), wsadmin (admin of team), bob (reader of team), a readers group."""
    await world.account("boss", role="superadmin")
    await world.account("wsadmin", role="admin", grants=[("team", "", "write")])
    await world.account("bob", grants=[("team", "", "read")])
    await world.team.grants.add_group("readers")


def _error(answer: httpx.Response) -> tuple[int, str]:
    return answer.status_code, answer.json()["error"]["type"]


async def test_a_superadmin_manages_accounts_groups_and_grants(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        await _people(world)
        browser = await world.browser("boss")
        for path, body in CHANGES:
            answer = await browser.post(path, json=body)
            assert answer.status_code == 200, (path, answer.text)
        page = (await browser.get("/api/admin")).json()
        assert page["everything"] is True
        assert [user["username"] for user in page["users"]] == ["boss", "carol", "wsadmin"]
        assert [group["name"] for group in page["groups"]] == ["writers"]
        assert page["workspaces"] == [
            {"name": "team", "path": str(world.workspace), "manageable": True}
        ]


async def test_the_overview_lists_every_grant_with_its_subject(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        await _people(world)
        await world.team.grants.grant_group("readers", "team", "open", access="read")
        await world.team.grants.add_member("readers", "bob")
        page = (await world.owner.get("/api/admin")).json()
        assert page["grants"] == [
            {"username": "wsadmin", "group": None, "workspace": "team", "prefix": "",
             "access": "write"},
            {"username": "bob", "group": None, "workspace": "team", "prefix": "",
             "access": "read"},
            {"username": None, "group": "readers", "workspace": "team", "prefix": "open",
             "access": "read"},
        ]  # fmt: skip
        assert page["groups"] == [{"name": "readers", "members": ["bob"]}]
        bob = next(user for user in page["users"] if user["username"] == "bob")
        assert (bob["role"], bob["disabled"], bob["hasPassword"]) == ("collaborator", False, True)


async def test_the_servers_own_token_may_use_the_admin_api(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        await _people(world)
        for path, body in CHANGES:
            answer = await world.owner.post(path, json=body)
            assert answer.status_code == 200, (path, answer.text)


async def test_a_collaborator_gets_403_on_every_admin_route(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        await _people(world)
        bob = world.members["bob"]
        browser = await world.browser("bob")
        for client in (bob.api, browser):
            assert _error(await client.get("/api/admin")) == (403, "AccessDenied")
            for path, body in CHANGES:
                assert _error(await client.post(path, json=body)) == (403, "AccessDenied"), path
        assert [u.username for u in await world.team.accounts.list()] == ["bob", "boss", "wsadmin"]


async def test_every_admin_route_is_in_the_change_table_or_the_overview(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        served = {
            (method, path)
            for method, path, _ in route_table(world.app.routes)
            if path.startswith("/api/admin")
        }
        assert served == {("GET", "/api/admin")} | {("POST", path) for path, _ in CHANGES}


async def test_every_multi_mode_route_is_documented(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        document = openapi_document(world.app.routes)
        documented = {
            (method.upper(), path)
            for path, operations in document["paths"].items()
            for method in operations
        }
        served = {(m, p) for m, p, _ in route_table(world.app.routes) if p.startswith("/api/")}
        assert served - documented == set()


async def test_a_workspace_admin_manages_grants_of_its_workspace_only(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        await _people(world)
        await world.team.grants.grant("bob", "elsewhere", access="read")
        browser = await world.browser("wsadmin")
        page = (await browser.get("/api/admin")).json()
        assert page["everything"] is False
        assert page["workspaces"][0]["manageable"] is True
        assert {grant["workspace"] for grant in page["grants"]} == {"team"}
        given = await browser.post(
            "/api/admin/grants",
            json={"username": "bob", "workspace": "team", "prefix": "secret", "access": "write"},
        )
        assert given.status_code == 200, given.text
        grouped = await browser.post(
            "/api/admin/grants", json={"group": "readers", "workspace": "team", "access": "read"}
        )
        assert grouped.status_code == 200, grouped.text
        revoked = await browser.post(
            "/api/admin/grants/revoke", json={"username": "bob", "workspace": "team"}
        )
        assert revoked.status_code == 200, revoked.text
        elsewhere = await browser.post(
            "/api/admin/grants/revoke", json={"username": "bob", "workspace": "elsewhere"}
        )
        assert _error(elsewhere) == (403, "AccessDenied")
        for path, body in CHANGES:
            if "/grants" not in path:
                assert _error(await browser.post(path, json=body)) == (403, "AccessDenied"), path


async def test_an_admin_without_a_whole_workspace_write_grant_manages_nothing(
    tmp_path: Path,
) -> None:
    async with team_world(tmp_path) as world:
        await _people(world)
        await world.account(
            "half", role="admin", grants=[("team", "open", "write"), ("team", "", "read")]
        )
        browser = await world.browser("half")
        page = (await browser.get("/api/admin")).json()
        assert page["grants"] == []
        assert page["workspaces"][0]["manageable"] is False
        refused = await browser.post(
            "/api/admin/grants", json={"username": "bob", "workspace": "team", "access": "write"}
        )
        assert _error(refused) == (403, "AccessDenied")
        assert "write access to all of it" in refused.json()["error"]["message"]


async def test_a_group_grant_of_the_whole_workspace_makes_an_admin_its_manager(
    tmp_path: Path,
) -> None:
    async with team_world(tmp_path) as world:
        await _people(world)
        await world.account("lead", role="admin")
        await world.team.grants.grant_group("readers", "team", access="write")
        await world.team.grants.add_member("readers", "lead")
        browser = await world.browser("lead")
        given = await browser.post(
            "/api/admin/grants", json={"username": "bob", "workspace": "team", "access": "write"}
        )
        assert given.status_code == 200, given.text


async def test_only_a_superadmins_token_may_change_anything(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        await _people(world)
        wsadmin = world.members["wsadmin"]
        assert (await wsadmin.api.get("/api/admin")).status_code == 200
        refused = await wsadmin.api.post(
            "/api/admin/grants", json={"username": "bob", "workspace": "team", "access": "write"}
        )
        assert _error(refused) == (403, "BrowserLoginNeeded")
        boss = world.members["boss"]
        done = await boss.api.post(
            "/api/admin/grants", json={"username": "bob", "workspace": "team", "access": "write"}
        )
        assert done.status_code == 200, done.text


async def test_nobody_changes_their_own_account_on_the_admin_page(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        await _people(world)
        await world.account("other", role="superadmin")
        boss = world.members["boss"]
        for path, body in [
            ("/api/admin/users/role", {"username": "BOSS", "role": "collaborator"}),
            ("/api/admin/users/disable", {"username": "boss", "disabled": True}),
            ("/api/admin/users/delete", {"username": "boss"}),
            ("/api/admin/users/password", {"username": "boss", "password": OTHER_PASSWORD}),
        ]:
            answer = await boss.api.post(path, json=body)
            assert (answer.status_code, answer.json()["error"]["argument"]) == (400, "username")
        assert (await boss.api.get("/api/admin")).status_code == 200


async def test_the_last_superadmin_keeps_its_role(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        await _people(world)
        demoted = await world.owner.post(
            "/api/admin/users/role", json={"username": "boss", "role": "admin"}
        )
        assert demoted.status_code == 400
        assert "last enabled superadmin" in demoted.json()["error"]["message"]


async def test_grants_name_a_served_workspace_and_one_subject(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        await _people(world)
        cases: list[tuple[dict[str, Any], str]] = [
            ({"username": "bob", "workspace": "nope", "access": "read"}, "workspace"),
            ({"username": "bob", "workspace": "team", "prefix": "../x", "access": "read"},
             "prefix"),
            ({"workspace": "team", "access": "read"}, "username"),
            ({"username": "bob", "group": "readers", "workspace": "team", "access": "read"},
             "username"),
            ({"username": "bob", "workspace": "team", "access": "admin"}, "access"),
            ({"username": "ghost", "workspace": "team", "access": "read"}, ""),
        ]  # fmt: skip
        for body, argument in cases:
            answer = await world.owner.post("/api/admin/grants", json=body)
            assert answer.status_code in (400, 404), (body, answer.text)
            assert answer.json()["error"].get("argument", "") == argument, body


async def test_a_revoked_grant_closes_the_members_open_socket_at_once(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        await _people(world)
        bob = world.members["bob"]
        browser = await world.browser("boss")
        async with (
            live_server(world.app) as port,
            connect(
                f"ws://127.0.0.1:{port}/ws/events",
                additional_headers={"Authorization": f"Bearer {bob.token}"},
            ) as socket,
        ):
            revoked = await browser.post(
                "/api/admin/grants/revoke", json={"username": "bob", "workspace": "team"}
            )
            assert revoked.status_code == 200, revoked.text
            assert await _close_code(socket) == 4403


async def test_a_disabled_account_is_closed_out_and_a_reset_password_signs_in(
    tmp_path: Path,
) -> None:
    async with team_world(tmp_path) as world:
        await _people(world)
        bob_browser = await world.browser("bob")
        boss = await world.browser("boss")
        reset = await boss.post(
            "/api/admin/users/password", json={"username": "bob", "password": OTHER_PASSWORD}
        )
        assert reset.status_code == 200
        assert (await bob_browser.get("/api/account")).status_code == 401
        await world.browser("bob", OTHER_PASSWORD)
        disabled = await boss.post(
            "/api/admin/users/disable", json={"username": "bob", "disabled": True}
        )
        assert next(u for u in disabled.json()["users"] if u["username"] == "bob")["disabled"]
        assert (await world.members["bob"].api.get("/api/account")).status_code == 401
        with pytest.raises(AssertionError):
            await world.browser("bob", OTHER_PASSWORD)
        await boss.post("/api/admin/users/disable", json={"username": "bob", "disabled": False})
        assert (await world.members["bob"].api.get("/api/account")).status_code == 200


async def test_an_account_without_a_password_cannot_sign_in(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        await _people(world)
        added = await world.owner.post(
            "/api/admin/users", json={"username": "ci-bot", "role": "collaborator"}
        )
        bot = next(u for u in added.json()["users"] if u["username"] == "ci-bot")
        assert bot["hasPassword"] is False
        with pytest.raises(AssertionError):
            await world.browser("ci-bot", PASSWORD)
        weak = await world.owner.post(
            "/api/admin/users", json={"username": "dave", "password": "dave"}
        )
        assert (weak.status_code, weak.json()["error"]["argument"]) == (400, "password")


async def test_every_multi_mode_json_route_refuses_deeply_nested_json(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        await _people(world)
        browser = await world.browser("boss")
        paths = {op.path for op in OPERATIONS if op.multi and op.body is not None}
        assert paths
        for path in sorted(paths):
            answer = await browser.post(
                path,
                content="[" * 5000 + "]" * 5000,
                headers={"Content-Type": "application/json"},
            )
            assert answer.status_code == 400, (path, answer.text)
            assert "at most 64 levels" in answer.json()["error"]["message"]


async def test_every_admin_change_works_on_each_database(tmp_path: Path, database_url: str) -> None:
    async with team_world(tmp_path, db_url=database_url) as world:
        await _people(world)
        await world.team.grants.grant_group("readers", "team", "open", access="read")
        browser = await world.browser("boss")
        for path, body in CHANGES:
            answer = await browser.post(path, json=body)
            assert answer.status_code == 200, (path, answer.text)
        page = (await browser.get("/api/admin")).json()
        assert [group["name"] for group in page["groups"]] == ["writers"]
        assert all(grant["group"] != "readers" for grant in page["grants"])


def _admin_with(*grants: Grant, role: Role = "admin") -> Actor:
    return Actor(Identity("acct-1", "lead", role), True, grants)


@pytest.mark.parametrize(
    ("grants", "served", "managed"),
    [
        ((Grant("team", (), "write"),), ("team", "other"), ("team",)),
        ((Grant("team", (), "read"),), ("team",), ()),
        ((Grant("team", ("notes",), "write"),), ("team",), ()),
        ((Grant("Team", (), "write"),), ("team",), ()),
        ((Grant("team-old", (), "write"),), ("team",), ()),
        ((Grant("cafe\u0301", (), "write"),), ("caf\u00e9",), ("caf\u00e9",)),
        ((Grant("caf\u00e9", (), "write"),), ("cafe\u0301",), ("cafe\u0301",)),
        ((), ("team",), ()),
    ],
)
def test_a_workspace_admin_manages_only_workspaces_it_may_write_whole(
    grants: tuple[Grant, ...], served: tuple[str, ...], managed: tuple[str, ...]
) -> None:
    assert administered(_admin_with(*grants), served) == managed


def test_a_collaborator_manages_nothing_and_a_superadmin_everything() -> None:
    whole = Grant("team", (), "write")
    assert administered(_admin_with(whole, role="collaborator"), ("team",)) == ()
    assert administered(_admin_with(role="superadmin"), ("team", "b")) == ("team", "b")
    assert administered(Actor(None, False), ("team",)) == ("team",)
