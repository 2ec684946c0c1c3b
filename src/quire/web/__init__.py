"""The HTTP API, WebSockets and login of `quire serve` (Starlette)."""
