"""Path rules: expanding a path argument, the Markdown-document rule, and the allowed folders.

Judges paths with stat and symlink resolution only; it never opens or reads a file's content
(that is ``safeio``'s job) and never reads ``os.environ`` (home and cwd are passed in).
"""

from __future__ import annotations

import errno
import stat

from quire.core.limits import MARKDOWN_EXTENSIONS, is_markdown_name
from quire.fs.folders import AllowedFolders, resolve_folder

__all__ = [
    "AllowedFolders",
    "document_rule",
    "file_kind",
    "is_document_name",
    "is_dotfile_name",
    "is_markdown_name",
    "participle",
    "resolve_folder",
]

_EXTENSION_LIST = ", ".join(MARKDOWN_EXTENSIONS)
_PARTICIPLES = {
    "read": "read",
    "write": "written",
    "diff": "compared",
    "search": "searched",
    "open": "opened",
}
_MISSING = (errno.ENOENT, errno.ENOTDIR)


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
        f"can be {participle(verb)}"
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


def participle(verb: str) -> str:
    """The past participle of a verb in messages: read, written, opened, created."""
    if verb in _PARTICIPLES:
        return _PARTICIPLES[verb]
    return verb + "d" if verb.endswith("e") else verb + "ed"
