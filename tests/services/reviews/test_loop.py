"""Reviews: requests, waits that wake on a decision, timeouts, superseding, late verdicts,
resume checks, staleness, annotations, persistence and pruning."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest

from quire.core.errors import (
    InvalidArgument,
    PathRefused,
    ReviewNotFound,
    ReviewRefused,
)
from quire.core.views import OWNER, document_id
from quire.db.engine import Database
from quire.services.reviews.loop import TOPIC
from quire.services.reviews.results import (
    Ended,
    StillPending,
    WaitOutcome,
    file_annotations,
    wait_outcome,
)
from tests.support.signals import SentSignals
from tests.support.world import World, open_world


@pytest.fixture
async def world(database: Database, tmp_path: Path) -> AsyncIterator[World]:
    workspace = (tmp_path / "workspace").resolve()
    workspace.mkdir()
    async with open_world(database, workspace) as opened:
        yield opened


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def ended(outcome: WaitOutcome) -> Ended:
    assert isinstance(outcome, Ended), outcome
    return outcome


@pytest.mark.anyio
async def test_a_review_of_a_path_opens_it_in_read_view_and_hashes_its_live_text(
    world: World,
) -> None:
    path = world.write("plan.md", "# Plan\n\nstep one\n")
    await world.windows.open(OWNER, path, "edit")
    await world.documents.replace_unique(document_id(path), "one", "two", author="agent")
    review = await world.reviews.request(OWNER, path=path, timeout_ms=60_000)
    assert review.status == "pending"
    assert review.path == str(path)
    assert review.content is None
    assert review.content_hash == sha("# Plan\n\nstep two\n")
    assert review.deadline_ms == world.clock.now + 60_000
    assert review.requested_by == OWNER
    state = await world.windows.state(OWNER)
    assert state.active == document_id(path)
    assert state.view == "read"
    assert world.bus.of_kind("review")[-1]["action"] == "new"
    assert await world.reviews.active(OWNER) == review


@pytest.mark.anyio
async def test_a_review_of_inline_content_leaves_the_window_alone(world: World) -> None:
    review = await world.reviews.request(
        OWNER, content="Approve this plan?", requested_by=" claude "
    )
    assert review.content == "Approve this plan?"
    assert review.path is None
    assert review.content_hash == sha("Approve this plan?")
    assert review.timeout_ms == 300_000
    assert review.requested_by == "claude"
    assert (await world.windows.state(OWNER)).tabs == ()


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("arguments", "argument", "words"),
    [
        ({}, "content", "Pass either `path`"),
        ({"content": "x", "path": "a.md"}, "path", "not both"),
        ({"content": ""}, "content", "must not be empty or only whitespace"),
        ({"content": " \n\t\u3000"}, "content", "must not be empty or only whitespace"),
        ({"content": "a\0b"}, "content", "NUL"),
        ({"content": "a\ud800b"}, "content", "unpaired surrogate"),
        ({"content": "x", "timeout_ms": 4_999}, "timeout_ms", "from 5,000 to 600,000"),
        ({"content": "x", "timeout_ms": 600_001}, "timeout_ms", "from 5,000 to 600,000"),
        ({"content": "x", "timeout_ms": True}, "timeout_ms", "whole number"),
        ({"content": "x", "timeout_ms": 5_000.0}, "timeout_ms", "whole number"),
        ({"content": "x", "timeout_ms": "5000"}, "timeout_ms", "whole number"),
        ({"content": "x", "requested_by": "  "}, "requested_by", "1 to 200 characters"),
        ({"content": "x", "requested_by": "n" * 201}, "requested_by", "1 to 200 characters"),
    ],
)
async def test_a_bad_request_is_refused_naming_the_argument_and_registers_nothing(
    world: World, arguments: dict[str, object], argument: str, words: str
) -> None:
    arguments = dict(arguments)
    if "path" in arguments:
        arguments["path"] = world.write("a.md")
    with pytest.raises(InvalidArgument, match=words) as caught:
        await world.reviews.request(OWNER, **arguments)  # type: ignore[arg-type]
    assert caught.value.argument == argument
    assert await world.reviews.active(OWNER) is None
    assert world.bus.of_kind("review") == []


@pytest.mark.anyio
async def test_a_file_the_window_cannot_open_registers_no_review(world: World) -> None:
    other = world.write("notes.txt", "text")
    with pytest.raises(PathRefused, match="Refusing to review"):
        await world.reviews.request(OWNER, path=other)
    assert await world.reviews.active(OWNER) is None


@pytest.mark.anyio
async def test_a_wait_returns_the_moment_the_person_decides(world: World) -> None:
    review = await world.reviews.request(OWNER, content="Ship it?")
    world.sleep.hold = True
    outcomes: list[WaitOutcome] = []

    async def waiter() -> None:
        outcomes.append(await world.reviews.wait(OWNER, review.id, 600_000))

    with anyio.fail_after(10):
        async with anyio.create_task_group() as group:
            group.start_soon(waiter)
            await world.sleep.sleeping.wait()
            assert outcomes == []
            await world.reviews.decide(OWNER, review.id, "changes_requested", "Add tests.")
    result = ended(outcomes[0])
    assert result.verdict == "changes_requested"
    assert wait_outcome(result).dump() == {
        "verdict": "changes_requested",
        "reviewId": review.id,
        "comments": "Add tests.",
    }


@pytest.mark.anyio
async def test_a_wait_ends_pending_when_wait_ms_runs_out(world: World) -> None:
    review = await world.reviews.request(OWNER, content="Ship it?", timeout_ms=600_000)
    start = world.clock.now
    outcome = await world.reviews.wait(OWNER, review.id, 1_000)
    assert outcome == StillPending(review.id)
    assert world.clock.now - start == 1_000
    assert wait_outcome(outcome).dump() == {"status": "pending", "reviewId": review.id}
    assert (await world.reviews.get(OWNER, review.id)).status == "pending"


@pytest.mark.anyio
async def test_a_wait_uses_fifty_seconds_by_default(world: World) -> None:
    review = await world.reviews.request(OWNER, content="Ship it?")
    assert await world.reviews.wait(OWNER, review.id) == StillPending(review.id)
    assert world.sleep.calls == [50.0]


@pytest.mark.anyio
async def test_a_review_left_alone_times_out_when_its_window_closes(world: World) -> None:
    review = await world.reviews.request(OWNER, content="Ship it?", timeout_ms=5_000)
    result = ended(await world.reviews.wait(OWNER, review.id, 50_000))
    assert world.sleep.calls == [5.0]
    assert result.verdict == "timeout"
    assert result.message is not None
    assert "within the review's window of 5 seconds" in result.message
    stored = await world.reviews.get(OWNER, review.id)
    assert (stored.status, stored.verdict, stored.late) == ("timeout", "timeout", False)
    assert [data["action"] for data in world.bus.of_kind("review")] == ["new", "timeout"]
    assert await world.reviews.active(OWNER) is None


@pytest.mark.anyio
async def test_a_resumed_wait_never_waits_past_the_window(world: World) -> None:
    review = await world.reviews.request(OWNER, content="Ship it?", timeout_ms=5_000)
    assert await world.reviews.wait(OWNER, review.id, 3_000) == StillPending(review.id)
    assert ended(await world.reviews.wait(OWNER, review.id, 600_000)).verdict == "timeout"
    assert world.sleep.calls == [3.0, 2.0]


@pytest.mark.anyio
async def test_a_decision_after_the_window_closed_is_recorded_late(world: World) -> None:
    review = await world.reviews.request(OWNER, content="Ship it?", timeout_ms=5_000)
    assert ended(await world.reviews.wait(OWNER, review.id, 50_000)).verdict == "timeout"
    decided = await world.reviews.decide(OWNER, review.id, "approved")
    assert (decided.status, decided.verdict, decided.late) == ("decided", "approved", True)
    result = ended(await world.reviews.wait(OWNER, review.id, 1_000))
    data = wait_outcome(result).dump()
    assert data["verdict"] == "approved"
    assert data["late"] is True
    assert "recorded late" in str(data["message"])


@pytest.mark.anyio
async def test_a_decision_past_the_deadline_nobody_observed_is_late_too(world: World) -> None:
    review = await world.reviews.request(OWNER, content="Ship it?", timeout_ms=5_000)
    world.clock.advance(5_000)
    decided = await world.reviews.decide(OWNER, review.id, "dismissed")
    assert decided.late


@pytest.mark.anyio
async def test_a_timeout_never_replaces_a_verdict(world: World) -> None:
    review = await world.reviews.request(OWNER, content="Ship it?", timeout_ms=5_000)
    world.clock.advance(4_999)
    await world.reviews.decide(OWNER, review.id, "approved", "LGTM")
    world.clock.advance(60_000)
    result = ended(await world.reviews.wait(OWNER, review.id, 1_000))
    assert result.verdict == "approved"
    assert not result.review.late
    assert result.message is None
    assert (await world.reviews.get(OWNER, review.id)).status == "decided"


@pytest.mark.anyio
async def test_a_newer_review_supersedes_the_pending_one_at_once(world: World) -> None:
    first = await world.reviews.request(OWNER, content="First?")
    second = await world.reviews.request(OWNER, content="Second?")
    result = ended(await world.reviews.wait(OWNER, first.id, 50_000))
    assert world.sleep.calls == []
    data = wait_outcome(result).dump()
    assert data["verdict"] == "superseded"
    assert data["supersededBy"] == second.id
    assert second.id in str(data["message"])
    assert await world.reviews.active(OWNER) == second
    actions = [(event["action"], event["review"]) for event in world.bus.of_kind("review")]
    assert [action for action, _ in actions] == ["new", "superseded", "new"]


@pytest.mark.anyio
async def test_a_waiting_call_wakes_when_its_review_is_superseded(world: World) -> None:
    first = await world.reviews.request(OWNER, content="First?")
    world.sleep.hold = True
    outcomes: list[WaitOutcome] = []

    async def waiter() -> None:
        outcomes.append(await world.reviews.wait(OWNER, first.id, 600_000))

    with anyio.fail_after(10):
        async with anyio.create_task_group() as group:
            group.start_soon(waiter)
            await world.sleep.sleeping.wait()
            second = await world.reviews.request(OWNER, content="Second?")
    result = ended(outcomes[0])
    assert (result.verdict, result.review.superseded_by) == ("superseded", second.id)


@pytest.mark.anyio
async def test_a_pending_review_past_its_window_ends_as_timeout_not_superseded(
    world: World,
) -> None:
    first = await world.reviews.request(OWNER, content="First?", timeout_ms=5_000)
    world.clock.advance(5_000)
    await world.reviews.request(OWNER, content="Second?")
    stored = await world.reviews.get(OWNER, first.id)
    assert (stored.status, stored.verdict, stored.superseded_by) == ("timeout", "timeout", None)


@pytest.mark.anyio
async def test_a_superseded_review_decided_anyway_is_recorded_late(world: World) -> None:
    first = await world.reviews.request(OWNER, content="First?")
    second = await world.reviews.request(OWNER, content="Second?")
    decided = await world.reviews.decide(OWNER, first.id, "approved")
    assert (decided.verdict, decided.late, decided.superseded_by) == ("approved", True, second.id)


@pytest.mark.anyio
async def test_reviews_of_other_users_are_not_superseded_or_seen(world: World) -> None:
    mine = await world.reviews.request(OWNER, content="Mine?")
    theirs = await world.reviews.request("alice", content="Theirs?")
    assert (await world.reviews.get(OWNER, mine.id)).status == "pending"
    with pytest.raises(ReviewNotFound):
        await world.reviews.get(OWNER, theirs.id)
    with pytest.raises(ReviewNotFound):
        await world.reviews.decide(OWNER, theirs.id, "approved")


@pytest.mark.anyio
async def test_a_review_is_decided_once(world: World) -> None:
    review = await world.reviews.request(OWNER, content="Ship it?")
    await world.reviews.decide(OWNER, review.id, "approved")
    with pytest.raises(ReviewRefused, match="already decided \\(approved\\)"):
        await world.reviews.decide(OWNER, review.id, "dismissed")


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("verdict", "comments", "argument"),
    [
        ("timeout", None, "verdict"),
        ("superseded", None, "verdict"),
        ("APPROVED", None, "verdict"),
        ("", None, "verdict"),
        ("approved", "a\0b", "comments"),
        ("approved", 5, "comments"),
    ],
)
async def test_a_bad_decision_is_refused(
    world: World, verdict: str, comments: object, argument: str
) -> None:
    review = await world.reviews.request(OWNER, content="Ship it?")
    with pytest.raises(InvalidArgument) as caught:
        await world.reviews.decide(OWNER, review.id, verdict, comments)  # type: ignore[arg-type]
    assert caught.value.argument == argument
    assert (await world.reviews.get(OWNER, review.id)).status == "pending"


@pytest.mark.anyio
@pytest.mark.parametrize(
    "review_id", ["unknown", "0" * 30, "x" * 64, "f" * 65, "ab\0cd", "ABCDEF", "\u00e9", "a b"]
)
async def test_an_unknown_review_id_gets_a_clear_error(world: World, review_id: str) -> None:
    for call in (
        world.reviews.wait(OWNER, review_id, 1_000),
        world.reviews.get(OWNER, review_id),
        world.reviews.decide(OWNER, review_id, "approved"),
    ):
        with pytest.raises(ReviewNotFound) as caught:
            await call
        assert caught.value.message.startswith(f"No review has the id '{review_id}'.")


@pytest.mark.anyio
@pytest.mark.parametrize("review_id", ["", "  "])
async def test_a_blank_review_id_is_refused(world: World, review_id: str) -> None:
    with pytest.raises(InvalidArgument, match="`review_id` must not be empty"):
        await world.reviews.wait(OWNER, review_id, 1_000)


@pytest.mark.anyio
@pytest.mark.parametrize("wait_ms", [999, 0, -1, 600_001, True, 1_000.0, "1000"])
async def test_a_wait_ms_outside_its_range_is_refused(world: World, wait_ms: object) -> None:
    review = await world.reviews.request(OWNER, content="Ship it?")
    with pytest.raises(InvalidArgument, match="`wait_ms` must be a whole number from 1,000"):
        await world.reviews.wait(OWNER, review.id, wait_ms)  # type: ignore[arg-type]


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("resent", "argument"),
    [
        ({"timeout_ms": 60_001}, "timeout_ms"),
        ({"content": "Other text"}, "content"),
        ({"path": "other.md"}, "path"),
        ({"path": "plan.md", "content": "x"}, "content"),
    ],
)
async def test_a_resumed_wait_that_changes_the_review_is_refused_naming_it(
    world: World, resent: dict[str, object], argument: str
) -> None:
    plan = world.write("plan.md")
    world.write("other.md")
    review = await world.reviews.request(OWNER, path=plan, timeout_ms=60_000)
    resent = dict(resent)
    if "path" in resent:
        resent["path"] = world.workspace / str(resent["path"])
    with pytest.raises(InvalidArgument, match="A resumed review cannot change") as caught:
        await world.reviews.wait(OWNER, review.id, 1_000, **resent)  # type: ignore[arg-type]
    assert caught.value.argument == argument
    assert world.sleep.calls == []


@pytest.mark.anyio
async def test_a_resumed_wait_may_resend_the_same_arguments(world: World) -> None:
    plan = world.write("plan.md")
    link = world.workspace / "link.md"
    link.symlink_to(plan)
    review = await world.reviews.request(OWNER, path=plan, timeout_ms=60_000)
    same = await world.reviews.wait(OWNER, review.id, 1_000, path=link, timeout_ms=60_000)
    assert same == StillPending(review.id)
    inline = await world.reviews.request(OWNER, content="Text")
    again = await world.reviews.wait(OWNER, inline.id, 1_000, content="Text")
    assert again == StillPending(inline.id)
    with pytest.raises(InvalidArgument, match="requested for \\(inline content\\)"):
        await world.reviews.wait(OWNER, inline.id, 1_000, path=plan)


@pytest.mark.anyio
async def test_a_review_of_a_file_that_changed_since_is_stale(world: World) -> None:
    plan = world.write("plan.md", "# Plan\n\n- [ ] step\n")
    review = await world.reviews.request(OWNER, path=plan)
    await world.reviews.decide(OWNER, review.id, "approved")
    assert not ended(await world.reviews.wait(OWNER, review.id, 1_000)).stale
    await world.documents.replace_unique(document_id(plan), "step", "stride", author="agent")
    result = ended(await world.reviews.wait(OWNER, review.id, 1_000))
    assert result.stale
    assert wait_outcome(result).dump()["stale"] is True
    inline = await world.reviews.request(OWNER, content="Text")
    assert not await world.reviews.is_stale(inline)


@pytest.mark.anyio
async def test_a_review_of_a_file_that_cannot_be_read_any_more_is_stale(world: World) -> None:
    plan = world.write("plan.md")
    review = await world.reviews.request(OWNER, path=plan)
    await world.documents.close()
    async with open_world(world.db, world.workspace, clock=world.clock) as restarted:
        plan.unlink()
        assert await restarted.reviews.is_stale(review)


@pytest.mark.anyio
async def test_annotations_hold_the_newest_review_and_the_live_tasks(world: World) -> None:
    plan = world.write("plan.md", "# Plan\n\n- [ ] one\n- [x] two\n")
    await world.reviews.request(OWNER, path=plan)
    world.clock.advance(1)
    review = await world.reviews.request(OWNER, path=plan)
    await world.reviews.decide(OWNER, review.id, "changes_requested", "Split step one.")
    await world.documents.replace_unique(document_id(plan), "- [ ] one", "- [x] one", author="a")
    data = file_annotations(await world.reviews.annotations(OWNER, plan)).dump()
    assert data == {
        "path": str(plan),
        "verdict": "changes_requested",
        "comments": "Split step one.",
        "late": False,
        "tasks": [
            {"line": 3, "checked": True, "text": "one"},
            {"line": 4, "checked": True, "text": "two"},
        ],
        "reviewId": review.id,
        "status": "decided",
        "reviewedAt": review.created_at_ms,
        "stale": True,
        "note": data["note"],
    }
    assert "Request a review again" in str(data["note"])


@pytest.mark.anyio
async def test_annotations_of_a_file_never_reviewed_read_its_tasks_from_disk(
    world: World,
) -> None:
    plan = world.write("plan.md", "- [ ] a\n\n```\n- [ ] not a task\n```\n")
    data = file_annotations(await world.reviews.annotations(OWNER, plan)).dump()
    assert data == {
        "path": str(plan),
        "verdict": None,
        "comments": None,
        "late": False,
        "tasks": [{"line": 1, "checked": False, "text": "a"}],
    }


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("name", "content", "words"),
    [
        ("missing.md", None, "does not exist"),
        ("notes.txt", b"- [ ] a\n", "only Markdown documents"),
        ("latin1.md", b"- [ ] caf\xe9\n", "not UTF-8"),
    ],
)
async def test_annotations_of_an_unreadable_file_say_why_its_tasks_were_not_read(
    world: World, name: str, content: bytes | None, words: str
) -> None:
    path = world.workspace / name
    if content is not None:
        path.write_bytes(content)
    result = await world.reviews.annotations(OWNER, path)
    assert result.tasks == []
    assert result.review is None
    assert result.tasks_note is not None
    assert words in result.tasks_note
    assert result.tasks_note.endswith(". Its tasks were not read.")


@pytest.mark.anyio
async def test_annotations_of_a_superseded_review_say_so(world: World) -> None:
    plan = world.write("plan.md")
    first = await world.reviews.request(OWNER, path=plan)
    second = await world.reviews.request(OWNER, content="Other")
    data = file_annotations(await world.reviews.annotations(OWNER, plan)).dump()
    assert (data["verdict"], data["supersededBy"], data["reviewId"]) == (
        "superseded",
        second.id,
        first.id,
    )


@pytest.mark.anyio
async def test_reviews_survive_a_restart(database: Database, tmp_path: Path) -> None:
    workspace = (tmp_path / "w").resolve()
    workspace.mkdir()
    async with open_world(database, workspace) as first:
        plan = first.write("plan.md")
        review = await first.reviews.request(OWNER, path=plan, timeout_ms=60_000)
        clock = first.clock
    async with open_world(database, workspace, clock=clock) as second:
        assert await second.reviews.get(OWNER, review.id) == review
        assert await second.reviews.active(OWNER) == review
        await second.reviews.decide(OWNER, review.id, "approved", "Fine.")
        result = ended(await second.reviews.wait(OWNER, review.id, 1_000))
        assert (result.verdict, result.review.comments) == ("approved", "Fine.")
        latest = await second.reviews.latest_for_path(OWNER, plan)
        assert latest is not None
        assert latest.id == review.id


@pytest.mark.anyio
async def test_the_newest_256_reviews_and_the_newest_of_each_file_are_kept(
    world: World,
) -> None:
    plan = world.write("plan.md")
    old_of_plan = await world.reviews.request(OWNER, path=plan)
    world.clock.advance(1)
    newest_of_plan = await world.reviews.request(OWNER, path=plan)
    inline = []
    for index in range(258):
        world.clock.advance(1)
        inline.append(await world.reviews.request(OWNER, content=f"Review {index}"))
    with pytest.raises(ReviewNotFound):
        await world.reviews.get(OWNER, old_of_plan.id)
    assert (await world.reviews.get(OWNER, newest_of_plan.id)).path == str(plan)
    for gone in inline[:2]:
        with pytest.raises(ReviewNotFound):
            await world.reviews.get(OWNER, gone.id)
    for kept in (inline[2], inline[-1]):
        assert (await world.reviews.get(OWNER, kept.id)).id == kept.id


@pytest.mark.anyio
async def test_a_request_returns_only_once_the_other_replicas_were_told(
    database: Database, tmp_path: Path
) -> None:
    """Each replica keeps the pending reviews' deadlines; the one a review was requested
    through may die the moment it answers, so its signal must have left by then."""
    fanout = SentSignals()
    workspace = (tmp_path / "workspace").resolve()
    workspace.mkdir()
    async with open_world(database, workspace, fanout=fanout) as world:
        review = await world.reviews.request(OWNER, content="Approve?")
        assert (TOPIC, review.id) in fanout.sent
        assert fanout.flushed == len(fanout.sent)
