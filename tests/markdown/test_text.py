"""export_text: the plain text of a Markdown document, one table per rule."""

from __future__ import annotations

import pytest

from quire.core.errors import InvalidArgument
from quire.markdown.parser import parse
from quire.markdown.text import PlainText, count_words, export_text, export_text_from_tokens


def text_of(source: str) -> str:
    return export_text(source).text


def check(cases: list[tuple[str, str, str]]) -> pytest.MarkDecorator:
    """Parametrize (source, expected) with each case's sentence as its id."""
    return pytest.mark.parametrize(
        ("source", "expected"),
        [pytest.param(source, expected, id=name) for name, source, expected in cases],
    )


CODE = [
    ("a fence keeps its code as written", "```\n# a *b*\n  c\n```", "# a *b*\n  c"),
    ("a fence drops its info string line", "```python\nx = 1\n```", "x = 1"),
    ("a tilde fence is a fence", "~~~\n# a\n~~~", "# a"),
    (
        "a tilde line inside a backtick fence does not close it",
        "```\na\n~~~\n# b *c*\n```\nafter",
        "a\n~~~\n# b *c*\n\nafter",
    ),
    (
        "a shorter closing fence does not close the block",
        "````\n```\n# x\n````",
        "```\n# x",
    ),
    ("an unclosed fence runs to the end", "```\n# a\n\n*b*", "# a\n\n*b*"),
    (
        "code in a blockquote loses the markers",
        "> ```\n> code\n>   more\n> ```",
        "code\n  more",
    ),
    (
        "code in a list item loses the item's indentation",
        "- item\n\n  ```\n  # code\n    deeper\n  ```",
        "item\n\n# code\n  deeper",
    ),
    ("indented code is kept without its indent", "    # comment *x*\n    y", "# comment *x*\ny"),
    (
        "indented code in a list item is code",
        "- item\n\n      code # x *y*\n- next",
        "item\n\ncode # x *y*\n\nnext",
    ),
    (
        "indented code in a blockquote is code",
        ">     # not a heading\n>     *x*",
        "# not a heading\n*x*",
    ),
    (
        "an indented line continuing a paragraph is text",
        "para\n    *still* text",
        "para\nstill text",
    ),
    (
        "an item's line indented less is its continuation",
        "- item\n  *more*\n- next",
        "item\nmore\nnext",
    ),
    ("a code block's blank lines are kept", "```\na\n\nb\n```", "a\n\nb"),
    ("a code block of only blank lines reads nothing", "```\n\n\n```\n\npara", "para"),
    (
        "leading blank lines of a first code block are dropped, its indent kept",
        "```\n\n  x\n```",
        "  x",
    ),
]


@check(CODE)
def test_code_blocks_are_kept_as_written(source: str, expected: str) -> None:
    assert text_of(source) == expected


HEADINGS = [
    ("an ATX heading loses its hashes", "# Title", "Title"),
    ("closing hashes are dropped", "## Title ##", "Title"),
    ("a tab after the hashes makes a heading", "#\tTitle", "Title"),
    ("three spaces before the hash still make a heading", "   # Title", "Title"),
    ("a hash indented four spaces is code", "    # comment", "# comment"),
    ("a hash with no space after it is text", "#tag", "#tag"),
    ("an empty heading reads nothing", "#\n\npara", "para"),
    ("a setext underline reads nothing", "Title\n===\n\nSub\n---", "Title\n\nSub"),
    ("a blockquote heading loses its hashes", "> # Quote", "Quote"),
    ("a list item heading loses its hashes", "- # Step", "Step"),
    ("an ordered item heading loses its hashes", "1) # Step", "Step"),
    (
        "a heading on an item's continuation line loses its hashes",
        "- x\n\n  # Sub",
        "x\n\nSub",
    ),
    ("a heading keeps its inline text without marks", "# A *b* `c`", "A b c"),
]


@check(HEADINGS)
def test_headings_lose_their_markers(source: str, expected: str) -> None:
    assert text_of(source) == expected


SETEXT_TEXT = [
    ("an equals line after link definitions is text", "[x]: /u\n===", "==="),
    ("an equals line with no paragraph before it is text", "===", "==="),
    ("an equals line lazily after a list item is text", "- a\n===", "a\n==="),
    ("an equals line after an HTML line is text", "<u>\ntext\n===", "text\n==="),
    ("a dash line after a blank line is a thematic break", "para\n\n---\n\nnext", "para\n\nnext"),
]


@check(SETEXT_TEXT)
def test_an_equals_line_the_page_shows_is_kept(source: str, expected: str) -> None:
    assert text_of(source) == expected


CONTAINERS = [
    ("blockquote markers are removed", "> a\n> b", "a\nb"),
    ("nested blockquote markers are removed", "> > deep", "deep"),
    ("bullet markers are removed", "* a\n* b", "a\nb"),
    ("a new bullet character starts a new list", "- a\n* b\n+ c", "a\n\nb\n\nc"),
    ("ordered markers with a dot are removed", "1. a\n2. b", "a\nb"),
    ("ordered markers with a parenthesis are removed", "1) a\n2) b", "a\nb"),
    ("task checkboxes are removed", "- [ ] open\n- [x] done", "open\ndone"),
    ("a checkbox with nothing after it is text", "- [x]", "[x]"),
    ("nested items are one per line without indentation", "- a\n  - b\n  - c\n- d", "a\nb\nc\nd"),
    ("a loose list keeps its blank lines", "- a\n\n- b", "a\n\nb"),
    ("an item's second paragraph follows a blank line", "- a\n\n  b\n- c", "a\n\nb\n\nc"),
    ("a list is a block of its own", "para\n\n- a\n- b\n\nafter", "para\n\na\nb\n\nafter"),
    ("a blockquote in a tight item keeps its paragraphs apart", "- > a\n  >\n  > b", "a\n\nb"),
    ("a list item in a blockquote loses both markers", "> - a\n> - b", "a\nb"),
    (
        "an alert reads its title and its body",
        "> [!NOTE]\n> Mind the gap.",
        "Note\n\nMind the gap.",
    ),
]


@check(CONTAINERS)
def test_container_markers_are_removed(source: str, expected: str) -> None:
    assert text_of(source) == expected


TABLES = [
    (
        "table rows become tab separated cells",
        "| a | b |\n|---|:-:|\n| 1 | 2 |\n| 3 | 4 |",
        "a\tb\n1\t2\n3\t4",
    ),
    ("an escaped pipe reads as a pipe", "| a \\| b | c |\n|---|---|", "a | b\tc"),
    (
        "a pipe in a code span still splits a cell",
        "| a | b |\n|---|---|\n| `x|y` |",
        "a\tb\n`x\ty`",
    ),
    ("an empty cell stays a cell", "| a | b |\n|---|---|\n|  | 2 |", "a\tb\n\t2"),
    ("cells lose their inline marks", "| *a* | [b](u) |\n|---|---|", "a\tb"),
    ("a table in a blockquote is a table", "> | a | b |\n> |---|---|\n> | 1 | 2 |", "a\tb\n1\t2"),
    ("a table in a list item is a table", "- | a | b |\n  |---|---|\n  | 1 | 2 |", "a\tb\n1\t2"),
    (
        "a table is a block between paragraphs",
        "before\n\n| a |\n|---|\n| 1 |\n\nafter",
        "before\n\na\n1\n\nafter",
    ),
]


@check(TABLES)
def test_tables_read_as_tab_separated_rows(source: str, expected: str) -> None:
    assert text_of(source) == expected


INLINE = [
    ("emphasis keeps its words", "*a* _b_ **c** __d__ ***e***", "a b c d e"),
    ("strikethrough keeps its words", "~~struck~~ ~one~", "struck one"),
    ("a code span keeps its content", "use `a *b*` here", "use a *b* here"),
    ("a code span over a line break loses its backticks", "a `b\nc` d", "a b c d"),
    ("emphasis may run over a line break", "*a\nb*", "a\nb"),
    ("a soft break keeps the author's line", "one\ntwo", "one\ntwo"),
    ("a hard break with spaces is a line break", "one  \ntwo", "one\ntwo"),
    ("a hard break with a backslash is a line break", "one\\\ntwo", "one\ntwo"),
    ("escapes read as the character", "\\*not em\\* \\# \\[x\\]", "*not em* # [x]"),
    ("entities are decoded", "&amp; &copy; &#35;", "& © #"),
    ("a thematic break reads nothing", "a\n\n***\n\nb", "a\n\nb"),
]


@check(INLINE)
def test_inline_markdown_is_read_per_paragraph(source: str, expected: str) -> None:
    assert text_of(source) == expected


MATH = [
    ("inline math keeps its TeX without dollars", "so $x_1 + y^2$ holds", "so x_1 + y^2 holds"),
    ("double dollar inline math keeps its TeX", "so $$a b$$ holds", "so a b holds"),
    ("inline math may run over a line break", "$a\nb$", "a\nb"),
    ("emphasis marks in math are TeX", "$a *b* c_d_$", "a *b* c_d_"),
    ("a link in math is no link", "$[l](u)$", "[l](u)"),
    ("an image in math is no image", "$![a](b)$", "![a](b)"),
    ("two math spans in one paragraph", "$$a$$ and $b$", "a and b"),
    ("block math keeps its TeX", "$$\nE = mc^2\n$$", "E = mc^2"),
    ("one line block math keeps its TeX", "$$x$$", "x"),
    ("labelled block math keeps its TeX", "$$\nx\n$$ (eq1)", "x"),
]


@check(MATH)
def test_math_keeps_its_tex(source: str, expected: str) -> None:
    assert text_of(source) == expected


FOOTNOTES = [
    ("a footnote reads its number and its text", "a[^1]\n\n[^1]: note", "a[1]\n\n[1] note"),
    (
        "footnotes are numbered by first reference",
        "a[^x] b[^y] c[^x]\n\n[^y]: why\n[^x]: ex",
        "a[1] b[2] c[1]\n\n[1] ex\n\n[2] why",
    ),
    (
        "footnote definitions come after the text, as on the page",
        "[^1]: note\n\na[^1]\n\nb",
        "a[1]\n\nb\n\n[1] note",
    ),
    ("an unreferenced definition reads nothing", "a\n\n[^1]: unused", "a"),
    ("a reference with no definition is text", "a[^nope]", "a[^nope]"),
    (
        "a definition holds lines indented four columns",
        "a[^1]\n\n[^1]: first\n\n    second",
        "a[1]\n\n[1] first\n\nsecond",
    ),
    (
        "a heading in a footnote is a heading",
        "a[^1]\n\n[^1]: x\n\n    # Head",
        "a[1]\n\n[1] x\n\nHead",
    ),
    (
        "a fence in a footnote is a fence",
        "a[^1]\n\n[^1]: x\n\n    ```\n    # code\n    ```",
        "a[1]\n\n[1] x\n\n# code",
    ),
    (
        "a link definition in a footnote defines its label",
        "a[^1] [d]\n\n[^1]: x\n\n    [d]: /u",
        "a[1] d\n\n[1] x",
    ),
    ("a footnote label with a space is a link definition", "[^a b]: x\n\nafter", "after"),
    ("an empty definition still shows its number", "a[^1]\n\n[^1]:\n", "a[1]\n\n[1]"),
]


@check(FOOTNOTES)
def test_footnotes_read_their_numbers(source: str, expected: str) -> None:
    assert text_of(source) == expected


LINKS = [
    ("a link reads its text", "see [the docs](https://x.org) now", "see the docs now"),
    ("a link's text loses its marks", "[**a**](u)", "a"),
    ("a link with a title reads its text", '[t](u "title")', "t"),
    ("a link destination in angle brackets is read whole", "[t](<a b>)", "t"),
    ("a destination with a space is no link", "[t](a b)", "[t](a b)"),
    ("brackets with no definition are kept", "[sic] and [text]", "[sic] and [text]"),
    ("a defined label reads its text", "[text]\n\n[text]: /url", "text"),
    ("a full reference link reads its text", "[see][r]\n\n[r]: /u", "see"),
    ("a link reference definition reads nothing", '[text]: /url "title"\n\nafter', "after"),
    ("a definition over two lines reads nothing", '[x]: /u\n  "title"\n\nafter', "after"),
    ("a definition over three lines reads nothing", '[x]:\n/u\n"t"\n\nafter', "after"),
    ("an image reads its alt text", "![a *b* c](i.png)", "a b c"),
    ("an image in a link reads its alt text", "[![logo](l.png)](u)", "logo"),
    ("a wikilink in a link's text is text", "[see [[W]]](u)", "see [[W]]"),
    ("a link holds no wikilink", "[[[W]]](u)", "[[W]]"),
    ("an autolink reads its URL", "<https://x.org/a>", "https://x.org/a"),
    ("an email autolink reads its address", "<me@x.org>", "me@x.org"),
    ("a bare email reads its address", "write me@x.org", "write me@x.org"),
    ("a bare URL reads itself", "at https://x.org/a.", "at https://x.org/a."),
]


@check(LINKS)
def test_links_read_their_text(source: str, expected: str) -> None:
    assert text_of(source) == expected


HTML = [
    ("inline HTML reads nothing", "a <b>bold</b> c", "a bold c"),
    ("an inline tag with attributes reads nothing", '<a href="x://y">link</a>', "link"),
    ("an inline comment reads nothing", "a <!-- hidden --> b", "a  b"),
    ("a less-than sign that is no tag is text", "a < b and 1<2", "a < b and 1<2"),
    ("an HTML block reads its text without tags", "<div>\n<p>Hello</p>\n</div>", "Hello"),
    ("an HTML block is not read as Markdown", "<div>\n# x *y*\n</div>", "# x *y*"),
    ("an HTML block decodes entities", "<div>\na &amp; b\n</div>", "a & b"),
    ("a lone inline tag line runs to a blank line", "<u>\n# x\n\n# y", "# x\n\ny"),
    ("an HTML comment block reads nothing", "<!-- c\n# x\n-->\nafter", "after"),
    ("an unclosed HTML comment hides the rest", "a\n\n<!-- c\n\nstill hidden", "a"),
    ("a script block reads nothing", "<script>\nlet x = 1;\n</script>\n\nafter", "after"),
    ("a style block reads nothing", "<style>\np { color: red }\n</style>", ""),
]


@check(HTML)
def test_html_reads_its_text_without_tags(source: str, expected: str) -> None:
    assert text_of(source) == expected


WIKILINKS = [
    ("a wikilink reads its target", "see [[Real]]", "see Real"),
    ("a wikilink reads its alias", "[[Plan|the plan]]", "the plan"),
    ("a wikilink with a heading reads as written", "[[Plan#Goals]]", "Plan#Goals"),
    ("a heading wikilink with an alias reads its alias", "[[Plan#Goals|goals]]", "goals"),
    ("an empty alias falls back to the target", "[[Plan|]]", "Plan"),
    ("an embed reads nothing", "![[a.png]]\n\nafter", "after"),
    ("an embed in a sentence reads nothing", "a ![[a.png]]b", "a b"),
    ("a wikilink in a code span is code", "`[[Real]]`", "[[Real]]"),
    ("an unclosed wikilink is text", "[[open", "[[open"),
]


@check(WIKILINKS)
def test_wikilinks_read_their_target_or_alias(source: str, expected: str) -> None:
    assert text_of(source) == expected


FRONT_MATTER_AND_EDGES = [
    ("front matter reads nothing", "---\ntitle: x\n---\n\nbody", "body"),
    ("front matter closed by dots reads nothing", "---\na: 1\n...\nbody", "body"),
    ("a delimiter with trailing spaces still counts", "---  \na: 1\n---\t\nbody", "body"),
    ("an unclosed front matter opener is a thematic break", "---\nkept\n\nbody", "kept\n\nbody"),
    ("an indented opener is no front matter", " ---\na: 1\n---\nbody", "a: 1\n\nbody"),
    ("a leading byte order mark is ignored", "\ufeff---\na: 1\n---\n# T", "T"),
    ("no blank lines before the first line", "\n\n  \n\npara", "para"),
    ("no blank lines after the last line", "para\n\n\n  \n", "para"),
    ("a definition first leaves no blank line", "[x]: /u\n\npara", "para"),
    ("an empty document is empty", "", ""),
    ("a blank document is empty", " \n\t\n", ""),
    ("CRLF line breaks read as line breaks", "# T\r\n\r\na\r\nb", "T\n\na\nb"),
    ("a NUL reads as the replacement character", "a\x00b", "a\ufffdb"),
    ("combining and wide characters are kept", "*e\u0301* 漢字 🙂", "e\u0301 漢字 🙂"),
]


@check(FRONT_MATTER_AND_EDGES)
def test_document_edges(source: str, expected: str) -> None:
    assert text_of(source) == expected


def test_a_full_document_reads_as_its_blocks() -> None:
    source = (
        "---\ntitle: Plan\n---\n\n"
        "# Plan\n\n"
        "Intro with *emphasis*, [[Goals|goals]] and a note[^n].\n\n"
        "- [ ] first\n- [x] second\n\n"
        "```sh\nmake test\n```\n\n"
        "> Quoted\n\n"
        "| k | v |\n|---|---|\n| a | 1 |\n\n"
        "[^n]: The note.\n"
    )
    assert text_of(source) == (
        "Plan\n\n"
        "Intro with emphasis, goals and a note[1].\n\n"
        "first\nsecond\n\n"
        "make test\n\n"
        "Quoted\n\n"
        "k\tv\na\t1\n\n"
        "[1] The note."
    )


def test_the_counts_describe_the_text() -> None:
    result = export_text("# Héllo wörld\n\n`a b` 🙂")
    assert result == PlainText(text="Héllo wörld\n\na b 🙂", word_count=5, char_count=18)


def test_char_count_counts_code_points_not_bytes() -> None:
    result = export_text("日本語")
    assert result.char_count == 3
    assert len(result.text.encode("utf-8")) == 9


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", 0),
        ("   \n\t ", 0),
        ("one", 1),
        ("one two\nthree\tfour", 4),
        ("a  b", 2),
        ("no\u00a0break", 2),
        ("emoji 🙂 counts", 3),
    ],
)
def test_count_words_counts_whitespace_separated_words(text: str, words: int) -> None:
    assert count_words(text) == words


def test_from_tokens_matches_from_source() -> None:
    source = "# T\n\nSome *text* with [[Link|alias]] and $x$.\n\n- a\n- b\n"
    assert export_text_from_tokens(parse(source)) == export_text(source)


def test_from_tokens_leaves_the_tokens_unchanged() -> None:
    tokens = parse("- a\n\n- b\n\n[^1]\n\n[^1]: n\n")
    before = [(token.type, token.content, token.hidden) for token in tokens]
    export_text_from_tokens(tokens)
    export_text_from_tokens(tokens)
    assert [(token.type, token.content, token.hidden) for token in tokens] == before


def test_bytes_are_refused_with_a_way_forward() -> None:
    with pytest.raises(InvalidArgument, match="decode the document as UTF-8") as caught:
        export_text(b"# T")  # type: ignore[arg-type]
    assert caught.value.argument == "source"


@pytest.mark.parametrize("depth", [1, 15, 5000])
def test_deep_nesting_does_not_crash(depth: int) -> None:
    source = "> " * depth + "deep\n\n" + "- " * depth + "item\n\n" + "[" * depth + "x" + "]" * depth
    result = export_text(source)
    assert result.char_count == len(result.text)
    assert result.word_count == count_words(result.text)


def test_nested_containers_read_their_text() -> None:
    assert text_of("> " * 15 + "deep") == "deep"
    assert text_of("- " * 15 + "item") == "item"


def test_a_large_document_keeps_every_paragraph() -> None:
    paragraphs = [f"Paragraph *{index}* with [a link](u{index})." for index in range(20_000)]
    result = export_text("\n\n".join(paragraphs))
    assert result.text.count("\n\n") == 19_999
    assert result.text.endswith("Paragraph 19999 with a link.")
    assert result.word_count == 20_000 * 5
