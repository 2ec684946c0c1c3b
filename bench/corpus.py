"""Generated Markdown documents for benchmarks: realistic mixes of every block and inline kind."""

from __future__ import annotations

import random

WORDS = (
    "plan",
    "agent",
    "review",
    "note",
    "quire",
    "markdown",
    "edit",
    "approve",
    "goal",
    "risk",
    "step",
    "owner",
    "draft",
    "merge",
    "branch",
    "deploy",
    "test",
    "spec",
    "user",
    "window",
    "present",
    "export",
    "search",
    "chat",
)

UNIQUE_MARKER = "The one sentence a benchmark find/replace looks for."


def _sentence(rng: random.Random, count: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(count))


def _section(rng: random.Random, index: int) -> str:
    return (
        f"## Section {index}\n\n"
        f"{_sentence(rng, 30)} **{_sentence(rng, 2)}** *{_sentence(rng, 2)}* "
        f"[[Note {index}]] `code {index}` [link](https://example.com/{index}) "
        f"$x_{index}^2$ ~~{_sentence(rng, 2)}~~\n{_sentence(rng, 25)}\n\n"
        f"- [ ] task {index} {_sentence(rng, 4)}\n- [x] done {index}\n"
        f"  - nested {_sentence(rng, 5)}\n\n"
        f"1. first {_sentence(rng, 3)}\n2. second\n\n"
        f"```python\ndef f_{index}(x):\n    return x * {index}  # {_sentence(rng, 3)}\n```\n\n"
        f"| name | value |\n|---|---|\n| {_sentence(rng, 2)} | {index} |\n\n"
        f"> {_sentence(rng, 20)}\n> ![img](pic{index}.png)\n\n"
    )


def generate(size_bytes: int, seed: int = 7) -> str:
    """About ``size_bytes`` bytes of Markdown, with one unique marker sentence near the end."""
    rng = random.Random(seed)
    parts = ["---\ntitle: Benchmark\ntags: [bench, quire]\n---\n\n# Benchmark document\n\n"]
    total = len(parts[0])
    index = 0
    while total < size_bytes:
        index += 1
        section = _section(rng, index)
        parts.append(section)
        total += len(section.encode("utf-8"))
    parts.insert(len(parts) - 1, UNIQUE_MARKER + "\n\n")
    return "".join(parts)
