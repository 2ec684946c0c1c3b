"""A deterministic generator of Markdown vaults for the search benchmark.

Same seed and note count, same bytes. Prose is Zipf-distributed words from a fixed synthetic
vocabulary; notes carry front matter with tags, headings, wikilinks and Markdown links to other
notes, tasks, code blocks and tables, are 1 to 8 KB each and sit in nested folders. A few words and
one phrase are planted in a known number of notes, so a benchmark knows what a query must find.

Speed comes from drawing the Zipf words once, into one long text, and cutting every paragraph
out of it at a random place: a note costs a few dozen slices, not thousands of draws.

    python -m bench.vaultgen DIR --notes N [--seed S]
"""

from __future__ import annotations

import argparse
import functools
import itertools
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

MIN_BYTES = 1024
MAX_BYTES = 8192
VOCABULARY_SIZE = 30_000
ZIPF_EXPONENT = 1.07
POOL_WORDS = 1 << 20
"""Zipf words drawn once per vault (fewer for a small one); paragraphs are slices of their text."""
POOL_WORDS_PER_NOTE = 100
TAIL_WORDS = 4
"""Words per note drawn afresh from the whole vocabulary, so the long tail is really long."""
RARE_WORDS = 8
RARE_NOTES = 20
"""Each planted rare word is in exactly this many notes (or every note of a smaller vault)."""
PHRASE_SHARE = 100
"""The planted phrase is in one note of this many."""
NO_HIT = "zqxwv"
"""A text no generated note holds: the vocabulary has no q, x, z, w or v."""
NOTES_PER_FOLDER = 40
MAX_DEPTH = 4
BLOCK_POOL = 4096
"""Code blocks and tables drawn once per vault, each note picking some."""

_ONSETS = ("b", "c", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "br", "st", "tr")
_VOWELS = ("a", "e", "i", "o", "u", "ai", "ou", "é", "y")
_CODAS = ("", "", "", "n", "r", "s", "l", "m", "th", "nd", "ck")
_CODE_LINES = (
    "def {a}_{b}(items):",
    "    return [item for item in items if item.{a}]",
    "const {a} = load('{b}');",
    "SELECT {a} FROM {b} WHERE id = 42;",
    "{a}.{b}(count=3)",
    "# {a} {b}",
)


@functools.cache
def vocabulary() -> tuple[str, ...]:
    """The fixed vocabulary, most frequent (and shortest) first: the same on every run."""
    rng = random.Random("quire-vocabulary")
    words: set[str] = set()
    while len(words) < VOCABULARY_SIZE + RARE_WORDS:
        syllables = 1 + min(3, int(rng.random() * 4))
        word = "".join(
            rng.choice(_ONSETS) + rng.choice(_VOWELS) + rng.choice(_CODAS) for _ in range(syllables)
        )
        if len(word) >= 2:
            words.add(word)
    return tuple(random.Random("quire-order").sample(sorted(words), len(words)))


@dataclass(frozen=True)
class Planted:
    """What a benchmark can rely on: words and a phrase in a known number of notes."""

    common: str
    """The most frequent word: in nearly every note."""
    rare: tuple[str, ...]
    rare_notes: int
    """How many notes hold each rare word."""
    phrase: str
    phrase_notes: int
    """How many notes the phrase was planted in (the words also meet by chance elsewhere)."""
    substring: str
    """Four letters inside a frequent word, never at its start."""
    no_hit: str


@dataclass(frozen=True)
class Vault:
    """A generated vault: where, how many notes, how many bytes, what was planted."""

    root: Path
    notes: int
    bytes: int
    paths: tuple[str, ...]
    """Every note's path relative to ``root``, in generation order."""
    planted: Planted


def _by_frequency(words: Sequence[str]) -> tuple[str, ...]:
    """Shorter words first, as in a natural language, with lengths mixed among the first."""
    rng = random.Random("quire-frequency")
    return tuple(sorted(words, key=lambda word: len(word) + rng.random() * 4))


class _Writer:
    """The state of one generation run: the random source, the word text, the notes' names."""

    def __init__(self, notes: int, seed: int) -> None:
        self.rng = random.Random(seed)
        words = vocabulary()
        self.rare = tuple(word for word in words if len(word) >= 9 and word.isascii())[:RARE_WORDS]
        self.words = _by_frequency([word for word in words if word not in self.rare])
        weights = itertools.accumulate(
            1 / (rank + 1) ** ZIPF_EXPONENT for rank in range(len(self.words))
        )
        self.pool = min(POOL_WORDS, max(4096, notes * POOL_WORDS_PER_NOTE))
        drawn = self.rng.choices(self.words, cum_weights=list(weights), k=self.pool)
        self.text = " ".join(drawn)
        self.starts = [0, *itertools.accumulate(len(word) + 1 for word in drawn[:-1])]
        self.long = [word for word in self.words if len(word) >= 4 and word.isascii()]
        self.phrase = f"{self.long[40]} {self.long[60]}"
        self.titles = [self._title(index) for index in range(notes)]
        self.folders = self._folders(notes)
        self.paths = [
            str(PurePosixPath(self.rng.choice(self.folders), f"{title}.md"))
            for title in self.titles
        ]
        self.extra = self._planted(notes)
        self.codes = [self._code() for _ in range(BLOCK_POOL)]
        self.tables = [self._table() for _ in range(BLOCK_POOL)]

    def _title(self, index: int) -> str:
        count = 1 + int(self.rng.random() * 3)
        picked = self.rng.choices(self.words[:3000], k=count)
        return " ".join(picked).capitalize() + f" {index}"

    def _folders(self, notes: int) -> list[str]:
        folders = [""]
        for index in range(max(0, notes // NOTES_PER_FOLDER)):
            parent = self.rng.choice(folders)
            if parent.count("/") + 1 >= MAX_DEPTH:
                parent = parent.split("/", 1)[0]
            name = f"{self.rng.choice(self.words[:500])}-{index}"
            folders.append(f"{parent}/{name}" if parent else name)
        return folders

    def _planted(self, notes: int) -> dict[int, list[str]]:
        extra: dict[int, list[str]] = {}
        for word in self.rare:
            for index in self.rng.sample(range(notes), min(notes, RARE_NOTES)):
                extra.setdefault(index, []).append(f"The {word} appears here.")
        for index in self.rng.sample(range(notes), self.phrase_notes(notes)):
            extra.setdefault(index, []).append(f"Someone wrote {self.phrase} in passing.")
        return extra

    @staticmethod
    def phrase_notes(notes: int) -> int:
        return max(1, notes // PHRASE_SHARE)

    def prose(self, words: int) -> str:
        """About ``words`` Zipf words cut out of the drawn text at a random place."""
        first = int(self.rng.random() * (self.pool - words - 1))
        piece = self.text[self.starts[first] : self.starts[first + words] - 1]
        return piece[:1].upper() + piece[1:] + "."

    def note(self, index: int) -> str:
        """The text of note ``index``: at least MIN_BYTES and at most MAX_BYTES of UTF-8."""
        rng = self.rng
        target = MIN_BYTES + int(rng.random() * (MAX_BYTES - MIN_BYTES))
        tags = rng.sample(self.words[:60], 1 + int(rng.random() * 3))
        parts = [
            f"---\ntitle: {self.titles[index]}\ntags: [{', '.join(tags)}]\n"
            f"created: 2024-{1 + index % 12:02}-{1 + index % 28:02}\n---\n\n"
            f"# {self.titles[index]}\n\n"
        ]
        tail = " ".join(rng.choices(self.words, k=TAIL_WORDS))
        parts.append(f"{self.prose(40)} {tail}. #{tags[0]}\n\n")
        parts.extend(line + "\n\n" for line in self.extra.get(index, ()))
        size = sum(len(part) for part in parts)
        while size < target:
            block = self._block(index)
            parts.append(block)
            size += len(block)
        return _fit("".join(parts))

    def _block(self, index: int) -> str:
        kind = self.rng.random()
        if kind < 0.4:
            return self.prose(30 + int(self.rng.random() * 90)) + "\n\n"
        if kind < 0.6:
            heading = self.prose(3)[:-1]
            return f"## {heading}\n\n{self.prose(40)} {self._link(index)} {self.prose(30)}\n\n"
        if kind < 0.75:
            return self._tasks()
        if kind < 0.85:
            return self.codes[int(self.rng.random() * BLOCK_POOL)]
        if kind < 0.93:
            return self.tables[int(self.rng.random() * BLOCK_POOL)]
        return f"> {self.prose(25)} {self._link(index)}\n\n"

    def _tasks(self) -> str:
        """A task list: one slice of prose cut into items at every sixth space."""
        words = self.prose(6 * (2 + int(self.rng.random() * 4)))[:-1].split(" ")
        items = (" ".join(words[at : at + 6]) for at in range(0, len(words), 6))
        boxes = ("- [x] " if self.rng.random() < 0.3 else "- [ ] " for _ in words)
        return "".join(box + item + "\n" for box, item in zip(boxes, items, strict=False)) + "\n"

    def _link(self, index: int) -> str:
        target = int(self.rng.random() * len(self.titles))
        title = self.titles[target]
        kind = self.rng.random()
        if kind < 0.5:
            return f"[[{title}]]"
        if kind < 0.65:
            return f"[[{title}|{self.prose(2)[:-1]}]]"
        here = PurePosixPath(self.paths[index]).parent
        there = PurePosixPath(self.paths[target])
        relative = _relative(here, there)
        return f"[{self.prose(2)[:-1]}]({relative.replace(' ', '%20')})"

    def _code(self) -> str:
        lines = []
        for _ in range(2 + int(self.rng.random() * 5)):
            a, b = self.rng.choices(self.words[:400], k=2)
            lines.append(self.rng.choice(_CODE_LINES).format(a=a, b=b))
        language = self.rng.choice(("python", "js", "sql", ""))
        return f"```{language}\n" + "\n".join(lines) + "\n```\n\n"

    def _table(self) -> str:
        head = self.rng.choices(self.words[:200], k=3)
        rows = [
            "| " + " | ".join([*self.rng.choices(self.words[:2000], k=2), str(row)]) + " |"
            for row in range(2 + int(self.rng.random() * 4))
        ]
        return f"| {' | '.join(head)} |\n|---|---|---|\n" + "\n".join(rows) + "\n\n"


def _relative(here: PurePosixPath, there: PurePosixPath) -> str:
    """``there`` relative to the folder ``here`` (both relative to the vault root)."""
    common = 0
    for a, b in zip(here.parts, there.parent.parts, strict=False):
        if a != b:
            break
        common += 1
    ups = [".."] * (len(here.parts) - common)
    return "/".join([*ups, *there.parts[common:]])


def _fit(text: str) -> str:
    """``text`` cut at a line end so its UTF-8 form is at most MAX_BYTES."""
    data = text.encode("utf-8")
    if len(data) <= MAX_BYTES:
        return text
    cut = data[:MAX_BYTES].rfind(b"\n") + 1
    if cut == 0:
        return data[:MAX_BYTES].decode("utf-8", errors="ignore")
    return data[:cut].decode("utf-8")


def generate(root: Path, notes: int, seed: int = 1) -> Vault:
    """Write ``notes`` notes under ``root`` (created if missing) and say what was written."""
    if notes < 1:
        raise ValueError(f"A vault needs at least one note, not {notes}.")
    writer = _Writer(notes, seed)
    total = 0
    made: set[str] = set()
    for index, relative in enumerate(writer.paths):
        path = root / relative
        folder = str(path.parent)
        if folder not in made:
            path.parent.mkdir(parents=True, exist_ok=True)
            made.add(folder)
        data = writer.note(index).encode("utf-8")
        path.write_bytes(data)
        total += len(data)
    frequent = next(word for word in writer.long[10:] if len(word) >= 6)
    planted = Planted(
        common=writer.long[0],
        rare=writer.rare,
        rare_notes=min(notes, RARE_NOTES),
        phrase=writer.phrase,
        phrase_notes=writer.phrase_notes(notes),
        substring=frequent[1:5],
        no_hit=NO_HIT,
    )
    return Vault(root, notes, total, tuple(writer.paths), planted)


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: write a vault and print what was written."""
    parser = argparse.ArgumentParser(prog="python -m bench.vaultgen", description=__doc__)
    parser.add_argument("folder", type=Path, help="where to write the vault (created if missing)")
    parser.add_argument("--notes", type=int, default=10_000, help="how many notes (10,000)")
    parser.add_argument("--seed", type=int, default=1, help="the random seed (1)")
    options = parser.parse_args(argv)
    if options.notes < 1:
        parser.error("--notes must be at least 1")
    start = time.perf_counter()
    vault = generate(options.folder, options.notes, options.seed)
    elapsed = time.perf_counter() - start
    planted = vault.planted
    print(
        f"Wrote {vault.notes:,} notes ({vault.bytes / 2**20:.1f} MiB) to {vault.root} "
        f"in {elapsed:.1f} s.\n"
        f"common word: {planted.common}; rare words (in {planted.rare_notes} notes each): "
        f"{', '.join(planted.rare)}; phrase (planted in {planted.phrase_notes}): "
        f"{planted.phrase!r}; substring: {planted.substring}; no hit: {planted.no_hit}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
