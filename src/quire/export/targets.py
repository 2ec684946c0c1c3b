"""Where an export may be written: the output rules, for every format, and the atomic publish.

The output has the format's extension, is not a symlink, is a regular file when it exists, and
lies in an existing folder inside the allowed folders; no output means beside the input with the
format's extension. An existing file is replaced only with ``overwrite``. Owns the rules and
their refusals; the bytes are written by ``quire.fs`` (temp file in the same folder + rename).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from quire.api.exports import ExportFormat
from quire.core.errors import FileMissing, PathRefused
from quire.fs.documents import ANY_FILE, write_file
from quire.fs.folders import AllowedFolders
from quire.fs.sandbox import file_kind, is_dotfile_name

EXTENSIONS: dict[ExportFormat, tuple[str, ...]] = {
    "pdf": (".pdf",),
    "html": (".html", ".htm"),
    "docx": (".docx",),
    "epub": (".epub",),
}
"""The endings an output of each format may have; the first is the one a default output gets."""


def default_output(source: Path, format: ExportFormat) -> Path:
    """The output beside ``source`` when none is given: its name with the format's extension."""
    return source.with_suffix(EXTENSIONS[format][0])


def check_output(
    source: Path,
    output: Path | None,
    *,
    format: ExportFormat,
    allowed: AllowedFolders,
    overwrite: bool,
) -> Path:
    """The path the export of ``source`` will be written to, after every output rule.

    Returns the path inside its resolved folder (the folder's symlinks resolved, the name kept).
    Raises PathRefused naming what to change (the extension, the overwrite flag, the kind of
    file in the way); a path outside the allowed folders gets one refusal whether or not it
    exists. Raises FileMissing when the folder to write into does not exist.
    """
    target = default_output(source, format) if output is None else output
    if not target.is_absolute():
        raise PathRefused(
            f"Refusing to write the export to '{target}': the output must be an absolute path. "
            "Pass the full path of the file to write."
        )
    if any(part in (".", "..") for part in target.parts) or str(target).endswith("/"):
        raise PathRefused(
            f"Refusing to write the export to '{target}': the output path must be plain, with "
            "no '.' or '..' parts and no trailing slash. Pass the path spelled out in full."
        )
    _check_name(target, format)
    allowed.check(target, verb="write the export to")
    folder = _existing_folder(target)
    final = folder / target.name
    _check_existing(final, overwrite=overwrite)
    return final


def publish(path: Path, data: bytes, *, allowed: AllowedFolders, overwrite: bool) -> None:
    """Write ``data`` at ``path`` atomically: a reader sees the old file or the new one whole.

    The folder is reached again from the allowed folder's descriptor, so one swapped for a link
    since the check is not followed. Without ``overwrite`` a file that appeared at ``path``
    since the check is not replaced (PathRefused); with it, the directory entry is replaced, so
    another hard link to the old file keeps the old bytes.
    """
    write_file(allowed, path, data, kind=ANY_FILE, overwrite=overwrite, verb="write the export to")


def _check_name(target: Path, format: ExportFormat) -> None:
    endings = EXTENSIONS[format]
    name = target.name
    if is_dotfile_name(name):
        raise PathRefused(
            f"Refusing to write the export to '{target}': the name starts with a dot (a hidden "
            f"file). Pick a name such as 'export{endings[0]}'."
        )
    suffix = target.suffix.lower()
    if suffix not in endings or name.lower() == suffix:
        wanted = " or ".join(f"'{ending}'" for ending in endings)
        raise PathRefused(
            f"Refusing to write the {format.upper()} export to '{target}': the output must end "
            f"in {wanted}. Change the output's extension to {endings[0]}."
        )


def _existing_folder(target: Path) -> Path:
    try:
        folder = Path(os.path.realpath(target.parent, strict=True))
        is_folder = stat.S_ISDIR(folder.stat().st_mode)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            raise FileMissing(
                f"Cannot write the export to '{target}': the folder '{target.parent}' does not "
                "exist. Create it first, or pick an output in an existing folder."
            ) from None
        raise PathRefused(
            f"Cannot write the export to '{target}': its folder cannot be opened "
            f"({exc.strerror}). Pick an output in a folder you may write."
        ) from None
    if not is_folder:
        raise PathRefused(
            f"Cannot write the export to '{target}': '{target.parent}' is not a folder. "
            "Pick an output in an existing folder."
        )
    return folder


def _check_existing(path: Path, *, overwrite: bool) -> None:
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise PathRefused(
            f"Refusing to write the export to '{path}': it cannot be examined ({exc.strerror})."
            " Pick another output."
        ) from None
    if stat.S_ISLNK(info.st_mode):
        raise PathRefused(
            f"Refusing to write the export to '{path}': it is a symbolic link, and an export "
            "never replaces one. Remove the link or pick another output."
        )
    if not stat.S_ISREG(info.st_mode):
        raise PathRefused(
            f"Refusing to write the export to '{path}': it is {file_kind(info.st_mode)}, not a "
            "regular file. Pick another output."
        )
    if not overwrite:
        raise PathRefused(
            f"Refusing to write the export to '{path}': the file already exists. Pass overwrite "
            "(--force) to replace it, or pick another output."
        )
