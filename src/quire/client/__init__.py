"""The typed HTTP client of the server's API: discovery, auto-start and disk fallbacks."""
