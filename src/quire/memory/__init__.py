"""Conversation memory: the per-session message store agents save to and read from."""
