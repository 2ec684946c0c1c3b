"""Exports: HTML, PDF, DOCX and EPUB from the renderer's HTML (see ``exporter``)."""
