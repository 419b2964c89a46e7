"""An allow-list HTML sanitiser for the raw HTML that entries may contain (html.parser only).

What survives: the tags Qt's rich-text engine draws, a few harmless attributes, and inline
``style`` declarations from a short list. Everything else goes: script, style, iframe,
object, embed, forms (with their content), ``on*`` handlers, and any URL the caller's
``url_policy`` refuses (it turns links into ``entry:``/external hrefs or nothing, and images
into ``vault:`` sources or a placeholder, so no ``src`` is ever remote).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from html import escape
from html.parser import HTMLParser

ALLOWED_TAGS = frozenset(
    [
        "a",
        "abbr",
        "acronym",
        "address",
        "b",
        "big",
        "blockquote",
        "br",
        "caption",
        "center",
        "cite",
        "code",
        "dd",
        "del",
        "dfn",
        "div",
        "dl",
        "dt",
        "em",
        "font",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "hr",
        "i",
        "img",
        "ins",
        "kbd",
        "li",
        "mark",
        "ol",
        "p",
        "pre",
        "q",
        "s",
        "samp",
        "small",
        "span",
        "strike",
        "strong",
        "sub",
        "sup",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "tr",
        "tt",
        "u",
        "ul",
        "var",
        "details",
        "summary",
        "figure",
        "figcaption",
        "section",
        "article",
        "aside",
        "header",
        "footer",
        "main",
        "nav",
    ]
)
# Dropped together with everything inside them.
DROP_WITH_CONTENT = frozenset(
    [
        "script",
        "style",
        "iframe",
        "frame",
        "frameset",
        "object",
        "embed",
        "applet",
        "form",
        "input",
        "button",
        "select",
        "textarea",
        "option",
        "noscript",
        "template",
        "svg",
        "math",
        "canvas",
        "audio",
        "video",
        "source",
        "track",
        "link",
        "meta",
        "base",
        "title",
        "head",
        "param",
        "portal",
    ]
)
VOID_TAGS = frozenset(
    [
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "link",
        "meta",
        "param",
        "source",
        "track",
        "wbr",
    ]
)
# Tags Qt does not know, drawn as something it does.
RENAME = {
    "del": "s",
    "strike": "s",
    "ins": "u",
    "mark": "span",
    "details": "div",
    "summary": "p",
    "figure": "div",
    "figcaption": "p",
    "section": "div",
    "article": "div",
    "aside": "div",
    "header": "div",
    "footer": "div",
    "main": "div",
    "nav": "div",
    "acronym": "abbr",
}
GLOBAL_ATTRS = frozenset({"title", "align", "class", "style", "dir", "lang"})
TAG_ATTRS = {
    "a": {"href", "name"},
    "img": {"src", "alt", "width", "height"},
    "td": {"colspan", "rowspan", "valign", "width", "bgcolor"},
    "th": {"colspan", "rowspan", "valign", "width", "bgcolor"},
    "table": {"border", "cellpadding", "cellspacing", "width", "bgcolor"},
    "tr": {"valign", "bgcolor"},
    "font": {"color", "size", "face"},
    "ol": {"start", "type"},
    "li": {"value"},
    "abbr": set(),
}
STYLE_PROPS = frozenset(
    [
        "color",
        "background-color",
        "font-weight",
        "font-style",
        "font-size",
        "font-family",
        "text-decoration",
        "text-align",
        "vertical-align",
        "white-space",
        "text-transform",
        "letter-spacing",
    ]
)
_BAD_STYLE_VALUE = re.compile(r"url\s*\(|expression\s*\(|javascript:|@import|\\", re.I)

MAX_DEPTH = 40  # deeper raw HTML nesting is flattened

# url_policy(url, kind, attrs) -> None (drop) | ("href", new_url) | ("html", replacement)
UrlPolicy = Callable[[str, str, dict[str, str]], tuple[str, str] | None]


def clean_style(style: str) -> str:
    out = []
    for decl in style.split(";"):
        name, sep, value = decl.partition(":")
        name, value = name.strip().lower(), value.strip()
        if sep and name in STYLE_PROPS and value and not _BAD_STYLE_VALUE.search(value):
            out.append(f"{name}: {value}")
    return "; ".join(out)


class _Sanitiser(HTMLParser):
    def __init__(self, url_policy: UrlPolicy, highlight_bg: str) -> None:
        super().__init__(convert_charrefs=True)
        self.url_policy = url_policy
        self.highlight_bg = highlight_bg
        self.out: list[str] = []
        self.drop_depth = 0
        self.drop_tag: str | None = None
        self.a_stack: list[str] = []
        self.open_tags: list[str] = []  # what each open <a> became: "a" or "span"

    # -- tags
    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._start(tag, attrs, self_closing=False)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._start(tag, attrs, self_closing=True)

    def _start(self, tag: str, attrs: list[tuple[str, str | None]], self_closing: bool) -> None:
        tag = tag.lower()
        if self.drop_depth:
            if tag == self.drop_tag and not self_closing:
                self.drop_depth += 1
            return
        if tag in DROP_WITH_CONTENT:
            if not self_closing and tag not in VOID_TAGS:
                self.drop_tag, self.drop_depth = tag, 1
            return
        if tag not in ALLOWED_TAGS:
            return
        allowed = GLOBAL_ATTRS | TAG_ATTRS.get(tag, set())
        kept: dict[str, str] = {}
        for name, value in attrs:
            name = name.lower()
            if name.startswith("on") or name not in allowed:
                continue
            value = value or ""
            if name == "style":
                value = clean_style(value)
                if not value:
                    continue
            kept[name] = value
        if tag == "mark":
            kept["style"] = f"background-color: {self.highlight_bg}; " + kept.get("style", "")
        if tag == "img":
            decision = self.url_policy(kept.pop("src", ""), "image", kept)
            if decision is None:
                return
            kind, value = decision
            if kind == "html":
                self.out.append(value)
                return
            kept["src"] = value
        elif tag == "a":
            href = kept.pop("href", None)
            became = "a"
            if href is not None:
                decision = self.url_policy(href, "link", kept)
                if decision is None or decision[0] != "href":
                    became = "span"
                    kept = {"title": f"Link removed: {href[:200]}"}
                else:
                    kept["href"] = decision[1]
            if not self_closing:
                self.a_stack.append(became)
            tag = became
        tag = RENAME.get(tag, tag)
        if tag not in VOID_TAGS and not self_closing:
            self.open_tags.append(tag)
            if len(self.open_tags) > MAX_DEPTH:  # Qt's layout recurses on nesting
                return
        rendered = "".join(f' {k}="{escape(v, quote=True)}"' for k, v in kept.items())
        self.out.append(f"<{tag}{rendered}{' /' if tag in VOID_TAGS else ''}>")

    def handle_endtag(self, tag: str) -> None:
        tag = tag.lower()
        if self.drop_depth:
            if tag == self.drop_tag:
                self.drop_depth -= 1
                if not self.drop_depth:
                    self.drop_tag = None
            return
        if tag not in ALLOWED_TAGS or tag in VOID_TAGS:
            return
        if tag == "a":
            tag = self.a_stack.pop() if self.a_stack else "a"
        tag = RENAME.get(tag, tag)
        if tag in self.open_tags:
            depth = len(self.open_tags) - self.open_tags[::-1].index(tag)
            del self.open_tags[depth - 1 :]
            if depth > MAX_DEPTH:
                return
        self.out.append(f"</{tag}>")

    # -- text
    def handle_data(self, data: str) -> None:
        if not self.drop_depth:
            self.out.append(escape(data, quote=False))

    def handle_comment(self, data: str) -> None:  # comments vanish
        pass

    def handle_decl(self, decl: str) -> None:
        pass

    def handle_pi(self, data: str) -> None:
        pass

    def unknown_decl(self, data: str) -> None:
        pass


def sanitise_html(html: str, url_policy: UrlPolicy, *, highlight_bg: str = "#fff1a8") -> str:
    """Raw HTML from an entry, reduced to what is safe to hand to QTextBrowser."""
    parser = _Sanitiser(url_policy, highlight_bg)
    parser.feed(html)
    parser.close()
    return "".join(parser.out)
