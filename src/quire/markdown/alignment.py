"""Line alignment for diffs: which lines of one text were removed and which of the other added.

Owns the choice of algorithm only (shortest edit script on small stretches, unique-line
anchors on large ones); formatting hunks belongs to ``quire.markdown.diff``.
"""

from __future__ import annotations

import difflib
from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from math import isqrt

# A stretch with at most this many lines (both sides together) gets a shortest edit script.
# Its cost grows with the square of the changes, which stays cheap below this size.
_SMALL = 600

# On a larger stretch with no unique line to anchor on, a shortest edit script is tried up to
# this many changes before difflib's faster heuristic takes over.
_MAX_COST_LARGE = 64

# The shortest-edit-script work one diff may spend in all (about a second of pure Python,
# counted as the square of each stretch's edit cost); past it, difflib aligns what is left.
_WORK_BUDGET = 4_000_000


@dataclass(frozen=True)
class Block:
    """One change: ``a[a1:a2]`` is replaced by ``b[b1:b2]``; either side may be empty."""

    a1: int
    a2: int
    b1: int
    b2: int


def align(a: Sequence[str], b: Sequence[str]) -> list[Block]:
    """The change blocks that turn lines ``a`` into lines ``b``, in order.

    Small stretches get a shortest edit script (Myers), so the counts match ``diff``. Large
    ones are first cut at lines that occur once on each side (as git's patience diff does),
    which keeps a 16 MiB document with scattered edits fast.
    """
    start, end_a, end_b = _common_ends(a, b)
    ids: dict[str, int] = {}
    # Lines become small integers so that every later comparison is cheap.
    xs = [ids.setdefault(line, len(ids)) for line in a[start:end_a]]
    ys = [ids.setdefault(line, len(ids)) for line in b[start:end_b]]
    blocks: list[Block] = []
    budget = _Budget(_WORK_BUDGET)
    pending = [(0, len(xs), 0, len(ys))]
    while pending:
        a1, a2, b1, b2 = pending.pop()
        a1, a2, b1, b2 = _trim(xs, ys, a1, a2, b1, b2)
        if a1 == a2 or b1 == b2:
            if a1 != a2 or b1 != b2:
                blocks.append(Block(a1, a2, b1, b2))
            continue
        if (a2 - a1) + (b2 - b1) > _SMALL:
            anchors = _anchors(xs, ys, a1, a2, b1, b2)
            if anchors:
                pending.extend(reversed(_between(anchors, a1, a2, b1, b2)))
                continue
        blocks.extend(_shortest(xs[a1:a2], ys[b1:b2], a1, b1, budget))
    return [Block(x.a1 + start, x.a2 + start, x.b1 + start, x.b2 + start) for x in blocks]


class _Budget:
    """The shortest-edit-script work still allowed in one alignment."""

    def __init__(self, work: int) -> None:
        self.work = work


def _common_ends(a: Sequence[str], b: Sequence[str]) -> tuple[int, int, int]:
    """How many lines ``a`` and ``b`` share at the start, and where their shared ends begin."""
    start = 0
    limit = min(len(a), len(b))
    while start < limit and a[start] == b[start]:
        start += 1
    end_a, end_b = len(a), len(b)
    while end_a > start and end_b > start and a[end_a - 1] == b[end_b - 1]:
        end_a -= 1
        end_b -= 1
    return start, end_a, end_b


def _trim(
    xs: list[int], ys: list[int], a1: int, a2: int, b1: int, b2: int
) -> tuple[int, int, int, int]:
    while a1 < a2 and b1 < b2 and xs[a1] == ys[b1]:
        a1 += 1
        b1 += 1
    while a1 < a2 and b1 < b2 and xs[a2 - 1] == ys[b2 - 1]:
        a2 -= 1
        b2 -= 1
    return a1, a2, b1, b2


def _anchors(
    xs: list[int], ys: list[int], a1: int, a2: int, b1: int, b2: int
) -> list[tuple[int, int]]:
    """Pairs of equal lines that occur once on each side, longest run in order (patience)."""
    count_a = Counter(xs[a1:a2])
    count_b = Counter(ys[b1:b2])
    where_a = {x: i for i, x in enumerate(xs[a1:a2], a1) if count_a[x] == 1 and count_b[x] == 1}
    pairs = [(where_a[y], j) for j, y in enumerate(ys[b1:b2], b1) if y in where_a]
    return _longest_increasing(pairs)


def _longest_increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest subsequence of ``pairs`` (sorted by their second item) rising in the first."""
    tails: list[int] = []
    tail_index: list[int] = []
    previous = [-1] * len(pairs)
    for index, (i, _) in enumerate(pairs):
        slot = bisect_left(tails, i)
        if slot == len(tails):
            tails.append(i)
            tail_index.append(index)
        else:
            tails[slot] = i
            tail_index[slot] = index
        previous[index] = tail_index[slot - 1] if slot else -1
    chain: list[tuple[int, int]] = []
    index = tail_index[-1] if tail_index else -1
    while index != -1:
        chain.append(pairs[index])
        index = previous[index]
    chain.reverse()
    return chain


def _between(
    anchors: list[tuple[int, int]], a1: int, a2: int, b1: int, b2: int
) -> list[tuple[int, int, int, int]]:
    """The stretches between consecutive anchors; the anchor lines themselves are equal."""
    stretches = []
    for i, j in anchors:
        stretches.append((a1, i, b1, j))
        a1, b1 = i + 1, j + 1
    stretches.append((a1, a2, b1, b2))
    return stretches


def _shortest(xs: list[int], ys: list[int], a_at: int, b_at: int, budget: _Budget) -> list[Block]:
    size = len(xs) + len(ys)
    max_cost = min(size if size <= _SMALL else _MAX_COST_LARGE, isqrt(budget.work))
    blocks, cost = _myers(xs, ys, max_cost)
    budget.work = max(0, budget.work - cost * cost)
    if blocks is None:
        matcher = difflib.SequenceMatcher(None, xs, ys, autojunk=True)
        blocks = [
            Block(i1, i2, j1, j2) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"
        ]
    return [Block(x.a1 + a_at, x.a2 + a_at, x.b1 + b_at, x.b2 + b_at) for x in blocks]


def _myers(xs: list[int], ys: list[int], max_cost: int) -> tuple[list[Block] | None, int]:
    """A shortest edit script (Myers 1986) and its cost; None when it costs over ``max_cost``."""
    n, m = len(xs), len(ys)
    offset = max_cost + 1
    furthest = [0] * (2 * offset + 1)
    trace: list[list[int]] = []
    for cost in range(max_cost + 1):
        trace.append(furthest.copy())
        for k in range(-cost, cost + 1, 2):
            down = k == -cost or (k != cost and furthest[offset + k - 1] < furthest[offset + k + 1])
            x = furthest[offset + k + 1] if down else furthest[offset + k - 1] + 1
            y = x - k
            while x < n and y < m and xs[x] == ys[y]:
                x += 1
                y += 1
            furthest[offset + k] = x
            if x >= n and y >= m:
                return _backtrack(trace, offset, n, m), cost
    return None, max_cost


def _backtrack(trace: list[list[int]], offset: int, n: int, m: int) -> list[Block]:
    """Walk the saved frontiers back from (n, m), marking each removed and added line."""
    deleted = [False] * n
    inserted = [False] * m
    x, y = n, m
    for cost in range(len(trace) - 1, 0, -1):
        frontier = trace[cost]
        k = x - y
        down = k == -cost or (k != cost and frontier[offset + k - 1] < frontier[offset + k + 1])
        prev_k = k + 1 if down else k - 1
        x = frontier[offset + prev_k]
        y = x - prev_k
        if down:
            inserted[y] = True
        else:
            deleted[x] = True
    return _blocks(deleted, inserted)


def _blocks(deleted: list[bool], inserted: list[bool]) -> list[Block]:
    """Runs of removed and added lines with no equal line between them make one block."""
    n, m = len(deleted), len(inserted)
    blocks: list[Block] = []
    i = j = 0
    while i < n or j < m:
        a1, b1 = i, j
        while i < n and deleted[i]:
            i += 1
        while j < m and inserted[j]:
            j += 1
        if (i, j) != (a1, b1):
            blocks.append(Block(a1, i, b1, j))
        else:
            i += 1
            j += 1
    return blocks
