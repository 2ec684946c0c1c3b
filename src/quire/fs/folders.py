"""The allowed folders: the only places a confined caller may read or write.

Judges containment on paths resolved through symlinks (stat and readlink only); it never opens
a file and never decides which folders are allowed (callers pass them in).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable
from pathlib import Path

from quire.core.errors import InvalidArgument, PathRefused
from quire.core.paths import require_absolute
from quire.fs.anchored import Spot, place, reach
from quire.fs.oserror import storage_failed

_MISSING = (errno.ENOENT, errno.ENOTDIR)


class AllowedFolders:
    """The folders a caller may work in; every path is judged after resolving symlinks.

    Each folder is resolved through symlinks when the set is built, and must exist and be a
    folder. ``/`` (or a folder resolving to it) is refused with InvalidArgument: allowing the
    whole disk would make the sandbox meaningless. With no folders, every check is refused
    with a message that ends with ``how_to_add`` (what the caller's user does to add one).
    """

    def __init__(
        self,
        folders: Iterable[Path],
        *,
        how_to_add: str | None = None,
        outside_hint: str | None = None,
        hidden_folders: bool = False,
    ) -> None:
        resolved: list[Path] = []
        for folder in folders:
            checked = resolve_folder(folder)
            if checked not in resolved:
                resolved.append(checked)
        self._folders = tuple(resolved)
        self._how_to_add = how_to_add or "Add a folder to the allowed folders, then try again."
        self._hint = f" {outside_hint}" if outside_hint else ""
        self.hidden_folders = hidden_folders
        """Whether files inside hidden folders below an allowed folder may be reached."""

    @classmethod
    def whole_disk(cls, *, hidden_folders: bool = True) -> AllowedFolders:
        """Every folder (hidden ones too, unless ``hidden_folders`` is False): for a command a
        person ran on a path they named.

        The walk still goes one folder at a time without following a swapped-in link, and the
        file rules (Markdown, no dotfile) still hold; only the confinement is the whole disk.
        """
        allowed = cls(())
        allowed._folders = (Path("/"),)
        allowed.hidden_folders = hidden_folders
        return allowed

    @property
    def folders(self) -> tuple[Path, ...]:
        """The allowed folders, resolved, in the order given, without duplicates."""
        return self._folders

    def contains(self, path: Path) -> bool:
        """Whether ``path`` (absolute) passes :meth:`check`."""
        return self._judge(path) is not None

    def check(self, path: Path, *, verb: str = "use") -> Path:
        """Return ``path`` resolved through symlinks when it lies inside an allowed folder.

        Both the folder holding ``path`` (resolved) and the file itself (resolved) must be
        inside an allowed folder, so a symlink leading out of the tree is refused from either
        end. A path that does not exist inside an allowed folder passes (its reader reports it
        missing); a symlink whose target is missing or loops gets the same single refusal as a
        path outside, which names the allowed folders and never says whether the path exists.
        """
        require_absolute(path, "path")
        if not self._folders:
            raise PathRefused(
                f"Refusing to {verb} '{path}': no folder is allowed yet, so every path is "
                f"refused. {self._how_to_add}"
            )
        judged = self._judge(path)
        if judged is None:
            raise PathRefused(
                f"Refusing to {verb} '{path}': it is not inside an allowed folder. "
                f"{self._where_to()}"
            )
        return judged

    def reach(
        self, path: Path, *, verb: str, follow_final: bool = True, make_folders: bool = False
    ) -> Spot:
        """Walk to ``path`` from the descriptor of the allowed folder holding it.

        See ``quire.fs.anchored.reach``; a path outside gets the refusal of :meth:`check`.
        The caller closes the Spot (``with folders.reach(...) as spot``).
        """
        self.require_placed(path, verb=verb)
        spot = reach(
            self._folders,
            path,
            verb=verb,
            follow_final=follow_final,
            make_folders=make_folders,
            outside=self._where_to(),
        )
        if not self.hidden_folders:
            hidden = self._hidden_folder(spot.path)
            if hidden is not None:
                spot.close()
                raise PathRefused(
                    f"Refusing to {verb} '{path}': it is inside the hidden folder '{hidden}', "
                    "and Quire reaches files in hidden folders only when the allowed folder "
                    "itself is one. Move the file out of the hidden folder, or serve that "
                    "folder itself."
                )
        return spot

    def require_placed(self, path: Path, *, verb: str) -> None:
        """Refuse ``path`` at once when no allowed folder holds it as written or as its folder
        resolves (the one refusal for outside, whether or not the path exists)."""
        require_absolute(path, "path")
        if not self._folders:
            raise PathRefused(
                f"Refusing to {verb} '{path}': no folder is allowed yet, so every path is "
                f"refused. {self._how_to_add}"
            )
        if place(self._folders, path) is None:
            raise PathRefused(
                f"Refusing to {verb} '{path}': it is not inside an allowed folder. "
                f"{self._where_to()}"
            )

    def _hidden_folder(self, path: Path) -> str | None:
        """The first hidden folder between the innermost allowed folder and ``path``."""
        holding = [folder for folder in self._folders if path.is_relative_to(folder)]
        inner = max(holding, key=lambda folder: len(folder.parts))
        below = path.relative_to(inner).parts[:-1]
        return next((part for part in below if part.startswith(".")), None)

    def _where_to(self) -> str:
        names = ", ".join(f"'{folder}'" for folder in self._folders)
        return f"The allowed folders are {names}; pass a path inside one of them.{self._hint}"

    def _judge(self, path: Path) -> Path | None:
        if not path.is_absolute():
            return None
        folder = _resolve_lenient(path.parent)
        target = _resolve_lenient(path)
        if folder is None or target is None:
            return None
        if self._is_inside(folder) and self._is_inside(target):
            return target
        return None

    def _is_inside(self, resolved: Path) -> bool:
        # Path.is_relative_to compares whole components: /a/Documents2 is not in /a/Documents.
        return any(resolved.is_relative_to(folder) for folder in self._folders)


def resolve_folder(folder: Path) -> Path:
    """Resolve one allowed folder through symlinks; InvalidArgument if it cannot be allowed."""
    if not folder.is_absolute():
        raise InvalidArgument(
            f"Cannot allow '{folder}': an allowed folder must be an absolute path.",
            argument="folders",
        )
    try:
        resolved = Path(os.path.realpath(folder, strict=True))
        is_folder = stat.S_ISDIR(resolved.stat().st_mode)
    except OSError as exc:
        if exc.errno in _MISSING:
            raise InvalidArgument(
                f"Cannot allow '{folder}': the folder does not exist. Create it or pass "
                "another folder.",
                argument="folders",
            ) from None
        raise storage_failed(exc, doing="allow", path=folder) from None
    if not is_folder:
        raise InvalidArgument(
            f"Cannot allow '{folder}': it is not a folder. Pass the folder that holds your "
            "documents.",
            argument="folders",
        )
    if resolved == Path("/"):
        raise InvalidArgument(
            f"Cannot allow '{folder}': it is the root of the file system, which would allow "
            "every file. Pass the folders that hold your documents instead.",
            argument="folders",
        )
    return resolved


def _resolve_lenient(path: Path) -> Path | None:
    """Resolve ``path`` through symlinks, allowing a missing tail; None when it cannot be judged.

    A missing tail (nothing there yet) is appended to the deepest existing ancestor, resolved;
    a ``..`` in the missing tail is lexical, since nothing below a missing name can be a link.
    A component that exists but cannot be resolved (a dangling or looping link) or a stat the
    OS refuses gives None: a path Quire cannot judge is refused.
    """
    missing: list[str] = []
    current = path
    while True:
        try:
            base = Path(os.path.realpath(current, strict=True))
            break
        except OSError as exc:
            if exc.errno not in _MISSING:
                return None
        try:
            os.lstat(current)
        except OSError as exc:
            if exc.errno not in _MISSING:
                return None
        else:
            return None
        if current.parent == current:
            return None
        missing.append(current.name)
        current = current.parent
    for name in reversed(missing):
        base = base.parent if name == ".." else base / name
    return base
