"""Multi mode's grants on search: `/api/search` (every mode), `/api/titles` and `/api/backlinks`
answer an account only with the notes it may read, their pages and totals counting nothing
hidden, and `/api/search/reindex` is for the owner or a superadmin."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.support.team import Member, TeamWorld, team_world

pytestmark = pytest.mark.anyio

NOTES = {
    "welcome.md": "# Welcome\n\nSee [[plan]] and [[keys]].\n",
    "open/plan.md": "# Plan\n\nShip it. The shared word is lantern.\n",
    "docs/readme.md": "# Readme\n\nlantern #public\n",
    "secret/keys.md": "# Keys\n\nhunter2 lantern #public\n\nSee [[plan]].\n",
    "secret/more-keys.md": "# More keys\n\nhunter2\n",
}
GRANTS = [("team", "open", "write"), ("team", "docs", "read")]


@asynccontextmanager
async def searched(
    tmp_path: Path, notes: dict[str, str] | None = None
) -> AsyncIterator[tuple[TeamWorld, Member]]:
    async with team_world(tmp_path, notes=notes or NOTES) as world:
        search = world.services.search
        assert search is not None
        await search.built.wait()
        await search.catch_up()
        yield world, await world.account("alice", grants=GRANTS)


async def page(member: Member, **params: Any) -> dict[str, Any]:
    reply = await member.api.get("/api/search", params=params)
    assert reply.status_code == 200, reply.text
    data: dict[str, Any] = reply.json()
    return data


def names(data: dict[str, Any]) -> list[str]:
    return [hit["relPath"] for hit in data["hits"]]


async def test_a_word_only_a_secret_note_holds_finds_nothing(tmp_path: Path) -> None:
    async with searched(tmp_path) as (world, alice):
        for mode in ("grep", "words"):
            data = await page(alice, q="hunter2", mode=mode)
            assert data["hits"] == []
            assert data["truncated"] is False
            assert data.get("nextCursor") is None
            assert data["indexed"] == 2  # open/plan.md and docs/readme.md
            assert data.get("note") is None
            assert data["unreadable"] == []
            everyone = await world.owner.get("/api/search", params={"q": "hunter2", "mode": mode})
            assert len(everyone.json()["hits"]) == 2
            assert everyone.json()["indexed"] == 5


async def test_hits_are_only_the_notes_the_account_may_read(tmp_path: Path) -> None:
    async with searched(tmp_path) as (_world, alice):
        for mode in ("grep", "words", "semantic"):
            data = await page(alice, q="lantern", mode=mode)
            assert sorted(names(data)) == ["docs/readme.md", "open/plan.md"], mode
        # Meaning ranks every note it may read, and only those, whatever the words.
        data = await page(alice, q="hunter2 password", mode="semantic")
        assert sorted(names(data)) == ["docs/readme.md", "open/plan.md"]
        assert data["indexed"] == 2
        tagged = await page(alice, q="tag:public")
        assert names(tagged) == ["docs/readme.md"]


async def test_pages_count_only_visible_notes(tmp_path: Path) -> None:
    """Hidden notes between visible ones never make a page short or promise one more."""
    notes = {f"secret/s{i:02}.md": "needle\n" for i in range(12)}
    notes |= {f"archive/a{i:02}.md": "needle\n" for i in range(12)}
    notes |= {f"open/o{i}.md": "needle\n" for i in range(3)}
    async with searched(tmp_path, notes) as (_world, alice):
        for mode in ("grep", "words"):
            seen: list[str] = []
            cursor: str | None = None
            for _ in range(5):
                params: dict[str, Any] = {"q": "needle", "mode": mode, "limit": 2}
                if cursor is not None:
                    params["cursor"] = cursor
                data = await page(alice, **params)
                seen += names(data)
                cursor = data.get("nextCursor")
                assert data["truncated"] is (cursor is not None)
                if cursor is None:
                    break
            assert sorted(seen) == ["open/o0.md", "open/o1.md", "open/o2.md"], mode
        last = await page(alice, q="needle", limit=3)
        assert len(last["hits"]) == 3
        assert last["truncated"] is False


async def test_titles_leave_out_hidden_notes(tmp_path: Path) -> None:
    async with searched(tmp_path) as (world, alice):
        for q in ("keys", "", "k"):
            reply = await alice.api.get("/api/titles", params={"q": q})
            assert reply.status_code == 200, reply.text
            paths = [hit["relPath"] for hit in reply.json()["hits"]]
            assert not any(path.startswith("secret/") for path in paths), q
        every = await alice.api.get("/api/titles", params={"q": ""})
        assert sorted(hit["relPath"] for hit in every.json()["hits"]) == [
            "docs/readme.md",
            "open/plan.md",
        ]
        owner = await world.owner.get("/api/titles", params={"q": "keys"})
        assert "secret/keys.md" in [hit["relPath"] for hit in owner.json()["hits"]]


async def test_backlinks_name_only_readable_notes_and_none_of_a_hidden_one(
    tmp_path: Path,
) -> None:
    async with searched(tmp_path) as (world, alice):
        ws = world.workspace
        plan = await alice.api.get("/api/backlinks", params={"path": str(ws / "open/plan.md")})
        assert plan.status_code == 200
        assert plan.json()["links"] == []  # welcome.md is not granted; secret/keys.md hidden
        owner = await world.owner.get("/api/backlinks", params={"path": str(ws / "open/plan.md")})
        assert len(owner.json()["links"]) == 2
        hidden = await alice.api.get("/api/backlinks", params={"path": str(ws / "secret/keys.md")})
        missing = await alice.api.get("/api/backlinks", params={"path": str(ws / "secret/no.md")})
        assert hidden.status_code == missing.status_code == 200
        assert hidden.json()["links"] == missing.json()["links"] == []
        reader = await world.account("bob", grants=[("team", "", "read")])
        allowed = await reader.api.get(
            "/api/backlinks", params={"path": str(ws / "secret/keys.md")}
        )
        assert [Path(link["path"]).name for link in allowed.json()["links"]] == ["welcome.md"]


async def test_unreadable_files_are_named_only_when_readable(tmp_path: Path) -> None:
    async with team_world(tmp_path, notes=NOTES) as world:
        (world.workspace / "secret/latin.md").write_bytes(b"# Caf\xe9\n\nhunter2\n")
        search = world.services.search
        assert search is not None
        await search.built.wait()
        await search.catch_up()
        alice = await world.account("alice", grants=GRANTS)
        data = await page(alice, q="lantern")
        assert data["unreadable"] == []
        assert data.get("note") is None
        owner = (await world.owner.get("/api/search", params={"q": "lantern"})).json()
        assert [Path(item["path"]).name for item in owner["unreadable"]] == ["latin.md"]


async def test_only_the_owner_or_a_superadmin_may_rebuild_the_index(tmp_path: Path) -> None:
    async with searched(tmp_path) as (world, alice):
        refused = await alice.api.post("/api/search/reindex", json={})
        assert refused.status_code == 403
        assert "superadmin" in refused.json()["error"]["message"]
        admin = await world.account("root-admin", role="superadmin")
        rebuilt = await admin.api.post("/api/search/reindex", json={})
        assert rebuilt.status_code == 200, rebuilt.text
        assert rebuilt.json() == {"indexed": 0, "unreadable": 0}  # no grant: counts nothing
        owner = await world.owner.post("/api/search/reindex", json={})
        assert owner.status_code == 200
        assert owner.json()["indexed"] == 5


async def test_the_indexed_total_counts_each_granted_note_once(tmp_path: Path) -> None:
    """Overlapping grants count a note once; `open` covers neither `open-old/` nor `open.md`
    nor `Open/`."""
    notes = {
        "open/a.md": "x\n",
        "open/sub/b.md": "x\n",
        "open/sub/deeper/c.md": "x\n",
        "open-old/d.md": "x\n",
        "open.md": "x\n",
        "Open/e.md": "x\n",
        "secret/f.md": "x\n",
    }
    async with team_world(tmp_path, notes=notes) as world:
        search = world.services.search
        assert search is not None
        await search.built.wait()
        await search.catch_up()
        bob = await world.account(
            "bob",
            grants=[
                ("team", "open", "read"),
                ("team", "open/sub", "write"),
                ("team", "Open/e.md", "read"),
            ],
        )
        data = await page(bob, q="x")
        assert sorted(names(data)) == [
            "Open/e.md",
            "open/a.md",
            "open/sub/b.md",
            "open/sub/deeper/c.md",
        ]
        assert data["indexed"] == 4
