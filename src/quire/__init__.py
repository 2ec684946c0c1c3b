"""Quire: a Markdown workspace where people and AI coding agents work on the same documents."""

__version__ = "0.1.0"
