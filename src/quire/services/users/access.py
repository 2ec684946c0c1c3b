"""What the request being served may read and write: the one access check every service calls.

A request runs ``as`` an access (``acting_as``), set once by the web layer's sign-in for the
whole request, its tasks and its worker threads (a ``ContextVar`` follows them). Services
call ``require_read`` / ``require_write`` before they touch a path and ``may_read`` to filter
a listing item by item. Code that serves no request (the watcher, start-up, a test building
services by hand) runs as ``EVERYTHING``, the server's own access.

In single mode every request is the owner's, so the access is ``EVERYTHING``. In multi mode a
signed-in account's access is the union of the grants that reach it, resolved once when the
request signs in (``GrantedAccess``): checks are then pure, with no database round trip.

Denials never say whether a path exists: without read access a path is "not found", exactly
as a path that is not there; with read access only, a write is "access denied".
"""

from __future__ import annotations

import logging
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from quire.core.errors import AccessDenied, FileMissing
from quire.core.teams.grants import Access as Level
from quire.core.teams.grants import Grant, access_to, leads_to
from quire.fs.resolve import resolve_leniently_as_text
from quire.services.users.identity import Identity

logger = logging.getLogger(__name__)

_K = TypeVar("_K", Path, str)


class Access:
    """Everything: the server's own access, and the owner's in single mode."""

    @property
    def identity(self) -> Identity | None:
        """The signed-in account (None: the server itself, or single mode's owner)."""
        return None

    @property
    def restricted(self) -> bool:
        """Whether checks can refuse anything (False: every path is allowed)."""
        return False

    def for_request(self) -> Access:
        """The access one request runs with (an account's keeps what it finds for that
        request only)."""
        return self

    def level(self, path: Path) -> Level | None:
        """The access to ``path``: write, read, or None."""
        return "write"

    def sees_folder(self, path: Path) -> bool:
        """Whether a listing may show the folder ``path`` (by name): it is readable, or a
        grant below it is reached through it."""
        return True

    def hides(self, path: Path) -> bool:
        """Whether ``path`` is a private chat the account is not a member of (its grants
        may cover it, yet it gets no access)."""
        return False

    def granted_level(self, path: Path) -> Level | None:
        """The access the grants alone give to ``path``, private chats not considered."""
        return self.level(path)

    def may_read(self, path: Path) -> bool:
        """Whether ``path`` may be read (write access includes read)."""
        return self.level(path) is not None

    def may_write(self, path: Path) -> bool:
        """Whether ``path`` may be changed, created or deleted."""
        return self.level(path) == "write"

    def may_read_resolved(self, path: Path) -> bool:
        """``may_read`` of a path already resolved through its links (the search index's
        real paths): nothing on the disk is looked at."""
        return self.may_read(path)

    def require_read(self, path: Path, *, missing: str | None = None) -> None:
        """Raise ``FileMissing`` unless ``path`` may be read. ``missing`` is the message a
        missing file gets at the caller, so a refused path reads exactly like an absent one."""
        if not self.may_read(path):
            raise FileMissing(missing or not_found(path))

    def require_write(self, path: Path, *, missing: str | None = None) -> None:
        """Raise ``FileMissing`` when ``path`` may not be read, ``AccessDenied`` when it may
        only be read."""
        level = self.level(path)
        if level is None:
            raise FileMissing(missing or not_found(path))
        if level != "write":
            raise AccessDenied(
                f"Access denied: your account has read-only access to {path}. Ask a "
                "workspace admin for write access."
            )


EVERYTHING = Access()

LEVELS_KEPT = 256
"""How many paths one request remembers the level of (a listing checks many paths once)."""
RESOLVED_LEVELS_KEPT = 4096
"""How many resolved paths an account's access remembers the level of, across its requests."""


@dataclass(frozen=True)
class _Derived:
    """What an account's access works out once from its grants, shared by every request's
    copy of it. Nothing here looks at the disk."""

    innermost_first: tuple[tuple[str, str, str], ...]
    """Each served folder as text, the prefix of the paths inside it, and its grants' name,
    the deepest first (the first folder holding a path is its innermost)."""
    hidden_keys: frozenset[str]
    """The hidden private chats' keys (``_key``)."""
    levels: dict[str, Level | None]
    """The level of each resolved path (as text) worked out so far. It depends on the grants
    and the hidden chats alone, which one access never changes (a change of them makes a new
    access, through the access-change counter), so it is kept across requests; where a path
    leads is not: each request resolves it again."""

    @classmethod
    def of(cls, workspaces: Sequence[tuple[Path, str]], hidden: frozenset[Path]) -> _Derived:
        ordered = sorted(workspaces, key=lambda item: len(item[0].parts), reverse=True)
        return cls(
            innermost_first=tuple(
                (str(folder), str(folder).rstrip("/") + "/", name) for folder, name in ordered
            ),
            hidden_keys=frozenset(_key(path) for path in hidden),
            levels={},
        )


@dataclass(frozen=True)
class GrantedAccess(Access):
    """A signed-in account's access: the grants that reach it, over the served folders.

    ``workspaces`` are the served folders (resolved) with the names grants use; a path
    outside them, or spelled so a grant cannot cover it, gets no access. Any error while
    checking denies."""

    account: Identity
    grants: tuple[Grant, ...]
    workspaces: Sequence[tuple[Path, str]]
    hidden: frozenset[Path] = frozenset()
    """The private chats (resolved absolute paths) the account is not a member of: no access,
    whatever the grants say."""
    joined: frozenset[Path] = frozenset()
    """The private chats the account is a member of."""
    born_private: frozenset[Path] = frozenset()
    """The private chats that were created private (nobody outside their members ever had
    them); the others were made private later."""
    _levels: dict[Path, Level | None] | None = field(
        default=None, init=False, compare=False, repr=False
    )
    """The levels found so far, by path as asked, in one request's copy (``for_request``):
    a path a request checks several times is resolved once, and a symlink changed on disk
    counts from the next request on. None in the access itself, which a socket uses for
    hours: it resolves every path afresh."""
    _derived: _Derived = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_derived", _Derived.of(self.workspaces, self.hidden))

    def for_request(self) -> GrantedAccess:
        """A copy for one request, with no level found yet. It shares what is worked out once
        from the grants (``_Derived``); made by hand, as ``copy.copy`` would take a few
        times longer, on every request."""
        copied = object.__new__(type(self))
        copied.__dict__.update(self.__dict__)
        copied.__dict__["_levels"] = {}
        return copied

    @property
    def identity(self) -> Identity:
        return self.account

    @property
    def restricted(self) -> bool:
        return True

    def level(self, path: Path) -> Level | None:
        levels = self._levels
        if levels is None:
            return self._level(path)
        return _remembered(levels, path, LEVELS_KEPT, self._level)

    def _level(self, path: Path) -> Level | None:
        try:
            return self._resolved_level(resolve_leniently_as_text(path))
        except Exception:
            logger.exception("An access check failed, so access was denied")
            return None

    def _resolved_level(self, resolved: str) -> Level | None:
        """The level of a path already resolved, remembered (``_Derived.levels``)."""
        return _remembered(self._derived.levels, resolved, RESOLVED_LEVELS_KEPT, self._work_out)

    def _work_out(self, resolved: str) -> Level | None:
        located = self._placed(resolved)
        if located is None:
            return None
        if self.hidden and _key(resolved) in self._derived.hidden_keys:
            return None
        return access_to(self.grants, *located)

    def may_read_resolved(self, path: Path) -> bool:
        try:
            return self._resolved_level(str(path)) is not None
        except Exception:
            logger.exception("An access check failed, so access was denied")
            return False

    def hides(self, path: Path) -> bool:
        try:
            return (
                bool(self.hidden)
                and _key(resolve_leniently_as_text(path)) in self._derived.hidden_keys
            )
        except Exception:
            logger.exception("An access check failed, so the path was hidden")
            return True

    def granted_level(self, path: Path) -> Level | None:
        try:
            located = self._locate(path)
            return None if located is None else access_to(self.grants, *located)
        except Exception:
            logger.exception("An access check failed, so access was denied")
            return None

    def sees_folder(self, path: Path) -> bool:
        try:
            located = self._locate(path)
            if located is None:
                return False
            return access_to(self.grants, *located) is not None or leads_to(self.grants, *located)
        except Exception:
            logger.exception("An access check failed, so the folder was hidden")
            return False

    def _locate(self, path: Path) -> tuple[str, str] | None:
        """The workspace name and the ``/``-separated path inside it of ``path`` (resolved
        through symlinks), from the innermost served folder holding it; None outside them."""
        return self._placed(resolve_leniently_as_text(path))

    def _placed(self, resolved: str) -> tuple[str, str] | None:
        """``_locate`` of a path already resolved."""
        for folder, under, name in self._derived.innermost_first:
            if resolved == folder:
                return name, ""
            if resolved.startswith(under):
                return name, unicodedata.normalize("NFC", resolved[len(under) :])
        return None


def _remembered(
    kept: dict[_K, Level | None], key: _K, most: int, work_out: Callable[[_K], Level | None]
) -> Level | None:
    """The level ``kept`` holds for ``key``, else ``work_out``'s, kept while fewer than
    ``most`` are."""
    if key in kept:
        return kept[key]
    found = work_out(key)
    if len(kept) < most:
        kept[key] = found
    return found


def _key(path: Path | str) -> str:
    """How private chat paths are matched: without regard to case or Unicode form (some disks
    open ``CHATS/A.md`` as ``Chats/a.md``)."""
    return unicodedata.normalize("NFC", str(path)).casefold()


def not_found(path: Path) -> str:
    """The message of a path that is not there, or that the account may not read."""
    return f"Not found: {path}. Check the path, or ask a workspace admin for access."


_current: ContextVar[Access] = ContextVar("quire_access", default=EVERYTHING)


def current_access() -> Access:
    """The access of the request being served (``EVERYTHING`` outside any request)."""
    return _current.get()


@contextmanager
def acting_as(access: Access) -> Iterator[None]:
    """Run the block (and the tasks and threads it starts) with ``access``."""
    token = _current.set(access)
    try:
        yield
    finally:
        _current.reset(token)
