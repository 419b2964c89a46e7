"""The ``anthology`` command: the GUI and every subcommand are thin shells over the core API.

    anthology [VAULT | NOTE.md] [--entry ID] [--bundled]
                                           open the reading window: on the vault last read
                                           (the bundled anthology the first time), a vault
                                           folder, or a note in its vault
    anthology index [VAULT] [--db F]       build or refresh the index; print counts and time
    anthology check [VAULT] [--json]       report broken links, duplicate ids, bad files, orphans
    anthology export [VAULT] --format json|graphml [--out F]
    anthology export [VAULT] --entry ID --format html|pdf --out FILE [--theme light|dark]
                                           one entry as File › Export as HTML / PDF writes it
    anthology search QUERY [VAULT] [--json]
    anthology show ID [VAULT] [--json]
    anthology screenshot [VAULT] --out FILE.png [--entry ID] [--size WxH] [--theme light|dark]
        [--graph local|global] [--settle SECONDS]
    anthology demo NAME [--sweep --json …]
    anthology install-desktop [--remove]   add Anthology to the desktop's launcher (Linux)

Every command documented here is documented in the README too (a test keeps them in step).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import sys
import time
from collections.abc import Iterable, Sequence
from json.encoder import encode_basestring as _encode_json_str  # what ensure_ascii=False uses
from pathlib import Path
from typing import Any

from anthology import __version__
from anthology.paths import entries_dir
from anthology.vault.shown import one_line

COMMANDS = ("index", "check", "export", "search", "show", "query", "screenshot", "demo",
            "install-desktop")  # fmt: skip

WINDOW_USAGE = "anthology [VAULT | NOTE.md] [--entry ID] [--bundled] [--db FILE]"
WINDOW_HELP = """\
The reading window:
  anthology                    the vault read last (the bundled anthology the first time)
  anthology VAULT              a vault: a folder of Markdown notes (an Obsidian vault)
  anthology NOTE.md            a note, in its vault (the nearest folder above it holding
                               .obsidian/, else the note's folder)
  --entry ID                   the entry to open first
  --bundled                    the bundled anthology, whatever was read last
  --db FILE                    the index file (default: in the user cache folder)

Without a display (SSH, a container), use the commands below; they need none."""


def _add_vault(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "vault", nargs="?", default=None, help="the vault folder (default: the bundled anthology)"
    )
    p.add_argument("--db", default=None, help="index file (default: in the user cache folder)")


MAX_LIMIT = 2**62  # a --limit past what SQLite's LIMIT holds means "all of them"
MAX_WINDOW_SIDE = 8192  # px: a screenshot's window; 8192² is already 256 MB of pixels


def _limit(text: str) -> int:
    """``--limit``: a whole number, 1 or more (``1e20`` is one: all results)."""
    try:
        number = int(text)
    except ValueError:
        try:
            value = float(text)
        except ValueError:
            value = float("nan")
        if not value.is_integer():
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        number = int(min(value, MAX_LIMIT))
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more: {text!r}")
    return min(number, MAX_LIMIT)


def _window_size(text: str) -> tuple[int, int]:
    """``--size``: ``WxH`` in px, each side 1 to :data:`MAX_WINDOW_SIDE`."""
    width, sep, height = text.strip().lower().partition("x")
    try:
        size = (int(width), int(height)) if sep else None
    except ValueError:
        size = None
    if size is None:
        raise argparse.ArgumentTypeError(f"not a size WxH (like 1400x900): {text!r}")
    if not all(1 <= side <= MAX_WINDOW_SIDE for side in size):
        raise argparse.ArgumentTypeError(f"each side must be 1 to {MAX_WINDOW_SIDE} px: {text!r}")
    return size


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="anthology",
        usage=f"{WINDOW_USAGE}\n       anthology COMMAND [ARGS] (anthology COMMAND --help)",
        description="Read a linked knowledge base of Markdown entries, offline.\n\n" + WINDOW_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"anthology {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", prog="anthology")

    p = sub.add_parser("index", help="build or refresh the index of a vault")
    _add_vault(p)
    p.add_argument("--rebuild", action="store_true", help="delete the index and build it anew")

    p = sub.add_parser("check", help="report broken links, duplicate ids, bad files, orphans")
    _add_vault(p)
    p.add_argument("--json", action="store_true", help="print the findings as JSON")

    p = sub.add_parser(
        "export",
        help="export the link graph as JSON or GraphML, or one entry as HTML or PDF",
        description="The link graph as JSON or GraphML; or, with --entry, one entry as "
        "File › Export as HTML / PDF writes it (self-contained: pictures, math and "
        "diagrams inside the file).",
    )
    _add_vault(p)
    p.add_argument("--format", choices=("json", "graphml", "html", "pdf"), default="json")
    p.add_argument("--out", default=None, help="output file (default: standard output)")
    p.add_argument("--entry", default=None, metavar="ID",
                   help="the entry (html and pdf): its id, its name as a link names it, or "
                   "its path in the vault")  # fmt: skip
    p.add_argument("--theme", choices=("light", "dark"), default="light",
                   help="the entry's colours (html and pdf; default light)")  # fmt: skip

    p = sub.add_parser("search", help="full-text search with tag:, kind:, status: filters")
    p.add_argument("query")
    _add_vault(p)
    p.add_argument("--json", action="store_true")
    p.add_argument("--limit", type=_limit, default=20, help="results shown (default 20)")

    p = sub.add_parser("show", help="an entry's properties, relations, backlinks and links")
    p.add_argument("id")
    _add_vault(p)
    p.add_argument("--json", action="store_true")

    p = sub.add_parser(
        "query", help="answer a Dataview query (TABLE, LIST, TASK, CALENDAR) or a Bases view"
    )
    _add_vault(p)
    p.add_argument("dql", nargs="?", default=None,
                   help="a Dataview query: 'TABLE rating FROM #book SORT rating DESC'")  # fmt: skip
    p.add_argument("--base", default=None, help="a .base file (in the vault, or a path)")
    p.add_argument("--view", default=None, help="the view's name (default: the first)")
    p.add_argument("--format", choices=("text", "json", "csv"), default="text")

    p = sub.add_parser("screenshot", help="render the main window offscreen to a PNG")
    _add_vault(p)
    p.add_argument("--entry", default=None, help="the entry to show (default: the home entry)")
    p.add_argument("--out", required=True, help="the PNG file to write")
    p.add_argument("--size", type=_window_size, default="1400x900", help="window size, WxH")
    p.add_argument("--theme", choices=("light", "dark"), default="light")
    p.add_argument("--graph", choices=("local", "global", "timeline"), default="local",
                   help="the side graph's mode; timeline: the timeline tab opened too")  # fmt: skip
    p.add_argument(
        "--settle",
        type=float,
        default=2.0,
        metavar="SECONDS",
        help="let the graph's layout run this long before the capture (default 2)",
    )
    p.add_argument("--heading", default=None, help="scroll the entry to this heading")

    p = sub.add_parser("demo", help="open an embedded demo, or print its sweep")
    try:
        from anthology.demo import cli as demo_cli

        demo_cli.add_arguments(p)
    except ImportError:  # pragma: no cover - the demo package is part of the app
        p.add_argument("name")

    p = sub.add_parser(
        "install-desktop",
        help="add Anthology to the desktop's application launcher and 'Open with' (Linux)",
    )
    p.add_argument("--remove", action="store_true", help="remove what install-desktop added")
    return parser


def _gui_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="anthology",
        usage=WINDOW_USAGE,
        description="Open the reading window. Commands: "
        + ", ".join(COMMANDS)
        + " (anthology --help; anthology COMMAND --help).",
    )
    parser.add_argument("--version", action="version", version=f"anthology {__version__}")
    parser.add_argument(
        "path",
        nargs="?",
        default=None,
        metavar="VAULT | NOTE.md",
        help="a vault folder, or a note to open in its vault (default: the vault read last, "
        "the bundled anthology the first time)",
    )
    parser.add_argument("--db", default=None, help="index file (default: in the user cache folder)")
    parser.add_argument("--entry", default=None, help="the entry to open first")
    parser.add_argument(
        "--bundled", action="store_true", help="open the bundled anthology, whatever was read last"
    )
    return parser


class _ProgressBar:
    """A one-line progress bar on a terminal; silent when stderr is not one."""

    def __init__(self) -> None:
        self.enabled = sys.stderr.isatty()
        self.last = 0.0

    def __call__(self, done: int, total: int, stage: str) -> None:
        if not self.enabled or total < 200:
            return
        now = time.monotonic()
        if now - self.last < 0.1 and done < total:
            return
        self.last = now
        width = 30
        filled = int(width * done / max(total, 1))
        sys.stderr.write(f"\r{stage:<16} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled and self.last:
            sys.stderr.write("\r" + " " * 72 + "\r")
            sys.stderr.flush()


def _open_index(args: argparse.Namespace, *, rebuild: bool = False, writes: bool = False):
    """The vault's index, brought up to date. Commands that only read (``writes=False``)
    still work on an index that cannot be written, as it was last built, with a warning."""
    from anthology.tasks import TaskState
    from anthology.vault import VaultIndex

    vault = Path(args.vault) if args.vault else entries_dir()
    if args.db:  # the folder of a given index file is the user's to make, not ours
        _existing_folder(Path(args.db), "--db")
    bar = _ProgressBar()
    try:
        index = VaultIndex.open(
            vault, args.db, task=TaskState(on_progress=bar), rebuild=rebuild, allow_stale=not writes
        )
    finally:
        bar.close()
    if index.notice:
        print(f"anthology: {index.notice}", file=sys.stderr)
    if index.stale_reason:
        print(f"anthology: {index.stale_reason}; showing it as last built", file=sys.stderr)
    return index


def _existing_folder(path: Path, option: str) -> None:
    """:class:`VaultError` (one line, exit 2) when the folder ``path`` would go in is not
    there: a file asked for is written, the folders on its way are never made."""
    from anthology.vault import VaultError

    folder = path.parent
    if not folder.is_dir():
        what = "is not a folder" if folder.exists() else "does not exist"
        raise VaultError(f"{option} {path}: the folder {folder} {what}")
    if path.is_dir():
        raise VaultError(f"{option} {path} is a folder; give a file name")


def _print_json(value: Any) -> None:
    json.dump(value, sys.stdout, ensure_ascii=False, indent=2, default=str)
    sys.stdout.write("\n")


def _plain_snippet(snippet: str) -> str:
    from anthology.vault import MATCH_END, MATCH_START

    return " ".join(snippet.replace(MATCH_START, "[").replace(MATCH_END, "]").split())


def cmd_index(args: argparse.Namespace) -> int:
    t0 = time.perf_counter()
    with _open_index(args, rebuild=args.rebuild, writes=True) as index:
        report = index.last_report
        stats = index.stats()
    elapsed = time.perf_counter() - t0
    if report is not None:
        print(
            f"Read {report.added + report.changed} files ({report.added} new, "
            f"{report.changed} changed), {report.unchanged} unchanged, {report.removed} removed"
        )
    print(
        f"Indexed {stats['entries']} entries, {stats['links']} links "
        f"({stats['resolved_links']} resolved, {stats['unresolved_links']} unresolved, "
        f"{stats['typed_relations']} typed relations), {stats['tags']} tags, "
        f"{stats['errors']} errors, {stats['warnings']} warnings, {stats['info']} info "
        f"in {elapsed:.2f} s"
    )
    print(f"Index: {index.db_path}")
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    with _open_index(args) as index:
        problems = index.problems()
    from anthology.vault.reports import summarize

    summary = summarize(problems)
    errors = summary["by_severity"]["error"]
    if args.json:
        _print_json({"problems": [dataclasses.asdict(p) for p in problems], "summary": summary})
    else:
        for p in problems:
            where = f"{p.path}:{p.line}" if p.line else p.path
            print(one_line(f"{where}: {p.severity}: {p.kind}: {p.message}"))
        counts = summary["by_severity"]
        print(f"{counts['error']} errors, {counts['warning']} warnings, {counts['info']} info")
        kinds = ", ".join(f"{kind} {n}" for kind, n in summary["by_kind"].items())
        print(f"By kind: {kinds or 'none'}")
    return 1 if errors else 0


def cmd_export(args: argparse.Namespace) -> int:
    from anthology.vault import VaultError

    if args.format in ("html", "pdf"):
        return _export_entry(args)
    if args.entry:
        raise VaultError(f"--entry is for --format html or pdf, not {args.format}")
    out = Path(args.out) if args.out else None
    if out is not None:  # before the index is opened (or built): no work for nothing
        _existing_folder(out, "--out")
    with _open_index(args) as index:
        try:
            if args.format == "graphml":
                index.export_graphml(out if out is not None else sys.stdout.buffer)
            else:
                data = index.export_json()
                if out is not None:
                    out.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
                else:
                    _print_json(data)
        except BrokenPipeError:
            raise
        except OSError as exc:  # /proc/x, a full disk, a read-only folder
            print(f"anthology: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
            return 2
    return 0


def _export_entry(args: argparse.Namespace) -> int:
    """``export --entry ID --format html|pdf``: the entry as the window exports it. HTML is
    rendered here, without Qt; the PDF is the entry pane's page, drawn offscreen
    (:func:`anthology.ui.app.entry_pdf`)."""
    from anthology.vault import VaultError
    from anthology.vault.render.entry import CITED_BY_SHOWN

    if not args.entry:
        raise VaultError(f"--format {args.format} needs --entry ID (the entry to export)")
    if args.format == "pdf" and not args.out:
        raise VaultError("--format pdf needs --out FILE (a PDF is not written to a terminal)")
    out = Path(args.out) if args.out else None
    if out is not None:  # before the index is opened (or built): no work for nothing
        _existing_folder(out, "--out")
    with _open_index(args) as index:
        # an id, else a name as a [[link]] names it, else the note's vault-relative path
        ref = index.resolve(args.entry, "") or index.entry_ref_at_path(args.entry)
        entry = index.entry(args.entry if ref is None else ref.id, cited_by_limit=CITED_BY_SHOWN)
        if entry is None:
            print(f"anthology: no entry with id “{args.entry}” in {index.root}", file=sys.stderr)
            return 1
        if args.format == "html":
            from anthology.vault.render import render_entry
            from anthology.vault.render.standalone import standalone_html

            root = Path(index.root).resolve()
            rendered = render_entry(entry, index, theme=args.theme, vault_root=root)
            data = standalone_html(rendered, title=entry.title or entry.id, vault_root=root)
            payload = data.encode("utf-8")
        else:
            from anthology.ui.app import entry_pdf

            payload = entry_pdf(index, entry, theme=args.theme)
            if not payload.startswith(b"%PDF"):
                print(f"anthology: the PDF could not be drawn ({len(payload)} bytes)",
                      file=sys.stderr)  # fmt: skip
                return 1
    if out is None:
        sys.stdout.buffer.write(payload)
        sys.stdout.flush()
        return 0
    try:
        out.write_bytes(payload)
    except OSError as exc:  # /proc/x, a full disk, a read-only folder
        print(f"anthology: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    print(f"Wrote {out} ({len(payload):,} bytes)")
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    from anthology.vault import QueryTooLarge

    with _open_index(args) as index:
        try:
            hits = index.search(args.query, limit=args.limit)
        except QueryTooLarge as exc:
            print(f"anthology: {exc}", file=sys.stderr)
            return 2
    if args.json:
        _print_json(
            [
                {
                    "id": h.entry.id,
                    "title": h.entry.title,
                    "path": h.entry.path,
                    "kind": h.kind,
                    "snippet": _plain_snippet(h.snippet),
                    "score": h.score,
                }
                for h in hits
            ]
        )
    else:
        for h in hits:
            print(f"{h.entry.label}\n    {_plain_snippet(h.snippet)}")
        print(f"{len(hits)} results")
    return 0


def _json_value(value: Any) -> str:
    """One scalar as ``json.dumps(…, ensure_ascii=False)`` writes it (strings through the
    same C escaper), without building an encoder per value."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return _encode_json_str(value)
    if type(value) is int:
        return int.__repr__(value)
    return json.dumps(value, ensure_ascii=False, default=str)


def _json_ref(ref: Any, pad: str) -> str:
    if ref is None:
        return "null"
    inner = pad + "  "
    return (
        f'{{\n{inner}"id": {_json_value(ref.id)},\n{inner}"title": {_json_value(ref.title)},'
        f'\n{inner}"path": {_json_value(ref.path)}\n{pad}}}'
    )


def _json_link(link: Any) -> str:
    """A :class:`LinkRow` as ``json.dumps(dataclasses.asdict(link), indent=2)`` writes it
    as an item of a list inside the top-level object (4 spaces in): the same bytes, some
    twenty times faster (``asdict`` and the indenting encoder, which is pure Python, cost
    ~80 µs a link: a minute for a hub's 800,000). ``tests/test_show_stream.py`` holds the
    two to the same bytes."""
    pad = "      "
    span = (
        "null"
        if link.span is None
        else f"[\n{pad}  {_json_value(link.span[0])},\n{pad}  {_json_value(link.span[1])}\n{pad}]"
    )
    return (
        f'    {{\n{pad}"source": {_json_ref(link.source, pad)},'
        f'\n{pad}"target": {_json_ref(link.target, pad)},'
        f'\n{pad}"text": {_json_value(link.text)},'
        f'\n{pad}"relation": {_json_value(link.relation)},'
        f'\n{pad}"embed": {_json_value(link.embed)},'
        f'\n{pad}"line": {_json_value(link.line)},'
        f'\n{pad}"context": {_json_value(link.context)},'
        f'\n{pad}"alias": {_json_value(link.alias)},'
        f'\n{pad}"heading": {_json_value(link.heading)},'
        f'\n{pad}"span": {span}\n    }}'
    )


def _write_json_links(out: Any, links: Iterable[Any]) -> None:
    """A list of links as the value of a top-level key, written as they come."""
    first = True
    for link in links:
        out.write("[\n" if first else ",\n")
        out.write(_json_link(link))
        first = False
    out.write("]" if first else "\n  ]")


def cmd_show(args: argparse.Namespace) -> int:
    # A hub has hundreds of thousands of backlinks: they are written as SQLite hands them
    # over (VaultIndex.iter_backlinks), never all held, in the bytes the list-building
    # version wrote (tests/golden/show/).
    out = sys.stdout
    with _open_index(args) as index:
        entry = index.entry(args.id)
        if entry is None:
            print(f"anthology: no entry with id “{args.id}”", file=sys.stderr)
            return 1
        outgoing = index.outgoing(entry.id)
        with contextlib.closing(index.iter_backlinks(entry.id)) as backlinks:
            if args.json:
                header = dataclasses.asdict(entry)
                header.pop("body")
                text = json.dumps(header, ensure_ascii=False, indent=2, default=str)
                out.write(text[:-2] + ',\n  "backlinks": ')  # drop the closing "\n}"
                _write_json_links(out, backlinks)
                out.write(',\n  "outgoing": ')
                _write_json_links(out, outgoing)
                out.write("\n}\n")
                return 0
            print(f"{entry.id} — {entry.title}\n{entry.path} · {entry.reading_minutes} min read")
            hidden = {"id", "title"}
            print("\nProperties")
            for key, value in entry.properties.items():
                if key not in hidden:
                    print(
                        f"  {key}: "
                        f"{value if not isinstance(value, list) else ', '.join(map(str, value))}"
                    )
            for rel in entry.cited_by:
                assert rel.other is not None
                print(f"  Cited as “{rel.relation}” by {rel.other.label}")
            print(f"\nBacklinks ({index.backlink_count(entry.id)})")
            for b in backlinks:
                out.write(f"  [{b.relation or 'mentions'}] {b.source.label}: {b.context}\n")
    print(f"\nOutgoing links ({len(outgoing)})")
    for o in outgoing:
        target = o.target.label if o.target else f"{o.text} (unresolved)"
        print(f"  [{o.relation or 'mentions'}] line {o.line}: {target}")
    return 0


def cmd_query(args: argparse.Namespace) -> int:
    from anthology.query.bases import run_view
    from anthology.query.output import FORMATS
    from anthology.query.rows import Budget
    from anthology.query.values import QueryError
    from anthology.vault.query_rows import dataset, load_base_text, read_base_file

    if args.dql is None and args.base is None and args.vault and not Path(args.vault).is_dir():
        args.dql, args.vault = args.vault, None  # `anthology query 'LIST …'`: the anthology
    if (args.dql is None) == (args.base is None):
        print("anthology: query: give a Dataview query or --base FILE (one of them)",
              file=sys.stderr)  # fmt: skip
        return 2
    if args.dql is not None:
        return _query_dql(args)
    with _open_index(args) as index:
        given = Path(args.base)
        rel: str | None = None
        try:  # a path in the vault, as written or from here
            inside = (given if given.is_absolute() else Path.cwd() / given).resolve()
            rel = inside.relative_to(index.root.resolve()).as_posix()
        except (ValueError, OSError):
            pass
        if rel is None or not (index.root / rel).is_file():
            written = not given.is_absolute() and (index.root / given).is_file()
            rel = given.as_posix() if written else None
        try:
            if rel is not None:
                text = read_base_file(index.root, rel)
            else:  # a base kept outside the vault: read as the user named it
                if not given.is_file():
                    raise QueryError(f"no such base: {args.base}")
                text = given.read_text(encoding="utf-8", errors="replace")
            base = load_base_text(text)
            data = dataset(index)
            this = data.by_path.get(rel) if rel else None
            result = run_view(base, data, args.view, this=this, link_source=rel or "",
                              budget=Budget(max_steps=50_000_000, seconds=60))  # fmt: skip
        except QueryError as exc:
            print(f"anthology: {args.base}: {exc}", file=sys.stderr)
            return 2
        sys.stdout.write(FORMATS[args.format](result))
    return 0


def _query_dql(args: argparse.Namespace) -> int:
    from anthology.query.dataview import parse_query, run_query
    from anthology.query.dataview.output import FORMATS
    from anthology.query.rows import Budget
    from anthology.query.values import QueryError
    from anthology.vault.query_rows import dataset

    with _open_index(args) as index:
        try:
            query = parse_query(args.dql)
            result = run_query(query, dataset(index), this_path=None,
                               budget=Budget(max_steps=50_000_000, seconds=60))  # fmt: skip
        except QueryError as exc:
            print(f"anthology: query: {exc}", file=sys.stderr)
            return 2
        sys.stdout.write(FORMATS[args.format](result))
    return 0


def cmd_screenshot(args: argparse.Namespace) -> int:
    from anthology.ui.app import screenshot

    vault = Path(args.vault) if args.vault else entries_dir()
    _existing_folder(Path(args.out), "--out")
    if args.db:
        _existing_folder(Path(args.db), "--db")
    return screenshot(
        vault,
        db=args.db,
        entry=args.entry,
        out=Path(args.out),
        size=args.size,
        theme=args.theme,
        graph_mode=args.graph,
        settle_seconds=max(0.0, args.settle),
        heading=args.heading,
    )


def cmd_demo(args: argparse.Namespace) -> int:
    from anthology.demo import DEMOS
    from anthology.demo import cli as demo_cli

    if args.sweep or args.name not in DEMOS or demo_cli.option_problem(args):
        return demo_cli.run(args)  # printing, or the message that says what is wrong
    from anthology.linux_setup import setup_problem

    if problem := setup_problem():
        print(problem, file=sys.stderr)
        return 3
    from anthology.ui.app import run_demo

    return run_demo(args)


def cmd_gui(argv: Sequence[str]) -> int:
    parser = _gui_parser()
    args = parser.parse_args(argv)
    from anthology.vault import note_vault

    vault: Path | None = None
    entry = args.entry
    if args.bundled:
        if args.path:
            parser.error("give a vault or a note, or --bundled, not both")
        vault = entries_dir()
    elif args.path:
        # Checked before any window: a missing path or a file that is not a note is one
        # line and exit 2 (VaultError, in main), never an empty window.
        vault, note = note_vault(args.path)
        if note and entry:
            parser.error("give a note or --entry, not both")
        entry = entry or note
    if args.db:
        _existing_folder(Path(args.db), "--db")  # the folders on its way are never made
    from anthology.linux_setup import setup_problem

    problem = setup_problem()  # before Qt aborts with its own cryptic message
    if problem:
        print(problem, file=sys.stderr)
        return 3
    from anthology.ui.app import run_gui

    return run_gui(vault, db=args.db, entry=entry)


def cmd_install_desktop(args: argparse.Namespace) -> int:
    from anthology import desktop_entry

    if args.remove:
        removed = desktop_entry.uninstall()
        for path in removed:
            print(f"Removed {path}")
        print(f"{len(removed)} files removed" if removed else "Nothing to remove")
        return 0
    for path in desktop_entry.install():
        print(f"Wrote {path}")
    print("Anthology is in the application launcher; remove it with: "
          "anthology install-desktop --remove")  # fmt: skip
    return 0


HANDLERS = {
    "index": cmd_index,
    "check": cmd_check,
    "export": cmd_export,
    "search": cmd_search,
    "show": cmd_show,
    "query": cmd_query,
    "screenshot": cmd_screenshot,
    "demo": cmd_demo,
    "install-desktop": cmd_install_desktop,
}


# Options of the commands whose positional arguments are free text (a search, a Dataview
# query): the text goes after "--", so it may start with "-" and stand after an option.
_FREE_TEXT_OPTIONS = {
    "search": (("--db", "--limit"), ("--json", "-h", "--help")),
    "query": (("--db", "--base", "--view", "--format"), ("-h", "--help")),
}


def _free_text_argv(argv: list[str]) -> list[str]:
    """``search`` and ``query`` arguments with the text and vault after ``--``, so a query
    that starts with ``-`` (``anthology search -draft``, ``-tag:x``) is a query, not an
    unknown option, and options may stand before or after it."""
    valued, flags = _FREE_TEXT_OPTIONS[argv[0]]
    options: list[str] = []
    positional: list[str] = []
    rest = iter(argv[1:])
    for arg in rest:
        if arg == "--":
            positional.extend(rest)
        elif arg in flags or (arg.split("=", 1)[0] in valued and "=" in arg):
            options.append(arg)
        elif arg in valued:
            options.extend([arg, next(rest, "")])
        else:
            positional.append(arg)
    return [argv[0], *options, "--", *positional]


def main(argv: Sequence[str] | None = None) -> int:
    from anthology.vault import VaultError

    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if not argv or (argv[0] not in COMMANDS and argv[0] not in ("-h", "--help")):
            return cmd_gui(argv)
        if argv[0] in _FREE_TEXT_OPTIONS:
            argv = _free_text_argv(argv)
        args = build_parser().parse_args(argv)
        return HANDLERS[args.command](args)
    except VaultError as exc:
        print(f"anthology: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `anthology export | head`
        return 0
