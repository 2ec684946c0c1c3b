"""Markdown analysis: parse, render, and the text, structure, tasks, diffs and edits agents read.

Pure functions over strings; no file or network I/O (callers read files through ``quire.fs``).
"""
