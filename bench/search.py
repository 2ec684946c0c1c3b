"""The search suite: Quire's index on generated vaults, beside ripgrep and a bare FTS5 index
over the same files in the same run.

Per vault (10,000 notes; also 100,000 with ``QUIRE_BENCH_LARGE=1``, or the sizes listed in
``QUIRE_BENCH_SEARCH_NOTES``, e.g. ``2000,10000``): the index build time and size (the service
in this process, and a real ``quire serve`` building it in the background), query p50/p95 per
kind through ``SearchService`` and through ``quire mcp`` over stdio (the official SDK client),
``rg -l -i -F`` and the bare FTS5 query beside them, every hit counted across all pages against
ripgrep's count, a write → searchable latency, and the server's RSS growth with the index loaded
(against a server on an empty folder).

Targets (issue 13, at 100,000 notes): through ``quire mcp`` p50 ≤ 10 ms (rare, phrase,
substring, no hit) and ≤ 50 ms (common word); at least 40x faster than ripgrep; a write
searchable in ≤ 1 s (p95); a build ≤ 60 s; RSS growth ≤ 300 MB.
"""

from __future__ import annotations

import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from bench import search_semantic, search_serve
from bench.search_baselines import BareIndex, ripgrep, ripgrep_files
from bench.timing import percentile, print_table, progress
from bench.vaultgen import Planted, Vault, generate
from quire.api.search import SearchMode

SMALL, LARGE = 10_000, 100_000
WARMUP = 5
SAMPLES = (60, 30)
"""Timed queries per (kind, mode) through the service and through mcp: small, large vault."""
RG_SAMPLES = (20, 5)
"""ripgrep runs per query kind on a small and on a large vault (one run takes a second at 100k)."""
LIMIT = 50


@dataclass(frozen=True)
class Kind:
    """A query kind: its name, the texts it cycles through, the modes it is asked in and the
    mcp p50 target in ms."""

    name: str
    texts: tuple[str, ...]
    modes: tuple[SearchMode, ...]
    target_ms: float


def kinds(planted: Planted) -> list[Kind]:
    """The five query kinds of the issue, from what the generator planted."""
    both: tuple[SearchMode, ...] = ("grep", "words")
    return [
        Kind("common word", (planted.common,), both, 50),
        Kind("rare word", planted.rare, both, 10),
        Kind("two-word phrase", (planted.phrase,), both, 10),
        Kind("4-letter substring", (planted.substring,), ("grep",), 10),
        Kind("no hit", (planted.no_hit,), both, 10),
    ]


@dataclass
class Row:
    """The figures of one (kind, mode): samples in ms and file counts."""

    kind: Kind
    mode: SearchMode
    bare: list[float] = field(default_factory=list)
    service: list[float] = field(default_factory=list)
    mcp: list[float] = field(default_factory=list)
    rg: list[float] = field(default_factory=list)
    found: int = 0
    rg_files: int | None = None


@dataclass
class Figures:
    """Everything measured on one vault."""

    vault: Vault
    rows: list[Row]
    build_s: float = 0.0
    index_bytes: int = 0
    bare_build_s: float = 0.0
    bare_bytes: int = 0
    server: search_serve.ServerFigures | None = None
    semantic: search_semantic.SemanticFigures | None = None


def _sample_bare(bare: BareIndex, rows: list[Row], samples: int) -> None:
    for row in rows:
        for index in range(WARMUP + samples):
            text = row.kind.texts[index % len(row.kind.texts)]
            start = time.perf_counter()
            bare.query(text, row.mode, LIMIT)
            if index >= WARMUP:
                row.bare.append((time.perf_counter() - start) * 1000)


def _sample_ripgrep(program: str, folder: Path, rows: list[Row], runs: int) -> None:
    """ripgrep per kind, once: its samples stand beside every mode of the kind (rg has one)."""
    timed: dict[str, tuple[list[float], int]] = {}
    for row in rows:
        if row.kind.name not in timed:
            samples: list[float] = []
            files = 0
            for index in range(runs):
                text = row.kind.texts[index % len(row.kind.texts)]
                elapsed, found = ripgrep_files(program, text, folder)
                samples.append(elapsed * 1000)
                if index == 0:
                    files = found
            timed[row.kind.name] = (samples, files)
        row.rg, files = timed[row.kind.name]
        row.rg_files = files if row.mode == "grep" else None


async def _every_hit(service: Any, text: str, mode: SearchMode) -> int:
    """How many files match, every page followed (not timed)."""
    found, cursor, seen = 0, None, set[str]()
    while True:
        page = await service.search(text, mode=mode, limit=200, cursor=cursor)
        seen.update(hit.path for hit in page.hits)
        found += len(page.hits)
        if not page.truncated:
            break
        cursor = page.next_cursor
    if found != len(seen):
        raise RuntimeError(f"{text!r} ({mode}): {found - len(seen)} hits came back twice")
    return found


async def _service(figures: Figures, state: Path) -> None:
    """Build the index in this process, time every query kind, count every hit."""
    from quire.search import semantic
    from quire.services.search.service import VECTORS_FILE, SearchService
    from quire.vault.workspaces import Workspaces

    workspaces = Workspaces([figures.vault.root])
    index = state / "bench-search.sqlite3"
    async with SearchService(workspaces, index, build=False) as service:
        progress(f"service: building the index of {figures.vault.notes:,} notes")
        start = time.perf_counter()
        indexed = await service.reindex()
        figures.build_s = time.perf_counter() - start
        progress(f"service: built in {figures.build_s:.1f} s")
        if indexed != figures.vault.notes:
            raise RuntimeError(f"the index holds {indexed} notes of {figures.vault.notes}")
        figures.index_bytes = await anyio.to_thread.run_sync(_bytes, state, index.name)
        for row in figures.rows:
            progress(f"service: {row.kind.name} ({row.mode})")
            for number in range(WARMUP + SAMPLES[figures.vault.notes >= LARGE]):
                text = row.kind.texts[number % len(row.kind.texts)]
                start = time.perf_counter()
                await service.search(text, mode=row.mode, limit=LIMIT)
                if number >= WARMUP:
                    row.service.append((time.perf_counter() - start) * 1000)
            if row.mode == "grep":
                # Words mode pages by offset through ranked hits: following every page of a
                # common word costs minutes at 100,000 notes and proves nothing rg can check.
                row.found = await _every_hit(service, row.kind.texts[0], row.mode)
        if semantic.installed():
            figures.semantic = await anyio.to_thread.run_sync(
                search_semantic.make_vectors, index, state / VECTORS_FILE
            )
            texts = list(dict.fromkeys(t for row in figures.rows for t in row.kind.texts))
            samples = SAMPLES[figures.vault.notes >= LARGE]
            await search_semantic.sample(service, figures.semantic, texts, WARMUP, samples)
        else:
            progress("the semantic extra is not installed (pip install -e '.[semantic]'): no rows")


def _bytes(folder: Path, name: str) -> int:
    """Bytes on disk of the database ``name`` in ``folder`` with its WAL and shared memory."""
    return sum(path.stat().st_size for path in folder.glob(name + "*") if path.is_file())


def measure(notes: int, root: Path) -> Figures:
    """Generate a vault of ``notes`` notes under ``root`` and measure everything on it."""
    progress(f"generating {notes:,} notes")
    vault = generate(root / "vault", notes)
    planted = vault.planted
    figures = Figures(vault, [Row(kind, mode) for kind in kinds(planted) for mode in kind.modes])
    progress("bare FTS5: building")
    bare = BareIndex(root / "bare.sqlite3")
    figures.bare_build_s = bare.build(sorted(vault.root.rglob("*.md")))
    figures.bare_bytes = bare.size()
    _sample_bare(bare, figures.rows, SAMPLES[notes >= LARGE])
    bare.close()
    program = ripgrep()
    if program is None:
        progress("ripgrep is not installed (Debian package ripgrep): its columns stay empty")
    else:
        progress("ripgrep")
        _sample_ripgrep(program, vault.root, figures.rows, RG_SAMPLES[notes >= LARGE])
    state = root / "service-state"
    state.mkdir()
    anyio.run(_service, figures, state, backend="asyncio")
    figures.server = anyio.run(
        search_serve.measure,
        root,
        vault,
        figures.rows,
        WARMUP,
        SAMPLES[notes >= LARGE],
        backend="asyncio",
    )
    return figures


def _ms(samples: list[float], fraction: float) -> str:
    return f"{percentile(samples, fraction):.2f}" if samples else "-"


def _ratio(top: list[float], bottom: list[float]) -> str:
    if not top or not bottom:
        return "-"
    return f"{percentile(top, 0.5) / percentile(bottom, 0.5):.1f}"


def _verdict(row: Row) -> str:
    if not row.mcp:
        return "-"
    p50 = percentile(row.mcp, 0.5)
    fast = p50 <= row.kind.target_ms
    beats = not row.rg or percentile(row.rg, 0.5) / p50 >= 40
    return "met" if fast and beats else "MISSED"


def query_rows(figures: Figures) -> list[list[str]]:
    """One row per (kind, mode)."""
    table = []
    for row in figures.rows:
        count = "top 50" if row.mode == "words" else f"{row.found:,}"
        count += "" if row.rg_files is None else f" / {row.rg_files:,}"
        table.append(
            [
                row.kind.name,
                row.mode,
                count,
                _ms(row.bare, 0.5),
                _ms(row.service, 0.5),
                _ms(row.service, 0.95),
                _ms(row.mcp, 0.5),
                _ms(row.mcp, 0.95),
                _ms(row.rg, 0.5),
                _ratio(row.rg, row.mcp),
                _ratio(row.mcp, row.service),
                _ratio(row.service, row.bare),
                f"≤ {row.kind.target_ms:g} ms, ≥ 40x rg",
                _verdict(row),
            ]
        )
    return table


def build_rows(figures: Figures) -> list[list[str]]:
    """Build, size, freshness and memory."""
    mib = 2**20
    per_100k = figures.build_s * LARGE / figures.vault.notes
    rows = [
        [
            "index build (service, this process)",
            f"{figures.build_s:.1f} s",
            f"bare FTS5 {figures.bare_build_s:.1f} s",
            f"{figures.build_s / figures.bare_build_s:.2f}",
            f"≤ 60 s per 100k ({per_100k:.0f} s per 100k here)",
        ],
        [
            "index size",
            f"{figures.index_bytes / mib:.0f} MiB",
            f"bare FTS5 {figures.bare_bytes / mib:.0f} MiB; "
            f"notes {figures.vault.bytes / mib:.0f} MiB",
            f"{figures.index_bytes / figures.bare_bytes:.2f}",
            "",
        ],
    ]
    if figures.server is not None:
        rows.extend(search_serve.rows(figures.server))
    if figures.semantic is not None:
        rows.extend(search_semantic.rows(figures.semantic))
    return rows


def sizes(environ: dict[str, str]) -> list[int]:
    """The vault sizes to measure, from the environment."""
    listed = environ.get("QUIRE_BENCH_SEARCH_NOTES", "").strip()
    if listed:
        return [int(item) for item in listed.split(",") if item.strip()]
    return [SMALL, LARGE] if environ.get("QUIRE_BENCH_LARGE") == "1" else [SMALL]


def run() -> None:
    """Measure every vault size and print its two tables."""
    for notes in sizes(dict(os.environ)):
        with tempfile.TemporaryDirectory(prefix="quire-bench-search-") as root:
            figures = measure(notes, Path(root))
        vault = figures.vault
        print_table(
            f"Search, {vault.notes:,} notes ({vault.bytes / 2**20:.0f} MiB): query latency (ms) "
            f"and ratios, top {LIMIT} (files: every Quire hit across pages / rg -l; "
            "words mode: the first page only)",
            [
                "query",
                "mode",
                "files",
                "bare FTS5 p50",
                "service p50",
                "service p95",
                "mcp p50",
                "mcp p95",
                "rg p50",
                "rg ÷ mcp",
                "mcp ÷ service",
                "service ÷ bare",
                "target (100k)",
                "result",
            ],
            query_rows(figures),
        )
        print_table(
            f"Search, {vault.notes:,} notes: build, size, freshness, memory",
            ["figure", "Quire", "baseline", "ratio", "target (100k)"],
            build_rows(figures),
        )
