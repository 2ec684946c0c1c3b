"""Chat in a note: posts, waits, positions, presence and pictures of the chats."""
