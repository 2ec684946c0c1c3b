"""Run every benchmark suite (or the ones named) and print their tables."""

from __future__ import annotations

import sys

from bench import (
    approvals,
    chat,
    chat_format,
    export,
    files,
    history,
    markdown,
    mcp,
    replicas,
    search,
    server,
    teams,
    ui,
)

SUITES = {
    "markdown": markdown.run,
    "server": server.run,
    "mcp": mcp.run,
    "chat-format": chat_format.run,
    "chat": chat.run,
    "ui": ui.run,
    "export": export.run,
    "search": search.run,
    "files": files.run,
    "history": history.run,
    "approvals": approvals.run,
    "teams": teams.run,
    "replicas": replicas.run,
}


def main(argv: list[str]) -> int:
    names = argv or list(SUITES)
    unknown = [name for name in names if name not in SUITES]
    if unknown:
        print(f"Unknown suite(s): {', '.join(unknown)}. Choose from: {', '.join(SUITES)}.")
        return 2
    for name in names:
        SUITES[name]()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
