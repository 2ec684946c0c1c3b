from collections.abc import AsyncIterator

import anyio
import pytest

from quire.api.events import ChatData, ChatEvent, Event
from quire.services.events import MAX_BEHIND, EventBus


def _event(number: int) -> ChatEvent:
    return ChatEvent(data=ChatData(path="/w/chat.md", number=number, author="ada"))


async def _drain(events: AsyncIterator[Event]) -> list[Event]:
    with anyio.fail_after(5):
        return [event async for event in events]


@pytest.mark.anyio
async def test_a_subscriber_receives_the_users_events_in_order() -> None:
    bus = EventBus()
    async with bus.subscribe("owner") as events:
        for number in range(3):
            bus.publish("owner", _event(number))
        bus.publish("someone-else", _event(99))
        bus.close()
        assert await _drain(events) == [_event(0), _event(1), _event(2)]


@pytest.mark.anyio
async def test_every_subscriber_of_a_user_gets_each_event() -> None:
    bus = EventBus()
    async with bus.subscribe("owner") as first, bus.subscribe("owner") as second:
        assert bus.subscriber_count("owner") == 2
        bus.publish("owner", _event(1))
        bus.close()
        assert await _drain(first) == [_event(1)]
        assert await _drain(second) == [_event(1)]


@pytest.mark.anyio
async def test_events_before_subscribing_are_not_replayed() -> None:
    bus = EventBus()
    bus.publish("owner", _event(0))
    async with bus.subscribe("owner") as events:
        bus.publish("owner", _event(1))
        bus.close()
        assert await _drain(events) == [_event(1)]


@pytest.mark.anyio
async def test_a_subscriber_too_far_behind_is_cut_off_without_blocking_the_publisher() -> None:
    bus = EventBus()
    async with bus.subscribe("owner") as slow, bus.subscribe("owner") as fast:
        received: list[Event] = []
        for number in range(MAX_BEHIND + 5):
            bus.publish("owner", _event(number))
            with anyio.fail_after(5):
                received.append(await anext(fast))
        assert [event.dump()["data"]["number"] for event in await _drain(slow)] == list(
            range(MAX_BEHIND)
        )
        assert bus.subscriber_count("owner") == 1
        assert len(received) == MAX_BEHIND + 5


@pytest.mark.anyio
async def test_leaving_a_subscription_unsubscribes() -> None:
    bus = EventBus()
    async with bus.subscribe("owner"):
        assert bus.subscriber_count("owner") == 1
    assert bus.subscriber_count("owner") == 0
    bus.publish("owner", _event(1))


@pytest.mark.anyio
async def test_a_subscription_after_close_ends_at_once() -> None:
    bus = EventBus()
    bus.close()
    async with bus.subscribe("owner") as events:
        bus.publish("owner", _event(1))
        assert await _drain(events) == []
