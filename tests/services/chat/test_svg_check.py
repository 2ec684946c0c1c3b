"""The check on uploaded chat pictures: plain SVG drawings pass, anything that could act fails."""

from __future__ import annotations

import pytest

from quire.core.errors import InvalidArgument
from quire.services.chat.svg_check import MAX_SVG_BYTES, check_svg

SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">{}</svg>'


@pytest.mark.parametrize(
    "inner",
    [
        '<circle cx="32" cy="32" r="20" fill="red"/>',
        '<defs><linearGradient id="g"/></defs><rect fill="url(#g)" width="5" height="5"/>',
        '<use href="#g"/><use xmlns:xlink="http://www.w3.org/1999/xlink" xlink:href="#g"/>',
        '<circle r="4"><animate attributeName="r" values="4;8;4" dur="1s"/></circle>',
        "<style>circle { fill: url( #g ); }</style>",
        "<title>ünïcødé 📝</title>",
    ],
)
def test_a_plain_drawing_passes(inner: str) -> None:
    check_svg(SVG.format(inner))
    check_svg(SVG.format(inner).encode("utf-8"))


@pytest.mark.parametrize(
    ("svg", "why"),
    [
        (SVG.format("<script>alert(1)</script>"), "<script>"),
        (SVG.format('<h:script xmlns:h="http://www.w3.org/1999/xhtml">x</h:script>'), "<script>"),
        (SVG.format("<SCRIPT>alert(1)</SCRIPT>"), "<script>"),
        (SVG.format("<foreignObject><div/></foreignObject>"), "<foreignobject>"),
        (SVG.format('<iframe src="x"/>'), "<iframe>"),
        (SVG.format('<circle onload="alert(1)"/>'), "event handler"),
        (SVG.format('<circle ONCLICK="alert(1)"/>'), "event handler"),
        (SVG.format('<a href="https://example.com"><text>x</text></a>'), "outside the file"),
        (SVG.format('<a href="javascript:alert(1)"/>'), "outside the file"),
        (SVG.format('<image href="data:image/svg+xml;base64,PHN2Zz4="/>'), "outside the file"),
        (
            SVG.format('<use xmlns:x="http://www.w3.org/1999/xlink" x:href="other.svg#a"/>'),
            "outside the file",
        ),
        (SVG.format('<rect style="fill:url(https://evil/x.svg)"/>'), "url("),
        (SVG.format("<rect fill=\"url('http://evil/x')\"/>"), "url("),
        (SVG.format("<style>@import 'http://evil/x.css';</style>"), "import"),
        (SVG.format("<style>rect { fill: url(http://evil) }</style>"), "url("),
        (
            SVG.format('<a><set attributeName="href" to="javascript:alert(1)"/></a>'),
            "animates",
        ),
        (SVG.format('<animate attributeName="onbegin" values="x"/>'), "animates"),
        ('<!DOCTYPE svg [<!ENTITY x "y">]>' + SVG.format("&x;"), "DOCTYPE"),
        ('<?xml-stylesheet href="http://evil/x.css"?>' + SVG.format(""), "processing"),
        ("<html><body/></html>", "root element"),
        ("<svg><circle></svg>", "well-formed"),
        ("not xml at all", "well-formed"),
        ("", "empty"),
        ("   \n", "empty"),
        (SVG.format("<circle/>\0"), "well-formed"),
        (SVG.format("<!--" + "x" * MAX_SVG_BYTES + "-->"), "more than"),
    ],
)
def test_anything_that_could_act_or_load_is_refused_with_the_reason(svg: str, why: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        check_svg(svg)
    assert why in caught.value.message
    assert caught.value.argument == "svg"
    assert "20 KB" in caught.value.message


def test_exactly_the_size_limit_passes_and_one_byte_more_is_refused() -> None:
    bare = SVG.format("<!---->")
    padding = MAX_SVG_BYTES - len(bare.encode())
    check_svg(SVG.format("<!--" + "x" * padding + "-->"))
    with pytest.raises(InvalidArgument):
        check_svg(SVG.format("<!--" + "x" * (padding + 1) + "-->"))


def test_bytes_that_are_not_utf8_are_refused() -> None:
    with pytest.raises(InvalidArgument):
        check_svg(SVG.format("<title>\xff</title>").encode("latin-1") + b"\xff\xfe")
