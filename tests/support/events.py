"""The ``/ws/events`` contract as a test helper: every event a test sees is sent as the
browser receives it and read back through the events union, so the event tests walk it."""

from __future__ import annotations

import json
from collections.abc import Callable

from quire.api.events import EVENTS, Event
from quire.services.events import EventBus


def checked_frame(event: Event) -> dict[str, object]:
    """The frame ``event`` is sent as, once it has read back as the same event."""
    raw = event.dump_json()
    parsed = EVENTS.validate_json(raw)
    assert parsed == event, f"the {event.kind} event does not read back as itself: {raw!r}"
    frame = json.loads(raw)
    assert isinstance(frame, dict)
    return frame


def parsed_frame(frame: object) -> Event:
    """A frame received from ``/ws/events``, read with the events union (AssertionError naming
    the field when it does not fit)."""
    try:
        return EVENTS.validate_python(frame)
    except ValueError as err:
        raise AssertionError(f"an event frame is off-contract: {err}\n{frame!r}") from None


class CheckedBus(EventBus):
    """An event bus that checks every event published against the contract first."""

    def publish(self, user: str, event: Event) -> None:
        checked_frame(event)
        super().publish(user, event)


def check_published(bus: EventBus) -> Callable[[str, Event], None]:
    """``bus.publish``, checking each event first: for a bus the services built themselves."""
    publish = bus.publish

    def checked(user: str, event: Event) -> None:
        checked_frame(event)
        publish(user, event)

    return checked
