"""The document an export starts from: remote images as placeholders unless the export asks
for them, and the Mermaid fence lines matching the diagrams left to draw."""

from __future__ import annotations

from pathlib import Path

from quire.export.source import source_from_text

TEXT = """# Report

![chart](https://charts.example/c.png)

```mermaid
flowchart TD
  A@{ img: "https://charts.example/node.png" }
```

```mermaid
graph LR; A-->B
```
"""


def test_remote_images_are_placeholders_unless_the_export_asks_for_them(tmp_path: Path) -> None:
    off = source_from_text(tmp_path / "r.md", TEXT)
    assert ' src="https://charts.example' not in off.html
    assert off.remote_images == ("https://charts.example/c.png",)
    on = source_from_text(tmp_path / "r.md", TEXT, remote_images=True)
    assert ' src="https://charts.example/c.png"' in on.html
    assert on.remote_images == ()


def test_the_fence_lines_are_those_of_the_diagrams_left_to_draw(tmp_path: Path) -> None:
    off = source_from_text(tmp_path / "r.md", TEXT)
    assert off.html.count('<pre class="mermaid">') == 1
    assert off.mermaid_lines == (10,)
    on = source_from_text(tmp_path / "r.md", TEXT, remote_images=True)
    assert on.html.count('<pre class="mermaid">') == 2
    assert on.mermaid_lines == (5, 10)


def test_exports_render_through_the_block_cache_to_the_same_html(tmp_path: Path) -> None:
    from quire.services import rendering

    text = "# Title\n\n- [ ] task\n\n```python\nx = 1\n```\n\n![a](https://example.com/a.png)\n"
    path = tmp_path / "doc.md"
    cached = source_from_text(path, text, renderer=rendering.render_whole)
    assert cached == source_from_text(path, text)
    assert rendering.BLOCKS.view(text).rendered.html == cached.html
