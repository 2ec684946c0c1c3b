"""Every model of the contract is used: by an operation (body or answer, directly or inside
another model) or by a /ws/events payload. A model nothing sends is dead contract."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from typing import Any

from pydantic import BaseModel, TypeAdapter

import quire.api
from quire.api.base import Answer, StrictBody
from quire.api.errors import ErrorBody
from quire.api.events import Event
from quire.api.operations import OPERATIONS


def _models() -> set[type[BaseModel]]:
    found: set[type[BaseModel]] = set()
    for module_info in pkgutil.iter_modules(quire.api.__path__):
        module = importlib.import_module(f"quire.api.{module_info.name}")
        for _, value in inspect.getmembers(module, inspect.isclass):
            if (
                issubclass(value, Answer | StrictBody)
                and value.__module__ == module.__name__
                and value not in (Answer, StrictBody)
            ):
                found.add(value)
    return found


def _named_in(schema: Any) -> set[str]:
    names: set[str] = set()
    if isinstance(schema, dict):
        reference = schema.get("$ref")
        if isinstance(reference, str):
            names.add(reference.rsplit("/", 1)[-1])
        names.update(schema.get("$defs", {}))
        for value in schema.values():
            names |= _named_in(value)
    elif isinstance(schema, list):
        for value in schema:
            names |= _named_in(value)
    return names


def _used() -> set[str]:
    roots: list[type[BaseModel]] = [ErrorBody]
    for operation in OPERATIONS:
        roots.extend(operation.answers)
        if operation.body is not None:
            roots.append(operation.body)
    names = {root.__name__ for root in roots}
    for root in roots:
        names |= _named_in(root.model_json_schema(by_alias=True))
    return names | _named_in(TypeAdapter(Event).json_schema(by_alias=True))


def test_every_model_of_the_contract_is_sent_or_read_somewhere() -> None:
    unused = {model.__name__ for model in _models()} - _used()
    assert unused == set(), "no operation or event uses these models: delete or use them"


def test_the_check_sees_the_models() -> None:
    names = {model.__name__ for model in _models()}
    assert {"Ok", "OpenedDocument", "ReviewRecord", "ChatView"} <= names
