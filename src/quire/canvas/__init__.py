"""JSON Canvas documents (.canvas) and their typed, all-or-nothing edit operations."""
