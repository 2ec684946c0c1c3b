"""The input hash: what binds a decision to one tool call, so an answer given for one command
can never be applied to another. Pure."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any, Final

HASH_PATTERN: Final = re.compile(r"[0-9a-f]{64}")


def input_hash(tool_name: str, tool_input: dict[str, Any]) -> str:
    """The SHA-256 (hex) of the tool's name and input as canonical JSON (sorted keys, no
    spaces, UTF-8): the same call always gives the same hash, any change another one."""
    canonical = json.dumps(
        {"tool_input": tool_input, "tool_name": tool_name},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        allow_nan=False,
    )
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()
