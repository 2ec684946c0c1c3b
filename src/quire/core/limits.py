"""Size limits shared by every reader, writer and transport."""

from __future__ import annotations

MAX_DOCUMENT_BYTES = 16 * 1024 * 1024
"""The most a document may hold, and the most one request may carry (16 MiB)."""

MARKDOWN_EXTENSIONS = (".md", ".markdown", ".mdown", ".mkd", ".mdx")
"""The file endings Quire treats as Markdown documents, compared case-insensitively."""

MIB = 1024 * 1024


def size_words(size: int) -> str:
    """A byte count in MiB for messages: ``16 MiB``, or ``16.0 MiB (16,777,217 bytes)``."""
    if size % MIB == 0:
        return f"{size // MIB} MiB"
    return f"{size / MIB:.1f} MiB ({size:,} bytes)"
