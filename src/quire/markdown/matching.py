"""Where a ``find`` text occurs in a document, with line breaks matching LF or CRLF.

Owns the matching rule only; replacing and previewing belong to ``quire.markdown.edits``.
"""

from __future__ import annotations

from collections.abc import Iterator

from quire.core.errors import InvalidArgument


class Occurrences:
    """The non-overlapping occurrences of ``find`` in ``document``, leftmost first.

    Both texts are compared with every CRLF folded to LF, so a line break in ``find`` matches
    either kind in the document while every other character must be equal. Folding also means
    a match never starts or ends between the two halves of a CRLF. The search is one
    ``str.find`` pass; offsets are mapped back to the document as the matches are read.
    """

    def __init__(self, document: str, find: str) -> None:
        _check_text(document, "document")
        _check_text(find, "find")
        if not find:
            raise InvalidArgument(
                "`find` must not be empty: pass the exact text to change, copied from the "
                "current content (get_current_content).",
                argument="find",
            )
        self.document = document
        self._needle = find.replace("\r\n", "\n")
        self._folded = document.replace("\r\n", "\n") if "\r\n" in document else document

    def count(self) -> int:
        """How many occurrences there are."""
        return self._folded.count(self._needle)

    def spans(self) -> Iterator[tuple[int, int]]:
        """Each occurrence as (start, end) offsets in the document, in document order."""
        if self._folded is self.document:
            for start in self._starts():
                yield start, start + len(self._needle)
            return
        offsets = _Unfolder(self.document)
        for start in self._starts():
            original = offsets.original(start)
            yield original, offsets.original(start + len(self._needle))

    def _starts(self) -> Iterator[int]:
        folded, needle = self._folded, self._needle
        start = folded.find(needle)
        while start != -1:
            yield start
            start = folded.find(needle, start + len(needle))


class _Unfolder:
    """Maps offsets in the CRLF-folded text back to the document; offsets only move forward.

    ``removed`` counts the folded-away CRs before ``at``, so ``at - removed`` is the folded
    offset of ``at``. Each step jumps by the offsets still missing: it cannot pass the answer
    (an offset advances the folded one by at most 1), and the CRs it finds are counted on the
    new stretch only, so mapping every match costs one pass over the document.
    """

    def __init__(self, document: str) -> None:
        self.document = document
        self.at = 0
        self.removed = 0

    def original(self, folded: int) -> int:
        """The smallest document offset whose folded offset is ``folded``."""
        document = self.document
        while (gap := folded - (self.at - self.removed)) > 0:
            # A CRLF whose CR sits at r < at + gap is folded: count pairs starting in the step.
            self.removed += document.count("\r\n", self.at, self.at + gap + 1)
            self.at += gap
        return self.at


def _check_text(value: object, name: str) -> None:
    if not isinstance(value, str):
        raise InvalidArgument(
            f"`{name}` must be text (a string), got {type(value).__name__}.", argument=name
        )
