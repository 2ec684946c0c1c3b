"""The cycle collector paused around a parse: off inside, back as it was after, across threads."""

import gc
import threading
from collections.abc import Iterator

import pytest

from quire.core import collector
from quire.core.collector import collection_paused


@pytest.fixture(autouse=True)
def _collector_restored() -> Iterator[None]:
    was_enabled = gc.isenabled()
    yield
    if was_enabled:
        gc.enable()
    else:
        gc.disable()


def test_the_collector_is_off_inside_and_on_again_after() -> None:
    gc.enable()
    with collection_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_the_collector_comes_back_on_when_the_block_raises() -> None:
    gc.enable()
    with pytest.raises(ValueError, match="boom"), collection_paused():
        raise ValueError("boom")
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    with collection_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_nested_pauses_turn_it_on_only_when_the_outer_one_ends() -> None:
    gc.enable()
    with collection_paused():
        with collection_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_overlapping_pauses_in_two_threads_leave_it_on_after_the_last() -> None:
    gc.enable()
    entered, release = threading.Event(), threading.Event()
    seen: list[bool] = []

    def other() -> None:
        with collection_paused():
            entered.set()
            release.wait(timeout=10)
            seen.append(gc.isenabled())

    thread = threading.Thread(target=other)
    with collection_paused():
        thread.start()
        assert entered.wait(timeout=10)
    # The first holder is gone; the other thread still holds the pause.
    assert not gc.isenabled()
    release.set()
    thread.join(timeout=10)
    assert seen == [False]
    assert gc.isenabled()


@pytest.fixture
def collected(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The generations ``gc.collect`` is asked for (none is collected), with pauses that count
    as long at once."""
    calls: list[int] = []

    def collect(generation: int = 2) -> int:
        calls.append(generation)
        return 0

    monkeypatch.setattr(gc, "collect", collect)
    monkeypatch.setattr(collector, "LONGEST_PAUSE_S", 0.0)
    return calls


def test_pauses_that_overlap_for_long_still_collect(collected: list[int]) -> None:
    """A busy server's renders can overlap without a break: a pause ending after the longest
    pause, while another still holds it, collects the cycles made meanwhile."""
    gc.enable()
    entered, release = threading.Event(), threading.Event()

    def other() -> None:
        with collection_paused():
            entered.set()
            release.wait(timeout=10)

    thread = threading.Thread(target=other)
    with collection_paused():
        thread.start()
        assert entered.wait(timeout=10)
    assert collected == [2]
    assert not gc.isenabled()
    release.set()
    thread.join(timeout=10)
    # The last holder turns the collector back on instead of collecting.
    assert collected == [2]
    assert gc.isenabled()


def test_a_collector_that_was_off_is_never_run_by_a_long_pause(collected: list[int]) -> None:
    gc.disable()
    with collection_paused(), collection_paused():
        pass
    assert collected == []
    assert not gc.isenabled()
