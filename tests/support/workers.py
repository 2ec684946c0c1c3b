"""How many pytest-xdist workers `scripts/test` starts, and when it leaves the run serial.

`scripts/test` prints nothing but these arguments with ``python -m tests.support.workers ARGS``
and puts them before the caller's own. A run is spread over one worker per usable CPU (at most
MAX_WORKERS), each test file kept whole in one worker (``--dist loadfile``) so that a module's
browser and module-scoped fixtures are made once, in the order heavy_files_first gives
(tests/conftest.py applies it on the workers). It stays serial when only one CPU is usable,
when the caller chose already (``-n``, ``--numprocesses``, ``-p no:xdist``, also through
PYTEST_ADDOPTS), or when the caller asked for something workers cannot give (``-s`` output,
``--pdb``, ``--trace``, ``--collect-only``). QUIRE_TEST_WORKERS=N sets the count (0 or 1:
serial).
"""

from __future__ import annotations

import math
import os
import shlex
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol, TypeVar

MAX_WORKERS = 8
WORKERS_ENV = "QUIRE_TEST_WORKERS"
CGROUP_ROOT = Path("/sys/fs/cgroup")

# Short options of pytest (and xdist) whose value follows them, joined (-n2) or apart (-n 2).
_SHORT_WITH_VALUE = frozenset("cknmoprW")
# Long options that end a decision: the caller picked the workers, or needs one process.
_CHOSEN = ("--numprocesses", "--dist", "--tx")
_SERIAL = ("--pdb", "--trace", "--collect-only", "--co", "--setup-plan")


def _short_cluster(argument: str, following: str | None) -> tuple[str, bool]:
    """What a cluster of short options like ``-vs``, ``-n2`` or ``-p`` asks: 'chosen',
    'serial' or '' (nothing for us), and whether it used the following argument as a value."""
    for index, letter in enumerate(argument[1:], start=1):
        if letter == "s":
            return "serial", False
        if letter in _SHORT_WITH_VALUE:
            joined = argument[index + 1 :].lstrip("=")
            value = joined or following or ""
            if letter == "n" or (letter == "p" and value.strip() == "no:xdist"):
                return "chosen", not joined
            return "", not joined
    return "", False


def _long_option(argument: str) -> str:
    name, _, value = argument.partition("=")
    if name in _CHOSEN:
        return "chosen"
    if name in _SERIAL or (name == "--capture" and value == "no"):
        return "serial"
    return ""


def _wish(arguments: Sequence[str]) -> str:
    """'chosen', 'serial' or '' for a pytest command line (only what bears on workers)."""
    index = 0
    while index < len(arguments):
        argument = arguments[index]
        following = arguments[index + 1] if index + 1 < len(arguments) else None
        index += 1
        if argument == "--":
            return ""
        if argument.startswith("--"):
            wish = _long_option(argument)
            if argument == "--capture" and following == "no":
                wish = "serial"
        elif argument.startswith("-") and len(argument) > 1:
            wish, used_next = _short_cluster(argument, following)
            index += used_next
        else:
            wish = ""
        if wish:
            return wish
    return ""


def _cgroup_limit(root: Path) -> int | None:
    """The CPUs a cgroup quota allows (v2 cpu.max, else v1 cfs), rounded down, at least 1."""
    try:
        quota, _, period = (root / "cpu.max").read_text(encoding="utf-8").partition(" ")
    except OSError:
        try:
            quota = (root / "cpu" / "cpu.cfs_quota_us").read_text(encoding="utf-8")
            period = (root / "cpu" / "cpu.cfs_period_us").read_text(encoding="utf-8")
        except OSError:
            return None
    try:
        allowed, every = int(quota), int(period)
    except ValueError:
        return None  # "max": no quota
    if allowed <= 0 or every <= 0:
        return None
    return max(1, math.floor(allowed / every))


def usable_cpus(cgroup_root: Path = CGROUP_ROOT) -> int:
    """CPUs this process may run on: its affinity mask, narrowed by a cgroup CPU quota."""
    cpus = len(os.sched_getaffinity(0))
    limit = _cgroup_limit(cgroup_root)
    return max(1, cpus if limit is None else min(cpus, limit))


def worker_arguments(
    arguments: Sequence[str], environ: Mapping[str, str], cpus: int
) -> tuple[list[str], str]:
    """The arguments to put before the caller's, and a line saying why (for stderr)."""
    try:
        added = shlex.split(environ.get("PYTEST_ADDOPTS", ""))
    except ValueError as err:
        raise ValueError(
            f"PYTEST_ADDOPTS cannot be read as arguments ({err}): fix its quoting or unset it."
        ) from None
    wish = _wish([*added, *arguments])
    if wish == "chosen":
        return [], "the command line chose the workers"
    if wish == "serial":
        return [], "serial: the command line needs one process (-s, --pdb, --collect-only …)"
    raw = environ.get(WORKERS_ENV, "").strip()
    if raw:
        if not (raw.isascii() and raw.isdigit()):
            raise ValueError(
                f"{WORKERS_ENV}={raw!r} is not a number of workers: set it to 0 (serial) or "
                "a positive whole number, or unset it to use one worker per CPU."
            )
        count, source = int(raw), WORKERS_ENV
    else:
        count, source = min(cpus, MAX_WORKERS), f"{cpus} usable CPUs"
    if count <= 1:
        return [], f"serial: {source}"
    added = [f"--numprocesses={count}", "--dist=loadfile", "--no-loadscope-reorder"]
    return added, f"{count} workers ({source})"


class Collected(Protocol):
    """What ordering needs of a collected test: its node id (test functions also have the
    names of the fixtures they use, ``fixturenames``)."""

    @property
    def nodeid(self) -> str: ...


HEAVY_FIXTURES = frozenset({"browser"})
"""Fixtures that make a whole test file slow (a browser and a `quire serve` per test)."""


T = TypeVar("T", bound=Collected)


def heavy_files_first(items: Sequence[T]) -> list[T]:
    """``items`` with the files that use a HEAVY_FIXTURES fixture first, then the files with
    the most tests; the tests within each file keep their order.

    Workers take whole files from the front of this order, so the longest go first and no
    worker is left alone with a long one at the end. (xdist's own reordering, by test count
    alone, put the browser files last: they hold few, slow tests.)"""
    counts = Counter(_file(item) for item in items)
    heavy = {_file(item) for item in items if HEAVY_FIXTURES.intersection(_fixtures(item))}
    return sorted(items, key=lambda item: (_file(item) not in heavy, -counts[_file(item)]))


def _file(item: Collected) -> str:
    return item.nodeid.partition("::")[0]


def _fixtures(item: Collected) -> Sequence[str]:
    names: Sequence[str] = getattr(item, "fixturenames", ())
    return names


def main(arguments: Sequence[str]) -> int:
    try:
        added, reason = worker_arguments(arguments, os.environ, usable_cpus())
    except ValueError as err:
        print(f"scripts/test: {err}", file=sys.stderr)  # noqa: T201
        return 2
    print(f"scripts/test: {reason}", file=sys.stderr)  # noqa: T201
    for argument in added:
        print(argument)  # noqa: T201
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
