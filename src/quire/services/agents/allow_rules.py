"""Quire's rules in Claude Code's ``permissions.allow`` list (the chat commands an agent in a
chat runs): merge them in and take them out again.

Pure: works on parsed JSON and returns a new object; keeps every other rule and key, and
refuses (ShapeError) a ``permissions`` or ``allow`` it cannot read. Reading and writing the
settings file is ``hooks.py``'s.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from quire.services.agents.hook_entries import ShapeError
from quire.services.agents.jsonfile import json_kind


def merge_allow(settings: dict[str, Any], rules: Sequence[str]) -> tuple[dict[str, Any], int]:
    """``settings`` with each of ``rules`` not yet in ``permissions.allow`` appended, in
    order, and how many were added."""
    result = copy.deepcopy(settings)
    allow = _allow(result)
    missing = [rule for rule in rules if rule not in allow]
    if missing:
        result.setdefault("permissions", {}).setdefault("allow", []).extend(missing)
    return result, len(missing)


def remove_allow(settings: dict[str, Any], rules: Sequence[str]) -> tuple[dict[str, Any], int]:
    """``settings`` without ``rules`` in ``permissions.allow``, and how many were removed. An
    ``allow`` list (and ``permissions`` object) left empty by the removal goes too."""
    result = copy.deepcopy(settings)
    allow = _allow(result)
    kept = [rule for rule in allow if rule not in rules]
    removed = len(allow) - len(kept)
    if removed:
        permissions = result["permissions"]
        if kept:
            permissions["allow"] = kept
        else:
            del permissions["allow"]
            if not permissions:
                del result["permissions"]
    return result, removed


def _allow(settings: dict[str, Any]) -> list[Any]:
    """The ``permissions.allow`` list as it is (empty when absent)."""
    permissions = settings.get("permissions", {})
    if not isinstance(permissions, dict):
        raise ShapeError(f"its `permissions` is {json_kind(permissions)}, not an object")
    allow = permissions.get("allow", [])
    if not isinstance(allow, list):
        raise ShapeError(f"its `permissions.allow` is {json_kind(allow)}, not a list")
    return allow
