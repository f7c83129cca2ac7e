"""A small HTML reader for page tests (standard library ``html.parser``): every element with
its attributes and text, and the Content-Security-Policy checks the pages must pass (no inline
script, no inline event handler, no style attribute)."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    parts: list[str] = field(default_factory=list)
    parent: "Element | None" = None

    @property
    def text(self) -> str:
        """The element's text, inner elements included, with white space collapsed."""
        return " ".join("".join(self.parts).split())

    def lang(self) -> str | None:
        """The language the element is in (its own ``lang`` or the nearest ancestor's)."""
        node: Element | None = self
        while node is not None:
            if "lang" in node.attrs:
                return node.attrs["lang"]
            node = node.parent
        return None


class Page(HTMLParser):
    """Parses ``html``; :meth:`find` / :meth:`find_all` select by tag and attributes."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[Element] = []
        self._open: list[Element] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        el = Element(tag, {k: (v if v is not None else "") for k, v in attrs},
                     parent=self._open[-1] if self._open else None)
        self.elements.append(el)
        if tag not in VOID:
            self._open.append(el)

    def handle_endtag(self, tag):
        for i in range(len(self._open) - 1, -1, -1):
            if self._open[i].tag == tag:
                del self._open[i:]
                break

    def handle_data(self, data):
        for el in self._open:
            el.parts.append(data)

    def find_all(self, tag: str | None = None, **attrs: str) -> list[Element]:
        """Elements with ``tag`` (any when ``None``) whose attributes include ``attrs``
        (``data_link="x"`` means ``data-link="x"``; ``class_`` means ``class`` contains it)."""
        out = []
        for el in self.elements:
            if tag is not None and el.tag != tag:
                continue
            ok = True
            for name, value in attrs.items():
                if name == "class_":
                    ok = value in el.attrs.get("class", "").split()
                else:
                    ok = el.attrs.get(name.replace("_", "-")) == value
                if not ok:
                    break
            if ok:
                out.append(el)
        return out

    def find(self, tag: str | None = None, **attrs: str) -> Element:
        """The one element matching (AssertionError when none or several)."""
        found = self.find_all(tag, **attrs)
        assert len(found) == 1, (tag, attrs, len(found))
        return found[0]


def csp_violations(page: Page) -> list[str]:
    """What a strict Content-Security-Policy (``script-src 'self'``, no ``'unsafe-inline'``
    for scripts or styles) would block: inline scripts (data blocks of ``type=application/json``
    are not scripts), ``on*`` handler attributes, ``style`` attributes, ``javascript:`` links."""
    problems = []
    for el in page.elements:
        if el.tag == "script" and "src" not in el.attrs and el.attrs.get("type") != "application/json":
            problems.append(f"inline <script>: {el.text[:60]!r}")
        if el.tag == "style":
            problems.append("inline <style>")
        for name, value in el.attrs.items():
            if name.startswith("on"):
                problems.append(f"<{el.tag} {name}=...>")
            if name == "style":
                problems.append(f"<{el.tag} style={value!r}>")
            if name in ("href", "src", "action") and value.strip().lower().startswith("javascript:"):
                problems.append(f"<{el.tag} {name}=javascript:...>")
    return problems
