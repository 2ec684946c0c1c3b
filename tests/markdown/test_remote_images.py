"""Remote images in the renderer: with them off (the default) no remote address survives in any
attribute a browser fetches, whatever the spelling; each becomes a placeholder naming its host;
local paths and data images stay; with them on, the HTML is as written."""

from __future__ import annotations

import re
from html import unescape as html_unescape
from urllib.parse import urljoin, urlsplit

import pytest

from quire.markdown.remote_images import diagram_fetch
from quire.markdown.render import render, render_html

# Attributes through which a browser would fetch something on its own.
_FETCHING = re.compile(
    r"""\s(?:src|srcset|href|xlink:href|poster|background|data|style)\s*=\s*"([^"]*)\"""",
    re.IGNORECASE,
)


def fetched(html: str) -> list[str]:
    """Every value of an attribute a browser fetches from, except links people follow."""
    values = []
    for tag in re.findall(r"<(?!a\s)[a-zA-Z][^>]*>", html):
        values.extend(_FETCHING.findall(tag))
    return values


PAGE = "http://quire.test/notes/"


def remote_looking(value: str) -> bool:
    """Whether a browser on PAGE would fetch ``value`` (or any candidate of a srcset) from
    another host: read as a browser reads it, then resolved (an oracle apart from the rule)."""
    text = html_unescape(value)
    if "url(" in text.lower():
        return True
    for candidate in text.split(","):
        address = re.sub(r"[\t\n\r]", "", candidate.lstrip("\x00\x20")).strip().split(" ")[0]
        address = address.replace("\\", "/")
        resolved = urlsplit(urljoin(PAGE, address))
        if resolved.scheme not in ("http", "https", "data") or (
            resolved.scheme != "data" and resolved.hostname != "quire.test"
        ):
            return True
    return False


HOSTILE = [
    "![a](https://evil.example/a.png)",
    "![a](HTTP://EVIL.EXAMPLE/a.png)",
    "![a](HtTpS://evil.example/a.png)",
    "![a](//evil.example/a.png)",
    "![a](<//evil.example/a b.png>)",
    "![a](https://evil.example/a.png?u=1&amp;v=2)",
    "![a](&#104;ttps://evil.example/a.png)",
    "![a][ref]\n\n[ref]: https://evil.example/a.png",
    '<img src="https://evil.example/a.png">',
    "<IMG SRC='HTTPS://evil.example/a.png'>",
    '<img src="&#104;&#116;&#116;&#112;&#115;://evil.example/a.png">',
    '<img src="&#x68;ttps://evil.example/a.png">',
    '<img src="  https://evil.example/a.png">',
    '<img src="ht&#9;tps://evil.example/a.png">',
    '<img src="ht\ttps://evil.example/a.png">',
    '<img src="//evil.example/a.png">',
    '<img src="\\\\evil.example/a.png">',
    '<img src="/\\evil.example/a.png">',
    '<img src="/&#9;/evil.example/a.png">',
    '<img src="ftp://evil.example/a.png">',
    '<img src="a.png" srcset="https://evil.example/a.png 2x, //evil.example/b.png 3x">',
    '<img srcset="https://evil.example/a.png">',
    '<picture><source srcset="https://evil.example/a.png"><img src="a.png"></picture>',
    '<svg><image href="https://evil.example/a.png"/></svg>',
    '<svg><image xlink:href="https://evil.example/a.png"/></svg>',
    '<math><mglyph src="https://evil.example/a.png"/></math>',
    '<div style="background:url(https://evil.example/a.png)">x</div>',
    '<td style="background-image:url(//evil.example/a.png)">x</td>',
    '<table background="https://evil.example/a.png"><tr><td>x</td></tr></table>',
    '<video poster="https://evil.example/a.png"></video>',
    '<audio src="https://evil.example/a.mp3"></audio>',
    '<object data="https://evil.example/a.svg"></object>',
    '<input type="image" src="https://evil.example/a.png">',
    '<link rel="stylesheet" href="https://evil.example/a.css">',
    "<style>body{background:url(https://evil.example/a.png)}</style>",
    '<body background="https://evil.example/a.png">',
    '<iframe src="https://evil.example/"></iframe>',
    "![[https://evil.example/a.png]]",
    "- [ ] ![a](https://evil.example/a.png)\n",
    "> ![a](https://evil.example/a.png)",
    "| a |\n|---|\n| ![a](https://evil.example/a.png) |",
    "[![a](https://evil.example/a.png)](https://example.com)",
]


@pytest.mark.parametrize("source", HOSTILE)
def test_no_remote_address_survives_where_a_browser_would_fetch_it(source: str) -> None:
    html = render_html(source)
    assert [value for value in fetched(html) if remote_looking(value)] == [], html


@pytest.mark.parametrize(
    ("source", "host"),
    [
        ("![a](https://evil.example/a.png)", "evil.example"),
        ("![a](HTTP://EVIL.EXAMPLE/a.png)", "evil.example"),
        ("![a](//evil.example/a.png)", "evil.example"),
        ('<img src="\\\\evil.example/a.png">', "evil.example"),
        ('<img src="&#104;ttps://Evil.Example:8080/a.png">', "evil.example"),
    ],
)
def test_a_remote_image_becomes_a_placeholder_naming_its_host(source: str, host: str) -> None:
    rendered = render(source)
    assert f'data-host="{host}"' in rendered.html
    assert f"Image from {host} not loaded" in rendered.html
    assert len(rendered.remote_images) == 1


def test_the_placeholder_keeps_the_address_alt_and_size_for_the_click() -> None:
    html = render_html(
        '<img src="https://e.example/a.png?x=1&amp;y=&quot;2" alt="A &lt;b&gt;" '
        'width="20" height="10">'
    )
    assert 'class="remote-image"' in html
    assert 'data-src="https://e.example/a.png?x=1&amp;y=&quot;2"' in html
    assert 'data-alt="A &lt;b&gt;"' in html
    assert 'data-width="20" data-height="10"' in html
    assert "not loaded: A &lt;b&gt;</span>" in html


def test_a_network_path_keeps_plain_slashes_for_the_click() -> None:
    assert 'data-src="//e.example/a.png"' in render_html('<img src=" \\\\e.example/a.png">')


def test_an_address_a_click_may_not_load_gets_no_address_at_all() -> None:
    html = render_html('<img src="ftp://e.example/a.png" alt="f">')
    assert "data-src" not in html
    assert "ftp: addresses never load" in html


@pytest.mark.parametrize(
    "source",
    [
        "![a](a.png)",
        "![a](./img/a%20b.png)",
        "![a](/abs/a.png)",
        "![a](data:image/png;base64,iVBORw0KGgo=)",
        '<img src="DATA:image/gif;base64,R0lGOD">',
        "![[a.png|20x10]]",
    ],
)
def test_local_paths_and_data_images_stay_as_written(source: str) -> None:
    rendered = render(source)
    assert "<img " in rendered.html
    assert "remote-image" not in rendered.html
    assert rendered.remote_images == ()


def test_a_data_uri_outside_an_image_is_still_refused() -> None:
    assert "data:" not in render_html('<a href="data:text/html,x">x</a>')


def test_with_remote_images_on_the_html_is_as_written() -> None:
    source = '![a](https://e.example/a.png)\n\n<img src="//e.example/b.png">'
    rendered = render(source, remote_images=True)
    assert re.findall(r'src="([^"]*)"', rendered.html) == [
        "https://e.example/a.png",
        "//e.example/b.png",
    ]
    assert rendered.remote_images == ()


def test_the_addresses_moved_aside_are_listed_in_order() -> None:
    source = '![a](https://one.example/a.png) ![b](b.png) <img src="//two.example/c.png">'
    assert render(source).remote_images == (
        "https://one.example/a.png",
        "//two.example/c.png",
    )


def test_text_that_only_mentions_an_image_tag_is_not_touched() -> None:
    html = render_html('`<img src="https://e.example/a.png">` and https://e.example/a.png')
    assert "remote-image" not in html
    assert "&lt;img src=" in html


DIAGRAM_WITH_IMAGE = '```mermaid\nflowchart TD\n  A@{ img: "https://e.example/p.png" }\n```\n'


@pytest.mark.parametrize(
    "body",
    [
        'A@{ img: "https://e.example/p.png", label: "x" }',
        "A@{ img: 'HTTPS://e.example/p.png' }",
        "A@{ img: //e.example/p.png }",
        'A@{ IMG : "&#104;ttps://e.example/p.png" }',
        "style A fill:url(https://e.example/f)",
        'classDef c fill:url("//e.example/f")',
    ],
)
def test_a_diagram_that_would_fetch_a_remote_image_is_shown_as_its_source(body: str) -> None:
    source = f"```mermaid\nflowchart TD\n  {body}\n```\n"
    rendered = render(source)
    assert 'class="mermaid"' not in rendered.html
    assert "Diagram not drawn" in rendered.html
    assert rendered.has_mermaid is False
    assert 'class="mermaid"' in render(source, remote_images=True).html


@pytest.mark.parametrize(
    "body",
    [
        'A["see https://e.example/page"] --> B',
        'A@{ img: "local.png" }',
        "style A fill:#f9f",
        "A --> B",
    ],
)
def test_a_diagram_that_fetches_nothing_remote_is_drawn(body: str) -> None:
    assert diagram_fetch(f"flowchart TD\n  {body}\n") is None
    assert 'class="mermaid"' in render_html(f"```mermaid\nflowchart TD\n  {body}\n```\n")


def test_a_diagram_image_is_left_out_of_the_mermaid_count_only_when_it_is_not_drawn() -> None:
    assert render(DIAGRAM_WITH_IMAGE + "\n```mermaid\ngraph LR; A-->B\n```\n").has_mermaid
