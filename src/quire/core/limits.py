"""Size limits shared by every reader, writer and transport."""

from __future__ import annotations

MAX_DOCUMENT_BYTES = 16 * 1024 * 1024
"""The most a document may hold, and the most one request may carry (16 MiB)."""

MARKDOWN_EXTENSIONS = (".md", ".markdown", ".mdown", ".mkd", ".mdx")
"""The file endings Quire treats as Markdown documents, compared case-insensitively."""
