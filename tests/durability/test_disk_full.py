"""A full disk, for the state folder (SQLite) and for the workspace, through a real server.

Every answer says what was applied: 200 applied, 507 "not applied"/"not posted"/"not saved";
after space returns, each change an answer refused is retried once, and the file and the live
text hold each change exactly once (nothing doubled, nothing lost), also after a restart.
"""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from tests.durability.harness import Server, call, fill, tmpfs

pytestmark = [pytest.mark.slow]

SLOTS = 40


def note_text() -> str:
    return "# Slots\n\n" + "".join(f"- [slot-{i}]\n" for i in range(SLOTS))


def open_note(client: httpx.Client, note: Path) -> str:
    answer = call(client, "/api/documents/open", {"path": str(note)})
    assert answer.status_code == 200, answer.text
    return str(answer.json()["docId"])


def live_text(client: httpx.Client, note: Path) -> str:
    answer = client.get("/api/documents/current")
    assert answer.status_code == 200, answer.text
    data = answer.json()
    return str(data.get("content", data.get("text", "")))


def edit(client: httpx.Client, note: Path, i: int, *, save: bool = False) -> httpx.Response:
    body = {"find": f"[slot-{i}]\n", "replace": f"[slot-{i}]+\n", "path": str(note), "save": save}
    return call(client, "/api/documents/edit", body)


def judge(answer: httpx.Response, refused_words: str) -> bool:
    """True when the answer says the change was applied; False when it says it was not."""
    if answer.status_code == 200:
        return True
    assert answer.status_code == 507, answer.text
    error = answer.json()["error"]
    assert error["type"] == "StorageFull", error
    assert refused_words in error["message"], error["message"]
    return False


def assert_each_once(text: str, applied: set[int]) -> None:
    for i in range(SLOTS):
        marks = re.findall(rf"\[slot-{i}\](\+*)\n", text)
        assert marks == ["+" if i in applied else ""], (i, marks)


def test_a_full_state_folder_never_applies_an_edit_it_refused(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    note = workspace / "slots.md"
    note.write_text(note_text())
    with tmpfs(tmp_path / "state", "16m") as state:
        server = Server(workspace, state)
        server.start()
        try:
            with server.client() as client:
                open_note(client, note)
                filler = fill(state)
                applied = {i for i in range(SLOTS) if judge(edit(client, note, i), "not applied")}
                assert len(applied) < SLOTS, (
                    "the full disk refused no edit: the test proves nothing"
                )
                assert_each_once(live_text(client, note), applied)
                filler.unlink()
                # The retrying agent: each refused edit once more, now that there is space.
                for i in sorted(set(range(SLOTS)) - applied):
                    assert judge(edit(client, note, i), "not applied")
                assert_each_once(live_text(client, note), set(range(SLOTS)))
            server.kill()
            server.start()
            with server.client() as client:
                open_note(client, note)
                assert_each_once(live_text(client, note), set(range(SLOTS)))
        finally:
            server.stop()


def test_a_full_workspace_refuses_posts_and_saves_truthfully(tmp_path: Path) -> None:
    state = tmp_path / "state"
    with tmpfs(tmp_path / "ws", "4m") as workspace:
        note = workspace / "slots.md"
        note.write_text(note_text())
        server = Server(workspace, state)
        server.start()
        try:
            with server.client() as client:
                chat = workspace / "talk.md"
                created = call(client, "/api/chats", {"path": str(chat)})
                assert created.status_code == 200, created.text
                open_note(client, note)
                filler = fill(workspace)
                posted = set()
                for i in range(SLOTS):
                    body = {"path": str(chat), "as": "agent", "body": f"message {i} " + "x" * 2000}
                    if judge(call(client, "/api/chats/post", body), "not posted"):
                        posted.add(i)
                saved = {
                    i for i in range(SLOTS) if judge(edit(client, note, i, save=True), "not saved")
                }
                assert len(posted) < SLOTS and len(saved) < SLOTS
                # Every refused save still applied its edit to the live document (it said so).
                assert_each_once(live_text(client, note), set(range(SLOTS)))
                filler.unlink()
                for i in sorted(set(range(SLOTS)) - posted):
                    body = {"path": str(chat), "as": "agent", "body": f"message {i} " + "x" * 2000}
                    assert judge(call(client, "/api/chats/post", body), "not posted")
                assert judge(call(client, "/api/documents/save", {"path": str(note)}), "not saved")
            text = chat.read_text()
            for i in range(SLOTS):
                assert len(re.findall(rf"message {i} x", text)) == 1, i
            assert_each_once(note.read_text(), set(range(SLOTS)))
            assert not [p.name for p in workspace.iterdir() if p.name.endswith(".tmp")]
        finally:
            server.stop()
