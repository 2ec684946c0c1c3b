"""Downloads: a file's bytes, or a folder as a zip, streamed as they are read.

The zip is written by ``zipfile`` into a sink the generator drains after every chunk, so no
temp copy of the folder and no whole archive is ever held. The folder is walked through
descriptors (``O_NOFOLLOW``): links, dotfiles, hidden folders, special files and Quire's temp
files are left out, and so is whatever the caller's ``keep`` refuses (an account's
download holds only what it may read). Blocking: iterate in a worker thread.
"""

from __future__ import annotations

import os
import stat
import time
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

from quire.core.errors import QuireError
from quire.fs.folders import AllowedFolders
from quire.fs.moves import CHUNK, open_read
from quire.fs.temp_names import is_temp_name
from quire.vault.files import reach_entry

__all__ = ["Download", "Keep", "download"]

Keep = Callable[[Path, bool], bool]
"""Whether a folder's zip holds the entry at this real path (``True``: a folder, to enter)."""

_FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC

PICTURES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".avif": "image/avif",
}
"""Pictures are sent as what they are (the Read view shows them from the download); anything
else, SVG included (it can hold script), as plain bytes."""


class Download:
    """What a download sends: a file name, its media type, and the chunks of bytes."""

    def __init__(self, name: str, media_type: str, chunks: Iterator[bytes]) -> None:
        self.name = name
        self.media_type = media_type
        self.chunks = chunks


class _Sink:
    """A write-only stream ``zipfile`` writes to (not seekable: it uses data descriptors)."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.size = 0

    def write(self, data: bytes) -> int:
        self.parts.append(bytes(data))
        self.size += len(data)
        return len(data)

    def tell(self) -> int:
        return self.size

    def flush(self) -> None:
        return None

    def drain(self) -> bytes:
        data = b"".join(self.parts)
        self.parts = []
        return data


def download(folders: AllowedFolders, path: Path, *, keep: Keep | None = None) -> Download:
    """The download of the file or folder ``path`` (checked now; read as it is iterated); a
    folder's zip leaves out the entries ``keep`` refuses (and a folder refused, all below)."""
    spot, info = reach_entry(folders, path, verb="download")
    if stat.S_ISDIR(info.st_mode):
        try:
            fd = os.open(spot.name, _FOLDER_FLAGS, dir_fd=spot.folder)
        finally:
            spot.close()
        return Download(f"{spot.name}.zip", "application/zip", _zip(fd, spot.name, spot.path, keep))
    with spot:
        fd, _ = open_read(spot.folder, spot.name, path)
    media = PICTURES.get(Path(spot.name).suffix.lower(), "application/octet-stream")
    return Download(spot.name, media, _file(fd))


def _file(fd: int) -> Iterator[bytes]:
    try:
        while chunk := os.read(fd, CHUNK):
            yield chunk
    finally:
        os.close(fd)


def _zip(folder: int, name: str, real: Path, keep: Keep | None) -> Iterator[bytes]:
    sink = _Sink()
    try:
        with zipfile.ZipFile(sink, "w", compression=zipfile.ZIP_DEFLATED) as archive:  # type: ignore[call-overload]
            yield from _add_folder(archive, sink, folder, (name, real), keep, depth=0)
        yield sink.drain()
    finally:
        os.close(folder)


def _add_folder(
    archive: zipfile.ZipFile,
    sink: _Sink,
    folder: int,
    where: tuple[str, Path],
    keep: Keep | None,
    depth: int,
) -> Iterator[bytes]:
    """Add the entries of ``folder`` (``where``: its name in the zip and its real path)."""
    prefix, real = where
    if depth > 64:
        return
    with os.scandir(folder) as entries:
        listed = sorted((entry.name, entry.stat(follow_symlinks=False)) for entry in entries)
    for name, info in listed:
        if name.startswith(".") or is_temp_name(name):
            continue
        inner = f"{prefix}/{name}"
        is_folder = stat.S_ISDIR(info.st_mode)
        if keep is not None and not keep(real / name, is_folder):
            continue
        if is_folder:
            try:
                child = os.open(name, _FOLDER_FLAGS, dir_fd=folder)
            except OSError:
                continue
            try:
                yield from _add_folder(archive, sink, child, (inner, real / name), keep, depth + 1)
            finally:
                os.close(child)
        elif stat.S_ISREG(info.st_mode):
            yield from _add_file(archive, sink, folder, name, inner, info)


def _add_file(
    archive: zipfile.ZipFile,
    sink: _Sink,
    folder: int,
    name: str,
    inner: str,
    info: os.stat_result,
) -> Iterator[bytes]:
    try:
        fd, _ = open_read(folder, name, Path(inner))
    except (OSError, QuireError):  # a file that went or turned into a link is left out
        return
    entry = zipfile.ZipInfo(inner, time.localtime(max(info.st_mtime, 315532800))[:6])
    entry.compress_type = zipfile.ZIP_DEFLATED
    entry.external_attr = (stat.S_IMODE(info.st_mode) | stat.S_IFREG) << 16
    try:
        with archive.open(entry, "w", force_zip64=True) as out:
            while chunk := os.read(fd, CHUNK):
                out.write(chunk)
                yield sink.drain()
    finally:
        os.close(fd)
    yield sink.drain()
