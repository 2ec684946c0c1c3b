"""Three-way merge of whole texts by lines: an agent's rewrite rebased onto the person's edits.

``merge3(base, live, new)``: ``base`` is the text the agent read, ``live`` the text now (the
person typed since), ``new`` the agent's rewrite of ``base``. The agent's changes (base → new)
are applied to ``live`` wherever they touch lines the person did not change since ``base``;
where both changed the same lines differently, the person's text is kept and the agent's
intended text comes back as a :class:`Conflict`. Nothing the person typed is ever dropped, and
with ``live == base`` the result is exactly ``new``. Pure: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher

__all__ = ["Conflict", "Merged", "merge3"]

_LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")


@dataclass(frozen=True)
class Conflict:
    """Lines ``start_line``..``end_line`` (1-based, inclusive; ``end_line`` is
    ``start_line - 1`` when the person's side is empty) of the merged text hold the person's
    version of a region the agent also changed; ``agent_text`` is what the agent wanted there."""

    start_line: int
    end_line: int
    agent_text: str


@dataclass(frozen=True)
class Merged:
    """The merged text and the regions where the person's text won over the agent's."""

    text: str
    conflicts: tuple[Conflict, ...]


@dataclass(frozen=True)
class _Hunk:
    start: int
    end: int
    lines: tuple[str, ...]


def merge3(base: str, live: str, new: str) -> Merged:
    """Rebase the agent's ``base → new`` onto ``live`` (see the module)."""
    if live in (base, new):
        return Merged(new, ())
    if new == base:
        return Merged(live, ())
    base_lines = _lines(base)
    person = _hunks(base_lines, _lines(live))
    agent = _hunks(base_lines, _lines(new))
    out: list[str] = []
    conflicts: list[Conflict] = []
    position = 0
    for lo, hi, mine, theirs in _clusters(person, agent):
        out.extend(base_lines[position:lo])
        position = hi
        person_text = _apply(base_lines, lo, hi, mine)
        agent_text = _apply(base_lines, lo, hi, theirs)
        if not mine:
            out.extend(agent_text)
        elif not theirs or person_text == agent_text:
            out.extend(person_text)
        else:
            start = len(out) + 1
            out.extend(person_text)
            conflicts.append(Conflict(start, len(out), "".join(agent_text)))
    out.extend(base_lines[position:])
    return Merged(_joined(out, "\r\n" if "\r\n" in base else "\n"), tuple(conflicts))


def _joined(lines: list[str], newline: str) -> str:
    """The lines as one text; a line without its break that ended one side's text but is now
    followed by the other side's lines gets one, so two lines never run together."""
    last = len(lines) - 1
    return "".join(
        line if index == last or line.endswith("\n") else line + newline
        for index, line in enumerate(lines)
    )


def _lines(text: str) -> list[str]:
    """The lines of ``text``, each with its ``\n`` (only ``\n`` breaks a line here, so a
    form feed or U+2028 inside a line stays inside it)."""
    return _LINE.findall(text)


def _hunks(base: list[str], other: list[str]) -> list[_Hunk]:
    matcher = SequenceMatcher(None, base, other, autojunk=False)
    return [
        _Hunk(i1, i2, tuple(other[j1:j2]))
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]


def _clusters(
    person: list[_Hunk], agent: list[_Hunk]
) -> list[tuple[int, int, list[_Hunk], list[_Hunk]]]:
    """Group the hunks of both sides into regions of base lines where they overlap (two
    insertions at the same line overlap; hunks that only touch do not)."""
    tagged = sorted(
        [(hunk, True) for hunk in person] + [(hunk, False) for hunk in agent],
        key=lambda item: (item[0].start, item[0].end),
    )
    clusters: list[tuple[int, int, list[_Hunk], list[_Hunk]]] = []
    for hunk, is_person in tagged:
        if clusters and _overlaps(clusters[-1], hunk):
            lo, hi, mine, theirs = clusters[-1]
            clusters[-1] = (lo, max(hi, hunk.end), mine, theirs)
        else:
            clusters.append((hunk.start, hunk.end, [], []))
        (clusters[-1][2] if is_person else clusters[-1][3]).append(hunk)
    return clusters


def _overlaps(cluster: tuple[int, int, list[_Hunk], list[_Hunk]], hunk: _Hunk) -> bool:
    lo, hi = cluster[0], cluster[1]
    if hunk.start < hi:
        return True
    # Two insertions at one point: which goes first is the conflict.
    return hunk.start == hi == lo == hunk.end


def _apply(base: list[str], lo: int, hi: int, hunks: list[_Hunk]) -> list[str]:
    """Base lines ``lo:hi`` with one side's hunks (all inside that range) applied."""
    out: list[str] = []
    position = lo
    for hunk in hunks:
        out.extend(base[position : hunk.start])
        out.extend(hunk.lines)
        position = hunk.end
    out.extend(base[position:hi])
    return out
