"""The events union is the contract of ``/ws/events``: its kinds are exactly the events the
services publish, and each reads back from its frame as itself."""

from __future__ import annotations

import ast
import typing
from pathlib import Path

import pytest
from pydantic import ValidationError

import quire.services
from quire.api import events
from quire.api.base import Answer
from quire.api.events import EVENTS, Event

SERVICES = Path(quire.services.__file__).parent


def _members() -> dict[str, type[Answer]]:
    union = typing.get_args(Event)[0]
    return {member.__name__: member for member in typing.get_args(union)}


def _kind(member: type[Answer]) -> str:
    default = member.model_fields["kind"].default
    assert isinstance(default, str)
    return default


def _constructed_in_services() -> dict[str, list[str]]:
    """The names of ``quire.api.events`` classes called in services, and where."""
    exported = {
        name
        for name, value in vars(events).items()
        if isinstance(value, type) and issubclass(value, Answer) and name.endswith("Event")
    }
    found: dict[str, list[str]] = {}
    for module in sorted(SERVICES.rglob("*.py")):
        tree = ast.parse(module.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
                if name in exported:
                    where = f"{module.relative_to(SERVICES)}:{node.lineno}"
                    found.setdefault(name, []).append(where)
    return found


def test_the_union_holds_exactly_the_events_the_services_publish() -> None:
    published = _constructed_in_services()
    members = _members()
    assert set(published) == set(members), (
        f"published but not in the union: {sorted(set(published) - set(members))}; "
        f"in the union but never published: {sorted(set(members) - set(published))}"
    )


def test_every_kind_is_named_once() -> None:
    kinds = [_kind(member) for member in _members().values()]
    assert len(kinds) == len(set(kinds))
    assert set(kinds) >= {"window", "open", "present", "review", "conflict", "document"}


def test_the_services_publish_nothing_but_api_events() -> None:
    # A hand-built dict on the bus would be caught by mypy; a stray event class defined in
    # services (outside the contract) would not, so none may be.
    for module in sorted(SERVICES.rglob("*.py")):
        tree = ast.parse(module.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name.endswith("Event"):
                pytest.fail(
                    f"{module.relative_to(SERVICES)} defines {node.name}: events are "
                    "quire.api.events models"
                )


@pytest.mark.parametrize(
    ("frame", "field"),
    [
        ({"kind": "chat", "data": {"path": "/w/c.md", "number": "one", "author": "a"}}, "number"),
        ({"kind": "open", "data": {"path": "/w/a.md", "docId": "x", "view": "zen"}}, "view"),
        ({"kind": "conflict", "data": {"docId": "x", "path": "/w/a.md", "mine": "m"}}, "disk"),
        ({"kind": "exported", "data": {}}, "kind"),
    ],
)
def test_a_frame_off_contract_is_refused_naming_the_field(frame: object, field: str) -> None:
    with pytest.raises(ValidationError) as caught:
        EVENTS.validate_python(frame)
    assert field in str(caught.value)


def test_a_conflict_frame_is_either_shown_or_resolved() -> None:
    shown = EVENTS.validate_python(
        {"kind": "conflict", "data": {"docId": "x", "path": "/p", "mine": "m", "disk": "d"}}
    )
    resolved = EVENTS.validate_python(
        {"kind": "conflict", "data": {"docId": "x", "path": "/p", "resolved": True, "dirty": False}}
    )
    assert isinstance(shown.data, events.ConflictShown)
    assert isinstance(resolved.data, events.ConflictEnded)
