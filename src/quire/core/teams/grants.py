"""Which grants cover a path in a workspace, and what access they give.

Pure rules, no I/O. A grant gives ``read`` or ``write`` (write includes read) on a workspace,
or on a path prefix inside it. Grants only ever add access: a path's access is the UNION of
the grants that cover it (the strongest wins), and there are no deny grants. So a path that is
spelled differently from a grant (another case, an odd form) can only lose access, never gain
it: every mismatch fails closed.

A prefix matches whole path segments: ``notes`` covers ``notes`` and ``notes/a.md``, never
``notes-old/a.md``. Prefixes and paths are compared in Unicode NFC, so two spellings of one
visible name (as macOS and Linux may store them) are the same name. A path with ``.`` or
``..`` segments, empty segments, a backslash, a control character or a leading ``/`` is not a
path a grant can cover: it gets no access at all.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, Literal, get_args

from quire.core.errors import InvalidArgument

Access = Literal["read", "write"]
ACCESS: Final[tuple[Access, ...]] = get_args(Access)
PREFIX_MAX = 1024
WORKSPACE_MAX = 255


@dataclass(frozen=True)
class Grant:
    """Access to ``prefix`` (segments; empty: the whole workspace) inside ``workspace``."""

    workspace: str
    prefix: tuple[str, ...]
    access: Access


def check_access(raw: str) -> Access:
    """``raw`` as an Access, or InvalidArgument naming the two there are."""
    for access in ACCESS:
        if raw == access:
            return access
    raise InvalidArgument(f"Access is read or write, not {raw!r}.", argument="access")


def check_workspace(raw: str) -> str:
    """A workspace's name as a grant stores it (NFC), or InvalidArgument."""
    name = unicodedata.normalize("NFC", raw.strip())
    if not name or len(name) > WORKSPACE_MAX or "/" in name or "\\" in name:
        raise _bad("workspace", raw, "a folder's name as GET /api/workspaces shows it")
    if name in (".", "..") or not name.isprintable():
        raise _bad("workspace", raw, "a folder's name as GET /api/workspaces shows it")
    return name


def check_prefix(raw: str) -> tuple[str, ...]:
    """A grant's path prefix as segments (``""`` or ``"/"``: the whole workspace).

    Leading and trailing slashes are dropped; ``.`` and ``..`` segments, empty segments,
    backslashes and control characters raise InvalidArgument (argument ``prefix``).
    """
    text = raw.strip()
    if len(text) > PREFIX_MAX:
        raise _bad("prefix", raw[:80] + "…", f"at most {PREFIX_MAX} characters")
    segments = split_path(text.strip("/"))
    if segments is None:
        raise _bad("prefix", raw, "a folder or file path inside the workspace, like notes/team")
    return segments


def split_path(path: str) -> tuple[str, ...] | None:
    """``path`` (relative, ``/``-separated) as NFC segments; None when it is not one a grant
    can cover (``..``, ``.``, empty segments, a leading slash, a backslash, a control
    character). One trailing slash is allowed: ``notes/`` is the folder ``notes``."""
    if path == "":
        return ()
    text = path[:-1] if path.endswith("/") else path
    if "\\" in text or _has_control(text):
        return None
    segments = tuple(unicodedata.normalize("NFC", part) for part in text.split("/"))
    if any(part in ("", ".", "..") for part in segments):
        return None
    return segments


def _has_control(text: str) -> bool:
    if text.isascii():
        # The only ASCII characters of those categories are Cc's, which isprintable refuses.
        return not text.isprintable()
    return any(unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp") for char in text)


def covers(grant: Grant, workspace: str, segments: tuple[str, ...]) -> bool:
    """Whether ``grant`` covers the path ``segments`` of ``workspace`` (whole segments)."""
    if grant.workspace != unicodedata.normalize("NFC", workspace):
        return False
    return segments[: len(grant.prefix)] == grant.prefix


def access_to(grants: Iterable[Grant], workspace: str, path: str) -> Access | None:
    """The access the grants give to ``path`` in ``workspace``: the strongest of those that
    cover it, None when none does or the path is malformed."""
    segments = split_path(path)
    if segments is None:
        return None
    found: Access | None = None
    for grant in grants:
        if covers(grant, workspace, segments):
            if grant.access == "write":
                return "write"
            found = "read"
    return found


def allows(grants: Iterable[Grant], workspace: str, path: str, access: Access) -> bool:
    """Whether the grants give ``access`` (read, or write which includes read) to ``path``."""
    given = access_to(grants, workspace, path)
    return given == "write" or (given == "read" and access == "read")


def includes(grants: Iterable[Grant], grant: Grant) -> bool:
    """Whether ``grants`` give at least what ``grant`` gives, everywhere it gives it: one of
    them covers its prefix with as much access (write includes read). Paths below a prefix
    have no end, so only a grant covering the prefix itself covers them all."""
    return any(
        covers(given, grant.workspace, grant.prefix)
        and (given.access == "write" or given.access == grant.access)
        for given in grants
    )


def leads_to(grants: Iterable[Grant], workspace: str, path: str) -> bool:
    """Whether ``path`` is a folder above some grant's prefix, so a listing may show it (its
    name only) as the way to what is granted below it."""
    segments = split_path(path)
    if segments is None:
        return False
    workspace = unicodedata.normalize("NFC", workspace)
    return any(
        grant.workspace == workspace
        and len(grant.prefix) > len(segments)
        and grant.prefix[: len(segments)] == segments
        for grant in grants
    )


def _bad(what: str, raw: str, expected: str) -> InvalidArgument:
    return InvalidArgument(f"The {what} {raw!r} cannot be granted: give {expected}.", argument=what)
