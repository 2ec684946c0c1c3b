"""The Yjs sync WebSocket over a real uvicorn server: editors and agents editing one document
at once, awareness between editors, unknown documents, bad messages, and restarts."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from types import SimpleNamespace

import anyio
import anyio.lowlevel
import pytest
import uvicorn
from pycrdt import (
    Awareness,
    Doc,
    Provider,
    Text,
    YMessageType,
    create_awareness_message,
    create_update_message,
    read_message,
)
from starlette.applications import Starlette
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from bench.yjs_client import WebSocketChannel
from quire.db.engine import Database
from quire.fs.folders import AllowedFolders
from quire.services.events import EventBus
from quire.services.live.document import CONTENT, LiveDocument
from quire.services.live.documents import LiveDocuments
from quire.web import sync
from tests.support.ytext import until

pytestmark = pytest.mark.anyio

HEADER = "# Tasks\n\n"
TASKS = 50


def clock() -> int:
    return 1_700_000_000_000


@pytest.fixture
def note(tmp_path: Path) -> Path:
    path = (tmp_path / "tasks.md").resolve()
    path.write_text(HEADER + "".join(f"- task {i:03}\n" for i in range(TASKS)), encoding="utf-8")
    return path


@pytest.fixture
async def documents(database: Database) -> AsyncIterator[LiveDocuments]:
    async with LiveDocuments(
        database, EventBus(), folders=AllowedFolders.whole_disk(), clock=clock
    ) as live:
        yield live


@asynccontextmanager
async def serving(documents: LiveDocuments) -> AsyncIterator[str]:
    """A uvicorn server on a free loopback port with only the sync route; yields its ws URL."""
    app = Starlette(routes=sync.routes)
    app.state.services = SimpleNamespace(documents=documents)
    config = uvicorn.Config(
        app, host="127.0.0.1", port=0, lifespan="off", log_config=None, log_level="warning"
    )
    server = uvicorn.Server(config)
    async with anyio.create_task_group() as group:
        group.start_soon(server.serve)
        with anyio.fail_after(10):
            while not server.started:  # noqa: ASYNC110 - uvicorn has no event for it
                await anyio.sleep(0.005)
        port = server.servers[0].sockets[0].getsockname()[1]
        try:
            yield f"ws://127.0.0.1:{port}"
        finally:
            server.should_exit = True


@pytest.fixture
async def base_url(documents: LiveDocuments) -> AsyncIterator[str]:
    async with serving(documents) as url:
        yield url


@asynccontextmanager
async def editor(url: str, doc: Doc[Text] | None = None) -> AsyncIterator[Doc[Text]]:
    """A browser's editor: a Yjs document kept in sync over the WebSocket."""
    ydoc: Doc[Text] = Doc() if doc is None else doc
    async with (
        connect(url, max_size=None) as websocket,
        Provider(ydoc, WebSocketChannel(websocket, url)) as provider,
    ):
        with anyio.fail_after(10):
            await provider.synced.wait()
        yield ydoc


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def text_of(ydoc: Doc[Text]) -> str:
    return str(ydoc.get(CONTENT, type=Text))


async def test_an_editor_receives_the_document_when_it_connects(
    documents: LiveDocuments, base_url: str, note: Path
) -> None:
    live = await documents.open(note)
    async with editor(f"{base_url}/ws/documents/{live.doc_id}") as ydoc:
        assert text_of(ydoc) == live.text()
    assert not documents.is_dirty(live.doc_id)


async def test_an_agent_edit_reaches_every_connected_editor(
    documents: LiveDocuments, base_url: str, note: Path
) -> None:
    live = await documents.open(note)
    url = f"{base_url}/ws/documents/{live.doc_id}"
    async with editor(url) as first, editor(url) as second:
        await documents.replace_unique(live.doc_id, "- task 007", "- [x] task 007", author="a")
        for ydoc in (first, second):
            await until(ydoc, lambda text: "[x] task 007" in text)
            assert text_of(ydoc) == live.text()


async def test_two_editors_typing_while_agents_edit_converge_on_everything(
    documents: LiveDocuments, base_url: str, note: Path
) -> None:
    live = await documents.open(note)
    url = f"{base_url}/ws/documents/{live.doc_id}"
    keystrokes = 40

    async def type_at_start(ydoc: Doc[Text], name: str) -> None:
        text = ydoc.get(CONTENT, type=Text)
        for i in range(keystrokes):
            text.insert(0, f"<{name}{i}>")
            await anyio.lowlevel.checkpoint()

    async def type_at_end(ydoc: Doc[Text], name: str) -> None:
        text = ydoc.get(CONTENT, type=Text)
        for i in range(keystrokes):
            text.insert(len(text), f"<{name}{i}>")
            await anyio.lowlevel.checkpoint()

    async def agent(i: int) -> None:
        await documents.replace_unique(
            live.doc_id, f"- task {i:03}\n", f"- [x] task {i:03}\n", author=f"agent-{i % 3}"
        )

    def complete(text: str) -> bool:
        return (
            all(f"<{name}{i}>" in text for name in "ab" for i in range(keystrokes))
            and all(f"- [x] task {i:03}\n" in text for i in range(TASKS))
            and "- task" not in text
        )

    async with editor(url) as first, editor(url) as second:
        async with anyio.create_task_group() as group:
            group.start_soon(type_at_start, first, "a")
            group.start_soon(type_at_end, second, "b")
            for i in range(TASKS):
                group.start_soon(agent, i)
        await until(first, complete)
        await until(second, complete)
        await until(first, lambda text: text == text_of(second) == live.text())
    assert HEADER in live.text()
    assert documents.is_dirty(live.doc_id)


async def test_keystrokes_are_stored_and_survive_a_restart_without_doubling(
    database: Database, note: Path
) -> None:
    file_text = read(note)
    first = LiveDocuments(database, EventBus(), folders=AllowedFolders.whole_disk(), clock=clock)
    live = await first.open(note)
    ydoc: Doc[Text] = Doc()
    async with serving(first) as url:
        async with editor(f"{url}/ws/documents/{live.doc_id}", ydoc):
            ydoc.get(CONTENT, type=Text).insert(0, "typed first\n")
            await until(live.ydoc, lambda text: text.startswith("typed first\n"))
        with anyio.fail_after(10):
            while live.connections:  # noqa: ASYNC110 - the socket's end has no event
                await anyio.sleep(0.005)
    await first.close()

    second = LiveDocuments(database, EventBus(), folders=AllowedFolders.whole_disk(), clock=clock)
    # The editor reconnects with the document it kept; the server reopens the buffer.
    async with serving(second) as url, editor(f"{url}/ws/documents/{live.doc_id}", ydoc):
        restored = second.get(live.doc_id)
        assert restored is not None
        assert text_of(ydoc) == restored.text() == "typed first\n" + file_text
    await second.close()


async def test_an_unknown_document_is_closed_with_4404(base_url: str) -> None:
    async with connect(f"{base_url}/ws/documents/0123456789abcdef01234567") as websocket:
        with pytest.raises(ConnectionClosed) as caught:
            await websocket.recv()
    assert caught.value.rcvd is not None
    assert caught.value.rcvd.code == 4404
    assert "open the document first" in caught.value.rcvd.reason


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        (b"\x00\x02\x05\x01\x02", 1007),  # an update that is not one
        (b"\x00", 1007),  # a sync message without its type
        ("text frame", 1007),
    ],
)
async def test_a_malformed_message_closes_only_that_editor(
    documents: LiveDocuments, base_url: str, note: Path, frame: bytes | str, code: int
) -> None:
    live = await documents.open(note)
    url = f"{base_url}/ws/documents/{live.doc_id}"
    async with editor(url) as healthy:
        async with connect(url) as websocket:
            await websocket.send(frame)
            with pytest.raises(ConnectionClosed) as caught:
                while True:
                    await websocket.recv()
        assert caught.value.rcvd is not None
        assert caught.value.rcvd.code == code
        await documents.replace_unique(live.doc_id, "- task 001", "- task one", author="a")
        await until(healthy, lambda text: "task one" in text)
    assert live.text() == text_of(healthy)


async def next_awareness(websocket: ClientConnection) -> dict[int, object]:
    """The states in the next awareness message (sync messages are skipped)."""
    with anyio.fail_after(10):
        while True:
            message = await websocket.recv()
            assert isinstance(message, bytes)
            if message[0] == YMessageType.AWARENESS:
                remote = Awareness(Doc())
                own = remote.client_id
                remote.apply_awareness_update(read_message(message[1:]), "test")
                seen: dict[int, object] = {}
                for client_id in remote.meta:
                    if client_id != own:
                        seen[client_id] = remote.states.get(client_id)
                return seen


async def test_awareness_reaches_other_editors_and_leaves_with_its_editor(
    documents: LiveDocuments, base_url: str, note: Path
) -> None:
    live: LiveDocument = await documents.open(note)
    url = f"{base_url}/ws/documents/{live.doc_id}"
    ada_doc: Doc[Text] = Doc(client_id=4242)
    ada = Awareness(ada_doc)
    ada.set_local_state({"user": {"name": "Ada", "color": "#f00"}})
    async with connect(url) as watcher:
        async with connect(url) as sender:
            await sender.send(
                create_awareness_message(ada.encode_awareness_update([ada_doc.client_id]))
            )
            assert await next_awareness(watcher) == {
                4242: {"user": {"name": "Ada", "color": "#f00"}}
            }
        assert await next_awareness(watcher) == {4242: None}
    assert live.awareness.states == {}


async def test_a_late_editor_is_told_who_is_already_there(
    documents: LiveDocuments, base_url: str, note: Path
) -> None:
    live = await documents.open(note)
    url = f"{base_url}/ws/documents/{live.doc_id}"
    ada_doc: Doc[Text] = Doc(client_id=77)
    ada = Awareness(ada_doc)
    ada.set_local_state({"user": {"name": "Ada"}})
    async with connect(url) as sender:
        await sender.send(create_awareness_message(ada.encode_awareness_update([77])))
        assert await next_awareness(sender) == {77: {"user": {"name": "Ada"}}}
        async with connect(url) as late:
            assert await next_awareness(late) == {77: {"user": {"name": "Ada"}}}


async def test_an_editors_own_update_is_not_sent_back_to_it(
    documents: LiveDocuments, base_url: str, note: Path
) -> None:
    live = await documents.open(note)
    url = f"{base_url}/ws/documents/{live.doc_id}"
    local: Doc[Text] = Doc()
    local.apply_update(live.ydoc.get_update())
    state = local.get_state()
    local.get(CONTENT, type=Text).insert(0, "mine ")
    async with connect(url) as websocket:
        await websocket.send(create_update_message(local.get_update(state)))
        await until(live.ydoc, lambda text: text.startswith("mine "))
        await documents.replace_unique(live.doc_id, "- task 000", "- agent 000", author="a")
        kinds = []
        with anyio.fail_after(10):
            while True:
                message = await websocket.recv()
                assert isinstance(message, bytes)
                kinds.append(message[:2])
                if message[:2] == b"\x00\x02":
                    break
    # The sync step 1 on connect, then the agent's update only: "mine " never came back.
    assert kinds == [b"\x00\x00", b"\x00\x02"]
