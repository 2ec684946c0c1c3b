"""Searching the workspaces' documents: for now a bounded word search (grep) of the files."""
