"""The check every uploaded chat picture passes: a small SVG that is a picture and nothing else.

Refuses (InvalidArgument naming ``svg``) anything over 20 KB, anything that is not well-formed
XML with an ``<svg>`` root, and scripts, event handlers, DOCTYPEs and entities, processing
instructions, embedded documents and every reference outside the file. Pure, no I/O.
"""

from __future__ import annotations

import re
from typing import NoReturn
from xml.parsers import expat

from quire.core.errors import InvalidArgument

MAX_SVG_BYTES = 20 * 1024
"""The most an avatar or reaction picture may hold."""

FORBIDDEN_ELEMENTS = frozenset(
    {"script", "foreignobject", "iframe", "embed", "object", "handler", "listener", "audio",
     "video", "canvas", "frame", "frameset", "applet", "base", "link", "meta"}
)  # fmt: skip
"""Elements that run code or pull in another document, compared by lower-cased local name."""

_ANIMATIONS = frozenset({"animate", "set", "animatemotion", "animatetransform", "animatecolor"})
_URL = re.compile(r"url\s*\(\s*['\"]?\s*([^)'\"\s]*)", re.IGNORECASE)
_WHAT_IS_ALLOWED = (
    "A chat picture must be a plain SVG drawing under 20 KB: no scripts, no event handlers "
    "(on… attributes), no DOCTYPE or entities, and no links or url() to anything outside the "
    "file (only #ids inside it)."
)


def check_svg(svg: str | bytes) -> None:
    """Raise InvalidArgument (argument ``svg``) saying why ``svg`` cannot be a chat picture."""
    data = svg.encode("utf-8", "surrogatepass") if isinstance(svg, str) else svg
    if len(data) > MAX_SVG_BYTES:
        _refuse(f"it is {len(data):,} bytes, more than the {MAX_SVG_BYTES:,} allowed")
    if not data.strip():
        _refuse("it is empty")
    _Checker().run(data)


class _Checker:
    def __init__(self) -> None:
        self._parser = expat.ParserCreate(namespace_separator=" ")
        self._depth = 0
        self._in_style = 0
        parser = self._parser
        parser.StartElementHandler = self._start
        parser.EndElementHandler = self._end
        parser.CharacterDataHandler = self._text
        parser.StartDoctypeDeclHandler = self._doctype
        parser.EntityDeclHandler = self._entity
        parser.ProcessingInstructionHandler = self._instruction
        parser.ExternalEntityRefHandler = self._external
        parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)

    def run(self, data: bytes) -> None:
        try:
            self._parser.Parse(data, True)
        except expat.ExpatError as err:
            _refuse(f"it is not well-formed XML ({expat.errors.messages[err.code]} at line "
                    f"{err.lineno}, column {err.offset + 1})")  # fmt: skip

    def _where(self) -> str:
        return f"line {self._parser.CurrentLineNumber}"

    def _start(self, name: str, attributes: dict[str, str]) -> None:
        local = _local(name)
        if self._depth == 0 and local != "svg":
            _refuse(f"its root element is <{local}>, not <svg>")
        self._depth += 1
        if local in FORBIDDEN_ELEMENTS:
            _refuse(f"it has a <{local}> element ({self._where()})")
        if local == "style":
            self._in_style += 1
        for raw_name, value in attributes.items():
            self._attribute(local, _local(raw_name), value)

    def _attribute(self, element: str, attribute: str, value: str) -> None:
        if attribute.startswith("on"):
            _refuse(f"it has an event handler `{attribute}` on <{element}> ({self._where()})")
        if attribute == "href" and not value.strip().startswith("#"):
            _refuse(f"<{element}> links to {value[:60]!r} outside the file ({self._where()})")
        if element in _ANIMATIONS and attribute == "attributename":
            target = _local(value.strip().lower().replace(":", " "))
            if target == "href" or target.startswith("on"):
                _refuse(f"<{element}> animates `{value}` ({self._where()})")
        self._check_css(value, f"the `{attribute}` attribute of <{element}>")

    def _text(self, text: str) -> None:
        if self._in_style:
            self._check_css(text, "a <style> element")

    def _end(self, name: str) -> None:
        if _local(name) == "style":
            self._in_style -= 1

    def _check_css(self, text: str, where: str) -> None:
        lowered = text.lower()
        if "javascript:" in lowered or "@import" in lowered or "expression(" in lowered:
            _refuse(f"{where} holds script or an import ({self._where()})")
        for match in _URL.finditer(text):
            if not match.group(1).startswith("#"):
                _refuse(f"{where} loads url({match.group(1)[:60]}) ({self._where()})")

    def _doctype(self, *_args: object) -> None:
        _refuse(f"it has a DOCTYPE ({self._where()})")

    def _entity(self, *_args: object) -> None:
        _refuse(f"it declares an entity ({self._where()})")

    def _instruction(self, target: str, _data: str) -> None:
        _refuse(f"it has a processing instruction <?{target}?> ({self._where()})")

    def _external(self, *_args: object) -> int:
        _refuse(f"it refers to an external entity ({self._where()})")


def _local(name: str) -> str:
    """The lower-cased local part of a name expat gave as ``namespace local``."""
    return name.rsplit(" ", 1)[-1].lower()


def _refuse(why: str) -> NoReturn:
    raise InvalidArgument(f"The SVG was refused: {why}. {_WHAT_IS_ALLOWED}", argument="svg")
