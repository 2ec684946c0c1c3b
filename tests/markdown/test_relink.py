"""The link rewrite of a rename or move: an adversarial table, and two properties (a rewritten
link resolves to the new place; the text outside the links is untouched)."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quire.markdown.links import MD_LINK, WIKILINK, link_names
from quire.markdown.relink import Relocation, relink
from quire.search.extract import note_facts

W = PurePosixPath("/w")
NOTE = PurePosixPath("/w/index.md")


def _file(old: str, new: str, root: PurePosixPath = W) -> Relocation:
    return Relocation(PurePosixPath(old), PurePosixPath(new), W, root, False)


def _folder(old: str, new: str) -> Relocation:
    return Relocation(PurePosixPath(old), PurePosixPath(new), W, W, True)


RENAME = _file("/w/a/Plan.md", "/w/b/Goals.md")

TABLE: list[tuple[str, Relocation, PurePosixPath, str, str | None]] = [
    ("bare wikilink", RENAME, NOTE, "see [[Plan]].", "see [[Goals]]."),
    ("alias kept", RENAME, NOTE, "[[Plan|the plan]]", "[[Goals|the plan]]"),
    ("heading kept", RENAME, NOTE, "[[a/Plan#Next steps]]", "[[b/Goals#Next steps]]"),
    (
        "extension kept",
        RENAME,
        NOTE,
        "[[Plan.md]] [[a/Plan.md|p]]",
        "[[Goals.md]] [[b/Goals.md|p]]",
    ),
    ("case ignored", RENAME, NOTE, "[[plan]]", "[[Goals]]"),
    ("spaces inside kept", RENAME, NOTE, "[[ Plan | x ]]", "[[ Goals | x ]]"),
    ("embed", RENAME, NOTE, "![[Plan]]", "![[Goals]]"),
    ("other wikilink", RENAME, NOTE, "[[Planning]] [[b/Plan]]", "[[Planning]] [[b/Plan]]"),
    ("markdown link", RENAME, NOTE, "[p](a/Plan.md)", "[p](b/Goals.md)"),
    ("fragment and title", RENAME, NOTE, '[p](a/Plan.md#x "T")', '[p](b/Goals.md#x "T")'),
    ("query kept", RENAME, NOTE, "[p](a/Plan.md?raw=1)", "[p](b/Goals.md?raw=1)"),
    ("dot slash kept", RENAME, NOTE, "[p](./a/Plan.md)", "[p](./b/Goals.md)"),
    ("angle kept", RENAME, NOTE, "[p](<a/Plan.md>)", "[p](<b/Goals.md>)"),
    (
        "from a subfolder",
        RENAME,
        PurePosixPath("/w/c/n.md"),
        "[p](../a/Plan.md)",
        "[p](../b/Goals.md)",
    ),
    ("rooted link", RENAME, PurePosixPath("/w/c/n.md"), "[p](/a/Plan.md)", "[p](/b/Goals.md)"),
    ("inline code", RENAME, NOTE, "`[[Plan]]` `[p](a/Plan.md)`", "`[[Plan]]` `[p](a/Plan.md)`"),
    ("fenced code", RENAME, NOTE, "```\n[[Plan]]\n```\n~~~\n[p](a/Plan.md)\n~~~", None),
    (
        "front matter",
        RENAME,
        NOTE,
        "---\nup: '[[Plan]]'\n---\n[[Plan]]",
        "---\nup: '[[Plan]]'\n---\n[[Goals]]",
    ),
    ("another site", RENAME, NOTE, "[p](https://x.org/a/Plan.md) [q](//x.org/a/Plan.md)", None),
    ("same-note fragment", RENAME, NOTE, "[p](#Plan)", None),
    ("CRLF lines", RENAME, NOTE, "x\r\n[[Plan]]\r\n", "x\r\n[[Goals]]\r\n"),
    (
        "a space becomes percent-encoded",
        _file("/w/a/Plan.md", "/w/a/My Plan (v2).md"),
        NOTE,
        "[p](a/Plan.md) [q](<a/Plan.md>) [[Plan]]",
        "[p](a/My%20Plan%20%28v2%29.md) [q](<a/My Plan (v2).md>) [[My Plan (v2)]]",
    ),
    (
        "percent-encoded stays encoded",
        _file("/w/a/My Plan.md", "/w/a/Our Plan é.md"),
        NOTE,
        "[p](a/My%20Plan.md)",
        "[p](a/Our%20Plan%20%C3%A9.md)",
    ),
    (
        "a # or % in the new name",
        _file("/w/a/Plan.md", "/w/a/100% #1.md"),
        NOTE,
        "[p](a/Plan.md) [[Plan]]",
        "[p](a/100%25%20%231.md) [[Plan]]",
    ),
    (
        "a picture moved",
        _file("/w/assets/p.png", "/w/img/p.png"),
        NOTE,
        "![x](assets/p.png) ![[p.png]]",
        "![x](img/p.png) ![[p.png]]",
    ),
    (
        "the moved note rebases its links",
        _file("/w/index.md", "/w/deep/er/index.md"),
        NOTE,
        "[o](a/Other.md) ![i](assets/p.png) [s](index.md#top) [[Other]] [w](https://x.org)",
        "[o](../../a/Other.md) ![i](../../assets/p.png) [s](index.md#top) [[Other]] "
        "[w](https://x.org)",
    ),
    (
        "a folder moved",
        _folder("/w/a", "/w/z/a2"),
        NOTE,
        "[[a/Plan]] [[A/sub/Deep|d]] [[Plan]] [p](a/sub/x.png) [q](/a/Plan.md) [k](b/c.md)",
        "[[z/a2/Plan]] [[z/a2/sub/Deep|d]] [[Plan]] [p](z/a2/sub/x.png) [q](/z/a2/Plan.md) "
        "[k](b/c.md)",
    ),
    (
        "a note inside the moved folder",
        _folder("/w/a", "/w/z/a2"),
        PurePosixPath("/w/a/n.md"),
        "[in](Plan.md) [out](../b/c.md) [[a/Plan]]",
        "[in](Plan.md) [out](../../b/c.md) [[z/a2/Plan]]",
    ),
    (
        "a folder's name prefix is not the folder",
        _folder("/w/a", "/w/z"),
        NOTE,
        "[[ab/Plan]] [p](ab/Plan.md)",
        None,
    ),
    (
        "into another workspace",
        Relocation(
            PurePosixPath("/w/a/Plan.md"),
            PurePosixPath("/v/Plan.md"),
            W,
            PurePosixPath("/v"),
            False,
        ),
        NOTE,
        "[[a/Plan]] [p](a/Plan.md) [q](/a/Plan.md)",
        "[[Plan]] [p](../v/Plan.md) [q](../v/Plan.md)",
    ),
    (
        "a link in the link text",
        RENAME,
        NOTE,
        "[see [[Plan]]](a/Plan.md)",
        "[see [[Goals]]](b/Goals.md)",
    ),
    ("unclosed brackets", RENAME, NOTE, "[[Plan] [p](a/Plan.md", None),
    ("empty wikilink", RENAME, NOTE, "[[]] [[ ]] [[#Plan]]", None),
]


@pytest.mark.parametrize(
    ("move", "note", "text", "expected"),
    [pytest.param(*row[1:], id=row[0]) for row in TABLE],
)
def test_each_link_is_rewritten_as_the_author_wrote_it(
    move: Relocation, note: PurePosixPath, text: str, expected: str | None
) -> None:
    result = relink(text, note, W, move)
    assert result.text == (text if expected is None else expected)
    changed = [
        n
        for n, (a, b) in enumerate(zip(text.split("\n"), result.text.split("\n"), strict=True), 1)
        if a != b
    ]
    assert list(result.lines) == changed
    assert (result.links == 0) == (expected is None or expected == text)


def test_the_lines_and_count_name_each_rewritten_link() -> None:
    text = "# Title\n[[Plan]] and [[a/Plan]]\nnothing\n[p](a/Plan.md)\n"
    result = relink(text, NOTE, W, RENAME)
    assert result.links == 3
    assert result.lines == (2, 4)


# Properties

_NAME = st.text(alphabet=st.sampled_from("abcXYZ09 -_é()%&+"), min_size=1, max_size=6).filter(
    lambda name: name.strip() == name and not name.endswith(".")
)
_FOLDERS = st.lists(_NAME, max_size=2)
_PROSE = st.text(alphabet=st.sampled_from("ab #*!`\n\t:"), max_size=12)


@st.composite
def _paths(draw: st.DrawFn) -> PurePosixPath:
    return W.joinpath(
        *draw(_FOLDERS), draw(_NAME) + draw(st.sampled_from([".md", ".MD", ".markdown"]))
    )


def _forms(target: PurePosixPath, note: PurePosixPath) -> list[str]:
    import os.path

    rel = target.relative_to(W).as_posix()
    relative = os.path.relpath(target, note.parent)
    encoded = (
        relative.replace("%", "%25").replace(" ", "%20").replace("(", "%28").replace(")", "%29")
    )
    bare = re.sub(r"\.(md|markdown)$", "", target.name, flags=re.IGNORECASE)
    return [
        f"[[{bare}]]",
        f"[[{rel}|alias]]",
        f"![[{re.sub(r'[.](md|markdown)$', '', rel, flags=re.IGNORECASE)}#h]]",
        f"[t]({encoded})",
        f"[t](<{relative}>)",
        f"![i](<./{relative}> 'title')",
        f"[r](</{rel}>)",
    ]


@st.composite
def _cases(draw: st.DrawFn) -> tuple[str, PurePosixPath, Relocation]:
    target = draw(_paths())
    other = draw(_paths())
    note = draw(st.one_of(st.just(target), _paths()))
    new = draw(_paths().filter(lambda path: path != target))
    links = _forms(target, note) + _forms(other, note)
    pieces = draw(st.lists(st.one_of(_PROSE, st.sampled_from(links)), max_size=12))
    return "".join(pieces), note, Relocation(target, new, W, W, False)


def _names_target(link_name: str | None, path: str | None, target: PurePosixPath) -> bool:
    if path is not None:
        return path == str(target)
    return link_name in link_names(target.relative_to(W).as_posix())


@settings(max_examples=300, deadline=None)
@given(_cases())
def test_a_rewritten_link_resolves_to_the_new_place(
    case: tuple[str, PurePosixPath, Relocation],
) -> None:
    text, note, move = case
    before = note_facts(text, note, W).links
    result = relink(text, note, W, move)
    after = note_facts(result.text, move.place(note), W).links
    assert [link.line for link in after] == [link.line for link in before]
    for old, new in zip(before, after, strict=True):
        if old.target_path is not None:
            assert new.target_path == str(move.place(PurePosixPath(old.target_path)))
        elif _names_target(old.target_name, None, move.old):
            assert _names_target(new.target_name, None, move.new)
        else:
            assert new.target_name == old.target_name


def _outside_links(text: str) -> str:
    text = WIKILINK.sub(lambda found: found.group(0).replace(found.group(1), "", 1), text)
    return MD_LINK.sub(lambda found: found.group(0).replace(found.group(1), "", 1), text)


@settings(max_examples=300, deadline=None)
@given(_cases())
def test_the_text_outside_the_links_is_unchanged(
    case: tuple[str, PurePosixPath, Relocation],
) -> None:
    text, note, move = case
    result = relink(text, note, W, move)
    assert _outside_links(result.text) == _outside_links(text)
    old_lines, new_lines = text.split("\n"), result.text.split("\n")
    assert len(old_lines) == len(new_lines)
    for number, (old, new) in enumerate(zip(old_lines, new_lines, strict=True), 1):
        assert (old != new) == (number in result.lines)
