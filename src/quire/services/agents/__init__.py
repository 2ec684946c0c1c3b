"""Connecting coding agents (Claude Code, Codex, Cursor) to Quire: MCP registration and hooks.

Each module owns one concept; transports (``cli/connect.py``, ``web/agents.py``) call
``roster`` and ``hooks`` and never edit an agent's configuration themselves.
"""
