"""The inbox: the private folder in the state folder where a document piped on stdin is kept.

Reads a piped document (bounded, UTF-8, not blank) and saves it as a new owner-only file in
``<state>/inbox`` (a 0700 folder); it never opens or shows the file (``opening.py`` does).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
import time
from pathlib import Path
from typing import BinaryIO

from quire.core.errors import FileTooLarge, InvalidArgument, NotUtf8, StorageFailed
from quire.core.limits import MAX_DOCUMENT_BYTES
from quire.core.state import inbox_folder
from quire.fs.encoding import decode_utf8
from quire.fs.oserror import storage_failed

_CHUNK = 64 * 1024


def read_piped_document(stream: BinaryIO | None, limit: int = MAX_DOCUMENT_BYTES) -> str:
    """The document on ``stream`` (None: no stdin at all), read up to ``limit`` bytes.

    Reading stops one byte past ``limit``. Raises FileTooLarge past the limit, InvalidArgument
    for an empty or whitespace-only document and NotUtf8 for bytes that are not UTF-8 text.
    """
    data = b""
    if stream is not None:
        chunks: list[bytes] = []
        total = 0
        while total <= limit:
            wanted = min(_CHUNK, limit + 1 - total)
            chunk = stream.read(wanted)
            chunks.append(chunk)
            total += len(chunk)
            # A short read is the end: a terminal's Ctrl+D is not sticky, so reading on
            # would wait for more typing.
            if len(chunk) < wanted:
                break
        data = b"".join(chunks)
    if len(data) > limit:
        raise FileTooLarge(
            f"The document on stdin is larger than {limit // (1024 * 1024)} MiB, the most a "
            "Quire document may hold; nothing was opened. Split it, or save it as a file and "
            "open that file."
        )
    try:
        text = decode_utf8(data)
    except NotUtf8 as err:
        raise err.with_message(
            err.message.replace("The bytes are", "The document on stdin is", 1)
            + " Nothing was opened."
        ) from None
    if not text.strip():
        raise InvalidArgument(
            "The document on stdin is empty (or only whitespace), so nothing was opened. Pipe "
            "the Markdown in, for example `cat notes.md | quire open -`.",
            argument="-",
        )
    return text


def save_to_inbox(state: Path, text: str) -> Path:
    """Write ``text`` to a new owner-only (0600) Markdown file in the inbox; returns its path.

    The inbox is created 0700 when missing, and made 0700 again when its mode was widened. A
    symlink, or a folder of another user, in its place is refused (StorageFailed).
    """
    folder = _private_folder(inbox_folder(state))
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = folder / f"stdin-{stamp}-{secrets.token_hex(4)}.md"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        descriptor = os.open(path, flags, 0o600)
    except OSError as exc:
        raise storage_failed(exc, doing="write the document from stdin to", path=path) from None
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
    except OSError as exc:
        discard(path)
        raise storage_failed(exc, doing="write the document from stdin to", path=path) from None
    return path


def discard(path: Path) -> None:
    """Remove an inbox file nobody will see; a file already gone is fine."""
    with contextlib.suppress(OSError):
        path.unlink()


def _private_folder(folder: Path) -> Path:
    state = folder.parent
    if state.exists() and not state.is_dir():
        raise StorageFailed(
            f"Cannot keep the document from stdin: the state folder '{state}' is not a folder. "
            "Remove what is there, or set QUIRE_HOME to another folder."
        )
    try:
        state.mkdir(mode=0o700, parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError):
            folder.mkdir(mode=0o700)
        info = folder.lstat()
    except OSError as exc:
        raise storage_failed(exc, doing="create the inbox folder", path=folder) from None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise StorageFailed(
            f"Cannot use '{folder}' for the document from stdin: it is not a folder of yours "
            "(a link, a file, or another user's folder). Remove it and try again."
        )
    if stat.S_IMODE(info.st_mode) != 0o700:
        try:
            folder.chmod(0o700)
        except OSError as exc:
            raise storage_failed(
                exc, doing="set the permissions of the inbox folder", path=folder
            ) from None
    return folder.resolve()
