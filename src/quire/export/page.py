"""The exported page: the renderer's HTML in the Read view's markup, stylesheet and theme.

Owns the page's shape (``<article class="markdown-body">`` as the Read view has it), the warm
page the browser keeps (``shell_page``: the bundle's modules loaded once, each export's
document swapped in by ``show_expression``), and the origin the browser loads it from. No
JavaScript is left in a page written to disk.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
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

SHELL_URL = ORIGIN + "/_quire/page"
"""The warm page's own address."""

FILES = "/fs"
"""Under ORIGIN, ``/<serial>/fs/<absolute path>`` is that file on disk (if the request rule of
export ``serial`` allows): each export's files have their own addresses, so nothing one export
loaded can be reused, or answered, for the next."""

DIAGRAM_ERROR_PREFIX = "This diagram could not be drawn: "
"""How the Read view's diagram drawer titles a diagram it could not draw."""

# The warm page's one script: `quireShow` puts a document in place of the last one (theme,
# stylesheet, base address, title, a new <body>, scroll), then draws its diagrams (the Mermaid
# module imported the first time a document has one, and reconfigured for every document) and
# typesets its math (KaTeX's module, likewise; a document with both starts both imports at
# once), waits for images and fonts, and returns the diagrams that failed.
_SHOW = """
const assets = %(assets)s;
const pick = (module, name) => Object.values(module).concat([module])
  .find((value) => value && typeof value[name] === "function");
let diagrams = null;
let math = null;
window.quireShow = async (doc) => {
  document.documentElement.className = "theme-" + doc.theme;
  document.querySelector('meta[name="color-scheme"]').content = doc.dark ? "dark" : "light";
  document.querySelector("base").href = doc.base;
  document.title = doc.title;
  const style = document.getElementById("quire-style");
  if (doc.css !== null) style.textContent = doc.css;
  document.fonts.clear();
  const article = document.createElement("article");
  article.className = "markdown-body";
  article.innerHTML = doc.body;
  document.body.replaceChildren(article);
  window.scrollTo(0, 0);
  const drawing = article.querySelector("pre.mermaid") !== null;
  const typesetting = doc.typeset && article.querySelector(".math") !== null;
  // Both modules load at once: the second's fetch and compile overlap the first's.
  diagrams = drawing ? diagrams ?? import(assets + doc.mermaid)
    .then((module) => pick(module, "drawDiagrams")) : diagrams;
  math = typesetting ? math ?? import(assets + doc.math)
    .then((module) => pick(module, "typeset")) : math;
  if (drawing) {
    const drawer = await diagrams;
    await drawer.drawDiagrams(document.createElement("div"), !doc.dark);
    await drawer.drawDiagrams(article, doc.dark);
  }
  if (typesetting) (await math).typeset(article);
  await Promise.all([...document.images].map((image) => image.complete ? null :
    new Promise((done) => { image.onload = image.onerror = done; })));
  await document.fonts.ready;
  return [...article.querySelectorAll("pre.mermaid")].map((element, index) =>
    element.classList.contains("mermaid-error") ? [index, element.title] : null)
    .filter((entry) => entry !== null);
};
"""


@dataclass(frozen=True)
class Shown:
    """One document for the warm page: its body (the renderer's HTML), title, theme, the
    stylesheet (None: the page's current one, already this document's), the file it is (its
    relative images resolve beside it), and whether its math is typeset."""

    body: str
    title: str
    theme: ExportTheme
    css: str | None
    path: Path
    typeset: bool = True


def page_url(source: Path, serial: int = 0) -> str:
    """The address ``source``'s page has in export ``serial`` (relative images resolve
    against it to ``/<serial>/fs/<folder>/…``)."""
    return f"{ORIGIN}/{serial}{FILES}{quote(str(source))}"


def shell_page() -> str:
    """The warm page: empty, with the script that swaps a document in."""
    script = _SHOW % {"assets": json.dumps(ASSETS)}
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="color-scheme" content="light">\n'
        f'<base href="{ORIGIN}/">\n<style id="quire-style"></style>\n<title></title>\n'
        f'</head>\n<body>\n<script type="module">{script}</script>\n</body>\n</html>\n'
    )


def show_expression(shown: Shown, serial: int) -> str:
    """The expression that puts ``shown`` in the warm page as export ``serial``'s document
    and waits until it is drawn."""
    files = bundle()
    doc = {
        "body": shown.body,
        "title": shown.title,
        "theme": shown.theme,
        "dark": shown.theme == "dark",
        "css": shown.css,
        "base": page_url(shown.path, serial),
        "typeset": shown.typeset,
        "mermaid": files.mermaid_module,
        "math": files.math_module,
    }
    return f"window.quireShow({json.dumps(doc)})"


def build_page(body: str, *, title: str, theme: ExportTheme, css: str) -> str:
    """A whole HTML page holding ``body`` (the renderer's HTML) in the Read view's markup."""
    scheme = "dark" if theme == "dark" else "light"
    return (
        f'<!doctype html>\n<html lang="en" class="theme-{theme}">\n<head>\n'
        '<meta charset="utf-8">\n'
        f'<meta name="color-scheme" content="{scheme}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="generator" content="Quire">\n'
        f"<title>{escape(title)}</title>\n<style>\n{css}\n</style>\n</head>\n<body>\n"
        f'<article class="markdown-body">\n{body}\n</article>\n</body>\n</html>\n'
    )
