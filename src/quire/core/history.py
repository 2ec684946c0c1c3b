"""The rules of history: who a commit is by, what its message says, and how a version is named.

Pure: it names authors (``alice``, or ``claude-code (via alice)``) with a Quire-made e-mail,
words commit messages, reads ``PATH@REV`` and checks a revision before git ever sees it.
No git and no I/O here (``quire.vault.git`` runs git).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Literal

from quire.core.errors import InvalidArgument

EMAIL_DOMAIN: Final = "quire.invalid"
"""The domain of every e-mail Quire makes for a commit (``.invalid`` never delivers)."""

_VIA: Final = re.compile(r"^(?P<agent>.+) \(via (?P<account>[^()]+)\)$")
_REV: Final = re.compile(r"^(?:[0-9a-fA-F]{4,64}|HEAD)(?:~[0-9]{1,6})?$")


@dataclass(frozen=True)
class CommitAuthor:
    """The author of a commit as git records it, and who that is in Quire's words."""

    name: str
    email: str
    agent: str | None = None
    """The agent's name when an agent made the change; None for a person."""
    account: str = ""
    """The person (account) the change was made as, or through."""


def commit_author(account: str, agent: str | None = None) -> CommitAuthor:
    """The author of a change made by the person ``account``, or by ``agent`` through it."""
    person = _label(account) or "owner"
    if agent is None:
        return CommitAuthor(person, f"{_slug(person)}@{EMAIL_DOMAIN}", None, person)
    name = _label(agent) or "agent"
    return CommitAuthor(
        f"{name} (via {person})",
        f"{_slug(name)}.via.{_slug(person)}@agents.{EMAIL_DOMAIN}",
        name,
        person,
    )


def read_author(name: str, email: str) -> CommitAuthor:
    """Who a commit's author is: an agent when the name reads ``agent (via account)``."""
    found = _VIA.match(name)
    if found is None:
        return CommitAuthor(name, email, None, name)
    return CommitAuthor(name, email, found["agent"], found["account"])


def edit_message(author: CommitAuthor) -> str:
    """The message of a commit of saves: ``Edit by claude-code`` (the person's name for a
    person)."""
    return f"Edit by {author.agent or author.account}"


def rename_message(old: str, new: str) -> str:
    """``Rename a.md → b.md`` (a move names the folders too)."""
    return f"Rename {old} → {new}"


def restore_message(rev: str) -> str:
    """``Restore to 3f2a1c0`` (the revision cut to seven characters)."""
    return f"Restore to {rev[:7]}"


def check_rev(rev: str) -> str:
    """``rev`` when it names a commit the way history routes accept: a hexadecimal commit id
    (4 to 64 digits) or ``HEAD``, optionally with ``~N``. Anything else (options, ranges,
    ``:path`` forms, reflog syntax) is refused before git sees it."""
    if not isinstance(rev, str) or _REV.match(rev) is None:
        raise InvalidArgument(
            f"`rev` {rev!r} is not a revision: pass a commit id from the note's history "
            "(such as 3f2a1c0), or HEAD, or HEAD~N.",
            argument="rev",
        )
    return rev


GitOperation = Literal["merge", "rebase", "am", "cherry-pick", "revert", "bisect"]
"""A git operation the user has under way in a repository (history waits for its end)."""

_OPERATION_MARKERS: Final[tuple[tuple[str, GitOperation], ...]] = (
    ("rebase-merge", "rebase"),
    ("rebase-apply/applying", "am"),
    ("rebase-apply", "rebase"),
    ("MERGE_HEAD", "merge"),
    ("CHERRY_PICK_HEAD", "cherry-pick"),
    ("REVERT_HEAD", "revert"),
    ("sequencer", "cherry-pick"),
    ("BISECT_LOG", "bisect"),
)
"""The names git keeps in the git folder while each operation is under way."""

_FINISH: Final[dict[GitOperation, str]] = {
    "merge": "commit the merge (`git commit`) or abort it (`git merge --abort`)",
    "rebase": "finish it (`git rebase --continue`) or abort it (`git rebase --abort`)",
    "am": "finish it (`git am --continue`) or abort it (`git am --abort`)",
    "cherry-pick": "finish it (`git cherry-pick --continue`) or abort it "
    "(`git cherry-pick --abort`)",
    "revert": "finish it (`git revert --continue`) or abort it (`git revert --abort`)",
    "bisect": "end it (`git bisect reset`)",
}


def operation_in_progress(present: Callable[[str], bool]) -> GitOperation | None:
    """The operation under way in a repository whose git folder holds the names ``present``
    says it holds (a merge with conflicts, a stopped rebase, ...), or None."""
    return next((operation for name, operation in _OPERATION_MARKERS if present(name)), None)


def how_to_finish(operation: GitOperation) -> str:
    """What the user does to end ``operation`` (``finish it (`git rebase --continue`) ...``)."""
    return _FINISH[operation]


def split_version(spec: str) -> tuple[str, str]:
    """``PATH@REV`` as (path, rev): split at the last ``@`` (a path may hold one); the
    revision is checked by ``check_rev``."""
    path, at, rev = spec.rpartition("@")
    if not at or not path or not rev:
        raise InvalidArgument(
            f"{spec!r} does not name a version: write PATH@REV, such as notes/plan.md@3f2a1c0 "
            "(the revisions are in `quire history PATH`).",
            argument="version",
        )
    return path, check_rev(rev)


def _label(raw: str) -> str:
    kept = "".join(
        char for char in raw if unicodedata.category(char)[0] != "C" and char not in "<>\n"
    )
    return " ".join(kept.split())[:80]


def _slug(name: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", name.casefold()).strip("-")
    return slug or "someone"
