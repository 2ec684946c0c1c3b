"""What an export may load besides its document: the request rule every renderer obeys.

A local file is loaded only when it lies inside the allowed folders, is an image or a font
(by its name), is not a dotfile, and is a regular file of at most 32 MiB, read through
``quire.fs``; a remote one only when remote images were asked for. Owns the rule and the
warnings a refused file leaves; the browser's interception, the HTML inliner and pandoc's
image map all call it.
"""

from __future__ import annotations

import base64
import mimetypes
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit

from quire.core.errors import QuireError
from quire.fs.documents import ANY_FILE, read_file
from quire.fs.folders import AllowedFolders
from quire.markdown.render import IMAGE_EXTENSIONS

MAX_RESOURCE_BYTES = 32 * 1024 * 1024
"""The largest image or font an export embeds."""

LOADABLE = (*IMAGE_EXTENSIONS, ".woff2", ".woff", ".ttf", ".otf")

_TYPES = {".svg": "image/svg+xml", ".webp": "image/webp", ".avif": "image/avif"}


@dataclass
class Resources:
    """The request rule for one export, and the warnings it has collected so far."""

    allowed: AllowedFolders
    remote: bool
    warnings: list[str] = field(default_factory=list)

    def local(self, path: Path) -> bytes | None:
        """The bytes of the local file ``path`` when the rule allows it, else None (warned)."""
        if not path.is_absolute():
            self._refuse(f"The image '{path}' was left out: its path is not absolute.")
            return None
        if path.suffix.lower() not in LOADABLE:
            self._refuse(
                f"'{path}' was left out of the export: only images "
                f"({', '.join(IMAGE_EXTENSIONS)}) and fonts are embedded."
            )
            return None
        if any(part.startswith(".") for part in path.parts[1:]):
            self._refuse(f"'{path}' was left out of the export: it is a hidden file.")
            return None
        if not self.allowed.contains(path):
            self._refuse(
                f"The image '{path}' was left out: it is not inside an allowed folder. Move it "
                "into the document's folder, or allow its folder."
            )
            return None
        try:
            _found, data = read_file(
                self.allowed, path, verb="embed", kind=ANY_FILE, limit=MAX_RESOURCE_BYTES
            )
            return data
        except QuireError as err:
            self._refuse(f"The image '{path}' was left out: {err}")
            return None

    def remote_allowed(self, url: str) -> bool:
        """Whether the remote ``url`` may be fetched (warned when it may not)."""
        if self.remote:
            return True
        self._refuse(
            f"The remote image {url} was left out: remote images are off. Pass remote images "
            "(`remote_images`) to fetch them, or save the image beside the document."
        )
        return False

    def data_uri(self, src: str, base: Path) -> str | None:
        """``src`` (as written in the document, relative to the folder ``base``) as a data URI
        when it names a local file the rule allows; None when it is left out (warned)."""
        parts = urlsplit(src)
        if parts.scheme in ("http", "https") or src.startswith("//"):
            return src if self.remote_allowed(src) else None
        if parts.scheme == "data":
            return src
        if parts.scheme not in ("", "file"):
            self._refuse(f"The image '{src}' was left out: its kind of address is unknown.")
            return None
        relative = unquote(parts.path)
        path = Path(relative) if relative.startswith("/") else base / relative
        data = self.local(_normal(path))
        if data is None:
            return None
        encoded = base64.b64encode(data).decode("ascii")
        return f"data:{media_type(path)};base64,{encoded}"

    def _refuse(self, warning: str) -> None:
        if warning not in self.warnings:
            self.warnings.append(warning)


def media_type(path: Path) -> str:
    """The Content-Type of an image or font, by its name."""
    suffix = path.suffix.lower()
    return _TYPES.get(suffix) or mimetypes.guess_type(path.name)[0] or "application/octet-stream"


def _normal(path: Path) -> Path:
    # "a/../b.png" in a document: folded lexically, then judged (links resolved) by the rule.
    parts: list[str] = []
    for part in PurePosixPath(path).parts[1:]:
        if part == "..":
            if parts:
                parts.pop()
        elif part != ".":
            parts.append(part)
    return Path("/", *parts)
