"""Atomic writes of users' files: temp file in the same folder, fsync, rename, fsync folder.

Never writes through a symlink and never leaves a temp file behind; ``safeio`` re-exports the
public functions, which are the only way Quire writes a user's file.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path

from quire.core.errors import FileMissing, FileTooLarge, InvalidArgument, NameTaken, PathRefused
from quire.core.limits import MAX_DOCUMENT_BYTES, size_words
from quire.fs.oserror import storage_failed
from quire.fs.sandbox import file_kind
from quire.fs.temp_names import temp_name

_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_DEFAULT_MODE = 0o644
_NO_HARD_LINKS = (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK)
_UNSYNCABLE_FOLDER = (errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP)


def write_atomic(
    path: Path, data: bytes | str, *, overwrite: bool, mode: int | None = None
) -> None:
    """Write ``data`` to ``path`` atomically: readers see the old file or the new, never half.

    For Quire's own files (state, settings); a user's file is written through
    ``quire.fs.documents`` from the folder's descriptor. Opens ``path``'s folder and does what
    :func:`write_at` says there.
    """
    if not path.is_absolute():
        raise ValueError(f"path must be absolute, got {path!r}")
    payload = encode_text(data, path)
    try:
        folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as exc:
        raise _write_failed(exc, path) from None
    try:
        write_at(folder, path.name, payload, overwrite=overwrite, mode=mode, shown=path)
    finally:
        os.close(folder)


def write_at(
    folder: int,
    name: str,
    payload: bytes,
    *,
    overwrite: bool,
    mode: int | None = None,
    shown: Path,
) -> None:
    """Write ``payload`` as ``name`` in the open folder ``folder``, atomically.

    The bytes go to a new dotfile temp in the same folder (O_EXCL, O_NOFOLLOW), are fsynced,
    then renamed over ``name`` relative to the same descriptor; the folder is fsynced after. A
    symlink at ``name`` is replaced, never written through. ``shown`` is the path messages name.

    Permissions: ``mode`` when given; otherwise an existing regular file keeps its permission
    bits (0o777 part); otherwise 0o644, set exactly (the umask does not apply). The owner is
    not carried over.

    With ``overwrite=False`` anything at ``name`` (even a dangling symlink) is refused with
    PathRefused, race-free: the temp is published with a hard link, which fails if the name was
    taken meanwhile (or created with O_EXCL where hard links are unsupported). A folder or a
    special file at ``name`` is always refused. OS failures raise StorageFailed (FileMissing
    when the folder is gone); no temp file is left behind and the target is unchanged.
    """
    existing = _existing_target(folder, name, shown, overwrite=overwrite)
    if mode is None:
        mode = stat.S_IMODE(existing.st_mode) & 0o777 if existing else _DEFAULT_MODE
    temp = temp_name(name)
    try:
        fd = os.open(temp, _TEMP_FLAGS, 0o600, dir_fd=folder)
    except OSError as exc:
        raise _write_failed(exc, shown) from None
    temp_left = True
    try:
        _fill_and_close(fd, payload, mode)
        if overwrite:
            os.replace(temp, name, src_dir_fd=folder, dst_dir_fd=folder)
            temp_left = False
        else:
            _publish_new(folder, temp, name, payload, mode, shown)
    except OSError as exc:
        raise _write_failed(exc, shown) from None
    finally:
        if temp_left:
            _remove_quietly(folder, temp)
    _sync_folder(folder, shown)


def check_document_text(text: str, path: Path) -> bytes:
    """A document's text as UTF-8 bytes, refused (FileTooLarge) past the 16 MiB limit."""
    payload = encode_text(text, path)
    if len(payload) > MAX_DOCUMENT_BYTES:
        raise FileTooLarge(
            f"Refusing to write '{path}': the text is {size_words(len(payload))}, more than "
            f"the {size_words(MAX_DOCUMENT_BYTES)} a document may hold. Split it into smaller "
            "documents."
        )
    return payload


def _existing_target(
    folder: int, name: str, shown: Path, *, overwrite: bool
) -> os.stat_result | None:
    """The regular file ``name`` would replace, or None; refuses what must not be replaced."""
    try:
        info = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            return None
        raise storage_failed(exc, doing="write", path=shown) from None
    if stat.S_ISDIR(info.st_mode):
        raise PathRefused(
            f"Refusing to write '{shown}': it is a folder. Pass the path of a file to write."
        )
    if not overwrite:
        raise _already_exists(shown)
    if stat.S_ISLNK(info.st_mode):
        return None
    if not stat.S_ISREG(info.st_mode):
        raise PathRefused(
            f"Refusing to write '{shown}': it is {file_kind(info.st_mode)}, not a regular "
            "file, and Quire replaces only regular files. Pick another path."
        )
    return info


def _publish_new(folder: int, temp: str, name: str, payload: bytes, mode: int, shown: Path) -> None:
    """Give ``temp``'s content the name ``name`` only if nothing holds that name."""
    try:
        os.link(temp, name, src_dir_fd=folder, dst_dir_fd=folder, follow_symlinks=False)
    except FileExistsError:
        raise _already_exists(shown) from None
    except OSError as exc:
        if exc.errno not in _NO_HARD_LINKS:
            raise
        _create_exclusive(folder, name, payload, mode, shown)


def _create_exclusive(folder: int, name: str, payload: bytes, mode: int, shown: Path) -> None:
    """The no-replace publish for file systems without hard links: create with O_EXCL."""
    try:
        fd = os.open(name, _TEMP_FLAGS, 0o600, dir_fd=folder)
    except FileExistsError:
        raise _already_exists(shown) from None
    try:
        _fill_and_close(fd, payload, mode)
    except BaseException:
        _remove_quietly(folder, name)
        raise


def _fill_and_close(fd: int, payload: bytes, mode: int) -> None:
    """Write ``payload``, set ``mode`` and fsync a new file's descriptor; always close it."""
    try:
        _write_all(fd, payload)
        os.fchmod(fd, mode)
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_all(fd: int, payload: bytes) -> None:
    view = memoryview(payload)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _sync_folder(folder: int, shown: Path) -> None:
    """fsync the folder so the rename itself survives a crash."""
    try:
        os.fsync(folder)
    except OSError as exc:
        if exc.errno not in _UNSYNCABLE_FOLDER:
            raise storage_failed(
                exc,
                doing="sync the folder of",
                path=shown,
                after="The new content is in place but may not survive a crash or power loss.",
            ) from None


def _remove_quietly(folder: int, name: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(name, dir_fd=folder)


def encode_text(data: bytes | str, path: Path) -> bytes:
    """``data`` as bytes (a str encoded as UTF-8; an unpaired surrogate is InvalidArgument)."""
    if isinstance(data, bytes):
        return data
    try:
        return data.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidArgument(
            f"Cannot write '{path}': the text has an unpaired surrogate at character "
            f"{exc.start + 1}, which UTF-8 cannot encode. Remove it and try again."
        ) from None


def _write_failed(exc: OSError, path: Path) -> Exception:
    if exc.errno in (errno.ENOENT, errno.ENOTDIR):
        return FileMissing(
            f"Cannot write '{path}': the folder '{path.parent}' does not exist. "
            "Create it first, or pick a path in an existing folder."
        )
    return storage_failed(exc, doing="write", path=path, after="Nothing was changed.")


def _already_exists(path: Path) -> NameTaken:
    return NameTaken(
        f"Refusing to write '{path}': it already exists. Pass overwrite to replace it, "
        "or pick another path."
    )
