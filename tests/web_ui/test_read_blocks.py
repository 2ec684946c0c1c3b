"""A long document in Read view in a real browser: an agent's edit shows, and the blocks it did
not touch keep their DOM nodes (a drawn diagram and typeset math are not drawn again)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

pytest.importorskip("playwright.sync_api", reason="the UI tests need Playwright for Python")

from playwright.sync_api import expect

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from tests.web_ui.conftest import Server

SECTION = (
    "## Section {n}\n\nParagraph {n} of the long document, with some words to fill it out "
    "so that the whole document weighs about a megabyte. {words}\n\n- [ ] task {n}\n\n"
    "```python\ndef f_{n}(x):\n    return x * {n}\n```\n\n"
)


def long_document() -> str:
    words = "plan agent review note quire markdown edit " * 20
    parts = ["# Long\n\n```mermaid\ngraph LR\n  A --> B\n```\n\nInline $e^{i\\pi}$.\n\n"]
    number = 0
    while sum(map(len, parts)) < 1_000_000:
        number += 1
        parts.append(SECTION.format(n=number, words=words))
    return "".join(parts)


def test_an_agent_edit_of_a_megabyte_document_shows_and_keeps_unchanged_blocks(
    page: Page, server: Server
) -> None:
    (server.workspace / "big.md").write_text(long_document(), encoding="utf-8")
    with server.agent(timeout=120) as agent:
        opened = agent.post(
            "/api/documents/open", json={"path": str(server.workspace / "big.md"), "mode": "read"}
        )
        opened.raise_for_status()
    body = page.locator(".read-content")
    expect(body.locator("h2", has_text="Section 900")).to_have_count(1, timeout=120_000)
    expect(body.locator("pre.mermaid svg")).to_be_visible(timeout=30_000)
    expect(body.locator(".math-inline .katex")).to_be_visible()
    # Mark nodes of blocks the edit does not touch: a paragraph far away, the diagram, math.
    page.evaluate(
        """() => {
          const content = document.querySelector('.read-content');
          for (const node of content.querySelectorAll('h2')) node.dataset.kept = 'yes';
          content.querySelector('pre.mermaid').dataset.kept = 'yes';
          content.querySelector('.math-inline').closest('p').dataset.kept = 'yes';
        }"""
    )
    svg = page.evaluate("() => document.querySelector('.read-content pre.mermaid svg').id")
    with server.agent(timeout=120) as agent:
        edited = agent.post(
            "/api/documents/edit",
            json={"find": "Paragraph 500 of", "replace": "Paragraph five hundred, edited, of"},
        )
        edited.raise_for_status()
    expect(body.locator("p", has_text="Paragraph five hundred, edited")).to_have_count(1)
    assert (
        page.evaluate("() => document.querySelectorAll('.read-content h2:not([data-kept])').length")
        == 0
    )
    assert page.locator(".read-content pre.mermaid[data-kept=yes] svg").count() == 1
    assert page.evaluate("() => document.querySelector('.read-content pre.mermaid svg').id") == svg
    assert page.locator(".read-content p[data-kept=yes] .katex").count() == 1
    # The edited paragraph is a new node: the marker went with the old one.
    assert page.locator("p[data-kept]", has_text="five hundred").count() == 0
