"""Rendered blocks remembered by their source, so an edit re-renders only the blocks it touched.

Owns the memory (bounded by bytes), the recent splits an edited text is compared with, and
the versions a browser names to get only the blocks that changed. The HTML is byte for byte
the whole render's (``quire.markdown.render``); the cut is ``quire.markdown.blocks``'.
Thread-safe (renders run in worker threads); reads no file.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Generic, TypeVar

from quire.core.collector import collection_paused
from quire.markdown.blocks import (
    Split,
    common_prefix,
    common_suffix,
    normalize,
    parse_block,
    resplit,
    split,
)
from quire.markdown.render import (
    Fragment,
    Rendered,
    claim_slugs,
    finish_fragment,
    prepared,
    render,
    render_fragment,
)
from quire.markdown.sanitize import RawHtmlNesting, nests_plainly

__all__ = ["BlockCache", "BlockView", "Splice", "Unit"]

FRAGMENT_BYTES = 64 * 1024 * 1024
"""How much block source and HTML the cache keeps (characters, roughly bytes)."""

_K = TypeVar("_K")
_V = TypeVar("_V")


class _Bounded(Generic[_K, _V]):
    """A least-recently-used map that drops entries past ``budget`` summed sizes."""

    def __init__(self, budget: int) -> None:
        self._budget = budget
        self._size = 0
        self._items: OrderedDict[_K, tuple[_V, int]] = OrderedDict()

    def get(self, key: _K) -> _V | None:
        item = self._items.get(key)
        if item is None:
            return None
        self._items.move_to_end(key)
        return item[0]

    def put(self, key: _K, value: _V, size: int) -> None:
        old = self._items.pop(key, None)
        if old is not None:
            self._size -= old[1]
        self._items[key] = (value, size)
        self._size += size
        while self._size > self._budget and len(self._items) > 1:
            _, (_, dropped) = self._items.popitem(last=False)
            self._size -= dropped

    def __len__(self) -> int:
        return len(self._items)


@dataclass(frozen=True)
class Unit:
    """HTML the browser can put in place on its own: one block, or a run of blocks whose raw
    HTML stays open across them. ``id`` is a digest of ``html``."""

    id: str
    html: str


@dataclass(frozen=True)
class BlockView:
    """A text rendered by block: its units in order, and the whole (their HTML joined)."""

    version: str
    units: tuple[Unit, ...]
    rendered: Rendered


@dataclass(frozen=True)
class Splice:
    """What turns the units of version ``base`` into a view's: drop ``delete_count`` units at
    ``start`` and put ``units`` there. ``base`` None: ``units`` are all of them."""

    base: str | None
    start: int
    delete_count: int
    units: tuple[Unit, ...]


@dataclass(frozen=True)
class _Finished:
    unit: Unit
    moved: tuple[str, ...]


def _digest(html: str) -> str:
    return hashlib.blake2b(html.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


class BlockCache:
    """Rendered fragments by (source, remote images), finished units by fragment HTML, the
    last few splits and views, and the unit ids of recent versions."""

    def __init__(self, budget: int = FRAGMENT_BYTES, splits: int = 8, versions: int = 64) -> None:
        self._lock = threading.Lock()
        self._fragments: _Bounded[tuple[str, bool], Fragment] = _Bounded(budget)
        self._finished: _Bounded[tuple[str, bool], _Finished] = _Bounded(budget)
        self._splits: OrderedDict[str, Split] = OrderedDict()
        self._split_count = splits
        self._views: OrderedDict[tuple[str, bool], BlockView] = OrderedDict()
        self._versions: OrderedDict[str, tuple[str, ...]] = OrderedDict()
        self._version_count = versions

    def view(self, text: str, *, remote_images: bool = False) -> BlockView:
        """``text`` rendered by block (each unchanged block's HTML remembered)."""
        with self._lock:
            key = (text, remote_images)
            known = self._views.get(key)
            if known is not None:
                self._views.move_to_end(key)
                return known
            with collection_paused():
                view = self._render(text, remote_images)
            self._views[key] = view
            while len(self._views) > self._split_count:
                self._views.popitem(last=False)
            self._versions[view.version] = tuple(unit.id for unit in view.units)
            while len(self._versions) > self._version_count:
                self._versions.popitem(last=False)
            return view

    def render(self, text: str, *, remote_images: bool = False) -> Rendered:
        """``text`` rendered whole, through the block cache: what ``render`` gives."""
        return self.view(text, remote_images=remote_images).rendered

    def splice(self, view: BlockView, since: str | None) -> Splice:
        """The units that change the version ``since`` into ``view`` (all of them when the
        version is unknown here)."""
        with self._lock:
            old = self._versions.get(since) if since is not None else None
        if old is None:
            return Splice(None, 0, 0, view.units)
        new = [unit.id for unit in view.units]
        head = 0
        while head < min(len(old), len(new)) and old[head] == new[head]:
            head += 1
        tail = 0
        while (
            tail < min(len(old), len(new)) - head
            and old[len(old) - 1 - tail] == new[len(new) - 1 - tail]
        ):
            tail += 1
        return Splice(since, head, len(old) - head - tail, view.units[head : len(new) - tail])

    def _split(self, text: str) -> Split:
        best: Split | None = None
        shared = -1
        for candidate in self._splits.values():
            prefix = common_prefix(candidate.text, text)
            size = prefix + common_suffix(candidate.text, text, prefix)
            if size > shared:
                best, shared = candidate, size
        result = split(text) if best is None or shared == 0 else resplit(best, text)
        if best is not None:
            self._splits.pop(best.text, None)
        self._splits[text] = result.bare()
        while len(self._splits) > self._split_count:
            self._splits.popitem(last=False)
        return result

    def _render(self, text: str, remote: bool) -> BlockView:
        cut = self._split(normalize(prepared(text)))
        if not cut.independent:
            whole = render(text, remote_images=remote)
            unit = Unit(_digest(whole.html), whole.html)
            return BlockView(_digest(unit.id), (unit,) if whole.html else (), whole)
        units: list[Unit] = []
        moved: list[str] = []
        has_math = has_mermaid = False
        seen: dict[str, int] = {}
        index = 0
        while index < len(cut.blocks):
            fragment, nesting = self._fragment(cut, index, seen, remote)
            fragments = [fragment]
            index += 1
            if nesting is not None:
                index = self._open_run(cut, index, seen, remote, nesting, fragments)
            has_math = has_math or any(part.has_math for part in fragments)
            has_mermaid = has_mermaid or any(part.has_mermaid for part in fragments)
            has_raw = any(part.has_raw for part in fragments)
            finished = self._finish("".join(part.html for part in fragments), remote, has_raw)
            moved.extend(finished.moved)
            unit = finished.unit
            if not units and unit.html.startswith("\n"):
                # The whole render drops the line break a hidden front matter leaves.
                stripped = unit.html.lstrip("\n")
                unit = Unit(_digest(stripped), stripped)
            if unit.html:
                units.append(unit)
        html = "".join(unit.html for unit in units)
        whole = Rendered(html, has_math, has_mermaid, tuple(moved))
        version = _digest("".join(unit.id for unit in units))
        return BlockView(version, tuple(units), whole)

    def _fragment(
        self, cut: Split, index: int, seen: dict[str, int], remote: bool
    ) -> tuple[Fragment, RawHtmlNesting | None]:
        """Block ``index``'s fragment, remembered or rendered; with the raw HTML nesting to
        carry on when the block leaves raw HTML open (such a fragment is not remembered)."""
        block = cut.blocks[index]
        key = (block.source, remote)
        known = self._fragments.get(key)
        if (
            known is not None
            and (known.line is None or known.line == block.start)
            and claim_slugs(seen, known.slugs)
        ):
            return known, None
        tokens = cut.fresh.get(index) or parse_block(block)
        nesting = RawHtmlNesting()
        fragment = render_fragment(
            tokens, seen=seen, line=block.start, remote_images=remote, nesting=nesting
        )
        stack: list[str] = []
        if fragment.has_raw and not (
            nesting.is_empty() and nests_plainly(fragment.html, stack) and not stack
        ):
            return fragment, nesting
        self._fragments.put(key, fragment, len(block.source) + len(fragment.html))
        return fragment, None

    def _open_run(
        self,
        cut: Split,
        index: int,
        seen: dict[str, int],
        remote: bool,
        nesting: RawHtmlNesting,
        fragments: list[Fragment],
    ) -> int:
        """Render the blocks after one that left raw HTML open into ``fragments``, until the
        HTML is closed again (or the text ends); the index of the block after them."""
        stack: list[str] = []
        plain = nests_plainly(fragments[0].html, stack)
        while index < len(cut.blocks) and not (plain and not stack and nesting.is_empty()):
            block = cut.blocks[index]
            tokens = cut.fresh.get(index) or parse_block(block)
            fragment = render_fragment(
                tokens, seen=seen, line=block.start, remote_images=remote, nesting=nesting
            )
            fragments.append(fragment)
            plain = plain and nests_plainly(fragment.html, stack)
            index += 1
        return index

    def _finish(self, html: str, remote: bool, has_raw: bool) -> _Finished:
        # Keyed by the HTML alone: raw HTML or not, the same HTML sanitises the same.
        key = (html, remote)
        known = self._finished.get(key)
        if known is not None:
            return known
        rendered = finish_fragment(html, remote_images=remote, has_raw=has_raw)
        finished = _Finished(Unit(_digest(rendered.html), rendered.html), rendered.remote_images)
        self._finished.put(key, finished, len(html) + len(rendered.html))
        return finished
