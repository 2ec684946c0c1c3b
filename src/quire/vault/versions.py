"""Reading a workspace's history from git: a note's commits, the whole timeline, a version's
bytes and each line's last author (blame).

Every revision reaching here passed ``quire.core.history.check_rev`` and every path is
relative to the repository root; pathspecs are literal. Blocking: call it from a worker
thread. It never writes to the repository.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from quire.core.errors import FileMissing
from quire.core.history import CommitAuthor, read_author
from quire.vault.git import Git

_RECORD: Final = "\x1e"
_FIELD: Final = "\x1f"
_FORMAT: Final = f"--format={_RECORD}%H{_FIELD}%an{_FIELD}%ae{_FIELD}%at{_FIELD}%s"


@dataclass(frozen=True)
class LogEntry:
    """One commit as history shows it: the path (relative to the repository) it touched and
    how (``A`` added, ``M`` modified, ``D`` deleted, ``R`` renamed from ``old_path``)."""

    commit: str
    author: CommitAuthor
    time_s: int
    message: str
    path: str | None
    status: str
    old_path: str | None = None
    paths: tuple[str, ...] = ()
    """Every path the commit's file list names (new and old names), in its order."""


@dataclass(frozen=True)
class BlameLine:
    """A line of a version and the commit that last changed it."""

    line: int
    text: str
    commit: str
    author: CommitAuthor
    time_s: int


def note_log(git: Git, rel: str, *, skip: int, limit: int) -> list[LogEntry]:
    """The commits of the note ``rel`` (renames followed), newest first, ``skip`` left out."""
    done = git.run(
        "log", "--follow", "-M", "--name-status", _FORMAT,
        f"--skip={skip}", f"-n{limit}", "--", rel, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        return []  # an unborn branch: no history yet
    return _parse_log(done.stdout.decode("utf-8", "replace"), rel)


def timeline(
    git: Git,
    prefix: str,
    *,
    skip: int,
    limit: int,
    account: str | None = None,
    agent: str | None = None,
) -> list[LogEntry]:
    """The commits touching anything under ``prefix`` (``""``: the whole repository), newest
    first; with ``account``, only the person's own and their agents' (``agent (via
    account)``); with ``agent``, only that agent's. Names match whole, in git itself, so
    ``skip`` and ``limit`` count matching commits only (``ann`` never finds ``joann``)."""
    pattern = _author_pattern(account, agent)
    filters = ("--extended-regexp", f"--author={pattern}") if pattern else ()
    spec = ("--", prefix) if prefix else ()
    done = git.run(
        "log", "-M", "--name-status", _FORMAT, *filters,
        f"--skip={skip}", f"-n{limit}", *spec, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        return []
    return _parse_log(done.stdout.decode("utf-8", "replace"), None)


def _author_pattern(account: str | None, agent: str | None) -> str | None:
    """A regular expression for git's ``--author`` (matched against ``Name <email>``) that
    holds exactly the commits ``quire.core.history.read_author`` names so."""
    if agent is not None:
        via = r"[^()]+" if account is None else _literal(account)
        return rf"^{_literal(agent)} \(via {via}\) <"
    if account is not None:
        name = _literal(account)
        return rf"^({name}|.* \(via {name}\)) <"
    return None


def _literal(text: str) -> str:
    """``text`` as a POSIX extended regular expression matching only itself."""
    return re.sub(r"([][\\.^$*+?(){}|])", r"\\\1", text)


def resolve(git: Git, rev: str) -> str:
    """The full id of the commit ``rev`` names; FileMissing when it names none."""
    done = git.run(
        "rev-parse", "--verify", "-q", "--end-of-options", f"{rev}^{{commit}}", check=False
    )
    found = done.stdout.decode().strip()
    if done.returncode != 0 or not found:
        raise FileMissing(
            f"The history of {git.cwd} has no commit {rev!r}. Pick a revision from the note's "
            "history (quire history PATH, or get_history)."
        )
    return found


def blob_at(git: Git, commit: str, rel: str) -> str | None:
    """The id of ``rel``'s blob in ``commit`` (a full id), or None when it has no such file."""
    listed = git.run("ls-tree", "-z", "--full-tree", commit, "--", rel)
    for item in listed.stdout.split(b"\0"):
        meta, _, name = item.decode("utf-8", "surrogateescape").partition("\t")
        parts = meta.split()
        if name == rel and len(parts) == 3 and parts[1] == "blob":
            return parts[2]
    return None


def read_blob(git: Git, blob: str) -> bytes:
    """The bytes of the blob ``blob``."""
    return git.run("cat-file", "blob", blob).stdout


def blame(git: Git, commit: str, rel: str) -> list[BlameLine]:
    """Each line of ``rel`` in ``commit`` with the commit and author that last changed it."""
    out = git.run("blame", "--line-porcelain", "-M", commit, "--", rel).stdout.decode(
        "utf-8", "replace"
    )
    lines: list[BlameLine] = []
    fields: dict[str, str] = {}
    sha = ""
    for raw in out.split("\n"):
        if raw.startswith("\t"):
            author = read_author(
                fields.get("author", ""), fields.get("author-mail", "").strip("<>")
            )
            time_s = int(fields.get("author-time", "0"))
            lines.append(BlameLine(len(lines) + 1, raw[1:], sha, author, time_s))
            fields = {}
            continue
        key, _, value = raw.partition(" ")
        if len(key) in (40, 64) and all(char in "0123456789abcdef" for char in key):
            sha = key
        elif key:
            fields[key] = value
    return lines


def _parse_log(out: str, followed: str | None) -> list[LogEntry]:
    entries: list[LogEntry] = []
    for record in out.split(_RECORD)[1:]:
        head, _, files = record.partition("\n")
        commit, name, email, when, message = (head.split(_FIELD) + [""] * 5)[:5]
        status, path, old = "M", None, None
        touched: list[str] = []
        for line in files.splitlines():
            parts = line.split("\t")
            if len(parts) < 2:
                continue
            code = parts[0][:1]
            new_path = parts[-1]
            touched.extend(parts[1:])
            if followed is not None or path is None:
                status, path = code, new_path
                old = parts[1] if code in "RC" and len(parts) == 3 else None
            if followed is not None:
                break
        entries.append(
            LogEntry(
                commit=commit,
                author=read_author(name, email),
                time_s=int(when or 0),
                message=message,
                path=path,
                status=status,
                old_path=old,
                paths=tuple(dict.fromkeys(touched)),
            )
        )
    return entries
