"""The exported page: the renderer's HTML in the Read view's markup, stylesheet and theme.

Owns the page's shape (``<article class="markdown-body">`` as the Read view has it), the script
the browser runs to draw diagrams and typeset math with the bundle's own modules, and the
origin the browser loads it from. No JavaScript is left in a page written to disk.
"""

from __future__ import annotations

import json
from html import escape
from pathlib import Path
from urllib.parse import quote

from quire.api.exports import ExportTheme
from quire.export.assets import bundle

ORIGIN = "http://quire.invalid"
"""The made-up origin the browser loads an export page from; every request to it is answered
by the engine itself (``.invalid`` never resolves, so nothing can reach a real host)."""

ASSETS = "/_quire/assets/"
"""Where the page finds the bundle's files, under ORIGIN."""

FILES = "/fs"
"""Under ORIGIN, ``/fs/<absolute path>`` is that file on disk (if the request rule allows)."""

DIAGRAM_ERROR_PREFIX = "This diagram could not be drawn: "
"""How the Read view's diagram drawer titles a diagram it could not draw."""

_RUN = """
const assets = %(assets)s;
const exports = (module, name) => Object.values(module).concat([module])
  .find((value) => value && typeof value[name] === "function");
async function finish() {
  const article = document.querySelector("article.markdown-body");
  if (article.querySelector("pre.mermaid")) {
    const drawer = exports(await import(assets + %(mermaid)s), "drawDiagrams");
    await drawer.drawDiagrams(article, %(dark)s);
  }
  if (article.querySelector(".math")) {
    const math = exports(await import(assets + %(math)s), "typeset");
    math.typeset(article);
  }
  await Promise.all([...document.images].map((image) => image.complete ? null :
    new Promise((done) => { image.onload = image.onerror = done; })));
  await document.fonts.ready;
  return [...article.querySelectorAll("pre.mermaid")].map((element, index) =>
    element.classList.contains("mermaid-error") ? [index, element.title] : null)
    .filter((entry) => entry !== null);
}
window.quireFinished = finish();
"""


def page_url(source: Path) -> str:
    """The URL the browser loads ``source``'s export page from (relative images resolve
    against it to ``/fs/<folder>/…``)."""
    return ORIGIN + FILES + quote(str(source))


def build_page(
    body: str,
    *,
    title: str,
    theme: ExportTheme,
    css: str,
    script: bool,
) -> str:
    """A whole HTML page holding ``body`` (the renderer's HTML) in the Read view's markup;
    with ``script``, the module that finishes diagrams and math in the browser."""
    scheme = "dark" if theme == "dark" else "light"
    run = ""
    if script:
        files = bundle()
        run = (
            '<script type="module">'
            + _RUN
            % {
                "assets": json.dumps(ASSETS),
                "mermaid": json.dumps(files.mermaid_module),
                "math": json.dumps(files.math_module),
                "dark": "true" if theme == "dark" else "false",
            }
            + "</script>"
        )
    return (
        f'<!doctype html>\n<html lang="en" class="theme-{theme}">\n<head>\n'
        '<meta charset="utf-8">\n'
        f'<meta name="color-scheme" content="{scheme}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="generator" content="Quire">\n'
        f"<title>{escape(title)}</title>\n<style>\n{css}\n</style>\n</head>\n<body>\n"
        f'<article class="markdown-body">\n{body}\n</article>\n{run}\n</body>\n</html>\n'
    )
