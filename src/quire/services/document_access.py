"""What a grant allows on a document, in the words every document surface answers with.

The window, the live documents, reviews and exports check the request's access
(``quire.services.users.access``) here before they touch a path: without read access a
document is "not found" with exactly the message a missing file gets, so a refusal never tells
whether it exists; with read access only, a change is "access denied". In single mode (and for
the server's own work) the access is ``EVERYTHING`` and these checks cost one lookup.
"""

from __future__ import annotations

from pathlib import Path

from quire.core.errors import FileMissing
from quire.services.users.access import current_access


def missing_document(path: Path, verb: str) -> str:
    """The message of a document that is not there (``quire.fs.documents`` words it so for a
    missing file in an existing folder), also given for one the account may not read."""
    return (
        f"Cannot {verb} '{path}': the file does not exist. Check the path "
        "(absolute, or relative to the working directory)."
    )


def require_readable(path: Path, verb: str) -> None:
    """Raise FileMissing (the missing file's message) unless the request may read ``path``."""
    access = current_access()
    if access.restricted and not access.may_read(path):
        raise FileMissing(missing_document(path, verb))


def require_writable(path: Path, verb: str) -> None:
    """Raise FileMissing without read access to ``path``, AccessDenied with read only."""
    access = current_access()
    if access.restricted:
        access.require_write(path, missing=missing_document(path, verb))


def readable(path: Path) -> bool:
    """Whether the request may read ``path`` (always, in single mode)."""
    access = current_access()
    return not access.restricted or access.may_read(path)


def writable(path: Path) -> bool:
    """Whether the request may change ``path`` (always, in single mode)."""
    access = current_access()
    return not access.restricted or access.may_write(path)
