"""The one exception tree: its drawing matches the classes, and ``with_message`` copies."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

import pytest

import quire
from quire.core import errors
from quire.core.errors import EditRefused, InvalidArgument, QuireError, ServerAlreadyRunning
from quire.core.server_info import ServerInfo

_DRAWN = re.compile(r"^(?P<prefix>[│ ]*(?:├── |└── )?)(?P<name>[A-Z]\w+)(?:\s|$)")
_PRIVATE = re.compile(r"^(?P<name>[A-Z]\w+)\s+\((?P<module>quire[\w.]+)\)\s+an? (?P<parent>\w+):")
_NOT_IMPORTED = ("quire.db.migrations",)
"""Alembic runs its migration scripts itself; they cannot be imported as modules."""


def _docstring_lines() -> list[str]:
    doc = errors.__doc__
    assert doc is not None
    return [line[4:] for line in doc.splitlines() if line.startswith("    ")]


def drawn_tree() -> dict[str, str | None]:
    """Each class the docstring draws, by name, with its parent's name (None for the root)."""
    parents: dict[str, str | None] = {}
    chain: list[str] = []
    for line in _docstring_lines():
        found = _DRAWN.match(line)
        if found is None or _PRIVATE.match(line):
            continue
        depth = len(found["prefix"]) // 4
        assert depth <= len(chain), f"the drawing skips a level at {line!r}"
        del chain[depth:]
        name = found["name"]
        assert name not in parents, f"{name} is drawn twice"
        parents[name] = chain[-1] if chain else None
        chain.append(name)
    return parents


def drawn_private() -> dict[str, tuple[str, str]]:
    """Each private refinement the docstring names: its module and its parent."""
    return {
        found["name"]: (found["module"], found["parent"])
        for line in _docstring_lines()
        if (found := _PRIVATE.match(line)) is not None
    }


def every_error_class() -> list[type[QuireError]]:
    """Every QuireError subclass in Quire, once every module of it is imported."""
    for module in pkgutil.walk_packages(quire.__path__, "quire."):
        if not module.name.startswith(_NOT_IMPORTED):
            importlib.import_module(module.name)
    found: list[type[QuireError]] = []
    pending: list[type[QuireError]] = [QuireError]
    while pending:
        cls = pending.pop()
        found.append(cls)
        pending.extend(cls.__subclasses__())
    return found


def _parent(cls: type[QuireError]) -> str | None:
    return None if cls is QuireError else cls.__base__.__name__ if cls.__base__ else None


def test_the_docstring_draws_every_class_of_the_tree_under_its_parent() -> None:
    public = {
        cls.__name__: _parent(cls)
        for cls in every_error_class()
        if cls.__module__ == errors.__name__
    }
    assert drawn_tree() == public


def test_every_error_class_outside_the_tree_is_a_private_refinement_it_names() -> None:
    private = {
        cls.__name__: (cls.__module__, _parent(cls))
        for cls in every_error_class()
        if cls.__module__ != errors.__name__ and not cls.__module__.startswith("tests.")
    }
    assert private == drawn_private()
    for _module, parent in private.values():
        assert parent in drawn_tree(), "a private refinement must refine a class of the tree"


def test_the_tree_parser_sees_a_class_left_out_of_the_drawing() -> None:
    class Undrawn(errors.NotOpen):
        """Defined here only to show the comparison fails."""

    Undrawn.__module__ = errors.__name__
    try:
        public = {
            cls.__name__: _parent(cls)
            for cls in every_error_class()
            if cls.__module__ == errors.__name__
        }
        assert public != drawn_tree()
        assert public["Undrawn"] == "NotOpen"
    finally:
        Undrawn.__module__ = __name__


TREE = [
    cls
    for _, cls in inspect.getmembers(errors, inspect.isclass)
    if issubclass(cls, QuireError) and cls.__module__ == errors.__name__
]


@pytest.mark.parametrize("cls", TREE, ids=lambda cls: cls.__name__)
def test_every_class_is_built_from_its_message_alone(cls: type[QuireError]) -> None:
    error = cls("What happened; what to do next.")
    assert str(error) == error.message == "What happened; what to do next."
    assert error.detail_values() == dict.fromkeys(cls.details)
    keywords = [
        name
        for name, parameter in inspect.signature(cls.__init__).parameters.items()
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY
    ]
    assert keywords == list(cls.details)


@pytest.mark.parametrize("cls", TREE, ids=lambda cls: cls.__name__)
def test_with_message_keeps_the_class_and_changes_only_the_message(
    cls: type[QuireError],
) -> None:
    error = cls("First.")
    copy = error.with_message("Second.")
    assert type(copy) is cls
    assert (copy.message, str(copy), copy.args) == ("Second.", "Second.", ("Second.",))
    assert (error.message, error.args) == ("First.", ("First.",))
    assert copy.detail_values() == error.detail_values()


@pytest.mark.parametrize(
    "error",
    [
        InvalidArgument("Bad limit.", argument="limit"),
        EditRefused("Occurs 3 times.", match_count=3),
        ServerAlreadyRunning("Running.", info=ServerInfo("http://127.0.0.1:1", "t", 7)),
    ],
    ids=lambda error: type(error).__name__,
)
def test_with_message_keeps_the_details(error: QuireError) -> None:
    copy = error.with_message("Said again, with more.")
    assert type(copy) is type(error)
    assert copy.detail_values() == error.detail_values()
    assert all(value is not None for value in copy.detail_values().values())
    assert copy.message == "Said again, with more."


def test_with_message_gives_a_new_exception_without_the_old_ones_chain() -> None:
    try:
        try:
            raise KeyError("cause")
        except KeyError as cause:
            raise InvalidArgument("First.", argument="x") from cause
    except InvalidArgument as raised:
        copy = raised.with_message("Second.")
        assert raised.__cause__ is not None
        assert raised.__traceback__ is not None
        assert copy is not raised
    assert copy.__cause__ is None
    assert copy.__traceback__ is None
    assert copy.argument == "x"
