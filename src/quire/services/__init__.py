"""Use cases: live documents, windows, reviews; everything transports call."""
