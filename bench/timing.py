"""Timing helpers: best-of-N wall time, percentiles, and a ratio table printer."""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable, Sequence


def best_of(function: Callable[[], object], repeat: int) -> float:
    """The fastest of ``repeat`` runs of ``function``, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def percentile(samples: Sequence[float], fraction: float) -> float:
    """The ``fraction`` (0..1) percentile of ``samples`` by linear interpolation."""
    if len(samples) == 1:
        return samples[0]
    cuts = statistics.quantiles(samples, n=100, method="inclusive")
    return cuts[max(0, min(98, round(fraction * 100) - 1))]


def progress(message: str) -> None:
    """One progress line on stderr, so tables on stdout stay clean."""
    print(f"… {message}", file=sys.stderr, flush=True)


def print_table(title: str, header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """Print a Markdown table with a title line."""
    print(f"\n### {title}\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
