"""Quire's entries in an agent's hooks object (``{"hooks": {"<Event>": [{"matcher",
"hooks": [{"type": "command", "command"}]}]}}``): find, merge and remove them.

Pure: works on parsed JSON and returns a new object; never changes an entry that does not run
``quire`` with the spec's arguments, and refuses (ShapeError) a ``hooks`` shape it cannot read.
"""

from __future__ import annotations

import copy
import shlex
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any, Literal

from quire.services.agents.jsonfile import json_kind
from quire.services.agents.machine import QUIRE_NAME, Machine, Program, quire_command

Merge = Literal["added", "present", "repaired", "other"]


class ShapeError(Exception):
    """The hooks object has a shape Quire will not change; ``str()`` says which part."""


@dataclass(frozen=True)
class HookSpec:
    """One hook Quire installs: the event, the ``quire`` arguments, and how it is filtered."""

    event: str
    args: tuple[str, ...]
    matcher: str | None = None
    guards: tuple[str, ...] = ()
    """One handler per guard, each with it as its ``if`` (a single permission rule, which is
    all an ``if`` may hold); one unguarded handler when there are none."""
    timeout: int | None = None
    """Seconds the agent waits for the hook, when Quire sets it."""

    def entries(self, machine: Machine) -> list[dict[str, Any]]:
        """The handlers Quire writes, running ``machine``'s Quire (its path shell-quoted)."""
        entries: list[dict[str, Any]] = []
        for guard in self.guards or (None,):
            entry: dict[str, Any] = {"type": "command", "command": self.command(machine)}
            if guard is not None:
                entry["if"] = guard
            if self.timeout is not None:
                entry["timeout"] = self.timeout
            entries.append(entry)
        return entries

    def group(self, machine: Machine) -> dict[str, Any]:
        """The event's list item holding Quire's handlers."""
        group: dict[str, Any] = {} if self.matcher is None else {"matcher": self.matcher}
        group["hooks"] = self.entries(machine)
        return group

    def command(self, machine: Machine) -> str:
        """The handler's shell command."""
        return quire_command(machine.quire, *self.args)


@dataclass(frozen=True)
class Merged:
    """The hooks object after a merge, and what the merge found."""

    result: Merge
    settings: dict[str, Any]
    program: str | None = None
    """The other Quire that was kept, or the missing one that was replaced."""


@dataclass(frozen=True)
class _Found:
    group: int
    handler: int
    program: str
    verdict: Program


def quire_program(command: object, args: tuple[str, ...]) -> str | None:
    """The ``quire`` program a hook command runs with exactly ``args``, or None.

    Reads a quoted path, a bare one, and an unquoted path with spaces (which shell splitting
    cannot read back, but an older installer may have written).
    """
    if not isinstance(command, str):
        return None
    suffix = " " + " ".join(args)
    if not command.endswith(suffix):
        return None
    head = command[: -len(suffix)].strip()
    try:
        parts = shlex.split(head)
    except ValueError:
        parts = []
    program = parts[0] if len(parts) == 1 else head
    return program if PurePosixPath(program).name == QUIRE_NAME else None


def has_entry(settings: dict[str, Any], spec: HookSpec, machine: Machine) -> bool:
    """Whether ``settings`` runs this Quire for ``spec`` (raises ShapeError like merge)."""
    return any(found.verdict == "ours" for found in _find(settings, spec, machine))


def describe(settings: dict[str, Any], spec: HookSpec, machine: Machine) -> Merged:
    """What merging would find, without changing anything (``settings`` is returned as is):
    ``present`` (this Quire's), ``other``, ``repaired`` (a gone Quire's) or ``added``."""
    found = _find(settings, spec, machine)
    if any(item.verdict == "ours" for item in found):
        return Merged("present", settings)
    others = [item.program for item in found if item.verdict == "other"]
    if others:
        return Merged("other", settings, others[0])
    stale = [item.program for item in found if item.verdict == "stale"]
    if stale:
        return Merged("repaired", settings, stale[0])
    return Merged("added", settings)


def settings_block(
    machine: Machine, specs: tuple[HookSpec, ...], allow: tuple[str, ...] = ()
) -> dict[str, Any]:
    """The settings object to merge by hand: the ``specs`` hooks and, when given, the
    ``permissions.allow`` rules."""
    hooks: dict[str, list[dict[str, Any]]] = {}
    for spec in specs:
        hooks.setdefault(spec.event, []).append(spec.group(machine))
    block: dict[str, Any] = {"hooks": hooks}
    if allow:
        block["permissions"] = {"allow": list(allow)}
    return block


def merge(settings: dict[str, Any], spec: HookSpec, machine: Machine) -> Merged:
    """``settings`` with this Quire's ``spec`` hook, idempotently.

    This Quire's entry is kept (its command rewritten when quoted differently), and entries of
    a Quire that is gone are dropped beside it; an entry of another Quire that exists is kept
    and nothing is added; else the entries of a gone Quire are pointed at this one, in place;
    else a new item is appended to the event's list.
    """
    found = _find(settings, spec, machine)
    result = copy.deepcopy(settings)
    groups: list[Any] = result.get("hooks", {}).get(spec.event, [])
    command = spec.command(machine)
    ours = [item for item in found if item.verdict == "ours"]
    stale = [item for item in found if item.verdict == "stale"]
    others = [item for item in found if item.verdict == "other"]
    if ours:
        changed = bool(stale)
        for item in ours:
            handler = groups[item.group]["hooks"][item.handler]
            if handler["command"] != command:
                handler["command"] = command
                changed = True
        _drop(result, spec.event, stale)
        return Merged("repaired" if changed else "present", result)
    if others:
        return Merged("other", settings, others[0].program)
    if stale:
        kept = stale[0].group
        for item in stale:
            if item.group == kept:
                groups[item.group]["hooks"][item.handler]["command"] = command
        _drop(result, spec.event, [item for item in stale if item.group != kept])
        return Merged("repaired", result, stale[0].program)
    hooks = result.setdefault("hooks", {})
    hooks.setdefault(spec.event, []).append(spec.group(machine))
    return Merged("added", result)


def remove(
    settings: dict[str, Any], spec: HookSpec, machine: Machine
) -> tuple[dict[str, Any], int]:
    """``settings`` without any Quire's ``spec`` hook, and how many entries were removed.

    An item (and the event, and ``hooks``) left empty by the removal is removed too.
    """
    found = _find(settings, spec, machine)
    result = copy.deepcopy(settings)
    _drop(result, spec.event, found)
    return result, len(found)


def _find(settings: dict[str, Any], spec: HookSpec, machine: Machine) -> list[_Found]:
    found: list[_Found] = []
    for group_index, handlers in enumerate(_groups(settings, spec.event)):
        for handler_index, handler in enumerate(handlers):
            program = quire_program(handler.get("command"), spec.args)
            if program is not None:
                found.append(_Found(group_index, handler_index, program, machine.judge(program)))
    return found


def _groups(settings: dict[str, Any], event: str) -> list[list[dict[str, Any]]]:
    """The handler lists of ``event``'s items, after checking every level's shape."""
    if "hooks" not in settings:
        return []
    hooks = settings["hooks"]
    if not isinstance(hooks, dict):
        raise ShapeError(f"its `hooks` is {json_kind(hooks)}, not an object")
    if event not in hooks:
        return []
    groups = hooks[event]
    if not isinstance(groups, list):
        raise ShapeError(f"its `hooks.{event}` is {json_kind(groups)}, not a list")
    lists: list[list[dict[str, Any]]] = []
    for number, group in enumerate(groups, 1):
        where = f"item {number} of `hooks.{event}`"
        if not isinstance(group, dict):
            raise ShapeError(f"{where} is {json_kind(group)}, not an object")
        handlers = group.get("hooks", [])
        if not isinstance(handlers, list):
            raise ShapeError(f"the `hooks` of {where} is {json_kind(handlers)}, not a list")
        for handler in handlers:
            if not isinstance(handler, dict):
                raise ShapeError(f"a hook in {where} is {json_kind(handler)}, not an object")
        lists.append(handlers)
    return lists


def _drop(settings: dict[str, Any], event: str, found: list[_Found]) -> None:
    """Remove the ``found`` handlers, then the items, event and ``hooks`` they leave empty."""
    if not found:
        return
    hooks = settings["hooks"]
    groups = hooks[event]
    emptied: set[int] = set()
    for item in sorted(found, key=lambda item: (item.group, item.handler), reverse=True):
        handlers = groups[item.group]["hooks"]
        del handlers[item.handler]
        if not handlers:
            emptied.add(item.group)
    for index in sorted(emptied, reverse=True):
        del groups[index]
    if not groups and emptied:
        del hooks[event]
        if not hooks:
            del settings["hooks"]
