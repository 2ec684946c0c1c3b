"""Multi mode's grants on history: a note's log, a version, a diff, blame and the timeline need
read access (a hidden note is not found), a restore needs write access, and commits naming a
hidden path are left out."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import pytest

import tests.support.team
from quire.settings.model import Settings
from tests.support.team import Member, TeamWorld, team_world

pytestmark = pytest.mark.anyio

GRANTS = [("team", "open", "write"), ("team", "docs", "read")]


@asynccontextmanager
async def recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[tuple[TeamWorld, Member, dict[str, str]]]:
    """A team server keeping history, where the owner made: open/plan.md, docs/readme.md,
    secret/keys.md (twice), and moved secret/old.md to open/old.md. ``revs``: the commit of
    each note's first version (``old.md``: the one made in secret/)."""
    monkeypatch.setattr(
        tests.support.team, "Settings", partial(Settings, history=True, history_window_s=0.0)
    )
    async with team_world(tmp_path, notes={"welcome.md": "# Welcome\n"}) as world:
        ws = world.workspace
        for path, text in (
            ("open/plan.md", "# Plan\n"),
            ("docs/readme.md", "# Readme\n"),
            ("secret/keys.md", "# Keys\n\nhunter2\n"),
            ("secret/old.md", "# Old\n\nhunter3\n"),
        ):
            made = await world.owner.post(
                "/api/files/note", json={"path": str(ws / path), "content": text}
            )
            assert made.status_code == 200, made.text
        await settle(world)
        revs = {
            name: (await history(world.owner, ws / path))["entries"][-1]["commit"]
            for name, path in (
                ("plan.md", "open/plan.md"),
                ("keys.md", "secret/keys.md"),
                ("old.md", "secret/old.md"),
            )
        }
        await world.owner.post(
            "/api/files/append", json={"path": str(ws / "secret/keys.md"), "content": "more\n"}
        )
        moved = await world.owner.post(
            "/api/files/move",
            json={"path": str(ws / "secret/old.md"), "to": str(ws / "open/old.md")},
        )
        assert moved.status_code == 200, moved.text
        await settle(world)
        yield world, await world.account("alice", grants=GRANTS), revs


async def settle(world: TeamWorld) -> None:
    assert world.services.history is not None
    with anyio.fail_after(20):
        await world.services.history.recorder.settled()


async def history(client: Any, path: Path) -> dict[str, Any]:
    reply = await client.get("/api/history", params={"path": str(path)})
    assert reply.status_code == 200, reply.text
    data: dict[str, Any] = reply.json()
    return data


def message(reply: Any, status: int) -> str:
    assert reply.status_code == status, reply.text
    text: str = reply.json()["error"]["message"]
    return text


async def test_the_history_of_a_hidden_note_is_not_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with recorded(tmp_path, monkeypatch) as (world, alice, revs):
        ws = world.workspace
        keys, nothing = ws / "secret/keys.md", ws / "secret/nothing.md"
        rev = revs["keys.md"]
        for url, params in (
            ("/api/history", {}),
            ("/api/history/version", {"rev": rev}),
            ("/api/history/diff", {"from": rev}),
            ("/api/history/blame", {}),
        ):
            hidden = await alice.api.get(url, params={"path": str(keys), **params})
            absent = await alice.api.get(url, params={"path": str(nothing), **params})
            assert message(hidden, 404).replace(str(keys), "P") == message(absent, 404).replace(
                str(nothing), "P"
            ), url
            assert "hunter2" not in hidden.text
            sneaky = await alice.api.get(
                url, params={"path": f"{ws}/open/../secret/keys.md", **params}
            )
            assert message(sneaky, 404), url
        restore = await alice.api.post("/api/history/restore", json={"path": str(keys), "rev": rev})
        assert message(restore, 404)
        owner = await history(world.owner, keys)
        assert len(owner["entries"]) == 2


async def test_reading_history_needs_read_and_restoring_needs_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with recorded(tmp_path, monkeypatch) as (world, alice, revs):
        ws = world.workspace
        readme = await history(alice.api, ws / "docs/readme.md")
        rev = readme["entries"][0]["commit"]
        version = await alice.api.get(
            "/api/history/version", params={"path": str(ws / "docs/readme.md"), "rev": rev}
        )
        assert version.status_code == 200 and version.json()["content"] == "# Readme\n"
        blame = await alice.api.get(
            "/api/history/blame", params={"path": str(ws / "docs/readme.md")}
        )
        assert blame.status_code == 200
        refused = await alice.api.post(
            "/api/history/restore", json={"path": str(ws / "docs/readme.md"), "rev": rev}
        )
        assert "read-only" in message(refused, 403)
        restored = await alice.api.post(
            "/api/history/restore", json={"path": str(ws / "open/plan.md"), "rev": revs["plan.md"]}
        )
        assert restored.status_code == 200, restored.text


async def test_commits_from_before_a_move_out_of_a_hidden_folder_stay_hidden(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with recorded(tmp_path, monkeypatch) as (world, alice, revs):
        ws = world.workspace
        owner = await history(world.owner, ws / "open/old.md")
        assert len(owner["entries"]) >= 2
        mine = await history(alice.api, ws / "open/old.md")
        for entry in mine["entries"]:
            assert "secret" not in entry.get("path", "") + entry.get("oldPath", "")
            assert "secret" not in entry["message"]
        earlier = await alice.api.get(
            "/api/history/version", params={"path": str(ws / "open/old.md"), "rev": revs["old.md"]}
        )
        assert "hunter3" not in earlier.text
        assert message(earlier, 404)
        seen = await world.owner.get(
            "/api/history/version", params={"path": str(ws / "open/old.md"), "rev": revs["old.md"]}
        )
        assert seen.status_code == 200 and "hunter3" in seen.json()["content"]


async def test_the_timeline_shows_only_commits_of_readable_notes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with recorded(tmp_path, monkeypatch) as (world, alice, _revs):
        everything = (await world.owner.get("/api/history/timeline")).json()["entries"]
        assert any("secret" in (entry.get("path") or "") for entry in everything)
        pages: list[dict[str, Any]] = []
        cursor: str | None = None
        for _ in range(10):
            params = {"limit": 1} | ({"cursor": cursor} if cursor else {})
            reply = await alice.api.get("/api/history/timeline", params=params)
            assert reply.status_code == 200, reply.text
            pages += reply.json()["entries"]
            cursor = reply.json().get("nextCursor")
            if cursor is None:
                break
        assert pages, "the readable notes' commits are shown"
        for entry in pages:
            assert "secret" not in (entry.get("path") or "") + (entry.get("oldPath") or "")
            assert "secret" not in entry["message"]
        shown = {Path(entry["path"]).name for entry in pages}
        assert shown == {"plan.md", "readme.md"}
