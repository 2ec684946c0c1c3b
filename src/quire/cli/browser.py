"""Which system browser Quire may start: a graphical one, never a console browser.

Kept apart from ``serve`` so light commands (``open``, the hooks) can ask without importing
the server.
"""

from __future__ import annotations

import sys
import webbrowser
from collections.abc import Mapping
from pathlib import Path

_CONSOLE_BROWSERS = frozenset({"www-browser", "links", "elinks", "lynx", "w3m"})


def graphical_browser(environ: Mapping[str, str]) -> webbrowser.BaseBrowser | None:
    """The browser ``webbrowser`` would use, when it is a graphical one (see open_in_browser)."""
    graphical = sys.platform in ("darwin", "win32") or bool(
        environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY")
    )
    try:
        browser = webbrowser.get()
    except webbrowser.Error:
        return None
    name = Path(getattr(browser, "name", "")).name
    if not graphical or name in _CONSOLE_BROWSERS:
        return None
    return browser
