"""The renderer: the HTML of each construct, sanitising, task lines, heading ids, math, code."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from quire.core.errors import InvalidArgument
from quire.markdown.highlight import highlight, highlight_css
from quire.markdown.render import Rendered, render, render_html, slugify, wikilink_href
from quire.markdown.sanitize import MAX_RAW_DEPTH, RawHtmlNesting, sanitize

FOOTNOTE = (
    '<p>a<sup class="footnote-ref"><a href="#fn:1" id="fnref:1">[1]</a></sup></p>\n'
    '<hr class="footnotes-sep">\n<section class="footnotes">\n<ol class="footnotes-list">\n'
    '<li id="fn:1" class="footnote-item"><p>note <em>x</em> '
    '<a href="#fnref:1" class="footnote-backref">↩︎</a></p>\n</li>\n</ol>\n</section>\n'
)
EXTERNAL = 'rel="noopener noreferrer"'


@pytest.mark.parametrize(
    ("source", "html"),
    [
        ("", ""),
        ("plain", "<p>plain</p>\n"),
        ("# One", '<h1 id="one">One</h1>\n'),
        ("###### Six", '<h6 id="six">Six</h6>\n'),
        ("Setext\n===", '<h1 id="setext">Setext</h1>\n'),
        (
            "*em* **strong** ~~del~~ ~one~ `co<de>`",
            "<p><em>em</em> <strong>strong</strong> <s>del</s> <s>one</s> "
            "<code>co&lt;de&gt;</code></p>\n",
        ),
        ("a  \nb", "<p>a<br>\nb</p>\n"),
        ("---", "<hr>\n"),
        ("3. three\n4. four", '<ol start="3">\n<li>three</li>\n<li>four</li>\n</ol>\n'),
        ("- a\n- b", "<ul>\n<li>a</li>\n<li>b</li>\n</ul>\n"),
        ("> quote", "<blockquote>\n<p>quote</p>\n</blockquote>\n"),
        (
            "> [!WARNING]\n> careful",
            '<div class="markdown-alert markdown-alert-warning">\n'
            '<p class="markdown-alert-title">Warning</p>\n<p>careful</p>\n</div>\n',
        ),
        (
            "| a | b | c |\n|:--|:-:|--:|\n| 1 | 2 | 3 |",
            '<table>\n<thead>\n<tr>\n<th style="text-align:left">a</th>\n'
            '<th style="text-align:center">b</th>\n<th style="text-align:right">c</th>\n'
            '</tr>\n</thead>\n<tbody>\n<tr>\n<td style="text-align:left">1</td>\n'
            '<td style="text-align:center">2</td>\n<td style="text-align:right">3</td>\n'
            "</tr>\n</tbody>\n</table>\n",
        ),
        ('[rel](docs/a%20b.md "T")', '<p><a href="docs/a%20b.md" title="T">rel</a></p>\n'),
        ("[a](<b c>)", '<p><a href="b%20c">a</a></p>\n'),
        ("[ü](ö.md)", '<p><a href="%C3%B6.md">ü</a></p>\n'),
        (
            "[ext](https://example.com/x?a=1&b=2)",
            f'<p><a {EXTERNAL} href="https://example.com/x?a=1&amp;b=2">ext</a></p>\n',
        ),
        (
            "<https://example.com>",
            f'<p><a {EXTERNAL} href="https://example.com">https://example.com</a></p>\n',
        ),
        (
            "www.example.com/path",
            f'<p><a {EXTERNAL} href="http://www.example.com/path">www.example.com/path</a></p>\n',
        ),
        (
            "me@example.com",
            f'<p><a {EXTERNAL} href="mailto:me@example.com">me@example.com</a></p>\n',
        ),
        ("[in](#sec)", '<p><a href="#sec">in</a></p>\n'),
        (
            '![alt *x*](pic.png "title")',
            '<p><img src="pic.png" alt="alt x" title="title"></p>\n',
        ),
        (
            "![i](data:image/png;base64,iVBO)",
            '<p><img src="data:image/png;base64,iVBO" alt="i"></p>\n',
        ),
        ("a[^n]\n\n[^n]: note *x*", FOOTNOTE),
        (
            "    indented <code>",
            '<pre class="highlight"><code>indented &lt;code&gt;\n</code></pre>\n',
        ),
        ("```\nno <lang>\n```", '<pre class="highlight"><code>no &lt;lang&gt;\n</code></pre>\n'),
        (
            "```nosuchlanguage\n<b>\n```",
            '<pre class="highlight"><code class="language-nosuchlanguage">&lt;b&gt;\n'
            "</code></pre>\n",
        ),
        (
            "~~~ruby extra words\nputs 1\n~~~",
            '<pre class="highlight"><code class="language-ruby"><span class="nb">puts</span>'
            '<span class="w"> </span><span class="mi">1</span>\n</code></pre>\n',
        ),
        (
            "```Python\nNone\n```",
            '<pre class="highlight"><code class="language-Python"><span class="kc">None</span>\n'
            "</code></pre>\n",
        ),
        ('```a"b\nx\n```', '<pre class="highlight"><code>x\n</code></pre>\n'),
        ("```mermaid\nA-->B\n```", '<pre class="mermaid">A--&gt;B\n</pre>\n'),
        ("$a<b$", '<p><span class="math math-inline">a&lt;b</span></p>\n'),
        ("$$\nx & y\n$$", '<div class="math math-display">x &amp; y</div>\n'),
        ("$$ a $$ (eq 1)", '<div class="math math-display" id="eq-1">a</div>\n'),
        ("a $$x$$ b", '<p>a <span class="math math-inline">x</span> b</p>\n'),
        ("---\ntitle: x\n---\nBody", "<p>Body</p>\n"),
        ("\ufeff# Title", '<h1 id="title">Title</h1>\n'),
    ],
)
def test_each_construct_renders_its_html(source: str, html: str) -> None:
    assert render_html(source) == html


@pytest.mark.parametrize(
    ("source", "html"),
    [
        (
            "<details><summary>More</summary>\n\n**hidden**\n\n</details>",
            "<details><summary>More</summary>\n<p><strong>hidden</strong></p>\n</details>",
        ),
        ("<details open>x</details>", '<details open="">x</details>'),
        (
            "<kbd>Ctrl</kbd>+<kbd>C</kbd> x<sup>2</sup> H<sub>2</sub>O",
            "<p><kbd>Ctrl</kbd>+<kbd>C</kbd> x<sup>2</sup> H<sub>2</sub>O</p>\n",
        ),
        ('<span class="note" style="color:red">s</span>', '<p><span class="note">s</span></p>\n'),
        ('<div class="box" id="top">d</div>', '<div class="box" id="top">d</div>'),
        (
            '<img src="a.png" alt="A" title="T" width="10" height="20" loading="lazy">',
            '<img src="a.png" alt="A" title="T" width="10" height="20">',
        ),
        (
            '<a href="https://x.org" title="t" target="_blank" rel="opener">x</a>',
            f'<p><a {EXTERNAL} href="https://x.org" title="t">x</a></p>\n',
        ),
        ('<a href="//x.org">x</a>', f'<p><a {EXTERNAL} href="//x.org">x</a></p>\n'),
        ('<a href="notes/b.md">b</a>', '<p><a href="notes/b.md">b</a></p>\n'),
        (
            '<table><tr><td colspan="2">c</td></tr></table>',
            '<table><tbody><tr><td colspan="2">c</td></tr></tbody></table>',
        ),
        ("line<br>break", "<p>line<br>break</p>\n"),
        ('<p align="center">centered</p>', '<p align="center">centered</p>'),
        (
            '<abbr title="HyperText">HTML</abbr> <mark>m</mark>',
            '<p><abbr title="HyperText">HTML</abbr> <mark>m</mark></p>\n',
        ),
        ('<font color="red">f</font>', "<p>f</p>\n"),
        ("<!-- a comment -->", ""),
        ('<input type="text">', '<input disabled="">'),
        ('<input type="checkbox" checked>', '<input type="checkbox" checked="" disabled="">'),
    ],
)
def test_raw_html_keeps_formatting_and_drops_the_rest(source: str, html: str) -> None:
    assert render_html(source) == html


XSS = [
    "<script>alert(1)</script>",
    "a <script>alert(1)</script> b",
    "<SCRIPT SRC=//evil.js></SCRIPT>",
    "<script>unclosed",
    "<img src=x onerror=alert(1)>",
    "<img src=x ONERROR=alert(1)>",
    '<img src="x" onerror="alert(1)"/>',
    "<p onmouseover=alert(1)>p</p>",
    "<details open ontoggle=alert(1)><summary>s</summary></details>",
    "[x](javascript:alert(1))",
    "[x](JaVaScRiPt:alert(1))",
    "[x](&#106;avascript:alert(1))",
    "[x](javascript&colon;alert(1))",
    "[x]: javascript:alert(1)\n\n[x]",
    "![x](javascript:alert(1))",
    "<javascript:alert(1)>",
    '<a href="javascript:alert(1)">x</a>',
    '<a href=" javascript:alert(1)">x</a>',
    '<a href="jav&#x09;ascript:alert(1)">x</a>',
    '<a href="jav\tascript:alert(1)">x</a>',
    '<a href="javascript&colon;alert(1)">x</a>',
    '<a href="vbscript:msgbox(1)">x</a>',
    "[v](vbscript:msgbox(1))",
    "<svg onload=alert(1)>",
    "<svg><script>alert(1)</script></svg>",
    '<svg><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>',
    '<math><mi xlink:href="javascript:alert(1)">x</mi></math>',
    "<style>body { display: none }</style>",
    "<style>unclosed",
    '<div style="background:url(javascript:alert(1))">s</div>',
    '<iframe src="https://evil.example"></iframe>',
    '<iframe srcdoc="<script>alert(1)</script>">',
    '<object data="x.swf"></object>',
    '<embed src="x.swf">',
    "[d](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    '<a href="data:text/html,<script>alert(1)</script>">d</a>',
    '<a href="DATA:text/html,x">d</a>',
    '<a href="' + " " * 100 + 'data:text/html,x">d</a>',
    '<a href="d' + "\t" * 100 + 'ata:text/html,x">d</a>',
    '<img src="' + "\n" * 100 + 'data:text/html,x">',
    '<img src="data:text/html,x">',
    '<form action="javascript:alert(1)"><button formaction="javascript:alert(1)">b</button></form>',
    '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
    '<base href="javascript:/">',
    '<link rel="stylesheet" href="javascript:alert(1)">',
    "<!-- <script>alert(1)</script> -->",
    '<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>',
    "<textarea><script>alert(1)</script></textarea>",
    "<title><img src=x onerror=alert(1)></title>",
    "<xmp><script>alert(1)</script></xmp>",
    "<plaintext><script>alert(1)</script>",
    "<template><script>alert(1)</script></template>",
    '![a<script>alert(1)</script>](x.png "t<script>")',
    '```"><script>alert(1)</script>\nx\n```',
    "```js onload=alert(1)\nx\n```",
    "$</span><script>alert(1)</script>$",
    "$$\n</div><script>alert(1)</script>\n$$",
    "```mermaid\n</pre><script>alert(1)</script>\n```",
    "[[javascript:alert(1)]]",
    "[[x|<script>alert(1)</script>]]",
    "![[javascript:alert(1).png]]",
    '<div data-x="1" onclick="alert(1)">d</div>',
    '<a href="https://ok.example" onclick="alert(1)">x</a>',
]

_ON_ATTRIBUTE = re.compile(r"<[^>]*\son[a-z]+\s*=", re.IGNORECASE)
_URL_ATTRIBUTE = re.compile(r'\b(?:href|src|action|formaction|xlink:href)="([^"]*)"')


@pytest.mark.parametrize("source", XSS)
def test_nothing_that_runs_script_survives(source: str) -> None:
    html = render_html(source)
    lowered = html.lower()
    assert "<script" not in lowered
    assert "<style" not in lowered
    assert "<iframe" not in lowered
    assert "<svg" not in lowered
    assert "<object" not in lowered
    assert _ON_ATTRIBUTE.search(html) is None
    for url in _URL_ATTRIBUTE.findall(html):
        bare = re.sub(r"[\x00-\x20]", "", url).lower()
        assert not bare.startswith(("javascript:", "vbscript:", "data:text"))


@pytest.mark.parametrize(
    ("source", "html"),
    [
        ("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"),
        ("<img src=x onerror=alert(1)>", '<img src="x">'),
        ('<a href="javascript:alert(1)">x</a>', "<p><a>x</a></p>\n"),
        ("[x](javascript:alert(1))", "<p>[x](javascript:alert(1))</p>\n"),
        ("<svg onload=alert(1)>", ""),
        ('<iframe src="https://e"></iframe>', '&lt;iframe src="https://e"&gt;&lt;/iframe&gt;'),
        ('<a href="data:text/html,x">d</a>', "<p><a>d</a></p>\n"),
        ('<img src="data:image/png;base64,AAAA">', '<img src="data:image/png;base64,AAAA">'),
        ('<img src="data:text/html,x">', "<img>"),
        ("<style>x</style>", "&lt;style&gt;x&lt;/style&gt;"),
    ],
)
def test_unsafe_markup_is_stripped_or_shown_as_text(source: str, html: str) -> None:
    assert render_html(source) == html


@pytest.mark.parametrize(
    ("href", "external"),
    [
        ("https://x.org", True),
        ("HTTP://x.org", True),
        ("http:/x.org", True),
        ("mailto:a@b.org", True),
        ("//x.org", True),
        (" //x.org", True),
        ("\\\\x.org", True),
        ("/\\x.org", True),
        ("/\t/x.org", True),
        ("/root.md", False),
        ("notes/a.md", False),
        ("#part", False),
        ("?q=1", False),
        ("", False),
    ],
)
def test_only_links_that_leave_the_site_get_noopener(href: str, external: bool) -> None:
    html = render_html(f'<a href="{href}">t</a> <a>none</a>')
    assert html.count(EXTERNAL) == external


def test_an_unclosed_raw_text_tag_does_not_swallow_the_rest_of_the_document() -> None:
    html = render_html("Use the <style> tag in prose.\n\n# Later heading")
    assert '<h1 id="later-heading">Later heading</h1>' in html
    assert "&lt;style&gt;" in html


def _tasks(html: str) -> list[tuple[int, bool]]:
    boxes = re.findall(
        r'<input class="task-list-item-checkbox"[^>]*data-line="(\d+)"([^>]*)>', html
    )
    return [(int(line), 'checked=""' in rest) for line, rest in boxes]


@pytest.mark.parametrize(
    ("source", "tasks"),
    [
        ("- [ ] t", [(1, False)]),
        ("* [x] t", [(1, True)]),
        ("+ [X] t", [(1, True)]),
        ("> - [ ] quoted", [(1, False)]),
        ("> > 1. [x] deep", [(1, True)]),
        ("1. [ ] ordered\n2) [x] other list", [(1, False), (2, True)]),
        ("intro\n\n3. [ ] a\n4. [x] b", [(3, False), (4, True)]),
        ("- a\n  - [x] nested", [(2, True)]),
        ("- [ ] a\n\n  para\n- [x] b", [(1, False), (4, True)]),
        ("- [ ] - [x] both", [(1, False), (1, True)]),
        ("---\ntitle: x\n---\n- [ ] after front matter", [(4, False)]),
        ("\ufeff- [ ] after a BOM", [(1, False)]),
        ("- a\r\n- [ ] crlf\r\n", [(2, False)]),
        ("- a\r- [ ] cr", [(2, False)]),
        ("```\n- [ ] in code\n```\n- [x] out", [(4, True)]),
        ("    - [ ] indented code", []),
        ("- [x]", []),
        ("- [y] not a box", []),
        ("text[^1]\n\n[^1]: note\n    - [ ] in a footnote", [(4, False)]),
    ],
)
def test_task_checkboxes_carry_their_source_line(
    source: str, tasks: list[tuple[int, bool]]
) -> None:
    html = render_html(source)
    assert _tasks(html) == tasks
    assert html.count('disabled=""') == len(tasks)


def test_a_task_checkbox_is_a_disabled_input_in_a_task_item() -> None:
    assert render_html("- [x] done") == (
        '<ul class="contains-task-list">\n<li class="task-list-item">'
        '<input class="task-list-item-checkbox" type="checkbox" disabled="" data-line="1"'
        ' checked=""> done</li>\n</ul>\n'
    )


def _ids(html: str) -> list[str]:
    return re.findall(r'<h[1-6] id="([^"]*)"', html)


@pytest.mark.parametrize(
    ("source", "ids"),
    [
        ("# A\n# A\n# A", ["a", "a-1", "a-2"]),
        ("# A-1\n# A\n# A", ["a-1", "a", "a-2"]),
        ("# A\n# A\n# A-1", ["a", "a-1", "a-1-1"]),
        ("# Hello, World!", ["hello-world"]),
        ("# Two  spaces", ["two--spaces"]),
        ("# snake_case and kebab-case", ["snake_case-and-kebab-case"]),
        ("# Ünïcödé — Straße", ["ünïcödé--straße"]),
        ("# 日本語の見出し", ["日本語の見出し"]),
        ("# Привет мир", ["привет-мир"]),
        ("# *Emph* `code` [link](x.md)", ["emph-code-link"]),
        ("# [[Note|Alias]] and [[Other]]", ["alias-and-other"]),
        ("# Math $x^2$", ["math-x2"]),
        ("# Q&amp;A", ["qa"]),
        ("# 🙂 emoji", ["-emoji"]),
        ("> # In a quote\n- # In a list", ["in-a-quote", "in-a-list"]),
        ("$$ x $$ (a)\n\n# A", ["a-1"]),
    ],
)
def test_headings_get_unique_github_style_ids(source: str, ids: list[str]) -> None:
    assert _ids(render_html(source)) == ids


def test_a_heading_of_only_punctuation_gets_no_id() -> None:
    assert render_html("# !!!") == "<h1>!!!</h1>\n"


def test_heading_ids_never_meet_footnote_ids() -> None:
    html = render_html("# fn1\n# fn:1\n\na[^1]\n\n[^1]: n")
    assert re.findall(r'\bid="([^"]*)"', html) == ["fn1", "fn1-1", "fnref:1", "fn:1"]


@pytest.mark.parametrize(
    ("text", "slug"),
    [("", ""), ("A B", "a-b"), ("a.b/c", "abc"), ("x\u00a0y", "xy"), ("e\u0301", "e\u0301")],
)
def test_slugify_keeps_letters_digits_marks_and_dashes(text: str, slug: str) -> None:
    assert slugify(text) == slug


@pytest.mark.parametrize(
    ("source", "html"),
    [
        ("$a<b$", '<span class="math math-inline">a&lt;b</span>'),
        ("$a>b & c$", '<span class="math math-inline">a&gt;b &amp; c</span>'),
        ('$"q"$', '<span class="math math-inline">"q"</span>'),
        ("$\\frac{a}{b}$", '<span class="math math-inline">\\frac{a}{b}</span>'),
        ("$$\n</div>\n$$", '<div class="math math-display">&lt;/div&gt;</div>'),
    ],
)
def test_math_keeps_its_tex_escaped_for_the_client(source: str, html: str) -> None:
    assert html in render_html(source)


@pytest.mark.parametrize(
    "source", ["costs $5 and $6", "$ x $", "$a\\ $", "$ a\\\\$", "5$x$", "$x$5"]
)
def test_a_dollar_beside_a_space_or_digit_on_its_outer_side_is_text(source: str) -> None:
    assert "math" not in render_html(source)


@pytest.mark.parametrize(
    ("source", "has_math"),
    [
        ("$x$", True),
        ("$$\nx\n$$", True),
        ("> - $x$ in a quoted item", True),
        ("plain", False),
        ("`$x$` in code", False),
        ("```\n$x$\n```", False),
        ("costs 5$", False),
        ("\\$x\\$", False),
    ],
)
def test_has_math_says_whether_the_client_needs_katex(source: str, has_math: bool) -> None:
    assert render(source).has_math is has_math


@pytest.mark.parametrize(
    ("source", "has_mermaid"),
    [
        ("```mermaid\ngraph TD\n```", True),
        ("~~~mermaid\ngraph TD\n~~~", True),
        ("```Mermaid\ngraph TD\n```", True),
        ("> ```mermaid\n> graph TD\n> ```", True),
        ("- item\n\n  ```mermaid\n  graph TD\n  ```", True),
        ("```python\nmermaid = 1\n```", False),
        ("```\ngraph TD\n```", False),
        ("    ```mermaid\n    graph TD\n    ```", False),
        ("the word mermaid", False),
        ('<pre class="mermaid">graph TD</pre>', False),
    ],
)
def test_has_mermaid_says_whether_the_client_needs_mermaid(source: str, has_mermaid: bool) -> None:
    assert render(source).has_mermaid is has_mermaid


def test_a_mermaid_fence_becomes_escaped_source_for_the_client() -> None:
    rendered = render('```mermaid\ngraph TD\n  A["<b>x</b>"] --> B\n```')
    assert rendered == Rendered(
        html='<pre class="mermaid">graph TD\n  A["&lt;b&gt;x&lt;/b&gt;"] --&gt; B\n</pre>\n',
        has_math=False,
        has_mermaid=True,
    )


@pytest.mark.parametrize(
    "source",
    [
        "---\nsecret: value\n---\n",
        "---\nsecret: value\n...\n",
        "\ufeff---\nsecret: value\n---\n",
        "---\nsecret: value\n---\n# Title",
        "---\nlink: '[[Secret]]'\nimg: ![[secret.png]]\n---\n",
    ],
)
def test_front_matter_is_not_rendered(source: str) -> None:
    html = render_html(source)
    assert "secret" not in html.lower()
    assert not html.startswith("\n")


def test_an_unclosed_front_matter_fence_is_a_thematic_break() -> None:
    assert render_html("---\nshown\n") == "<hr>\n<p>shown</p>\n"


def test_front_matter_shifts_no_task_line_or_heading() -> None:
    html = render_html("---\na: 1\n---\n# Title\n- [ ] t")
    assert html == (
        '<h1 id="title">Title</h1>\n<ul class="contains-task-list">\n<li class="task-list-item">'
        '<input class="task-list-item-checkbox" type="checkbox" disabled="" data-line="5">'
        " t</li>\n</ul>\n"
    )


def test_footnotes_render_as_a_linked_list_at_the_end() -> None:
    html = render_html("a[^1] b[^1] c[^x]\n\n[^x]: second\n[^1]: first\n\nAfter.")
    assert html.index("<p>After.</p>") < html.index('<section class="footnotes">')
    assert '<li id="fn:1" class="footnote-item"><p>first' in html
    assert '<li id="fn:2" class="footnote-item"><p>second' in html
    assert '<a href="#fn:1" id="fnref:1:1">' in html
    assert '<a href="#fnref:1:1" class="footnote-backref">' in html


def test_an_undefined_footnote_reference_stays_text() -> None:
    assert render_html("a[^missing]") == "<p>a[^missing]</p>\n"


@pytest.mark.parametrize(
    ("source", "html"),
    [
        ("[[Note]]", '<a class="wikilink" href="Note.md" data-target="Note">Note</a>'),
        (
            "[[Note#My Part|the part]]",
            '<a class="wikilink" href="Note.md#my-part" data-target="Note" data-heading="My Part">'
            "the part</a>",
        ),
        (
            "[[#Local]]",
            '<a class="wikilink" href="#local" data-heading="Local">Local</a>',
        ),
        (
            "[[a b/c d]]",
            '<a class="wikilink" href="a%20b/c%20d.md" data-target="a b/c d">a b/c d</a>',
        ),
        ("[[Note.md]]", '<a class="wikilink" href="Note.md" data-target="Note.md">Note.md</a>'),
        ("[[N.markdown]]", '<a class="wikilink" href="N.markdown" data-target="N.markdown">'),
        ("[[2024.01.05]]", '<a class="wikilink" href="2024.01.05.md" data-target="2024.01.05">'),
        ("[[report.pdf]]", '<a class="wikilink" href="report.pdf" data-target="report.pdf">'),
        ("[[100%?#]]", '<a class="wikilink" href="100%25%3F.md#" data-target="100%?">'),
        ("[[Ärger]]", '<a class="wikilink" href="%C3%84rger.md" data-target="Ärger">Ärger</a>'),
        ("[[a:b]]", '<a class="wikilink" href="a%3Ab.md" data-target="a:b">a:b</a>'),
        ("[[//host/x]]", '<a class="wikilink" href="/host/x.md" data-target="//host/x">'),
        ('[[a"<b>]]', '<a class="wikilink" href="a%22%3Cb%3E.md" data-target="a&quot;&lt;b&gt;">'),
        ("![[pic.png]]", '<img class="embed" src="pic.png" alt="pic.png">'),
        ("![[My Pic.JPG|A cat]]", '<img class="embed" src="My%20Pic.JPG" alt="A cat">'),
        ("![[p.png|200]]", '<img class="embed" src="p.png" alt="p.png" width="200">'),
        (
            "![[p.webp|200x100]]",
            '<img class="embed" src="p.webp" alt="p.webp" width="200" height="100">',
        ),
        (
            "![[Other#Part]]",
            '<a class="wikilink embed" href="Other.md#part" data-target="Other" '
            'data-heading="Part">Other</a>',
        ),
        ("`[[not a link]]`", "<code>[[not a link]]</code>"),
    ],
)
def test_wikilinks_and_embeds_render_as_links_and_images(source: str, html: str) -> None:
    assert html in render_html(source)


@pytest.mark.parametrize(
    ("target", "heading", "href"),
    [
        ("Note", None, "Note.md"),
        ("Note", "A B", "Note.md#a-b"),
        ("", "A", "#a"),
        ("", None, "#"),
        ("dir/Note.MD", None, "dir/Note.MD"),
        ("x.mdx", None, "x.mdx"),
        ("board.canvas", None, "board.canvas"),
        ("v1.2", None, "v1.2.md"),
        ("a#b", None, "a%23b.md"),
    ],
)
def test_wikilink_href_adds_md_unless_the_target_has_a_known_extension(
    target: str, heading: str | None, href: str
) -> None:
    assert wikilink_href(target, heading) == href


def test_code_is_highlighted_with_pygments_classes_not_styles() -> None:
    html = render_html("```python\ndef f():\n    return 'x'\n```")
    assert html.startswith('<pre class="highlight"><code class="language-python">')
    assert '<span class="k">def</span>' in html
    assert "<span class=\"s1\">'x'</span>" in html
    assert "style=" not in html


@pytest.mark.parametrize("language", ["py", "PY", "python3", "js", "ts", "rust", "bash", "json"])
def test_languages_are_found_by_name_or_alias(language: str) -> None:
    assert highlight("x = 1\n", language) is not None


@pytest.mark.parametrize("language", ["", "nosuchlanguage", "auto", "guess"])
def test_an_unknown_or_missing_language_is_never_guessed(language: str) -> None:
    assert highlight("#!/usr/bin/env python\nimport os\n", language) is None


@pytest.mark.parametrize("code", ["", "x", "x\n", "\n\nx\n\n", "a\tb\n", "<&>\n"])
def test_highlighting_keeps_the_code_text_exactly(code: str) -> None:
    spans = highlight(code, "python")
    assert spans is not None
    text = re.sub(r"<[^>]+>", "", spans)
    assert text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&") == code


def test_highlight_css_has_light_rules_and_a_dark_variant() -> None:
    css = highlight_css()
    light, _, dark = css.partition("@media (prefers-color-scheme: dark) {")
    assert ".highlight .k { color: #008000; font-weight: bold }" in light
    assert ".highlight { background: #f8f8f8; }" in light
    assert ".highlight .k { color: #66D9EF }" in dark
    assert ".highlight { background: #272822; color: #F8F8F2 }" in dark
    assert "color: inherit" in dark
    assert css.rstrip().endswith("}")
    assert css == highlight_css("default", "monokai")


def test_highlight_css_takes_other_pygments_styles() -> None:
    css = highlight_css("friendly", "github-dark")
    assert "friendly (light), github-dark (dark)" in css


@pytest.mark.parametrize(
    ("style", "dark", "argument"), [("nope", "monokai", "style"), ("default", "", "dark_style")]
)
def test_an_unknown_highlight_style_is_refused_with_the_choices(
    style: str, dark: str, argument: str
) -> None:
    with pytest.raises(InvalidArgument, match=r"Use one of: .*monokai") as caught:
        highlight_css(style, dark)
    assert caught.value.argument == argument


@pytest.mark.parametrize("source", [b"# bytes", None, 42, ["# a"]])
def test_render_refuses_anything_but_text(source: object) -> None:
    with pytest.raises(InvalidArgument, match="must be text"):
        render(source)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "source",
    [
        "",
        "\ufeff",
        "\x00",
        "\x00# a\x00",
        "\r\n\r\n",
        "\u2028\u2029",
        "\ud7ff\ue000\U0010ffff",
        " " * 10_000,
    ],
)
def test_odd_inputs_render_without_error(source: str) -> None:
    html = render_html(source)
    assert "\x00" not in html


@pytest.mark.parametrize("source", ["a\x00b", "a\ud800b", "a\udfffb"])
def test_a_nul_or_lone_surrogate_becomes_the_replacement_character(source: str) -> None:
    assert render_html(source) == "<p>a\ufffdb</p>\n"


def test_rendering_is_deterministic() -> None:
    source = "# A\n# A\n- [ ] t\n$x$\n```python\nx = 1\n```\n[[N]] a[^1]\n\n[^1]: f\n"
    assert render(source) == render(source)
    assert render_html(source) == render(source).html


KITCHEN_SINK = (
    "---\nt: 1\n---\n# A\n# A\n- [ ] t\n$x<y$\n```python\nx = 1\n```\n```mermaid\nA\n```\n"
    "[[N#H|a]] ![[p.png|9x9]] a[^1] <https://x.org> <input type=text> <input type=checkbox>\n"
    '<img src="a.png" alt="A" title="T" width="1" height="2"> <a href="x" title="t">x</a>\n\n'
    "| a | b |\n|:-|-:|\n| 1 | 2 |\n\n> [!NOTE]\n> n\n\n[^1]: f\n"
)


def test_rendering_is_the_same_in_every_process() -> None:
    # The sanitiser is Rust, whose hash maps are seeded per process: a hash order in the
    # output would only show across processes.
    code = "import sys; from quire.markdown.render import render_html; "
    code += "sys.stdout.write(render_html(sys.stdin.read()))"
    outputs = {
        subprocess.run(
            [sys.executable, "-c", code],
            input=KITCHEN_SINK,
            capture_output=True,
            text=True,
            encoding="utf-8",
            check=True,
        ).stdout
        for _ in range(4)
    }
    assert outputs == {render_html(KITCHEN_SINK)}


def test_a_bom_is_ignored_only_at_the_start() -> None:
    assert render_html("\ufeffa") == render_html("a")
    assert render_html("a\ufeffb") == "<p>a\ufeffb</p>\n"


def test_deeply_nested_raw_html_is_bounded_and_shown_as_text() -> None:
    html = render_html("<div>" * (MAX_RAW_DEPTH + 100))
    assert html.count("<div>") == MAX_RAW_DEPTH
    assert html.count("&lt;div&gt;") == 100


def test_nesting_that_closes_again_is_never_escaped() -> None:
    source = ("<div><ul><li><p>a<li><p>b</ul><table><tr><td>c</table></div>\n\n") * 1000
    assert "&lt;" not in render_html(source)


@pytest.mark.parametrize(
    ("fragments", "escaped"),
    [
        (["<b>"] * 5, 2),
        (["<br>", "<img>", "<hr>", "<input>"] * 5, 0),
        (["<span>", "<div>", "<div>", "</span>", "<b>"], 1),
        (["<li>", "<li>", "<li>", "<li>"], 0),
        (["<p>", "<div>", "<p>", "<div>", "<p>", "<div>"], 0),
        (["<div>", "<div>", "<div>", "<p>"], 1),
        (["<div>", "</div>"] * 5, 0),
        (["<DIV>", "</div>"] * 5, 0),
        (["<ul>", "<li>", "<p>", "</ul>", "<ul>", "<li>"], 0),
    ],
)
def test_raw_nesting_only_pops_what_a_browser_surely_closes(
    fragments: list[str], escaped: int
) -> None:
    nesting = RawHtmlNesting(limit=3)
    out = [nesting.bound(fragment) for fragment in fragments]
    assert sum(part.startswith("&lt;") for part in out) == escaped


def test_sanitize_alone_keeps_the_renderers_own_markup() -> None:
    html = (
        '<h2 id="a">A</h2><ul class="contains-task-list"><li class="task-list-item">'
        '<input class="task-list-item-checkbox" type="checkbox" disabled="" data-line="3"'
        ' checked=""> t</li></ul><pre class="highlight"><code class="language-py">'
        '<span class="k">def</span></code></pre><span class="math math-inline">x</span>'
        '<a class="wikilink" href="N.md" data-target="N" data-heading="H">N</a>'
    )
    assert sanitize(html) == html
