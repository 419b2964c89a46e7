"""A note as Dataview sees it: its fields (front matter and inline fields, typed as
Dataview types them), its implicit ``file.*`` fields, and its list items and tasks.

Read from the index's rows (:class:`~anthology.query.rows.FileRow`), never from the note:
the objects are mappings computed on first use and kept per dataset (a dataset is one
immutable state of the index), so the notes a query never reads cost nothing, and the next
query over the same state finds them made. Sources of ``src/data-import/`` and
``src/data-model/markdown.ts`` define what is computed:

- a field's values: front matter first (a text that is a date, a duration or a
  ``[[link]]`` becomes one), then each inline field's raw text typed by
  :func:`inline_value` (numbers, booleans, ISO dates, durations, ``[[links]]``, ``"quoted"``
  text, ``#tags``, ``null``, and comma lists of these); a key holding one value is that
  value, several a list; every key also under its lower-case dashed alias
  (``Due Date`` → ``due-date``) unless that name is taken;
- ``file.day``: a ``date``/``day`` field holding a date (or a link naming one), else a
  ``YYYY-MM-DD`` or ``YYYYMMDD`` in the file's name;
- a list item's fields from its text (``[key:: value]``, ``(key:: value)``, and for a task
  the emoji dates ➕ created, 🛫 start, ⏳ scheduled, 📅 due, ✅ completion).
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from ..inline_fields import SHORTHAND_CHARS_RE, canonical_key, extract_inline_fields
from ..inline_fields import full_line_field as _full_line_field
from ..rows import Dataset, FileRow, ListItem
from ..values import Date, Link
from .parse import DATE_RE, DURATION_RE, IDENT_RE, STRING_RE, link_node, parse_date_text
from .parse import parse_duration_text as _duration
from .parse import unescape as _unescape
from .values import shift_to

MakeLink = Callable[[str, str | None, str | None, bool], Link]


# ---------------------------------------------------------------- names and values
canonical_name = canonical_key  # Dataview's canonicalizeVarName, shared with the index


_NUM_RE = re.compile(r"-?\d+(?:\.\d+)?")
_BOOL_RE = re.compile(r"true|false|True|False")
_TAG_RE = re.compile(r"#[^\u2000-\u206F\u2E00-\u2E7F'!\"#$%&()*+,.:;<=>?@^`{|}~\[\]\\\s]*")
_EMBED_LINK_RE = re.compile(r"(!?)\[\[([^\[\]]*?)\]\]")
_LIST_SEP_RE = re.compile(r"\s*,\s*")
_NOPE = object()


def _link_value(inner: str, embed: bool, make_link: MakeLink) -> Link:
    _, path, display, sub, _e = link_node(inner, embed)
    return make_link(path, display, sub, embed)


def _atom(text: str, pos: int, make_link: MakeLink) -> tuple[Any, int]:
    """One inline literal at ``pos`` (Dataview's ``atomInlineField``: the first kind that
    matches wins), or ``_NOPE``."""
    m = DATE_RE.match(text, pos)
    if m:
        d = parse_date_text(m.group(0), strict=False)
        if d is not None:
            return d, m.end()
    m = DURATION_RE.match(text, pos)
    if m:
        return _duration(m.group(0)), m.end()
    m = STRING_RE.match(text, pos)
    if m:
        return _unescape(m.group(1)), m.end()
    m = _TAG_RE.match(text, pos)
    if m:
        return m.group(0), m.end()
    m = _EMBED_LINK_RE.match(text, pos)
    if m:
        return _link_value(m.group(2), bool(m.group(1)), make_link), m.end()
    m = _BOOL_RE.match(text, pos)
    if m:
        return m.group(0).lower() == "true", m.end()
    m = _NUM_RE.match(text, pos)
    if m:
        n = float(m.group(0))
        return (int(n) if "." not in m.group(0) else n), m.end()
    if text.startswith("null", pos):
        return None, pos + 4
    return _NOPE, pos


def inline_value(text: str, make_link: MakeLink) -> Any:
    """An inline field's raw text typed as Dataview's ``parseInlineValue`` types it."""
    text = text.strip()
    if not text:
        return None
    if len(text) > 10_000:
        return text
    first, end = _atom(text, 0, make_link)
    if first is _NOPE:
        return text
    if end == len(text):
        return first
    items = [first]
    pos = end
    while pos < len(text):
        m = _LIST_SEP_RE.match(text, pos)
        if not m:
            return text
        value, after = _atom(text, m.end(), make_link)
        if value is _NOPE or after == m.end():
            return text
        items.append(value)
        pos = after
    return items


def frontmatter_value(v: Any, make_link: MakeLink) -> Any:
    """A front matter value as Dataview's ``parseFrontmatter`` types it."""
    if isinstance(v, str):
        if DATE_RE.fullmatch(v):
            d = parse_date_text(v, strict=False)
            if d is not None:
                return d
        if DURATION_RE.fullmatch(v):
            return _duration(v)
        m = _EMBED_LINK_RE.fullmatch(v)
        if m:
            return _link_value(m.group(2), bool(m.group(1)), make_link)
        return v
    if isinstance(v, list):
        return [frontmatter_value(x, make_link) for x in v]
    if isinstance(v, dict):
        return {str(k): frontmatter_value(x, make_link) for k, x in v.items()}
    return v


# ---------------------------------------------------------------- inline fields of a line
# (read by the same code the index reads a note's lines with: query/inline_fields.py)
_MAYBE_EMOJI_RE = SHORTHAND_CHARS_RE


def line_fields(line: str, task: bool) -> list[tuple[str, str]]:
    """``[key:: value]`` and ``(key:: value)`` of a line (and a task's emoji dates), as
    (key, raw value) in the order they stand (Dataview's ``extractInlineFields``; linear
    in the line, and nothing from a line past Dataview's own length limit)."""
    return [(f.key, f.value) for f in extract_inline_fields(line, task_fields=task)]


def full_line_field(text: str) -> tuple[str, str] | None:
    """``Key:: value`` filling a list item's text."""
    found = _full_line_field(text.strip())
    return None if found is None or not found.key.strip() else (found.key.strip(), found.value)


_TEXT_TAG_RE = re.compile(r"#[^\s,;.:!?'\"`()\[\]{}]+")
_WIKI_RE = re.compile(r"(!?)\[\[([^\[\]]+?)\]\]")
_BLOCK_ID_RE = re.compile(r"\s\^([A-Za-z0-9\-]+)\s*$")


def text_tags(text: str) -> list[str]:
    tags: list[str] = []
    for m in _TEXT_TAG_RE.finditer(text):
        t = _TAG_RE.match(m.group(0))
        if t and len(t.group(0)) > 1 and not t.group(0)[1:].isdigit() and t.group(0) not in tags:
            tags.append(t.group(0))
    return tags


# ---------------------------------------------------------------- objects
class Layered(Mapping[str, Any]):
    """One mapping over another: a FLATTEN's new name over its row, a task over its page."""

    __slots__ = ("base", "top")

    def __init__(self, top: Mapping[str, Any], base: Mapping[str, Any]) -> None:
        self.top, self.base = top, base

    def __getitem__(self, key: str) -> Any:
        if key in self.top:
            return self.top[key]
        return self.base[key]

    def get(self, key: str, default: Any = None) -> Any:
        v = self.top.get(key, _NOPE)
        return self.base.get(key, default) if v is _NOPE else v

    def __contains__(self, key: object) -> bool:
        return key in self.top or key in self.base

    def __iter__(self) -> Iterator[str]:
        yield from self.top
        yield from (k for k in self.base if k not in self.top)

    def __len__(self) -> int:
        return sum(1 for _ in self)


class FileObject(Mapping[str, Any]):
    """A note's ``file`` object: its keys computed when first read."""

    __slots__ = ("_cache", "page")
    KEYS = ("path", "folder", "name", "link", "outlinks", "inlinks", "etags", "tags",
            "aliases", "lists", "tasks", "ctime", "cday", "mtime", "mday", "size", "starred",
            "frontmatter", "ext", "day")  # fmt: skip

    def __init__(self, page: PageObject) -> None:
        self.page = page
        self._cache: dict[str, Any] = {}

    def dv_identity(self) -> tuple[str, str]:
        """What two file objects compare by (``file = this.file``): the note, not every
        field computed and compared."""
        return ("file", self.page.row.path)

    def __getitem__(self, key: str) -> Any:
        try:
            return self._cache[key]
        except KeyError:
            pass
        if key not in self.KEYS or (key == "day" and self.page.day() is None):
            raise KeyError(key)
        value = self.page.file_value(key)
        self._cache[key] = value
        return value

    def get(self, key: str, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    def __contains__(self, key: object) -> bool:
        return key in self.KEYS and (key != "day" or self.page.day() is not None)

    def __iter__(self) -> Iterator[str]:
        return (k for k in self.KEYS if k != "day" or self.page.day() is not None)

    def __len__(self) -> int:
        return len(self.KEYS) - (self.page.day() is None)


class PageObject(Mapping[str, Any]):
    """A note as a query row: ``file`` and its fields (Dataview's serialized page)."""

    __slots__ = ("_day", "_fields", "_file", "_items", "_link", "_row", "_tasks", "ix", "row")

    def __init__(self, ix: DvIndex, row: FileRow) -> None:
        self.ix = ix
        self.row = row
        self._fields: dict[str, Any] | None = None
        self._file: FileObject | None = None
        self._items: list[dict[str, Any]] | None = None
        self._day: Any = _NOPE
        self._link: Link | None = None
        self._row: tuple[Link, PageObject] | None = None
        self._tasks: list[tuple[None, Layered]] | None = None

    # the mapping
    def fields(self) -> dict[str, Any]:
        if self._fields is None:
            self._fields = self._make_fields()
        return self._fields

    def __getitem__(self, key: str) -> Any:
        if key == "file":
            return self.file()
        return self.fields()[key]

    def get(self, key: str, default: Any = None) -> Any:
        if key == "file":
            return self.file()
        return self.fields().get(key, default)

    def __contains__(self, key: object) -> bool:
        return key == "file" or key in self.fields()

    def __iter__(self) -> Iterator[str]:
        yield "file"
        yield from self.fields()

    def __len__(self) -> int:
        return 1 + len(self.fields())

    def dv_identity(self) -> tuple[str, str]:
        return ("page", self.row.path)

    def file(self) -> FileObject:
        if self._file is None:
            self._file = FileObject(self)
        return self._file

    @property
    def link(self) -> Link:
        if self._link is None:
            self._link = Link(self.row.path, None, self.row.path)
        return self._link

    def make_link(self, target: str, display: str | None, sub: str | None, embed: bool) -> Link:
        path = self.ix.resolve(target, self.row.path) if target else self.row.path
        return Link(target or self.row.path, display, path, sub, embed)

    def _make_fields(self) -> dict[str, Any]:
        groups: dict[str, list[Any]] = {}
        for key, v in self.row.front_matter().items():
            if key != "position":
                groups.setdefault(str(key), []).append(frontmatter_value(v, self.make_link))
        for key, texts in self.row.inline_fields().items():
            for text in texts if isinstance(texts, list) else [texts]:
                groups.setdefault(str(key), []).append(inline_value(str(text), self.make_link))
        normalized: dict[str, list[Any]] = {}
        for key, values in groups.items():
            norm = canonical_name(key)
            if norm and norm not in groups:
                normalized.setdefault(norm, []).extend(values)
        out: dict[str, Any] = {}
        for source in (groups, normalized):
            for key, values in source.items():
                if key != "file":
                    out[key] = values[0] if len(values) == 1 else values
        return out

    def day(self) -> Date | None:
        if self._day is _NOPE:
            self._day = self._find_day()
        return self._day

    def _find_day(self) -> Date | None:
        for key, value in self.fields().items():
            if key.lower() not in ("date", "day"):
                continue
            if isinstance(value, Date):
                return value
            if isinstance(value, list) and value and isinstance(value[0], Date):
                return value[0]
            if isinstance(value, Link):
                for text in (value.target, value.subpath or "", value.display or ""):
                    found = _date_in(text)
                    if found is not None:
                        return found
        return _date_in(self.row.basename if self.row.ext == "md" else self.row.name)

    def file_value(self, key: str) -> Any:
        row, ix = self.row, self.ix
        if key == "path":
            return row.path
        if key == "folder":
            return row.folder if row.folder != "/" else ""
        if key == "name":
            return row.basename if row.ext == "md" else row.name
        if key == "ext":
            return row.ext
        if key == "link":
            return self.link
        if key == "outlinks":
            return [Link(lo.target, None, lo.path, None, lo.embed) for lo in row.links]
        if key == "inlinks":
            return [Link(p, None, p) for p in ix.inlinks(row.path)]
        if key == "etags":
            return ["#" + t for t in dict.fromkeys(row.tags)]
        if key == "tags":
            full: dict[str, None] = {}
            for t in row.tags:
                parts = t.split("/")
                for n in range(len(parts), 0, -1):
                    full["#" + "/".join(parts[:n])] = None
            return list(full)
        if key == "aliases":
            return _aliases(row.front_matter())
        if key in ("lists", "tasks"):
            items = self.list_items()
            return [i for i in items if i["task"]] if key == "tasks" else list(items)
        if key in ("size", "ctime", "mtime", "cday", "mday"):
            if row.size is None:
                ix.dataset.stat_row(row)
            if key == "size":
                return row.size
            d = Dataset.date_of_ns(row.ctime_ns if key in ("ctime", "cday") else row.mtime_ns)
            if d is not None and key in ("cday", "mday"):
                return Date(d.at.replace(hour=0, minute=0, second=0, microsecond=0), False)
            return d
        if key == "starred":
            return False  # Anthology's bookmarks are user state, not the vault's
        if key == "frontmatter":
            return dict(row.front_matter())
        if key == "day":
            return self.day()
        return None  # pragma: no cover - KEYS lists every key above

    def as_row(self) -> tuple[Link, PageObject]:
        """The note as a query's row (its link, itself), made once: a query over 10,000
        notes allocates no new rows, which keeps Python's collector off them."""
        if self._row is None:
            self._row = (self.link, self)
        return self._row

    def task_rows(self) -> list[tuple[None, Layered]]:
        """Each task as a TASK query's row: the task over its note's fields, made once."""
        if self._tasks is None:
            self._tasks = [(None, Layered(i, self)) for i in self.list_items() if i["task"]]
        return self._tasks

    # list items
    def list_items(self) -> list[dict[str, Any]]:
        if self._items is None:
            self._items = make_items(self, self.row.list_items())
        return self._items


def _date_in(text: str) -> Date | None:
    m = re.search(r"(\d{4})-(\d{2})-(\d{2})", text) or re.search(r"(\d{4})(\d{2})(\d{2})", text)
    if not m:
        return None
    return parse_date_text(f"{m.group(1)}-{m.group(2)}-{m.group(3)}", strict=False)


def _aliases(front: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for key, value in front.items():
        if str(key).lower() not in ("alias", "aliases") or not value:
            continue
        if isinstance(value, list):
            out += [str(v).strip() for v in value if v is not None]
        else:
            out += [p.strip() for p in str(value).split(",") if p.strip()]
    return out


def make_items(page: PageObject, raw: list[ListItem]) -> list[dict[str, Any]]:
    """The note's list items as Dataview serializes them (``SListItem``), children linked
    and ``fullyCompleted`` propagated."""
    path = page.row.path
    by_line: dict[int, dict[str, Any]] = {}
    items: list[dict[str, Any]] = []
    list_start, last_end = -1, -10
    sections: dict[str, Link] = {}
    for it in raw:
        text = it.text
        flat = text.replace("\n", " ")
        if it.parent is None and it.line > last_end + 1:
            list_start = it.line
        last_end = max(last_end, it.line + it.line_count - 1)
        heading = it.section
        section = sections.get(heading) if heading else page.link
        if section is None and heading:
            section = sections[heading] = Link(path, None, path, heading)
        assert section is not None
        block = _BLOCK_ID_RE.search(flat) if "^" in flat else None
        link = Link(path, None, path, "^" + block.group(1)) if block else section
        fields: dict[str, list[Any]] = {}
        if "::" in flat or (it.task and _MAYBE_EMOJI_RE.search(flat)):
            for key, value in line_fields(flat, it.task):
                fields.setdefault(key, []).append(inline_value(value, page.make_link))
            if not it.task and not fields:
                full = full_line_field(flat)
                if full:
                    fields[full[0]] = [inline_value(full[1], page.make_link)]
        outlinks = [_link_value(m.group(2), bool(m.group(1)), page.make_link)
                    for m in _WIKI_RE.finditer(flat)] if "[[" in flat else []  # fmt: skip
        end_line = it.line + it.line_count - 1
        item: dict[str, Any] = {
            "symbol": it.symbol, "link": link, "section": section, "text": text,
            "tags": text_tags(flat) if "#" in flat else [], "line": it.line,
            "lineCount": it.line_count,
            "list": list_start, "outlinks": outlinks, "path": path, "children": [],
            "task": it.task, "annotated": bool(fields),
            "position": {"start": {"line": it.line, "col": 0, "offset": 0},
                         "end": {"line": end_line, "col": 0, "offset": 0}},
        }  # fmt: skip
        item["subtasks"] = item["children"]
        item["real"] = it.task
        item["header"] = section
        if it.parent is not None:
            item["parent"] = it.parent
        if block:
            item["blockId"] = block.group(1)
        for key, values in fields.items():
            if key not in item:
                item[key] = values[0] if len(values) == 1 else values
        if it.task:
            status = it.status or " "
            item["status"] = status
            item["checked"] = status not in ("", " ")
            item["completed"] = item["fullyCompleted"] = status in ("x", "X")
            for name, keys in (("created", ("created", "ctime", "cday")),
                               ("due", ("due", "duetime", "dueday")),
                               ("completion", ("completed", "completion", "comptime",
                                               "compday")),
                               ("start", ("start",)), ("scheduled", ("scheduled",))):  # fmt: skip
                for k in keys:
                    if k in fields:
                        if fields[k][0] is not None:
                            item[name] = fields[k][0]
                        break
        by_line[it.line] = item
        items.append(item)
    for it, item in zip(raw, items, strict=True):
        parent = by_line.get(it.parent) if it.parent is not None else None
        if parent is not None and parent is not item:
            parent["children"].append(item)
        if it.task:
            cur: dict[str, Any] | None = item
            seen = 0
            while cur is not None and seen < 1000:
                if cur["task"]:
                    cur["fullyCompleted"] = cur["fullyCompleted"] and item["completed"]
                p = cur.get("parent")
                cur = by_line.get(p) if p is not None else None
                seen += 1
    return items


# ---------------------------------------------------------------- the dataset's index
class DvIndex:
    """What Dataview's index answers, over one dataset: the notes (markdown files), their
    page objects, tags with their parents, links in (embeds and unresolved ones too)."""

    def __init__(self, dataset: Dataset) -> None:
        self.dataset = dataset
        self.pages = [r for r in dataset.rows if r.ext == "md" and r.entry_id is not None]
        self._objects: dict[str, PageObject] = {}
        self._tags: dict[str, list[str]] | None = None
        self._inlinks: dict[str, list[str]] | None = None
        self._unresolved: dict[str, list[str]] | None = None
        self._folders: set[str] | None = None

    def page(self, path: str | None) -> PageObject | None:
        if path is None:
            return None
        obj = self._objects.get(path)
        if obj is None:
            row = self.dataset.by_path.get(path)
            if row is None or row.ext != "md":
                return None
            obj = self._objects[path] = PageObject(self, row)
        return obj

    def resolve(self, target: str, source: str) -> str | None:
        return self.dataset.resolve_link(target, source)

    def tagged(self, tag: str) -> list[str]:
        if self._tags is None:
            tags: dict[str, dict[str, None]] = {}
            for r in self.pages:
                for t in r.tags:
                    parts = t.lower().split("/")
                    for n in range(1, len(parts) + 1):
                        tags.setdefault("#" + "/".join(parts[:n]), {})[r.path] = None
            self._tags = {k: list(v) for k, v in tags.items()}
        return self._tags.get(tag.lower(), [])

    def inlinks(self, path: str) -> list[str]:
        if self._inlinks is None:
            back: dict[str, dict[str, None]] = {}
            unresolved: dict[str, dict[str, None]] = {}
            for r in self.pages:
                for lo in r.links:
                    if lo.path is not None:
                        back.setdefault(lo.path, {})[r.path] = None
                    else:
                        unresolved.setdefault(lo.target.lower(), {})[r.path] = None
            self._inlinks = {k: list(v) for k, v in back.items()}
            self._unresolved = {k: list(v) for k, v in unresolved.items()}
        return self._inlinks.get(path, [])

    def unresolved_inlinks(self, target: str) -> list[str]:
        self.inlinks("")
        assert self._unresolved is not None
        return self._unresolved.get(target.lower(), [])

    def is_folder(self, folder: str) -> bool:
        if self._folders is None:
            folders: set[str] = set()
            for r in self.dataset.rows:
                parts = r.path.split("/")[:-1]
                for n in range(1, len(parts) + 1):
                    folders.add("/".join(parts[:n]))
            self._folders = folders
        return folder in self._folders


_INDEXES: dict[int, tuple[weakref.ref[Dataset], DvIndex]] = {}


def index_of(dataset: Dataset) -> DvIndex:
    """The :class:`DvIndex` of a dataset, made once and kept while the dataset lives."""
    key = id(dataset)
    hit = _INDEXES.get(key)
    if hit is not None and hit[0]() is dataset:
        return hit[1]
    ix = DvIndex(dataset)

    def forget(_ref: weakref.ref[Dataset], k: int = key) -> None:
        _INDEXES.pop(k, None)

    _INDEXES[key] = (weakref.ref(dataset, forget), ix)
    return ix


def duration_field(d: Any, unit: str) -> Any:
    """``dur.days`` and friends: the whole duration in that unit (``shiftTo``)."""
    unit = unit if unit.endswith("s") else unit + "s"
    if unit not in ("years", "months", "weeks", "days", "hours", "minutes", "seconds",
                    "milliseconds"):  # fmt: skip
        return None
    value = shift_to(d, [unit])[unit]
    return int(value) if float(value).is_integer() else value


__all__ = ["IDENT_RE", "DvIndex", "FileObject", "Layered", "PageObject", "canonical_name",
           "duration_field", "frontmatter_value", "index_of", "inline_value",
           "line_fields"]  # fmt: skip
