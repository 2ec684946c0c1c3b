"""The Markdown library against markdown-it-py's bare parse of the same text, in the same run.

Targets (issue 2): export_metadata and tasks within 1.5x of the bare parse, export_text within
2x, a find/replace under 0.2x. Render has no target; it is reported.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from markdown_it import MarkdownIt
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

from bench.corpus import UNIQUE_MARKER, generate
from bench.timing import best_of, print_table, progress
from quire.markdown.edits import replace_unique
from quire.markdown.metadata import export_metadata
from quire.markdown.render import render
from quire.markdown.tasks import extract_tasks
from quire.markdown.text import export_text
from quire.services import rendering
from quire.services.render_cache import BlockCache

SIZES = (("1 MB", 1_000_000, 3), ("16 MiB", 16 * 1024 * 1024, 1))

OPERATIONS: tuple[tuple[str, Callable[[str], object], float | None], ...] = (
    ("export_text", export_text, 2.0),
    ("export_metadata", export_metadata, 1.5),
    ("tasks", extract_tasks, 1.5),
    ("render", render, None),
    ("find/replace", lambda doc: replace_unique(doc, UNIQUE_MARKER, "Replaced."), 0.2),
)


RENDER_TARGET = 1.5
"""A whole render of 1 MB against markdown-it-py's bare parse plus Pygments (issue 15)."""


def parse_and_highlight(parser: MarkdownIt, document: str) -> None:
    """The floor of a render: markdown-it-py's bare parse, then Pygments on every fence."""
    formatter = HtmlFormatter(nowrap=True)
    for token in parser.parse(document):
        if token.type != "fence" or not token.info:
            continue
        try:
            lexer = get_lexer_by_name(token.info.split()[0], stripnl=False)
        except ClassNotFound:
            continue
        highlight(token.content, lexer, formatter)


def _edited(document: str, number: int) -> str:
    return document.replace(UNIQUE_MARKER, f"{UNIQUE_MARKER} Edit {number}.")


def render_rows() -> list[list[str]]:
    """A whole render of 1 MB (a text never rendered before) and the re-render after an edit
    of one block (the edited text's neighbour rendered just before), against the floor."""
    bare = MarkdownIt()
    document = generate(1_000_000)
    progress("1 MB: bare parse + Pygments (baseline)")
    floor = best_of(partial(parse_and_highlight, bare, document), 3)

    def whole() -> None:
        BlockCache().render(document)

    progress("1 MB: whole render with nothing remembered")
    cold = best_of(whole, 3)
    edits = iter(range(1_000_000))
    rendering.render_whole(document)

    def edit() -> None:
        rendering.render_whole(_edited(document, next(edits)))

    progress("1 MB: render after an edit of one block")
    warm = best_of(edit, 5)
    verdict = "met" if cold / floor <= RENDER_TARGET else "MISSED"
    return [
        ["bare parse + Pygments (baseline)", f"{floor:.2f} s", "1.00", "", ""],
        ["render, whole (nothing remembered)", f"{cold:.2f} s", f"{cold / floor:.2f}",
         f"≤ {RENDER_TARGET}", verdict],
        ["render after a one-block edit", f"{warm * 1000:.0f} ms", f"{warm / floor:.3f}", "", ""],
    ]  # fmt: skip


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
    print_table(
        "Render of 1 MB: time as a ratio to markdown-it-py's bare parse + Pygments",
        ["operation", "time", "ratio", "target", "result"],
        render_rows(),
    )
