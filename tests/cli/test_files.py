"""``quire new|mv|cp|rm|append|trash`` as real processes against a real server: what each
prints, what changed on disk, and the documented exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from quire.cli.files import EXIT_MISSING, EXIT_TAKEN
from tests.cli.chat_world import PROGRAM, ChatWorld, Ran, chat_world, cli_environ

pytestmark = pytest.mark.anyio


async def quire(world: ChatWorld, *args: str, stdin: bytes | None = None) -> Ran:
    done = await anyio.run_process(
        [*PROGRAM, *args],
        input=stdin,
        cwd=world.workspace,
        env=world.environ(),
        check=False,
    )
    return Ran(done.returncode, done.stdout.decode(), done.stderr.decode())


async def test_new_from_stdin_append_move_copy_and_the_trash(tmp_path: Path) -> None:
    async with chat_world(tmp_path) as world:
        ws = world.workspace.resolve()
        made = await quire(world, "new", "Notes/Plan", "-", stdin=b"# Plan\n")
        assert (made.code, made.stdout, made.stderr) == (
            0,
            f"Created the note {ws}/Notes/Plan.md.\n",
            "",
        )
        assert (ws / "Notes/Plan.md").read_text(encoding="utf-8") == "# Plan\n"

        appended = await quire(world, "append", "Notes/Plan.md", "-", "--json", stdin=b"- item")
        assert appended.code == 0, appended.stderr
        assert json.loads(appended.stdout) == {"path": f"{ws}/Notes/Plan.md", "live": False}
        assert (ws / "Notes/Plan.md").read_text(encoding="utf-8") == "# Plan\n- item"

        templated = await quire(world, "new", "Other.md", "--template", "Notes/Plan.md")
        assert templated.code == 0, templated.stderr
        assert (ws / "Other.md").read_text(encoding="utf-8") == "# Plan\n- item"

        taken = await quire(world, "new", "Other.md", "x")
        assert taken.code == EXIT_TAKEN and taken.stderr.startswith("quire: ")
        assert (ws / "Other.md").read_text(encoding="utf-8") == "# Plan\n- item"

        folder = await quire(world, "new", "Archive", "--folder", "--json")
        assert json.loads(folder.stdout) == {"path": f"{ws}/Archive", "kind": "folder"}

        moved = await quire(world, "mv", "Other.md", "Archive", "--json")
        assert moved.code == 0, moved.stderr
        assert json.loads(moved.stdout) == {
            "path": f"{ws}/Other.md",
            "to": f"{ws}/Archive/Other.md",
            "is_folder": False,
            "documents_followed": 0,
            "links_updated": [],
        }
        over = await quire(world, "mv", "Notes/Plan.md", "Archive/Other.md")
        assert over.code == EXIT_TAKEN, over.stderr
        assert (ws / "Notes/Plan.md").exists()

        copied = await quire(world, "cp", "Notes", "Copy")
        assert copied.code == 0, copied.stderr
        assert copied.stdout == f"Copied {ws}/Notes to {ws}/Copy.\n"
        assert (ws / "Copy/Plan.md").read_text(encoding="utf-8") == "# Plan\n- item"

        removed = await quire(world, "rm", "Copy", "--json")
        assert removed.code == 0, removed.stderr
        entry = json.loads(removed.stdout)["trash_id"]
        assert not (ws / "Copy").exists()
        missing = await quire(world, "rm", "Copy")
        assert missing.code == EXIT_MISSING, missing.stderr

        listed = await quire(world, "trash", "list", "--json")
        items = json.loads(listed.stdout)["items"]
        assert [(item["id"], item["path"], item["is_folder"]) for item in items] == [
            (entry, f"{ws}/Copy", True)
        ]
        text = await quire(world, "trash", "list")
        assert text.stdout.startswith(f"{entry}  {ws}/Copy/  deleted ")

        restored = await quire(world, "trash", "restore", entry)
        assert (restored.code, restored.stdout) == (0, f"Restored {ws}/Copy.\n")
        assert (ws / "Copy/Plan.md").exists()
        gone = await quire(world, "trash", "restore", entry)
        assert gone.code == EXIT_MISSING, gone.stderr

        assert (await quire(world, "rm", "Copy/Plan.md")).code == 0
        emptied = await quire(world, "trash", "empty", "--json")
        assert json.loads(emptied.stdout) == {"removed": 1}
        assert (await quire(world, "trash", "list")).stdout == "The trash is empty.\n"


async def test_rm_of_a_link_trashes_the_link_not_its_target(tmp_path: Path) -> None:
    async with chat_world(tmp_path) as world:
        ws = world.workspace.resolve()
        (ws / "real.md").write_text("kept\n", encoding="utf-8")
        (ws / "link.md").symlink_to(ws / "real.md")
        ran = await quire(world, "rm", "link.md")
        assert (ws / "real.md").read_text(encoding="utf-8") == "kept\n"
        assert ran.code == 0, ran.stderr
        assert not (ws / "link.md").is_symlink()


async def test_paths_outside_the_workspaces_are_refused_before_any_call(tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("mine\n", encoding="utf-8")
    async with chat_world(tmp_path) as world:
        for args in (["rm", str(outside)], ["mv", str(outside), "x.md"], ["new", "../../x"]):
            ran = await quire(world, *args)
            assert ran.code == 1, (args, ran)
            assert "is not inside a workspace of the Quire server" in ran.stderr
        assert outside.read_text(encoding="utf-8") == "mine\n"


async def test_without_a_server_the_command_says_how_to_start_one(tmp_path: Path) -> None:
    done = await anyio.run_process(
        [*PROGRAM, "new", "x.md"], cwd=tmp_path, env=cli_environ(tmp_path / "state"), check=False
    )
    assert done.returncode == 1
    assert "No Quire server is running" in done.stderr.decode()
    assert not (tmp_path / "x.md").exists()
