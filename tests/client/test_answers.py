"""Error bodies read back: every class of the tree crosses the HTTP hop as itself."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import pytest

from quire.client.answers import error_from_answer
from quire.core import errors
from quire.core.errors import DocumentInvalid, EditRefused, FileTooLarge, InvalidArgument
from quire.services.chat.tails import not_a_chat
from quire.web.errors import quire_error_body, status_of
from quire.web.limits import too_large

URL = "http://127.0.0.1:4747"
TREE = [
    cls
    for _, cls in inspect.getmembers(errors, inspect.isclass)
    if issubclass(cls, errors.QuireError) and cls.__module__ == errors.__name__
]


def crossed(error: errors.QuireError) -> errors.QuireError:
    """``error`` as the server answers it and the client rebuilds it."""
    payload = json.dumps(quire_error_body(error)).encode("utf-8")
    return error_from_answer(status_of(error), payload, URL)


@pytest.mark.parametrize("cls", TREE, ids=lambda cls: cls.__name__)
def test_every_class_of_the_tree_crosses_as_itself(cls: type[errors.QuireError]) -> None:
    back = crossed(cls("What happened; what to do next."))
    assert type(back) is cls
    assert back.message == "What happened; what to do next."


@pytest.mark.parametrize(
    "error",
    [
        InvalidArgument("`limit` must be 1 to 200.", argument="limit"),
        EditRefused("`find` occurs 3 times.", match_count=3),
    ],
    ids=lambda error: type(error).__name__,
)
def test_the_details_cross_with_the_error(error: errors.QuireError) -> None:
    back = crossed(error)
    assert type(back) is type(error)
    assert back.detail_values() == error.detail_values()


@pytest.mark.parametrize(
    ("error", "parent"),
    [(too_large(16), FileTooLarge), (not_a_chat(Path("/w/a.md")), DocumentInvalid)],
    ids=["RequestTooLarge", "NotAChat"],
)
def test_a_private_refinement_crosses_as_its_parent(
    error: errors.QuireError, parent: type[errors.QuireError]
) -> None:
    back = crossed(error)
    assert type(back) is parent
    assert back.message == error.message


@pytest.mark.parametrize(
    "body",
    [
        {"type": "EditRefused", "message": "m", "matchCount": "3"},
        {"type": "EditRefused", "message": "m", "matchCount": True},
        {"type": "InvalidArgument", "message": "m", "argument": 7},
    ],
)
def test_a_detail_of_the_wrong_type_is_left_unset(body: dict[str, object]) -> None:
    back = error_from_answer(409, json.dumps({"error": body}).encode("utf-8"), URL)
    assert type(back).__name__ == body["type"]
    assert set(back.detail_values().values()) == {None}
