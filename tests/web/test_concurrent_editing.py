"""Two people typing in their browsers while agents send 200 find/replace edits through the API
of a real ``quire serve``: every edit and every keystroke ends up in one text, everywhere, on
SQLite and on PostgreSQL."""

from __future__ import annotations

import random
from pathlib import Path

import anyio
import httpx
import pytest

from bench.server import quire_serve
from bench.yjs_client import YjsBrowser, yjs_browser
from quire.services.live.versions import version_of

pytestmark = pytest.mark.anyio

LINES = 200
KEYSTROKES = 50
IN_FLIGHT = 8
EDITS_PER_KEYSTROKE = LINES // KEYSTROKES
TYPED_BEFORE = 100
"""The first browser types at the start of this line, the first of its own half."""


def slot(number: int, word: str) -> str:
    return f"slot-{number:03}: {word}"


def keystroke(browser: str, number: int) -> str:
    return f"[{browser}{number:02}]"


def typed(browser: str) -> str:
    return "".join(keystroke(browser, number) for number in range(KEYSTROKES))


class AgentProgress:
    """How many agent edits have been answered, and a way to wait for a number of them."""

    def __init__(self) -> None:
        self.done = 0
        self.in_flight = 0
        self.peak_in_flight = 0
        self._changed = anyio.Event()

    def started(self) -> None:
        self.in_flight += 1
        self.peak_in_flight = max(self.peak_in_flight, self.in_flight)

    def finished(self) -> None:
        self.in_flight -= 1
        self.done += 1
        self._changed.set()
        self._changed = anyio.Event()

    async def reached(self, count: int) -> None:
        while self.done < count:
            await self._changed.wait()


async def type_at_line_start(browser: YjsBrowser, progress: AgentProgress) -> None:
    """Type before the line TYPED_BEFORE, one keystroke per few agent edits answered."""
    for number in range(KEYSTROKES):
        await progress.reached(number * EDITS_PER_KEYSTROKE)
        text = browser.text
        browser.insert(text.index(f"slot-{TYPED_BEFORE:03}: "), keystroke("a", number))


async def type_at_end(browser: YjsBrowser, progress: AgentProgress) -> None:
    """Type at the end of the text, one keystroke per few agent edits answered."""
    for number in range(KEYSTROKES):
        await progress.reached(number * EDITS_PER_KEYSTROKE)
        browser.insert(len(browser.text), keystroke("b", number))


async def test_two_browsers_typing_while_agents_edit_converge_on_every_edit_and_keystroke(
    tmp_path: Path, database_url: str
) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    note = (workspace / "slots.md").resolve()
    original = "".join(f"{slot(number, 'old')}\n" for number in range(LINES))
    note.write_text(original, encoding="utf-8")
    expected = "".join(
        (typed("a") if number == TYPED_BEFORE else "") + f"{slot(number, 'new')}\n"
        for number in range(LINES)
    ) + typed("b")
    order = list(range(LINES))
    random.Random(3).shuffle(order)
    progress = AgentProgress()
    answers: dict[int, tuple[int, dict[str, object]]] = {}
    limiter = anyio.CapacityLimiter(IN_FLIGHT)

    async with (
        quire_serve(workspace, tmp_path / "state", tmp_path / "server.log", db_url=database_url)
        as server,
        httpx.AsyncClient(
            base_url=server.url,
            headers=server.auth,
            limits=httpx.Limits(max_connections=IN_FLIGHT),
            timeout=60,
        ) as client,
    ):  # fmt: skip

        async def agent(number: int) -> None:
            async with limiter:
                progress.started()
                response = await client.post(
                    "/api/documents/edit",
                    json={"find": slot(number, "old"), "replace": slot(number, "new")},
                )
                answers[number] = (response.status_code, response.json())
                progress.finished()

        opened = await client.post("/api/documents/open", json={"path": str(note)})
        assert opened.status_code == 200, opened.text
        doc_id = opened.json()["docId"]
        async with (
            yjs_browser(server.url, doc_id, server.token) as first,
            yjs_browser(server.url, doc_id, server.token) as second,
        ):
            assert first.text == second.text == original
            with anyio.fail_after(120):
                async with anyio.create_task_group() as group:
                    group.start_soon(type_at_line_start, first, progress)
                    group.start_soon(type_at_end, second, progress)
                    for number in order:
                        group.start_soon(agent, number)
                await first.until(lambda text: text == expected)
                await second.until(lambda text: text == expected)
        current = await client.get("/api/documents/current")

    assert {
        number: (status, {key: body[key] for key in ("ok", "replaced")})
        for number, (status, body) in answers.items()
    } == {number: (200, {"ok": True, "replaced": 1}) for number in range(LINES)}
    assert progress.peak_in_flight == IN_FLIGHT
    assert current.json() == {
        "path": str(note),
        "content": expected,
        "docId": doc_id,
        "dirty": True,
        "version": version_of(expected),
    }
    assert note.read_text(encoding="utf-8") == original
