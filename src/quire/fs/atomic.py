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

from quire.core.errors import FileMissing, FileTooLarge, InvalidArgument, PathRefused
from quire.core.limits import MAX_DOCUMENT_BYTES, size_words
from quire.fs.oserror import storage_failed
from quire.fs.sandbox import document_rule, file_kind, is_document_name
from quire.fs.temp_names import temp_name

_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_DEFAULT_MODE = 0o644
_NO_HARD_LINKS = (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK)
_UNSYNCABLE_FOLDER = (errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP)


def write_atomic(
    path: Path, data: bytes | str, *, overwrite: bool, mode: int | None = None
) -> None:
    """Write ``data`` to ``path`` atomically: readers see the old file or the new, never half.

    The bytes go to a new dotfile temp in the same folder (O_EXCL, O_NOFOLLOW), are fsynced,
    then renamed over ``path``; the folder is fsynced after. A symlink at ``path`` is replaced,
    never written through. A str is encoded as UTF-8.

    Permissions: ``mode`` when given; otherwise an existing regular file keeps its permission
    bits (0o777 part); otherwise 0o644, set exactly (the umask does not apply). The owner is
    not carried over.

    With ``overwrite=False`` anything at ``path`` (even a dangling symlink) is refused with
    PathRefused, race-free: the temp is published with a hard link, which fails if the name was
    taken meanwhile (or created with O_EXCL where hard links are unsupported). A folder or a
    special file at ``path`` is always refused. OS failures raise StorageFailed (FileMissing
    when the folder is missing); no temp file is left behind and the target is unchanged.
    """
    if not path.is_absolute():
        raise ValueError(f"path must be absolute, got {path!r}")
    payload = _encode(data, path)
    existing = _existing_target(path, overwrite=overwrite)
    if mode is None:
        mode = stat.S_IMODE(existing.st_mode) & 0o777 if existing else _DEFAULT_MODE
    temp = path.parent / temp_name(path.name)
    try:
        fd = os.open(temp, _TEMP_FLAGS, 0o600)
    except OSError as exc:
        raise _write_failed(exc, path) from None
    temp_left = True
    try:
        _fill_and_close(fd, payload, mode)
        if overwrite:
            temp.replace(path)
            temp_left = False
        else:
            _publish_new(temp, path, payload, mode)
    except OSError as exc:
        raise _write_failed(exc, path) from None
    finally:
        if temp_left:
            _remove_quietly(temp)
    _sync_folder(path)


def write_document(path: Path, text: str, *, overwrite: bool = True) -> None:
    """Write a Markdown document atomically (see write_atomic) into its resolved folder.

    The document rule is judged on the target's name (a Markdown name, not a dotfile); the
    folder is resolved through symlinks first, and a symlink at the target is replaced. Text
    over the 16 MiB document limit is refused (FileTooLarge), since it could not be read back.
    """
    if not path.is_absolute():
        raise ValueError(f"path must be absolute, got {path!r}")
    if not is_document_name(path.name):
        raise PathRefused(f"Refusing to write '{path}': {document_rule('write')}.")
    payload = _encode(text, path)
    if len(payload) > MAX_DOCUMENT_BYTES:
        raise FileTooLarge(
            f"Refusing to write '{path}': the text is {size_words(len(payload))}, more than "
            f"the {size_words(MAX_DOCUMENT_BYTES)} a document may hold. Split it into smaller "
            "documents."
        )
    try:
        folder = Path(os.path.realpath(path.parent, strict=True))
    except OSError as exc:
        raise _write_failed(exc, path) from None
    write_atomic(folder / path.name, payload, overwrite=overwrite)


def _existing_target(path: Path, *, overwrite: bool) -> os.stat_result | None:
    """The regular file ``path`` would replace, or None; refuses what must not be replaced."""
    try:
        info = os.lstat(path)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            return None
        raise storage_failed(exc, doing="write", path=path) from None
    if stat.S_ISDIR(info.st_mode):
        raise PathRefused(
            f"Refusing to write '{path}': it is a folder. Pass the path of a file to write."
        )
    if not overwrite:
        raise _already_exists(path)
    if stat.S_ISLNK(info.st_mode):
        return None
    if not stat.S_ISREG(info.st_mode):
        raise PathRefused(
            f"Refusing to write '{path}': it is {file_kind(info.st_mode)}, not a regular file, "
            "and Quire replaces only regular files. Pick another path."
        )
    return info


def _publish_new(temp: Path, path: Path, payload: bytes, mode: int) -> None:
    """Give ``temp``'s content the name ``path`` only if nothing holds that name."""
    try:
        os.link(temp, path)
    except FileExistsError:
        raise _already_exists(path) from None
    except OSError as exc:
        if exc.errno not in _NO_HARD_LINKS:
            raise
        _create_exclusive(path, payload, mode)


def _create_exclusive(path: Path, payload: bytes, mode: int) -> None:
    """The no-replace publish for file systems without hard links: create with O_EXCL."""
    try:
        fd = os.open(path, _TEMP_FLAGS, 0o600)
    except FileExistsError:
        raise _already_exists(path) from None
    try:
        _fill_and_close(fd, payload, mode)
    except BaseException:
        _remove_quietly(path)
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


def _sync_folder(path: Path) -> None:
    """fsync the folder so the rename itself survives a crash."""
    try:
        fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        # The file is already in place; a folder we may not open for reading cannot be synced,
        # and failing now would wrongly report the write as not done.
        return
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in _UNSYNCABLE_FOLDER:
            raise storage_failed(
                exc,
                doing="sync the folder of",
                path=path,
                after="The new content is in place but may not survive a crash or power loss.",
            ) from None
    finally:
        os.close(fd)


def _remove_quietly(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()


def _encode(data: bytes | str, path: Path) -> bytes:
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


def _already_exists(path: Path) -> PathRefused:
    return PathRefused(
        f"Refusing to write '{path}': it already exists. Pass overwrite to replace it, "
        "or pick another path."
    )
