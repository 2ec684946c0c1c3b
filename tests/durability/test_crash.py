"""kill -9 a real ``quire serve`` during bursts of saves, chat posts and edits from several
clients; restart: no corrupt file, no acknowledged write lost, no temp file left.

In the last round no one saves: its acknowledged edits live only in the journal (a kill lands
while edits are in flight), so the restart must bring each of them back, once."""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from quire.fs.temp_names import is_temp_name
from tests.durability.harness import Server, call

pytestmark = [pytest.mark.slow]

ROUNDS = 3
BURST_S = 1.5
CLIENTS = 3


@dataclass
class Acked:
    """What the server acknowledged (answered 200) before it was killed."""

    posts: set[str] = field(default_factory=set)
    edits: set[str] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)


def poster(server: Server, chat: Path, tag: str, stop: threading.Event, acked: Acked) -> None:
    with server.client() as client:
        k = 0
        while not stop.is_set():
            key = f"{tag}-m{k}"
            body = {"path": str(chat), "as": tag, "body": f"{key} " + "x" * 4000}
            try:
                answer = call(client, "/api/chats/post", body)
            except httpx.HTTPError:
                return
            if answer.status_code == 200:
                with acked.lock:
                    acked.posts.add(key)
            k += 1


def editor(server: Server, note: Path, tag: str, stop: threading.Event, acked: Acked) -> None:
    # One editor saves every third edit, but not in the last round: its edits stay unsaved.
    saves = tag.endswith("c0") and not tag.startswith(f"r{ROUNDS - 1}c")
    with server.client() as client:
        k = 0
        while not stop.is_set():
            mark = f"e-{tag}-{k}"
            body = {"find": "# Note\n", "replace": f"# Note\n{mark}\n", "path": str(note)}
            try:
                answer = call(client, "/api/documents/edit", {**body, "save": saves and k % 3 == 0})
            except httpx.HTTPError:
                return
            if answer.status_code == 200:
                with acked.lock:
                    acked.edits.add(mark)
            k += 1


def burst_then_kill(server: Server, note: Path, chat: Path, round_: int, acked: Acked) -> None:
    with server.client() as client:
        assert call(client, "/api/documents/open", {"path": str(note)}).status_code == 200
    stop = threading.Event()
    threads = [
        threading.Thread(target=work, args=(server, target, f"r{round_}c{n}", stop, acked))
        for n in range(CLIENTS)
        for work, target in ((poster, chat), (editor, note))
    ]
    for thread in threads:
        thread.start()
    time.sleep(BURST_S)
    server.kill()
    stop.set()
    for thread in threads:
        thread.join(timeout=30)


def test_kill_9_during_bursts_loses_no_acknowledged_write(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    note = workspace / "note.md"
    note.write_text("# Note\n\n")
    chat = workspace / "talk.md"
    server = Server(workspace, tmp_path / "state")
    server.start()
    acked = Acked()
    try:
        with server.client() as client:
            assert call(client, "/api/chats", {"path": str(chat)}).status_code == 200
        for round_ in range(ROUNDS):
            burst_then_kill(server, note, chat, round_, acked)
            server.start()
        on_disk = note.read_text(encoding="utf-8")
        with server.client() as client:
            assert call(client, "/api/documents/open", {"path": str(note)}).status_code == 200
            live = client.get("/api/documents/current").json()
            text = str(live.get("content", live.get("text", "")))
            assert call(client, "/api/documents/save", {"path": str(note)}).status_code == 200
        chat_text = chat.read_text(encoding="utf-8")  # UTF-8 throughout: not torn
        posted = re.findall(r"^(r\d+c\d+-m\d+) x", chat_text, re.MULTILINE)
        assert acked.posts and acked.posts <= set(posted), sorted(acked.posts - set(posted))[:5]
        assert len(posted) == len(set(posted)), "a post was written twice"
        found = re.findall(r"^(e-r\d+c\d+-\d+)$", text, re.MULTILINE)
        marks = set(found)
        assert acked.edits and acked.edits <= marks, sorted(acked.edits - marks)[:5]
        assert len(found) == len(marks), "an edit was applied twice"
        unsaved = {mark for mark in acked.edits if mark.startswith(f"e-r{ROUNDS - 1}c")}
        assert unsaved, "no edit was acknowledged in the last round: the journal was not tested"
        assert not unsaved & set(re.findall(r"^(e-r\d+c\d+-\d+)$", on_disk, re.M))
        assert note.read_text(encoding="utf-8") == text
        assert [p for p in workspace.rglob(".*") if is_temp_name(p.name)] == []
    finally:
        server.stop()
