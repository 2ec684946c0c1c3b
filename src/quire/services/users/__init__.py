"""Accounts of multi mode: users, passwords, API tokens, browser sessions, grants.

Nothing here is wired into the server yet; the CLI (``quire user …``) is its only caller.
"""
