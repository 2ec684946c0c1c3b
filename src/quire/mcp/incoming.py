"""One line of ``quire mcp``'s stdin read as a JSON-RPC message, or the error that answers it.

JSON-RPC says: -32700 only for text that is not JSON, -32600 for JSON that is not a valid
message, -32602 for a request whose params are wrong, and the request's own id on every error
whose id can be read (null only when it cannot), so a client waiting on that id hears back.
The SDK's stdio reader answers none of these (it drops the line, and treats a ``\\ud800``
escape, which is valid JSON, as a parse error); this module decides instead. Pure: no I/O.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

import mcp_types as types
from pydantic import ValidationError

from quire.core import json_input
from quire.core.errors import InvalidArgument
from quire.core.limits import MAX_DOCUMENT_BYTES, size_words

PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
INVALID_PARAMS: Final = -32602

MAX_LINE_BYTES: Final = MAX_DOCUMENT_BYTES
"""The most one line (one message) may carry: the HTTP API's request body limit."""

RequestId = str | int
_ID = re.compile(r'"id"\s*:\s*(-?\d{1,18}(?![\d.eE])|"(?:[^"\\]|\\.){0,256}")')
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)

_SHAPE = (
    'A JSON-RPC 2.0 message is one object per line with "jsonrpc": "2.0", a string or '
    'integer "id" for a request, a "method", and "params" as an object.'
)


def read_line(raw: bytes) -> types.JSONRPCMessage | types.JSONRPCError | None:
    """The message a line holds, the error to send back for it, or None for a blank line.

    Bytes that are not UTF-8 are read as lone surrogates (``surrogateescape``), so such a
    line is refused like a ``\\ud800`` escape: under its id, as the invalid params it is.
    """
    text = raw.decode("utf-8", "surrogateescape").strip()
    if not text:
        return None
    try:
        data = json_input.loads(text, what="The message")
    except json.JSONDecodeError as err:
        return error(
            None,
            PARSE_ERROR,
            f"Parse error: the line is not valid JSON ({err.msg} at column {err.colno}). "
            "Send one JSON-RPC message per line.",
        )
    except InvalidArgument as err:
        return error(salvage_id(text), INVALID_REQUEST, f"Invalid Request: {err.message}")
    if not isinstance(data, dict):
        return error(None, INVALID_REQUEST, f"Invalid Request: the line is not an object. {_SHAPE}")
    return _message(data)


def too_long(head: bytes) -> types.JSONRPCError:
    """The error for a line over MAX_LINE_BYTES (``head``: its first bytes, for the id)."""
    return error(
        salvage_id(head.decode("utf-8", "replace")),
        INVALID_REQUEST,
        f"Invalid Request: the message is more than the {size_words(MAX_LINE_BYTES)} one "
        "message may carry, so it was not read. Send less: split the document or edit it in parts.",
    )


def error(request_id: RequestId | None, code: int, message: str) -> types.JSONRPCError:
    """A JSON-RPC error answer."""
    data = types.ErrorData(code=code, message=message)
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=data)


def salvage_id(text: str) -> RequestId | None:
    """The ``id`` member of the outermost object of a line that could not be parsed whole
    (too deep, a number too large, too long), or None when it cannot be told."""
    for count, match in enumerate(_ID.finditer(text)):
        if count == 16:  # an id is near the start; never scan a huge line quadratically
            break
        before = _STRING.sub("", text[: match.start()])
        if '"' in before:  # the match is inside a string
            continue
        depth = before.count("{") + before.count("[") - before.count("}") - before.count("]")
        if depth != 1:
            continue
        value = json.loads(match.group(1))
        if isinstance(value, int | str) and not isinstance(value, bool):
            return value
    return None


def _message(data: dict[str, Any]) -> types.JSONRPCMessage | types.JSONRPCError:
    raw_id = data.get("id")
    known = raw_id if isinstance(raw_id, int | str) and not isinstance(raw_id, bool) else None
    if "method" not in data and ("result" in data or "error" in data):
        # A malformed answer to one of our requests: a reply under its id would be taken
        # for the answer to the client's own request of that number.
        known = None
    elif known is None and "id" in data:
        return error(
            None,
            INVALID_REQUEST,
            f'Invalid Request: "id" must be a string or an integer, got {_kind(raw_id)}. {_SHAPE}',
        )
    if data.get("jsonrpc") != "2.0":
        return error(known, INVALID_REQUEST, f'Invalid Request: "jsonrpc" must be "2.0". {_SHAPE}')
    unpaired = _unpaired(data)
    if unpaired is not None:
        code = INVALID_PARAMS if unpaired.startswith("params") else INVALID_REQUEST
        kind = "Invalid params" if code == INVALID_PARAMS else "Invalid Request"
        return error(
            known,
            code,
            f"{kind}: `{unpaired}` holds an unpaired surrogate (a \\ud800-style escape, or "
            "bytes that are not UTF-8), which is not text. Send valid Unicode text.",
        )
    if "method" in data and not isinstance(data["method"], str):
        return error(
            known, INVALID_REQUEST, f'Invalid Request: "method" must be a string. {_SHAPE}'
        )
    if "params" in data and not isinstance(data["params"], dict):
        return error(
            known,
            INVALID_PARAMS,
            f'Invalid params: "params" must be an object, got {_kind(data["params"])}.',
        )
    try:
        return types.jsonrpc_message_adapter.validate_python(data, by_name=False)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(part) for part in first["loc"] if not isinstance(part, int))
        if "params" in [str(part) for part in first["loc"]]:
            return error(known, INVALID_PARAMS, f"Invalid params: {first['msg']} ({where}).")
        return error(known, INVALID_REQUEST, f"Invalid Request: {first['msg']}. {_SHAPE}")


def _unpaired(value: object, where: str = "") -> str | None:
    """Where the first string holding a lone surrogate is (``params.arguments.path``)."""
    if isinstance(value, str):
        return (where or "message") if _has_surrogate(value) else None
    if isinstance(value, dict):
        for key, item in value.items():
            place = f"{where}.{key}" if where else str(key)
            if _has_surrogate(str(key)):
                return where or "message"
            found = _unpaired(item, place)
            if found is not None:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found = _unpaired(item, f"{where}[{index}]")
            if found is not None:
                return found
    return None


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an object"
