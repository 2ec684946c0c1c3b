"""kill -9 a real ``quire serve`` during bursts of saves, chat posts and edits from several
clients; restart: no corrupt file, no acknowledged write lost, no temp file left."""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path

import httpx
import pytest

from quire.fs.temp_names import is_temp_name
from tests.durability.harness import Server, call

pytestmark = [pytest.mark.slow]

ROUNDS = 3
BURST_S = 1.5
CLIENTS = 3


def test_kill_9_during_bursts_loses_no_acknowledged_write(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    note = workspace / "note.md"
    note.write_text("# Note\n\n")
    chat = workspace / "talk.md"
    server = Server(workspace, tmp_path / "state")
    server.start()
    with server.client() as client:
        assert call(client, "/api/chats", {"path": str(chat)}).status_code == 200
    acked_posts: set[str] = set()
    acked_edits: set[str] = set()
    lock = threading.Lock()
    try:
        for round_ in range(ROUNDS):
            with server.client() as client:
                assert call(client, "/api/documents/open", {"path": str(note)}).status_code == 200
            stop = threading.Event()

            def poster(n: int) -> None:
                with server.client() as client:
                    k = 0
                    while not stop.is_set():
                        body = f"r{round_}-c{n}-m{k} " + "x" * 4000
                        try:
                            answer = call(
                                client,
                                "/api/chats/post",
                                {"path": str(chat), "as": f"a{n}", "body": body},
                            )
                        except httpx.HTTPError:
                            return
                        if answer.status_code == 200:
                            with lock:
                                acked_posts.add(body.split()[0])
                        k += 1

            def editor(n: int) -> None:
                with server.client() as client:
                    k = 0
                    while not stop.is_set():
                        mark = f"e-r{round_}-c{n}-{k}"
                        body = {
                            "find": "# Note\n",
                            "replace": f"# Note\n{mark}\n",
                            "path": str(note),
                            "save": k % 3 == 0,
                        }
                        try:
                            answer = call(client, "/api/documents/edit", body)
                        except httpx.HTTPError:
                            return
                        if answer.status_code == 200:
                            with lock:
                                acked_edits.add(mark)
                        k += 1

            threads = [threading.Thread(target=poster, args=(n,)) for n in range(CLIENTS)]
            threads += [threading.Thread(target=editor, args=(n,)) for n in range(CLIENTS)]
            for thread in threads:
                thread.start()
            time.sleep(BURST_S)
            server.kill()
            stop.set()
            for thread in threads:
                thread.join(timeout=30)
            server.start()
        with server.client() as client:
            assert call(client, "/api/documents/open", {"path": str(note)}).status_code == 200
            live = client.get("/api/documents/current").json()
            text = str(live.get("content", live.get("text", "")))
            assert call(client, "/api/documents/save", {"path": str(note)}).status_code == 200
        chat_text = chat.read_text(encoding="utf-8")  # UTF-8 throughout: not torn
        posted = set(re.findall(r"(r\d+-c\d+-m\d+) x", chat_text))
        assert acked_posts and acked_posts <= posted, sorted(acked_posts - posted)[:5]
        for body in posted:
            assert chat_text.count(f"{body} x") == 1, body
        marks = set(re.findall(r"^(e-r\d+-c\d+-\d+)$", text, re.MULTILINE))
        assert acked_edits and acked_edits <= marks, sorted(acked_edits - marks)[:5]
        assert note.read_text(encoding="utf-8") == text
        left = [p for p in workspace.rglob(".*") if is_temp_name(p.name)]
        assert left == []
        print(
            f"acknowledged {len(acked_posts)} posts and {len(acked_edits)} edits over {ROUNDS} kills"
        )
    finally:
        server.stop()
