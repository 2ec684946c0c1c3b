"""Answers as HTTP responses: an API model dumped as the JSON body, nothing built by hand.

Every JSON answer of a route goes through ``answer``, so what the server sends is exactly what
the model (and the OpenAPI document made from it) says.
"""

from __future__ import annotations

from starlette.responses import Response

from quire.api.base import Answer


def answer(model: Answer, status_code: int = 200) -> Response:
    """The JSON response carrying ``model`` (camelCase keys, encoded by pydantic-core)."""
    return Response(model.dump_json(), status_code=status_code, media_type="application/json")
