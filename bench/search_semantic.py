"""The search suite's semantic rows (when the ``semantic`` extra is installed): making every
note's vector against the model alone embedding the same texts, and a semantic search through
the service against a words search of the same queries, in the same run.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.timing import percentile, progress


@dataclass
class SemanticFigures:
    """Seconds to make every vector (Quire, and the model alone), and query samples in ms."""

    notes: int
    fill_s: float
    model_s: float
    semantic_ms: list[float] = field(default_factory=list)
    words_ms: list[float] = field(default_factory=list)


def make_vectors(index_path: Path, vectors_path: Path) -> SemanticFigures:
    """Time the model alone on every note's text, then Quire making every vector from an
    empty vectors file (reading the index, embedding, storing)."""
    from quire.search.index import SearchIndex
    from quire.search.semantic import SemanticIndex, WordLlamaEmbedder, texts_of

    index = SearchIndex(index_path)
    try:
        with index.reading() as db:
            texts = list(texts_of(db).values())
        model = WordLlamaEmbedder()
        model.embed(texts[:64])  # the first call pays for the tokenizer's set-up
        progress(f"semantic: the model alone on {len(texts):,} notes")
        start = time.perf_counter()
        for at in range(0, len(texts), 64):
            model.embed(texts[at : at + 64])
        model_s = time.perf_counter() - start
        progress("semantic: making every note's vector")
        vectors = SemanticIndex(vectors_path)
        start = time.perf_counter()
        made = vectors.fill(index.reading, threading.Event())
        fill_s = time.perf_counter() - start
        vectors.close()
    finally:
        index.close()
    if not made.complete:
        raise RuntimeError(f"only {made.done} of {made.total} vectors were made")
    return SemanticFigures(made.total, fill_s, model_s)


async def sample(
    service: Any, figures: SemanticFigures, texts: list[str], warmup: int, samples: int
) -> None:
    """Time each text searched in semantic mode and in words mode, alternately."""
    progress("semantic: queries")
    for number in range(warmup + samples):
        text = texts[number % len(texts)]
        for mode, found in (("semantic", figures.semantic_ms), ("words", figures.words_ms)):
            start = time.perf_counter()
            page = await service.search(text, mode=mode, limit=50)
            if number >= warmup:
                found.append((time.perf_counter() - start) * 1000)
            if mode == "semantic" and page.note:
                raise RuntimeError(f"the semantic search answered with a note: {page.note}")


def rows(figures: SemanticFigures) -> list[list[str]]:
    """Two rows of the build table: making the vectors, and a semantic query."""
    semantic_p50 = percentile(figures.semantic_ms, 0.5)
    words_p50 = percentile(figures.words_ms, 0.5)
    return [
        [
            f"semantic vectors, every note ({figures.notes / figures.fill_s:,.0f} notes/s)",
            f"{figures.fill_s:.1f} s",
            f"the model alone {figures.model_s:.1f} s",
            f"{figures.fill_s / figures.model_s:.2f}",
            "(no target)",
        ],
        [
            "semantic search p50 (service, top 50)",
            f"{semantic_p50:.1f} ms",
            f"words search {words_p50:.1f} ms",
            f"{semantic_p50 / words_p50:.2f}",
            "(no target)",
        ],
    ]
