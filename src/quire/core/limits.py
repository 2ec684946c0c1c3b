"""Size limits shared by every reader, writer and transport."""

from __future__ import annotations

MAX_DOCUMENT_BYTES = 16 * 1024 * 1024
"""The most a document may hold, and the most one request may carry (16 MiB)."""

MARKDOWN_EXTENSIONS = (".md", ".markdown", ".mdown", ".mkd", ".mdx")
"""The file endings Quire treats as Markdown documents, compared case-insensitively."""


def is_markdown_name(name: str) -> bool:
    """Whether ``name`` ends in a Markdown extension (any ASCII case) after a non-empty stem."""
    for extension in MARKDOWN_EXTENSIONS:
        tail = name[-len(extension) :]
        # Only ASCII folds: "K" (Kelvin sign) lowercases to "k", yet ".m\u212ad" is no ".mkd".
        if len(name) > len(extension) and tail.isascii() and tail.lower() == extension:
            return True
    return False


MIB = 1024 * 1024


def size_words(size: int) -> str:
    """A byte count in MiB for messages: ``16 MiB``, or ``16.0 MiB (16,777,217 bytes)``."""
    if size % MIB == 0:
        return f"{size // MIB} MiB"
    return f"{size / MIB:.1f} MiB ({size:,} bytes)"
