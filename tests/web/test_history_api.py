"""History through the HTTP API of an in-process app over a real git repository: commits per
author, the user's own git work left alone, versions, diffs, blame, restore and bad input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from quire.core.views import OWNER
from quire.services.app import AppServices
from quire.settings.model import Settings
from tests.support.git_repo import log, make_repo, user_git
from tests.web.conftest import AUTH, PORT

pytestmark = pytest.mark.anyio

PLAN = "# Plan\n\n- one\n"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """A workspace that is a git repository already (so history is on by default)."""
    workspace = make_repo(tmp_path / "workspace", {"plan.md": PLAN, "other.md": "other\n"})
    return Settings(
        workspaces=(workspace.resolve(),),
        state_dir=tmp_path / "state",
        port=PORT,
        history_window_s=0.0,
    )


def as_agent(name: str) -> dict[str, str]:
    return {**AUTH, "X-Quire-Agent": name}


async def settled(services: AppServices) -> None:
    assert services.history is not None
    with anyio.fail_after(20):
        await services.history.recorder.settled()


async def call(
    client: httpx.AsyncClient,
    method: str,
    url: str,
    *,
    agent: str | None = None,
    status: int = 200,
    **kwargs: Any,
) -> Any:
    headers = AUTH if agent is None else as_agent(agent)
    response = await client.request(method, url, headers=headers, **kwargs)
    assert response.status_code == status, response.text
    return response.json()


async def save_as(client: httpx.AsyncClient, path: Path, content: str, agent: str) -> None:
    await call(client, "POST", "/api/documents/open", agent=agent, json={"path": str(path)})
    await call(
        client,
        "POST",
        "/api/documents/set-content",
        agent=agent,
        json={"path": str(path), "content": content, "save": True},
    )


async def test_each_agents_save_is_a_commit_of_that_note_by_that_agent(
    client: httpx.AsyncClient, services: AppServices, settings: Settings
) -> None:
    workspace = settings.workspaces[0]
    await save_as(client, workspace / "plan.md", PLAN + "- two\n", "claude-code")
    await save_as(client, workspace / "other.md", "other, changed\n", "codex")
    await settled(services)
    assert log(workspace) == [
        "codex (via owner)|Edit by codex",
        "claude-code (via owner)|Edit by claude-code",
        "Test User|start",
    ]
    assert user_git(workspace, "show", "HEAD~1:plan.md") == PLAN + "- two\n"
    assert user_git(workspace, "status", "--porcelain") == ""
    page = await call(client, "GET", "/api/history", params={"path": str(workspace / "plan.md")})
    assert [(item["agent"], item["account"], item["message"]) for item in page["entries"][:1]] == [
        ("claude-code", "owner", "Edit by claude-code")
    ]
    assert page["entries"][-1]["message"] == "start"
    assert "agent" not in page["entries"][-1]
    timeline = await call(client, "GET", "/api/history/timeline", params={"agent": "codex"})
    assert [item["message"] for item in timeline["entries"]] == ["Edit by codex"]


async def test_commit_authors_get_e_mails_quire_made_for_the_person_and_the_agent(
    client: httpx.AsyncClient, services: AppServices, settings: Settings
) -> None:
    workspace = settings.workspaces[0]
    # The person's own save (a browser's; here straight through the live documents).
    live = await services.documents.open(workspace / "plan.md")
    await services.documents.set_content(live.doc_id, "by the person\n", author=OWNER, save=True)
    await settled(services)
    await save_as(client, workspace / "other.md", "by an agent\n", "Claude Code")
    await settled(services)
    assert user_git(workspace, "log", "-2", "--format=%an <%ae>|%cn <%ce>").splitlines() == [
        "Claude Code (via owner) <claude-code.via.owner@agents.quire.invalid>"
        "|Claude Code (via owner) <claude-code.via.owner@agents.quire.invalid>",
        "owner <owner@quire.invalid>|owner <owner@quire.invalid>",
    ]
    page = await call(client, "GET", "/api/history", params={"path": str(workspace / "other.md")})
    assert page["entries"][0]["email"] == "claude-code.via.owner@agents.quire.invalid"


async def test_the_users_staged_and_unstaged_work_survives_a_save(
    client: httpx.AsyncClient, services: AppServices, settings: Settings
) -> None:
    workspace = settings.workspaces[0]
    (workspace / "other.md").write_text("staged by me\n", encoding="utf-8")
    user_git(workspace, "add", "other.md")
    (workspace / "other.md").write_text("staged by me, then more\n", encoding="utf-8")
    await save_as(client, workspace / "plan.md", PLAN + "- saved\n", "claude-code")
    await settled(services)
    assert user_git(workspace, "status", "--porcelain").splitlines() == ["MM other.md"]
    assert user_git(workspace, "show", ":other.md") == "staged by me\n"
    assert user_git(workspace, "show", "HEAD:other.md") == "other\n"


async def test_an_external_commit_while_the_note_is_open_is_kept_and_built_upon(
    client: httpx.AsyncClient, services: AppServices, settings: Settings
) -> None:
    workspace = settings.workspaces[0]
    plan = workspace / "plan.md"
    opened = await call(client, "POST", "/api/documents/open", json={"path": str(plan)})
    live = services.documents.get(opened["docId"])
    assert live is not None
    updates = [anyio.Event()]
    live.ydoc.observe(lambda _event: updates[-1].set())
    wanted = PLAN + "- from my editor\n"
    plan.write_text(wanted, encoding="utf-8")
    user_git(workspace, "commit", "-qam", "my own commit")
    with anyio.fail_after(20):
        while live.text() != wanted:  # until the watcher reloaded the open document
            await updates[-1].wait()
            updates.append(anyio.Event())
    await call(
        client,
        "POST",
        "/api/documents/edit",
        agent="claude-code",
        json={"find": "- one", "replace": "- uno", "save": True},
    )
    await settled(services)
    assert log(workspace)[:2] == [
        "claude-code (via owner)|Edit by claude-code",
        "Test User|my own commit",
    ]
    assert user_git(workspace, "show", "HEAD:plan.md") == "# Plan\n\n- uno\n- from my editor\n"


async def test_restore_brings_back_the_bytes_of_a_version_as_its_own_commit(
    client: httpx.AsyncClient, services: AppServices, settings: Settings
) -> None:
    workspace = settings.workspaces[0]
    plan = workspace / "plan.md"
    odd = "# Plän  \n\n\ttabbed — ünïcode ✓\n\nno final newline  "
    await save_as(client, plan, odd, "claude-code")
    await settled(services)
    first = (await call(client, "GET", "/api/history", params={"path": str(plan)}))["entries"][0]
    await save_as(client, plan, "something else entirely\n", "codex")
    await settled(services)
    version = await call(
        client, "GET", "/api/history/version", params={"path": str(plan), "rev": first["short"]}
    )
    assert version["content"] == odd and version["size"] == len(odd.encode())
    restored = await call(
        client, "POST", "/api/history/restore", agent="codex",
        json={"path": str(plan), "rev": first["commit"]},
    )  # fmt: skip
    assert plan.read_bytes() == odd.encode("utf-8")
    assert user_git(workspace, "rev-parse", "HEAD").strip() == restored["commit"]
    assert log(workspace, "-1") == [f"codex (via owner)|Restore to {first['short']}"]
    assert user_git(workspace, "cat-file", "blob", "HEAD:plan.md").encode() == odd.encode()
    diff = await call(
        client, "GET", "/api/history/diff",
        params={"path": str(plan), "from": first["commit"], "to": "HEAD~1"},
    )  # fmt: skip
    assert "+something else entirely" in diff["diff"] and diff["added"] == 1
    blame = await call(client, "GET", "/api/history/blame", params={"path": str(plan)})
    assert {line["agent"] for line in blame["lines"]} == {"codex"}
    assert [line["text"] for line in blame["lines"]] == odd.split("\n")


async def test_renames_and_deletes_are_recorded_as_such_and_history_follows(
    client: httpx.AsyncClient, services: AppServices, settings: Settings
) -> None:
    workspace = settings.workspaces[0]
    moved = workspace / "notes" / "renamed.md"
    (workspace / "notes").mkdir()
    await call(
        client, "POST", "/api/files/move", agent="claude-code",
        json={"path": str(workspace / "plan.md"), "to": str(moved)},
    )  # fmt: skip
    await call(client, "POST", "/api/files/delete", json={"path": str(workspace / "other.md")})
    await settled(services)
    assert log(workspace)[:2] == [
        "agent (via owner)|Delete other.md",
        "claude-code (via owner)|Rename plan.md → notes/renamed.md",
    ]
    assert user_git(workspace, "status", "--porcelain") == ""
    page = await call(client, "GET", "/api/history", params={"path": str(moved)})
    assert [(item["status"], item["message"]) for item in page["entries"]] == [
        ("R", "Rename plan.md → notes/renamed.md"),
        ("A", "start"),
    ]
    old = await call(
        client, "GET", "/api/history/version", params={"path": str(moved), "rev": "HEAD~2"}
    )
    assert old["content"] == PLAN


async def test_pages_of_history_follow_their_cursor(
    client: httpx.AsyncClient, services: AppServices, settings: Settings
) -> None:
    plan = settings.workspaces[0] / "plan.md"
    for number in range(5):
        await save_as(client, plan, f"v{number}\n", f"agent-{number % 2}")
        await settled(services)
    seen: list[str] = []
    cursor: str | None = None
    while True:
        params: dict[str, Any] = {"path": str(plan), "limit": 2}
        if cursor is not None:
            params["cursor"] = cursor
        page = await call(client, "GET", "/api/history", params=params)
        seen.extend(item["message"] for item in page["entries"])
        cursor = page.get("nextCursor")
        if cursor is None:
            break
    assert seen == [f"Edit by agent-{n % 2}" for n in reversed(range(5))] + ["start"]


AUTHORS = (
    "ann", "joann", "bot (via ann)", "joann", "bot (via joann)", "joann", "ann", "a.n (via ann)",
    "ann (via joann)", "joann", "joann", "joann",
)  # fmt: skip
"""Authors of commits, oldest first: names that hold another ("ann" in "joann") and an agent
whose name is a regular expression for another's ("a.n")."""


@pytest.mark.parametrize(
    ("params", "wanted"),
    [
        ({"author": "ann"}, ["a.n (via ann)", "ann", "bot (via ann)", "ann"]),
        ({"agent": "bot"}, ["bot (via joann)", "bot (via ann)"]),
        ({"agent": "a.n"}, ["a.n (via ann)"]),
        ({"agent": "ann"}, ["ann (via joann)"]),
        ({"agent": "bot", "author": "ann"}, ["bot (via ann)"]),
    ],
)
async def test_the_timeline_filters_by_whole_names_and_fills_every_page(
    client: httpx.AsyncClient, settings: Settings, params: dict[str, str], wanted: list[str]
) -> None:
    workspace = settings.workspaces[0]
    for number, name in enumerate(AUTHORS):
        email = f"user.email={name.split()[0]}@example.invalid"
        user_git(workspace, "-c", f"user.name={name}", "-c", email, "commit", "-q",
                 "--allow-empty", "-m", f"commit {number}")  # fmt: skip
    seen: list[list[str]] = []
    cursor: str | None = None
    while True:
        query: dict[str, Any] = {**params, "limit": 2}
        if cursor is not None:
            query["cursor"] = cursor
        page = await call(client, "GET", "/api/history/timeline", params=query)
        seen.append([item["author"] for item in page["entries"]])
        cursor = page.get("nextCursor")
        if cursor is None:
            break
    assert seen == [wanted[start : start + 2] for start in range(0, len(wanted), 2)]


@pytest.mark.parametrize(
    ("url", "params", "argument"),
    [
        ("/api/history", {}, "path"),
        ("/api/history", {"path": "plan.md"}, "path"),
        ("/api/history", {"path": "/elsewhere/plan.md"}, "path"),
        ("/api/history", {"path": "WS/plan.md", "limit": "0"}, "limit"),
        ("/api/history", {"path": "WS/plan.md", "limit": "201"}, "limit"),
        ("/api/history", {"path": "WS/plan.md", "cursor": "-1"}, "cursor"),
        ("/api/history", {"path": "WS/plan.md", "cursor": "abc"}, "cursor"),
        ("/api/history", {"path": "WS/plan.md", "bogus": "1"}, "bogus"),
        ("/api/history/version", {"path": "WS/plan.md", "rev": "--output=/tmp/x"}, "rev"),
        ("/api/history/version", {"path": "WS/plan.md", "rev": "HEAD:plan.md"}, "rev"),
        ("/api/history/version", {"path": "WS/plan.md", "rev": "main@{1}"}, "rev"),
        ("/api/history/version", {"path": "WS/plan.md", "rev": "HEAD..HEAD~1"}, "rev"),
        ("/api/history/version", {"path": "WS/plan.md"}, "rev"),
        ("/api/history/diff", {"path": "WS/plan.md", "from": "-p"}, "rev"),
        ("/api/history/blame", {"path": "WS/plan.md", "rev": " HEAD"}, "rev"),
    ],
)
async def test_bad_arguments_are_refused_with_the_argument_named(
    client: httpx.AsyncClient, settings: Settings, url: str, params: dict[str, str], argument: str
) -> None:
    fixed = {key: value.replace("WS", str(settings.workspaces[0])) for key, value in params.items()}
    body = await call(client, "GET", url, params=fixed, status=400)
    assert body["error"]["argument"] == argument, body


@pytest.mark.parametrize("name", [".git/config", "secret.txt", ".env", "notes/.hidden.md"])
async def test_only_notes_history_is_shown(
    client: httpx.AsyncClient, settings: Settings, name: str
) -> None:
    workspace = settings.workspaces[0]
    (workspace / name).parent.mkdir(parents=True, exist_ok=True)
    if not (workspace / name).exists():
        (workspace / name).write_text("token=hunter2\n", encoding="utf-8")
        user_git(workspace, "add", "-f", name)
        user_git(workspace, "commit", "-qm", "secret")
    params = {"path": str(workspace / name), "rev": "HEAD"}
    body = await call(client, "GET", "/api/history/version", params=params, status=400)
    assert "hunter2" not in str(body)


@pytest.mark.parametrize(
    ("url", "params"),
    [
        ("/api/history/version", {"path": "WS/plan.md", "rev": "deadbeef"}),
        ("/api/history/version", {"path": "WS/gone.md", "rev": "HEAD"}),
    ],
)
async def test_a_version_that_is_not_there_is_missing(
    client: httpx.AsyncClient, settings: Settings, url: str, params: dict[str, str]
) -> None:
    fixed = {key: value.replace("WS", str(settings.workspaces[0])) for key, value in params.items()}
    body = await call(client, "GET", url, params=fixed, status=404)
    assert "history" in body["error"]["message"]


async def test_a_checkout_while_the_note_is_open_reloads_it_and_history_follows_head(
    client: httpx.AsyncClient, services: AppServices, settings: Settings
) -> None:
    workspace = settings.workspaces[0]
    plan = workspace / "plan.md"
    user_git(workspace, "checkout", "-q", "-b", "other")
    plan.write_text("# Plan on the other branch\n", encoding="utf-8")
    user_git(workspace, "commit", "-qam", "other branch")
    user_git(workspace, "checkout", "-q", "main")
    opened = await call(client, "POST", "/api/documents/open", json={"path": str(plan)})
    live = services.documents.get(opened["docId"])
    assert live is not None and live.text() == PLAN
    updates = [anyio.Event()]
    live.ydoc.observe(lambda _event: updates[-1].set())
    user_git(workspace, "checkout", "-q", "other")
    with anyio.fail_after(20):
        while live.text() != "# Plan on the other branch\n":  # the watcher's reload
            await updates[-1].wait()
            updates.append(anyio.Event())
    await call(
        client, "POST", "/api/documents/edit", agent="claude-code",
        json={"find": "other branch", "replace": "other branch, edited", "save": True},
    )  # fmt: skip
    await settled(services)
    assert log(workspace, "-2") == [
        "claude-code (via owner)|Edit by claude-code",
        "Test User|other branch",
    ]
    assert log(workspace, "-1", "main") == ["Test User|start"]
    assert user_git(workspace, "status", "--porcelain") == ""
