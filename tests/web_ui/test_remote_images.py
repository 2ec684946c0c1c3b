"""Remote images in a real browser against a real `quire serve`, pointing at a local image
server that records every request: off by default, nothing reaches it until a click, then
exactly the clicked image loads; with `preview.remote_images` on, they load as written."""

from __future__ import annotations

import struct
import threading
import zlib
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

import pytest

from tests.web_ui.support import eventually, screenshot

pytest.importorskip("playwright.sync_api", reason="the UI tests need Playwright for Python")

from playwright.sync_api import expect

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from tests.web_ui.conftest import Server

WIDTH, HEIGHT = 40, 30


def _png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(b"\x00" + b"\x30\x60\xc0" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


class ImageServer:
    """A local HTTP server that answers every path with a PNG and records the paths asked."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        lock = threading.Lock()
        png = _png(WIDTH, HEIGHT)
        requests = self.requests

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                with lock:
                    requests.append(self.path)
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Content-Length", str(len(png)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(png)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self._http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self._http.server_address[1]
        self._thread = threading.Thread(target=self._http.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._http.shutdown()
        self._http.server_close()
        self._thread.join(timeout=10)


@pytest.fixture
def images() -> Iterator[ImageServer]:
    server = ImageServer()
    yield server
    server.close()


@pytest.fixture
def server_env(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, str]:
    """The server's state folder, with `preview.remote_images = true` when the test asks."""
    if getattr(request, "param", False):
        state = tmp_path / "state"
        state.mkdir(exist_ok=True)
        (state / "quire.toml").write_text("[preview]\nremote_images = true\n", encoding="utf-8")
    return {}


def _open_note(page: Page, server: Server, port: int) -> None:
    note = server.workspace / "remote.md"
    note.write_text(
        "# Remote\n\n"
        f"![first](http://127.0.0.1:{port}/a.png)\n\n"
        f"![second](HTTP://127.0.0.1:{port}/b.png?x=1&amp;y=2)\n\n"
        f'<img src="//127.0.0.1:{port}/c.png" alt="third">\n\n'
        "Closing line.\n",
        encoding="utf-8",
    )
    page.goto(f"{server.url}/open?path={quote(str(note))}&mode=read")
    expect(page.locator(".read-content h1")).to_have_text("Remote")


def _frame_image_width(page: Page, index: int) -> int:
    width = page.frame_locator("iframe.remote-image-frame").nth(index).locator("img")
    value = width.evaluate("image => image.naturalWidth")
    assert isinstance(value, int)
    return value


def test_no_remote_image_loads_until_a_click_then_exactly_that_one(
    page: Page, server: Server, images: ImageServer
) -> None:
    _open_note(page, server, images.port)
    body = page.locator(".read-content")
    placeholders = body.locator(".remote-image")
    expect(placeholders).to_have_count(3)
    expect(placeholders.first).to_contain_text("127.0.0.1")
    expect(body.locator("img")).to_have_count(0)
    expect(body).to_contain_text("Closing line.")
    # Rendering, Mermaid and math are done; nothing may have reached the image server.
    page.wait_for_load_state("networkidle")
    assert images.requests == []
    screenshot(page, "remote-images-placeholders")

    placeholders.first.get_by_role("button", name="Load this image").click()
    expect(body.locator("iframe.remote-image-frame.is-ready")).to_have_count(1)
    assert _frame_image_width(page, 0) == WIDTH
    # The image in the one frame has loaded, so its request is recorded; another image could
    # only load through another frame. (Waiting for the page's network to idle instead waited
    # on the new frame's own idle signal, which a loaded browser sometimes never gave in 30 s.)
    expect(body.locator("iframe.remote-image-frame")).to_have_count(1)
    expect(body.locator(".remote-image:not(.is-loaded)")).to_have_count(2)
    expect(body.locator("img")).to_have_count(0)
    assert images.requests == ["/a.png"]
    expect(placeholders.nth(1).get_by_role("button", name="Load this image")).to_be_visible()

    placeholders.nth(1).get_by_role("button", name="Load every remote image").click()
    expect(body.locator("iframe.remote-image-frame.is-ready")).to_have_count(3)
    eventually(lambda: len(images.requests) == 3, "the other two images to load")
    assert sorted(images.requests) == ["/a.png", "/b.png?x=1&y=2", "/c.png"]
    screenshot(page, "remote-images-loaded")


def test_a_loaded_image_stays_loaded_when_the_note_changes(
    page: Page, server: Server, images: ImageServer
) -> None:
    _open_note(page, server, images.port)
    body = page.locator(".read-content")
    body.locator(".remote-image").first.get_by_role("button", name="Load this image").click()
    expect(body.locator("iframe.remote-image-frame.is-ready")).to_have_count(1)
    with server.agent() as agent:
        response = agent.post(
            "/api/documents/edit",
            json={"find": "Closing line.", "replace": "Closing line, edited."},
        )
        assert response.status_code == 200, response.text
        response = agent.post(
            "/api/documents/edit", json={"find": "![first]", "replace": "![first, renamed]"}
        )
        assert response.status_code == 200, response.text
    expect(body).to_contain_text("Closing line, edited.")
    # The re-rendered block shows the image again without a new click; the others still wait.
    expect(body.locator("iframe.remote-image-frame")).to_have_count(1)
    expect(body.locator(".remote-image:not(.is-loaded)")).to_have_count(2)
    assert set(images.requests) == {"/a.png"}


@pytest.mark.parametrize("server_env", [True], indirect=True)
def test_with_the_setting_on_remote_images_load_as_written(
    page: Page, server: Server, images: ImageServer
) -> None:
    _open_note(page, server, images.port)
    body = page.locator(".read-content")
    expect(body.locator("img")).to_have_count(3)
    expect(body.locator(".remote-image")).to_have_count(0)
    eventually(lambda: len(images.requests) == 3, "the three images to load")
    widths = body.locator("img").evaluate_all("all => all.map(image => image.naturalWidth)")
    assert widths == [WIDTH, WIDTH, WIDTH]


def test_a_chat_messages_remote_image_waits_for_a_click_too(
    page: Page, server: Server, images: ImageServer
) -> None:
    chat = server.workspace / "Chats" / "team.md"
    with server.agent() as agent:
        agent.post("/api/chats", json={"path": str(chat), "title": "Team"}).raise_for_status()
        body = f"Look: ![shot](http://127.0.0.1:{images.port}/shot.png)"
        agent.post(
            "/api/chats/post", json={"path": str(chat), "as": "ada", "body": body}
        ).raise_for_status()
    page.locator(".chats-button").click()
    page.locator(".chat-row", has_text="Team").click()
    message = page.locator(".chat-body", has_text="Look:")
    expect(message.locator(".remote-image")).to_contain_text("Image from 127.0.0.1")
    page.wait_for_load_state("networkidle")
    assert images.requests == []
    message.get_by_role("button", name="Load this image").click()
    expect(message.locator("iframe.remote-image-frame.is-ready")).to_have_count(1)
    assert images.requests == ["/shot.png"]
