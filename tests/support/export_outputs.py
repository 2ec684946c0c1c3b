"""The output rules as one adversarial table, laid out on disk for each surface's tests.

Each case puts something at (or around) the output path inside an allowed ``folder`` (or
outside it) and names the words its refusal must hold; the surfaces (the tool, the CLI, the
route) each run the whole table, so no surface can skip a rule.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

OLD = b"old bytes, which must survive a refusal"


@dataclass(frozen=True)
class Case:
    """An output case: its id, the file name asked for, and the words of its refusal."""

    id: str
    name: str
    says: str


REFUSED: tuple[Case, ...] = (
    Case("symlink", "link.{ext}", "symbolic link"),
    Case("dangling-symlink", "dangling.{ext}", "not inside an allowed folder"),
    Case("folder", "folder.{ext}", "not a regular file"),
    Case("fifo", "pipe.{ext}", "not a regular file"),
    Case("wrong-extension", "plan.txt", "must end in"),
    Case("markdown", "other.md", "must end in"),
    Case("dotfile", ".hidden.{ext}", "starts with a dot"),
    Case("existing", "taken.{ext}", "already exists"),
    Case("missing-folder", "nowhere/plan.{ext}", "does not exist"),
)
"""Outputs inside the allowed folder that are refused whatever the format."""


def lay_out(folder: Path, ext: str) -> dict[str, Path]:
    """Create every case's file under ``folder``; the path each case asks for, by id."""
    paths = {case.id: folder / case.name.format(ext=ext) for case in REFUSED}
    target = folder / f"target.{ext}"
    target.write_bytes(OLD)
    paths["symlink"].symlink_to(target)
    paths["dangling-symlink"].symlink_to(folder / "gone" / f"x.{ext}")
    paths["folder"].mkdir()
    os.mkfifo(paths["fifo"])
    paths["taken"] = paths["existing"]
    paths["existing"].write_bytes(OLD)
    (folder / "other.md").write_text("# Other\n", encoding="utf-8")
    return paths


def untouched(folder: Path, ext: str) -> bool:
    """Whether the files a refusal must leave alone still hold their old bytes."""
    return (
        all((folder / name).read_bytes() == OLD for name in (f"target.{ext}", f"taken.{ext}"))
        and (folder / "other.md").read_text(encoding="utf-8") == "# Other\n"
    )
