"""Hostile files in a vault: each is a problem row of its own; the rest of the vault indexes,
the window and the CLI go on, and nothing outside the vault (or blocking) is ever read."""

from __future__ import annotations

import os
import threading
import tracemalloc
import unicodedata
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from anthology import cli
from anthology.vault import indexer, parse_file, scan
from anthology.vault.files import (
    SHOWN_BODY_CHARS,
    NotRegularFile,
    OutsideVault,
    display_name,
    fs_path,
    open_regular,
    utf8_cut,
)
from anthology.vault.index import VaultIndex
from anthology.vault.scan import scan_vault

GOOD = "---\nid: GOOD\n---\nA good entry linking [[GOOD]].\n"
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
needs_bytes_names = pytest.mark.skipif(os.name != "posix", reason="POSIX file names are bytes")


def make_vault(tmp_path: Path, files: dict[str, bytes | str] | None = None) -> Path:
    root = tmp_path / "v"
    root.mkdir(exist_ok=True)
    (root / "good.md").write_text(GOOD, encoding="utf-8")
    for rel, data in (files or {}).items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return root


def open_index(tmp_path: Path, root: Path | None = None) -> VaultIndex:
    return VaultIndex.open(root or tmp_path / "v", tmp_path / "index.sqlite")


def problems(index: VaultIndex) -> dict[str, list[tuple[str, str, str]]]:
    out: dict[str, list[tuple[str, str, str]]] = {}
    for p in index.problems():
        if p.kind != "orphan":
            out.setdefault(p.path, []).append((p.kind, p.severity, p.message))
    return out


def kinds(index: VaultIndex, path: str) -> list[str]:
    return [k for k, _, _ in problems(index).get(path, [])]


def assert_good_still_indexed(index: VaultIndex) -> None:
    assert index.entry("GOOD") is not None
    assert [h.entry.id for h in index.search("good entry")] == ["GOOD"]


def no_hang(fn: Callable[[], Any], seconds: float = 20.0) -> Any:
    """``fn()`` in a daemon thread: a read that blocks (a FIFO) fails the test, not hangs it."""
    result: list[Any] = []
    error: list[BaseException] = []

    def run() -> None:
        try:
            result.append(fn())
        except BaseException as exc:  # handed to the test
            error.append(exc)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), "blocked: a FIFO was opened for reading"
    if error:
        raise error[0]
    return result[0]


# -- 2: one bad front-matter value is that file's problem ---------------------------------
BAD_VALUES = [
    "date: 2024-02-30",
    "date: 2024-13-01",
    "when: 2024-01-01 25:00:00",
    "n: " + "9" * 5000,
    "n: 0x" + "f" * 5000,  # built without Python's digit check; cannot be written as text
    "n: !!int abc",
    "x: !!float abc",
    "b: !!bool maybe",
    "t: !!timestamp x",
]


@pytest.mark.parametrize("value", BAD_VALUES, ids=lambda v: v[:24])
def test_a_front_matter_value_python_cannot_build(tmp_path: Path, value: str) -> None:
    root = make_vault(tmp_path, {"bad.md": f"---\ntitle: Bad\n{value}\n---\nBody [[GOOD]]\n"})
    with open_index(tmp_path, root) as idx:
        ((kind, severity, message),) = problems(idx)["bad.md"]
        assert kind == "front-matter" and severity == "error"
        assert "cannot be read" in message or "4,300 digits" in message
        entry = idx.entry("bad")  # indexed as malformed front matter is: no properties
        assert entry is not None and entry.properties == {} and "Body" in entry.body
        assert [b.source.id for b in idx.backlinks("GOOD")] == ["bad"]
        assert_good_still_indexed(idx)


def test_any_exception_while_parsing_a_file_is_its_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = parse_file.parse_entry

    def fragile(text: str, path: str, **kw: Any) -> parse_file.ParsedEntry:
        if "trigger: boom" in text:  # something in the front matter trips the parser
            raise RuntimeError("the parser tripped")
        if "KABOOM" in text:  # something in the body does
            raise ZeroDivisionError("division by zero")
        return real(text, path, **kw)

    monkeypatch.setattr(parse_file, "parse_entry", fragile)
    root = make_vault(
        tmp_path,
        {
            "fm.md": "---\ntitle: Lost\ntrigger: boom\n---\nline five\n[[GOOD]] on line 6\n",
            "body.md": "KABOOM in the body, findable by aardvark\n",
        },
    )
    with open_index(tmp_path, root) as idx:
        ((kind, severity, message),) = problems(idx)["fm.md"]
        assert (kind, severity) == ("unparsable", "error")
        assert "RuntimeError: the parser tripped" in message
        entry = idx.entry("fm")
        assert entry is not None and entry.properties == {} and entry.title == "fm"
        (back,) = idx.backlinks("GOOD")
        assert back.source.id == "fm" and back.line == 6  # lines as in the file
        ((kind, _, message),) = problems(idx)["body.md"]
        assert kind == "unparsable" and "ZeroDivisionError" in message
        bare = idx.entry("body")
        assert bare is not None and bare.title == "body" and "KABOOM" in bare.body
        assert [h.entry.id for h in idx.search("aardvark")] == ["body"]
        assert_good_still_indexed(idx)


# -- 3: a file name that is not UTF-8 ------------------------------------------------------
def test_escaped_names_are_reversible() -> None:
    for raw in (b"caf\xe9.md", b"100%\xff.md", b"%41\xfe", b"\xc3", b"ok%E9"):
        name = os.fsdecode(raw)
        shown = display_name(name)
        shown.encode("utf-8")  # storable
        if raw == b"ok%E9":  # valid UTF-8: never changed
            assert shown == name
        else:
            assert os.fsencode(fs_path("/r", shown)[3:]) == raw
    assert display_name(os.fsdecode(b"caf\xe9.md")) == "caf%E9.md"
    assert display_name(os.fsdecode(b"100%\xff.md")) == "100%25%FF.md"


@needs_bytes_names
def test_a_file_name_that_is_not_utf8(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    root = make_vault(tmp_path, {"links.md": "[[caf%E9]] and ![[d%FF/pic%FE.png]]"})
    broot = os.fsencode(root)
    with open(os.path.join(broot, b"caf\xe9.md"), "wb") as fh:
        fh.write(b"---\ntitle: Cafe\n---\nthe real file, linking [[GOOD]]\n")
    os.mkdir(os.path.join(broot, b"d\xff"))
    with open(os.path.join(broot, b"d\xff", b"inner\xe9.md"), "wb") as fh:
        fh.write(b"inside the odd folder")
    with open(os.path.join(broot, b"d\xff", b"pic\xfe.png"), "wb") as fh:
        fh.write(b"\x89PNG")
    with open_index(tmp_path, root) as idx:
        ((kind, severity, message),) = problems(idx)["caf%E9.md"]
        assert (kind, severity) == ("file-name", "warning")
        assert message == "file name is not valid UTF-8: indexed as “caf%E9.md”"
        entry = idx.entry("caf%E9")  # opening it reads the real file
        assert entry is not None and entry.title == "Cafe" and "the real file" in entry.body
        assert idx.embed_body("caf%E9") == entry.body
        assert [b.source.id for b in idx.backlinks("GOOD")] == ["caf%E9"]
        assert idx.outgoing("links")[0].target.id == "caf%E9"
        assert "inside the odd folder" in idx.entry("d%FF/inner%E9").body
        assert "d%FF" in problems(idx)  # the folder's name is reported too
        pic = idx.attachment("d%FF/pic%FE.png", "links.md")
        assert pic is not None and pic.read_bytes() == b"\x89PNG"
        assert_good_still_indexed(idx)
    capsys.readouterr()
    assert cli.main(["show", "caf%E9", str(root), "--db", str(tmp_path / "index.sqlite")]) == 0
    assert "caf%E9 — Cafe" in capsys.readouterr().out


@needs_bytes_names
def test_an_escaped_name_another_file_already_has(tmp_path: Path) -> None:
    root = make_vault(tmp_path, {"caf%E9.md": "the literal name"})
    with open(os.path.join(os.fsencode(root), b"caf\xe9.md"), "wb") as fh:
        fh.write(b"the undecodable name")
    with open_index(tmp_path, root) as idx:
        (found,) = problems(idx)["caf%E9.md"]
        assert found[0] == "file-name" and "not indexed" in found[2]
        assert idx.entry("caf%E9").body == "the literal name"


# -- 6: nothing outside the vault is read --------------------------------------------------
def outside_files(tmp_path: Path) -> Path:
    out = tmp_path / "outside"
    out.mkdir()
    (out / "secret.md").write_text("zanzibar secret outside the vault")
    (out / "photo.png").write_bytes(b"\x89PNG outside")
    return out


def test_symlinks_that_leave_the_vault_are_not_read(tmp_path: Path) -> None:
    out = outside_files(tmp_path)
    root = make_vault(
        tmp_path,
        {"sub/note.md": "zanzibar inside", "img/a.png": b"png", ".stash/n.md": "zanzibar too"},
    )
    os.symlink(out / "secret.md", root / "leak.md")
    os.symlink(out, root / "leakdir")
    os.symlink(out / "photo.png", root / "photo.png")
    os.symlink("../outside/secret.md", root / "relative.md")
    if os.path.exists("/etc/passwd"):
        os.symlink("/etc/passwd", root / "passwd.md")
    os.symlink(root / "sub" / "note.md", root / "alias.md")  # inside: still works
    os.symlink(root / ".stash", root / "stash")  # a hidden folder, shown through a link
    with open_index(tmp_path, root) as idx:
        for path in ("leak.md", "leakdir", "photo.png", "relative.md"):
            assert problems(idx)[path] == [
                ("outside-vault", "warning", "symbolic link leads outside the vault; not read")
            ]
        if os.path.exists("/etc/passwd"):
            assert kinds(idx, "passwd.md") == ["outside-vault"]
            assert idx.entry("passwd") is None
        found = sorted(h.entry.id for h in idx.search("zanzibar"))
        assert found == ["alias", "stash/n", "sub/note"]
        assert idx.entry("leak") is None and idx.entry("leakdir/secret") is None
        assert idx.attachment("photo.png", "good.md") is None
        assert idx.attachment("img/a.png", "good.md") is not None
        assert idx.entry("alias").body == "zanzibar inside"
        assert_good_still_indexed(idx)


def test_an_entry_swapped_for_a_link_out_is_not_read_when_opened(tmp_path: Path) -> None:
    out = outside_files(tmp_path)
    (out / "sub").mkdir()
    (out / "sub" / "note.md").write_text("zanzibar behind a folder link")
    root = make_vault(tmp_path, {"swap.md": "first", "sub/note.md": "inside"})
    with open_index(tmp_path, root) as idx:
        (root / "swap.md").unlink()
        os.symlink(out / "secret.md", root / "swap.md")
        (root / "sub" / "note.md").unlink()
        (root / "sub").rmdir()
        os.symlink(out / "sub", root / "sub")  # a folder on the way now leads out
        assert idx.entry("swap").body == ""
        assert idx.embed_body("swap") is None
        assert "zanzibar" not in idx.entry("sub/note").body
        assert idx.embed_body("sub/note") is None
        idx.refresh()
        assert idx.entry("swap") is None and idx.entry("sub/note") is None
        assert kinds(idx, "swap.md") == ["outside-vault"] and kinds(idx, "sub") == ["outside-vault"]


def test_open_regular_refuses_the_outside_and_what_is_not_a_file(tmp_path: Path) -> None:
    out = outside_files(tmp_path)
    root = make_vault(tmp_path)
    os.symlink(out / "secret.md", root / "leak.md")
    os.symlink(out, root / "leakdir")
    (root / "folder.md").mkdir()
    real = str(root.resolve())
    for rel in ("leak.md", "leakdir/secret.md"):
        with pytest.raises(OutsideVault):
            open_regular(real, rel)
    with pytest.raises(OSError):  # a folder: IsADirectoryError
        open_regular(real, "folder.md")
    fh, st = open_regular(real, "good.md")
    with fh:
        assert fh.read() == GOOD.encode() and st.st_size == len(GOOD)
    os.symlink(root, tmp_path / "vault-link")  # a root given by a link to it still works
    fh, _ = open_regular(tmp_path / "vault-link", "good.md")
    fh.close()


# -- 9: deep folders -----------------------------------------------------------------------
def remove_tree(top: str) -> None:
    """Delete a folder tree without recursion: ``shutil.rmtree`` (and so pytest's clean-up
    of old temporary folders, in any later session) dies of RecursionError 1,000 deep."""
    stack = [top]
    while stack:
        folder = stack[-1]
        subfolders = []
        for item in os.scandir(folder):
            if item.is_dir(follow_symlinks=False):
                subfolders.append(item.path)
            else:
                os.unlink(item.path)
        if subfolders:
            stack.extend(subfolders)
        else:
            os.rmdir(folder)
            stack.pop()


@pytest.fixture
def nested_folders(tmp_path: Path) -> Iterator[Callable[[Path, int], Path]]:
    """Makes ``root/d/d/…/d``, ``depth`` folders deep (``Path.mkdir(parents=True)``
    recurses), and deletes the tests' whole folder after."""

    def make(root: Path, depth: int) -> Path:
        path = str(root)
        for _ in range(depth):
            path = os.path.join(path, "d")
            os.mkdir(path)
        return Path(path)

    yield make
    remove_tree(str(tmp_path))


def test_a_thousand_nested_folders(
    tmp_path: Path, nested_folders: Callable[[Path, int], Path]
) -> None:
    root = make_vault(tmp_path)
    deep = nested_folders(root, 1000)
    (deep / "bottom.md").write_text("at the bottom [[GOOD]]")
    with open_index(tmp_path, root) as idx:
        bottom = "/".join(["d"] * 1000) + "/bottom"
        assert "at the bottom" in idx.entry(bottom).body
        assert [b.source.id for b in idx.backlinks("GOOD")] == [bottom]


def test_a_path_too_long_for_the_system_is_a_problem(tmp_path: Path) -> None:
    root = make_vault(tmp_path)
    # Made through folder descriptors: no path this long can be named to mkdir.
    fd = os.open(root, os.O_RDONLY)
    try:
        for _ in range(25):
            os.mkdir("n" * 200, dir_fd=fd)
            new = os.open("n" * 200, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = new
        note = os.open("deep.md", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(note, b"too deep")
        os.close(note)
    finally:
        os.close(fd)
    with open_index(tmp_path, root) as idx:
        found = [(path, kind, message) for path, rows in problems(idx).items()
                 for kind, _, message in rows]  # fmt: skip
        assert found and all(kind == "unreadable" for _, kind, _ in found)
        assert any("too long" in message for _, _, message in found)
        assert_good_still_indexed(idx)


def test_the_scan_keeps_its_order(tmp_path: Path) -> None:
    root = make_vault(tmp_path, {n: "x" for n in ("b/x.md", "b.md", "a.md", "B.md", "c/d/e.md",
                                                  "c/a.md", "c.md", "b/a/z.md")})  # fmt: skip
    got = [s.path for s in scan_vault(root.resolve()).entries]
    assert got == ["B.md", "a.md", "b/a/z.md", "b/x.md", "b.md", "c/a.md", "c/d/e.md",
                   "c.md", "good.md"]  # fmt: skip


# -- 14: only what is shown is read --------------------------------------------------------
def test_a_huge_entry_is_read_only_as_far_as_it_is_shown(tmp_path: Path) -> None:
    line = "lorem ipsum dolor sit amet, a line of a huge log\n"
    big = "---\nid: BIG\ntitle: Big\n---\n[[GOOD]] at the top\n" + line * (50_000_000 // len(line))
    root = make_vault(tmp_path, {"big.md": big})
    with open_index(tmp_path, root) as idx:
        tracemalloc.start()
        try:
            entry = idx.entry("BIG")
            embedded = idx.embed_body("BIG")
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert peak < 8 * 1024 * 1024  # 50 MB read whole would be over 100 MB
        assert entry is not None and entry.title == "Big" and entry.body_line == 5
        assert entry.body.startswith("[[GOOD]] at the top\n")
        assert len(entry.body) == SHOWN_BODY_CHARS and embedded == entry.body
        assert 49_000_000 < entry.body_chars <= len(big)
        from anthology.vault.render import render_entry

        page = render_entry(entry, idx, vault_root=idx.root)
        assert "This entry is 50.0 million characters long" in page.html


def test_a_small_entry_is_read_whole(tmp_path: Path) -> None:
    text = "---\ntitle: Small\n---\n" + "é" * (SHOWN_BODY_CHARS - 5)
    root = make_vault(tmp_path, {"small.md": text})
    with open_index(tmp_path, root) as idx:
        entry = idx.entry("small")
        assert entry.body == "é" * (SHOWN_BODY_CHARS - 5) and entry.body_chars is None


def test_front_matter_longer_than_a_read_is_split_at_its_own_fence(tmp_path: Path) -> None:
    """The shown body is read in 256 KB parts; each part is searched for the closing fence
    once (issue 28: 100k front-matter keys, every part searched again from the start), and
    a ``---`` rule in the body is never taken for it."""
    from anthology.vault.files import read_shown_body

    keys = "".join(f"k{i}: {i}\n" for i in range(60_000))  # ~0.6 MB: three parts
    body = "Top line.\n\n---\n\nUnder a rule.\n" + "more text\n" * 30_000
    (tmp_path / "legal.md").write_text(f"---\n{keys}---\n{body}", encoding="utf-8")
    shown = read_shown_body(tmp_path, "legal.md")
    assert shown is not None
    assert shown.body.startswith("Top line.\n\n---\n\nUnder a rule.")
    assert shown.body_line == 60_003
    closes_at_part_end = "---\n" + "x: 1\n" * (256 * 1024 // 5 - 1)  # the fence cut by a read
    (tmp_path / "cut.md").write_text(f"{closes_at_part_end}---\nBody.\n", encoding="utf-8")
    shown = read_shown_body(tmp_path, "cut.md")
    assert shown is not None and shown.body == "Body.\n"


# -- 15: a long file without a newline -----------------------------------------------------
def test_a_large_file_without_newlines_is_cut_at_a_character(tmp_path: Path) -> None:
    root = make_vault(tmp_path, {"wide.md": "[[GOOD]] " + "é" * 1_500_000})
    with open_index(tmp_path, root) as idx:
        assert kinds(idx, "wide.md") == ["too-large"]  # not "not valid UTF-8"
        assert [b.source.id for b in idx.backlinks("GOOD")] == ["wide"]


def test_utf8_cut() -> None:
    for text in ("abc", "é", "日本", "😀x", "a😀"):
        data = text.encode()
        for n in range(len(data) + 1):
            cut = utf8_cut(data[:n])
            assert data.startswith(cut) and len(data[:n]) - len(cut) <= 3
            cut.decode("utf-8")  # whole characters only
            assert len(cut) >= len(data[:n].decode("utf-8", "ignore").encode())


# -- 16: never open anything but regular files ---------------------------------------------
@needs_fifo
def test_fifos_and_devices_are_reported_not_read(tmp_path: Path) -> None:
    root = make_vault(tmp_path, {"sub/x.md": "x"})
    os.mkfifo(root / "pipe.md")
    os.mkfifo(root / "pipe.png")
    os.symlink(root / "pipe.md", root / "to-pipe.md")
    if os.path.exists("/dev/zero"):
        os.symlink("/dev/zero", root / "zero.md")
    with no_hang(lambda: open_index(tmp_path, root)) as idx:
        assert problems(idx)["pipe.md"] == [
            ("not-regular", "error", "not a regular file (a named pipe); not read")
        ]
        assert problems(idx)["to-pipe.md"] == problems(idx)["pipe.md"]
        assert kinds(idx, "pipe.png") == ["not-regular"]
        if os.path.exists("/dev/zero"):
            assert kinds(idx, "zero.md") == ["outside-vault"]
        assert idx.entry("pipe") is None
        assert_good_still_indexed(idx)


@needs_fifo
def test_an_entry_swapped_for_a_fifo_does_not_block(tmp_path: Path) -> None:
    root = make_vault(tmp_path, {"swap.md": "a note [[GOOD]]"})
    with open_index(tmp_path, root) as idx:
        (root / "swap.md").unlink()
        os.mkfifo(root / "swap.md")
        assert no_hang(lambda: idx.entry("swap")).body == ""
        assert no_hang(lambda: idx.embed_body("swap")) is None
        with pytest.raises(NotRegularFile, match="named pipe"):
            no_hang(lambda: open_regular(idx.root, "swap.md"))
        # Swapped between the scan and the read: a problem, not a hang.
        real_scan = indexer.scan_vault

        def scan_then_swap(root_: Path) -> scan.ScanResult:
            result = real_scan(root_)
            (root / "swap.md").unlink()
            os.mkfifo(root / "swap.md")
            return result

        (root / "swap.md").unlink()
        (root / "swap.md").write_text("a note again, and longer")  # to be read again
        indexer.scan_vault = scan_then_swap  # type: ignore[assignment]
        try:
            no_hang(idx.refresh)
        finally:
            indexer.scan_vault = real_scan  # type: ignore[assignment]
        assert "named pipe" in " ".join(m for _, _, m in problems(idx)["swap.md"])
        assert idx.entry("swap") is None
        assert_good_still_indexed(idx)


# -- 18: names that break a line or look alike ---------------------------------------------
def test_nfc_and_nfd_twins_are_reported(tmp_path: Path) -> None:
    nfc = unicodedata.normalize("NFC", "Café.md")
    nfd = unicodedata.normalize("NFD", "Café.md")
    root = make_vault(tmp_path, {nfc: "composed", nfd: "decomposed", "Crème/a.md": "plain"})
    names = os.listdir(root)
    if nfc not in names or nfd not in names:
        pytest.skip("this file system normalizes names")
    with open_index(tmp_path, root) as idx:
        for path in (nfc, nfd):
            ((kind, severity, message),) = problems(idx)[path]
            assert (kind, severity) == ("normalization-twin", "warning")
            assert "normalization" in message
        assert idx.entry(nfc[:-3]).body == "composed" and idx.entry(nfd[:-3]).body == "decomposed"
        assert "Crème/a.md" not in problems(idx)
        idx.refresh()  # reported once, not again on each refresh
        assert len(problems(idx)[nfc]) == 1


def hostile_vault(tmp_path: Path, nested_folders: Callable[[Path, int], Path]) -> Path:
    """A vault holding every hostile file above at once."""
    out = outside_files(tmp_path)
    files: dict[str, bytes | str] = {
        f"fm{i}.md": f"---\n{v}\n---\nbody {i}\n" for i, v in enumerate(BAD_VALUES)
    }
    files |= {
        "two\nlines.md": "a newline in the name",
        "esc\x1b[31mred.md": "an escape sequence in the name",
        "tab\there.md": "[[nowhere\x1b]]",
        unicodedata.normalize("NFC", "Café.md"): "composed",
        unicodedata.normalize("NFD", "Café.md"): "decomposed",
        "wide.md": "é" * 1_200_000,
    }
    root = make_vault(tmp_path, files)
    if os.name == "posix":
        with open(os.path.join(os.fsencode(root), b"caf\xe9.md"), "wb") as fh:
            fh.write(b"not UTF-8 in the name")
    os.symlink(out / "secret.md", root / "leak.md")
    if hasattr(os, "mkfifo"):
        os.mkfifo(root / "pipe.md")
    nested_folders(root, 1000)
    return root


def test_check_and_index_exit_normally_on_a_hostile_vault(
    tmp_path: Path, capsys: pytest.CaptureFixture, nested_folders: Callable[[Path, int], Path]
) -> None:
    root = hostile_vault(tmp_path, nested_folders)
    db = str(tmp_path / "index.sqlite")
    assert no_hang(lambda: cli.main(["index", str(root), "--db", db])) == 0
    assert "Indexed" in capsys.readouterr().out
    assert no_hang(lambda: cli.main(["check", str(root), "--db", db])) == 1  # errors found
    out = capsys.readouterr().out
    assert "\x1b" not in out
    lines = out.splitlines()
    assert lines[-2].endswith(" info") and "errors" in lines[-2]
    assert lines[-1].startswith("By kind: ")
    for line in lines[:-2]:  # one line per problem: path: severity: kind: message
        assert line.split(": ")[1] in ("error", "warning", "info"), line
    assert any(line.startswith("two\\nlines.md: ") for line in lines)
    assert any(line.startswith("esc\\x1b[31mred.md: ") for line in lines)
    assert any("tab\\there.md" in line and "nowhere\\x1b" in line for line in lines)
    assert sum(": normalization-twin: " in line for line in lines) == 2
    assert any("leak.md: warning: outside-vault" in line for line in lines)
    if hasattr(os, "mkfifo"):
        assert any("pipe.md: error: not-regular" in line for line in lines)
    if os.name == "posix":
        assert any(line.startswith("caf%E9.md: warning: file-name: ") for line in lines)
    assert sum(": front-matter: " in line for line in lines) == len(BAD_VALUES)
    assert no_hang(lambda: cli.main(["check", str(root), "--db", db, "--json"])) == 1
    capsys.readouterr()
