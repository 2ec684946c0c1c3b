"""The API contract as a test hook: every JSON answer of an ``/api/`` route is checked against
the answer model its operation names, so the whole web test suite walks the contract."""

from __future__ import annotations

import re

import httpx

from quire.api.base import AnswerMismatch
from quire.api.operations import OPERATIONS, Operation

_PARAMETER = re.compile(r"{[^}]+}")
_TEMPLATES: list[tuple[str, re.Pattern[str], Operation]] = [
    (
        operation.method,
        re.compile(
            "^"
            + _PARAMETER.sub(
                "[^/]+", re.escape(operation.path).replace(r"\{", "{").replace(r"\}", "}")
            )
            + "$"
        ),
        operation,
    )
    for operation in OPERATIONS
]


def operation_of(method: str, path: str) -> Operation | None:
    """The operation serving ``method path`` (a concrete path), None when none does."""
    for wanted, pattern, operation in _TEMPLATES:
        if wanted == method and pattern.match(path):
            return operation
    return None


def check_answer(response: httpx.Response) -> None:
    """Raise AssertionError when a 200 JSON answer does not fit its operation's answer model."""
    if response.status_code != 200:
        return
    operation = operation_of(response.request.method, response.request.url.path)
    if operation is None or not operation.answers:
        return
    mismatches: list[AnswerMismatch] = []
    for model in operation.answers:
        try:
            model.parse_json(response.content)
        except AnswerMismatch as err:
            mismatches.append(err)
        else:
            return
    raise AssertionError(
        f"{operation.method} {operation.path} answered off-contract: "
        + "; ".join(str(err) for err in mismatches)
    )


async def check_answer_hook(response: httpx.Response) -> None:
    """``check_answer`` as an httpx response event hook (the body is read first)."""
    await response.aread()
    check_answer(response)
