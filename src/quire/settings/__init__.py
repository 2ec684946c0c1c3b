"""The settings both sides read: one settings model and the server file (server.json)."""
