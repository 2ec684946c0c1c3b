"""The Markdown library against markdown-it-py's bare parse of the same text, in the same run.

Targets (issue 2): export_metadata and tasks within 1.5x of the bare parse, export_text within
2x, a find/replace under 0.2x. Render has no target; it is reported.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from markdown_it import MarkdownIt

from bench.corpus import UNIQUE_MARKER, generate
from bench.timing import best_of, print_table, progress
from quire.markdown.edits import replace_unique
from quire.markdown.metadata import export_metadata
from quire.markdown.render import render
from quire.markdown.tasks import extract_tasks
from quire.markdown.text import export_text

SIZES = (("1 MB", 1_000_000, 3), ("16 MiB", 16 * 1024 * 1024, 1))

OPERATIONS: tuple[tuple[str, Callable[[str], object], float | None], ...] = (
    ("export_text", export_text, 2.0),
    ("export_metadata", export_metadata, 1.5),
    ("tasks", extract_tasks, 1.5),
    ("render", render, None),
    ("find/replace", lambda doc: replace_unique(doc, UNIQUE_MARKER, "Replaced."), 0.2),
)


def run() -> None:
    """Measure every operation on each document size and print the ratio table."""
    bare = MarkdownIt()
    ratios: dict[str, list[float]] = {name: [] for name, _, _ in OPERATIONS}
    baselines: list[float] = []
    for label, size, repeat in SIZES:
        progress(f"generating the {label} document")
        document = generate(size)
        progress(f"{label}: bare markdown-it-py parse (baseline)")
        baseline = best_of(partial(bare.parse, document), repeat)
        baselines.append(baseline)
        for name, operation, _ in OPERATIONS:
            progress(f"{label}: {name}")
            elapsed = best_of(partial(operation, document), repeat)
            ratios[name].append(elapsed / baseline)
    rows = [["bare parse (baseline)", *(f"1.00 ({b:.2f} s)" for b in baselines), "", ""]]
    for name, _, target in OPERATIONS:
        worst = max(ratios[name])
        verdict = "" if target is None else ("met" if worst <= target else "MISSED")
        rows.append(
            [
                name,
                *(f"{r:.3f}" if r < 0.1 else f"{r:.2f}" for r in ratios[name]),
                "" if target is None else f"≤ {target}",
                verdict,
            ]
        )
    print_table(
        "Markdown library: time as a ratio to markdown-it-py's bare parse",
        ["operation", *(label for label, _, _ in SIZES), "target", "result"],
        rows,
    )
