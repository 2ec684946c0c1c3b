"""A chat service over a real database and workspace, with the world's fake clock and timer.

``ChatWorld`` adds to ``World`` the chat service and helpers to write chat notes; the file
watcher runs only when the test asks (``watch=True``), since most tests do not need it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import anyio

from quire.core.views import OWNER
from quire.db.engine import Database
from quire.services.chat.chats import ChatService
from tests.support.chat_notes import with_message
from tests.support.world import FakeClock, World, open_world

HEAD = "---\nquire-chat: true\ntitle: Team\n---\n\nCoordination for the release.\n"
STAMP = "2026-10-02T14:03:05Z"


@dataclass
class ChatWorld:
    """The world of one test: its services and the chat service over them."""

    world: World
    chats: ChatService

    @property
    def workspace(self) -> Path:
        return self.world.workspace

    def write_chat(
        self, name: str = "Chats/team.md", messages: int = 0, author: str = "ann"
    ) -> Path:
        """Write a chat note with ``messages`` messages by ``author`` (bodies ``m1``…)."""
        text = HEAD
        for number in range(1, messages + 1):
            text = with_message(text, author, STAMP, f"m{number}")
        return self.world.write(name, text)

    def held(self) -> anyio.Event:
        """Make the wait timer never fire (a post has to end a wait) and return the event set
        the moment the next wait starts sleeping."""
        self.world.sleep.hold = True
        self.world.sleep.sleeping = anyio.Event()
        return self.world.sleep.sleeping

    async def post(self, path: Path, author: str, body: str) -> int:
        """Post a message and return its number."""
        posted = await self.chats.post(OWNER, path, author, body)
        assert posted.kind == "message" and posted.number is not None
        return posted.number


@asynccontextmanager
async def open_chat_world(
    db: Database, workspace: Path, *, clock: FakeClock | None = None, watch: bool = False
) -> AsyncIterator[ChatWorld]:
    """The chat service over ``db`` serving ``workspace`` (watching files when ``watch``)."""
    async with open_world(db, workspace, clock=clock) as world, AsyncExitStack() as stack:
        chats = ChatService(
            world.db,
            world.bus,
            world.documents,
            world.workspaces,
            clock=world.clock,
            sleep=world.sleep,
        )
        if watch:
            await stack.enter_async_context(chats)
        yield ChatWorld(world, chats)
