"""``quire history|show|restore`` as real processes against a real server over a real git
repository: what each prints, byte for byte, and the exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from quire.cli.files import EXIT_MISSING
from quire.cli.output import EXIT_FAILED
from tests.cli.chat_world import chat_world
from tests.cli.test_files import quire
from tests.support.git_repo import log, make_repo

pytestmark = pytest.mark.anyio

FIRST = "# Plan\n\n  spaced — ü ✓\nno newline at the end"


async def test_history_show_and_restore_round_trip_a_version(tmp_path: Path) -> None:
    make_repo(tmp_path / "ws", {"plan.md": FIRST})
    async with chat_world(tmp_path) as world:
        assert world.services.history is not None
        ws = world.workspace.resolve()
        appended = await quire(world, "append", "plan.md", "\n- later")
        assert appended.code == 0, appended.stderr
        with anyio.fail_after(20):
            await world.services.history.recorder.flush()

        listed = await quire(world, "history", "plan.md", "--json")
        assert listed.code == 0, listed.stderr
        entries = json.loads(listed.stdout)["entries"]
        assert [entry["message"] for entry in entries] == ["Edit by agent", "start"]
        first = entries[1]["short"]
        text = await quire(world, "history", "plan.md")
        assert text.stdout.splitlines()[1].startswith(f"{first}  ")
        assert text.stdout.splitlines()[1].endswith("  Test User  start")

        shown = await quire(world, "show", f"plan.md@{first}")
        assert (shown.code, shown.stdout.encode()) == (0, FIRST.encode())
        as_json = await quire(world, "show", f"plan.md@{first}", "--json")
        assert as_json.code == 0, as_json.stderr
        assert json.loads(as_json.stdout) == {
            "path": str(ws / "plan.md"),
            "rev": entries[1]["commit"],
            "content": FIRST,
            "size": len(FIRST.encode()),
        }

        restored = await quire(world, "restore", f"plan.md@{first}", "--json")
        assert restored.code == 0, restored.stderr
        answer = json.loads(restored.stdout)
        assert answer["path"] == str(ws / "plan.md") and answer["live"] is False
        assert (ws / "plan.md").read_bytes() == FIRST.encode()
        assert log(ws, "-1") == [f"agent (via owner)|Restore to {first}"]

        for bad in ("plan.md", "plan.md@", "@HEAD", "plan.md@--all", "plan.md@HEAD^"):
            refused = await quire(world, "show", bad)
            assert refused.code == EXIT_FAILED, (bad, refused)
            assert refused.stderr.startswith("quire: "), refused
            assert "PATH@REV" in refused.stderr or "`rev`" in refused.stderr, refused
        missing = await quire(world, "show", "plan.md@abcdef1")
        assert missing.code == EXIT_MISSING, missing


async def test_a_workspace_without_history_says_how_to_turn_it_on(tmp_path: Path) -> None:
    async with chat_world(tmp_path) as world:
        (world.workspace / "n.md").write_text("n\n", encoding="utf-8")
        refused = await quire(world, "history", "n.md")
        assert refused.code == EXIT_FAILED
        assert "history.enabled = true" in refused.stderr
