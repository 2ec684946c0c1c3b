"""Live documents: open files as Yjs documents, their journal, previews and events."""
