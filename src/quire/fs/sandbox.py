"""Path rules: expanding a path argument, the Markdown-document rule, and the allowed folders.

Judges paths with stat and symlink resolution only; it never opens or reads a file's content
(that is ``safeio``'s job) and never reads ``os.environ`` (home and cwd are passed in).
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from quire.core.errors import FileMissing, PathRefused
from quire.core.limits import MARKDOWN_EXTENSIONS
from quire.core.paths import require_absolute
from quire.fs.folders import AllowedFolders, resolve_folder
from quire.fs.oserror import open_failed

__all__ = [
    "AllowedFolders",
    "CheckedDocument",
    "check_document",
    "document_rule",
    "file_kind",
    "inspect_document",
    "is_document_name",
    "is_dotfile_name",
    "is_markdown_name",
    "resolve_folder",
]

_EXTENSION_LIST = ", ".join(MARKDOWN_EXTENSIONS)
_PARTICIPLES = {"read": "read", "write": "written", "diff": "compared", "search": "searched"}
_MISSING = (errno.ENOENT, errno.ENOTDIR)


def is_markdown_name(name: str) -> bool:
    """Whether ``name`` ends in a Markdown extension (any ASCII case) after a non-empty stem."""
    for extension in MARKDOWN_EXTENSIONS:
        tail = name[-len(extension) :]
        # Only ASCII folds: "K" (Kelvin sign) lowercases to "k", yet ".m\u212ad" is no ".mkd".
        if len(name) > len(extension) and tail.isascii() and tail.lower() == extension:
            return True
    return False


def is_dotfile_name(name: str) -> bool:
    """Whether ``name`` is hidden by the Unix convention (starts with a dot)."""
    return name.startswith(".")


def is_document_name(name: str) -> bool:
    """Whether ``name`` passes the document rule: Markdown and not a dotfile."""
    return is_markdown_name(name) and not is_dotfile_name(name)


def document_rule(verb: str) -> str:
    """The document rule as a sentence, e.g. ``only Markdown documents (…) … can be read``."""
    return (
        f"only Markdown documents ({_EXTENSION_LIST}) that are not dotfiles "
        f"can be {_participle(verb)}"
    )


@dataclass(frozen=True)
class CheckedDocument:
    """A path that passed the document rule, with the identity of the file the check saw.

    ``resolved`` is the path with every symlink resolved; ``device`` and ``inode`` are that
    file's, so a reader can refuse a different file put in its place after the check.
    """

    path: Path
    resolved: Path
    device: int
    inode: int


def inspect_document(path: Path, *, verb: str = "read") -> CheckedDocument:
    """Check the document rule on ``path`` and return what the check saw (see check_document)."""
    require_absolute(path, "path")
    if not is_document_name(path.name):
        raise PathRefused(f"Refusing to {verb} '{path}': {document_rule(verb)}.")
    try:
        resolved = Path(os.path.realpath(path, strict=True))
    except OSError as exc:
        raise _resolve_failed(exc, path, verb) from None
    if not is_document_name(resolved.name):
        raise PathRefused(
            f"Refusing to {verb} '{path}': it is a symbolic link to '{resolved}', and "
            f"{document_rule(verb)}."
        )
    try:
        # lstat, not stat: the resolved path has no link left, unless one was swapped in.
        file_stat = os.lstat(resolved)
    except OSError as exc:
        raise open_failed(exc, doing=verb, path=path, what="file") from None
    _require_regular(file_stat, path, verb)
    return CheckedDocument(path, resolved, file_stat.st_dev, file_stat.st_ino)


def check_document(path: Path, *, verb: str = "read") -> Path:
    """Apply the Markdown-document rule to ``path`` and return it with symlinks resolved.

    The rule (Markdown extension, not a dotfile) is judged on the path's own name and again on
    the file it resolves to, so a ``notes.md`` link to ``.env`` and a link named ``.notes.md``
    are both refused. Only the file name is judged: ``.hidden/notes.md`` passes (walks skip
    hidden folders; a direct path into one is the caller's choice). The file must exist and be
    a regular file. ``verb`` is the action named in messages (read, open, present, review…).

    Raises PathRefused (rule broken, a folder, a FIFO or device), FileMissing (nothing there,
    or a symlink whose target is missing) or StorageFailed (the OS refused the stat).
    """
    return inspect_document(path, verb=verb).resolved


def _resolve_failed(exc: OSError, path: Path, verb: str) -> Exception:
    if exc.errno in _MISSING and os.path.lexists(path):
        return FileMissing(
            f"Cannot {verb} '{path}': it is a symbolic link to a file that does not exist. "
            "Fix or remove the link, or pass the path of an existing document."
        )
    if exc.errno == errno.ELOOP:
        return PathRefused(
            f"Refusing to {verb} '{path}': it is a loop of symbolic links that never reaches a "
            "file. Fix the links, or pass the path of the document itself."
        )
    return open_failed(exc, doing=verb, path=path, what="file")


def _require_regular(file_stat: os.stat_result, path: Path, verb: str) -> None:
    mode = file_stat.st_mode
    if stat.S_ISREG(mode):
        return
    if stat.S_ISDIR(mode):
        raise PathRefused(
            f"Refusing to {verb} '{path}': it is a folder, not a document. Pass the path of a "
            "Markdown file inside it."
        )
    raise PathRefused(
        f"Refusing to {verb} '{path}': it is {file_kind(mode)}, not a regular file; "
        f"only regular files can be {_participle(verb)}."
    )


def file_kind(mode: int) -> str:
    """What a stat mode names, for messages: ``a named pipe (FIFO)``, ``a folder``…"""
    kinds = (
        (stat.S_ISREG, "a regular file"),
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISLNK, "a symbolic link"),
    )
    return next((words for test, words in kinds if test(mode)), "a special file")


def _participle(verb: str) -> str:
    if verb in _PARTICIPLES:
        return _PARTICIPLES[verb]
    return verb + "d" if verb.endswith("e") else verb + "ed"
