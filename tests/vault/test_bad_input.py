"""Bad input gets a clear problem row; the rest of the vault is indexed; nothing raises."""

from __future__ import annotations

import os
import sqlite3
import tracemalloc
from pathlib import Path

import pytest

from anthology.tasks import TaskState
from anthology.vault import files
from anthology.vault.index import VaultIndex
from anthology.vault.scan import VaultError

GOOD = "---\nid: GOOD\n---\nA good entry linking [[GOOD]].\n"


def index_with(tmp_path: Path, files: dict[str, bytes | str]) -> VaultIndex:
    root = tmp_path / "v"
    root.mkdir(exist_ok=True)
    (root / "good.md").write_text(GOOD, encoding="utf-8")
    for rel, data in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return VaultIndex.open(root, tmp_path / "index.sqlite")


def problems(index: VaultIndex) -> dict[str, list[tuple[str, str]]]:
    out: dict[str, list[tuple[str, str]]] = {}
    for p in index.problems():
        if p.kind != "orphan":
            out.setdefault(p.path, []).append((p.kind, p.message))
    return out


def assert_good_still_indexed(index: VaultIndex) -> None:
    assert index.entry("GOOD") is not None


def test_yaml_that_does_not_parse(tmp_path: Path) -> None:
    with index_with(tmp_path, {"bad.md": "---\ntitle: [unclosed\n---\nBody [[GOOD]]\n"}) as idx:
        ((kind, message),) = problems(idx)["bad.md"]
        assert kind == "front-matter" and "not valid YAML" in message
        entry = idx.entry("bad")  # still readable, with its body and links
        assert entry is not None and "Body" in entry.body
        assert [b.source.id for b in idx.backlinks("GOOD")] == ["bad"]
        assert_good_still_indexed(idx)


@pytest.mark.parametrize("front", ["- a\n- b", "just a string", "42"])
def test_front_matter_that_is_a_list_or_a_scalar(tmp_path: Path, front: str) -> None:
    with index_with(tmp_path, {"odd.md": f"---\n{front}\n---\nbody\n"}) as idx:
        ((kind, message),) = problems(idx)["odd.md"]
        assert kind == "front-matter" and "not a set of properties" in message
        assert idx.entry("odd").properties == {}


def test_yaml_alias_bomb_is_refused_in_bounded_time_and_memory(tmp_path: Path) -> None:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 10):
        prev, cur = chr(ord("a") + i - 1), chr(ord("a") + i)
        lines.append(f"{cur}: &{cur} [{','.join(['*' + prev] * 9)}]")
    bomb = "---\n" + "\n".join(lines) + "\n---\nbody\n"
    tracemalloc.start()
    with index_with(tmp_path, {"bomb.md": bomb}) as idx:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        ((kind, message),) = problems(idx)["bomb.md"]
        assert kind == "front-matter" and ("alias" in message or "too many" in message)
        assert idx.entry("bomb").properties == {}
        assert_good_still_indexed(idx)
    assert peak < 50 * 1024 * 1024  # 9^10 strings would need gigabytes


def test_a_file_that_is_not_utf8(tmp_path: Path) -> None:
    latin1 = "---\ntitle: Café\n---\nnaïve [[GOOD]]\n".encode("latin-1")
    with index_with(tmp_path, {"latin.md": latin1}) as idx:
        ((kind, message),) = problems(idx)["latin.md"]
        assert kind == "encoding" and "UTF-8" in message
        entry = idx.entry("latin")
        assert entry is not None and "\ufffd" in entry.title
        assert [b.source.id for b in idx.backlinks("GOOD")] == ["latin"]


def test_a_binary_file_named_md(tmp_path: Path) -> None:
    with index_with(tmp_path, {"image.md": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 50}) as idx:
        ((kind, _),) = problems(idx)["image.md"]
        assert kind == "binary"
        assert idx.entry("image") is None
        assert_good_still_indexed(idx)


def test_an_empty_file(tmp_path: Path) -> None:
    with index_with(tmp_path, {"empty.md": b""}) as idx:
        assert ("empty", "the file is empty") in problems(idx)["empty.md"]
        entry = idx.entry("empty")
        assert entry is not None and entry.title == "empty" and entry.body == ""


def test_a_20_mb_file_is_indexed_in_part(tmp_path: Path) -> None:
    big = "---\nid: BIG\n---\n[[GOOD]] at the top\n" + ("lorem ipsum dolor sit amet\n" * 780_000)
    assert len(big) > 20_000_000
    with index_with(tmp_path, {"big.md": big}) as idx:
        kinds = [k for k, _ in problems(idx)["big.md"]]
        assert kinds == ["too-large"]
        assert idx.entry("BIG") is not None
        assert [b.source.id for b in idx.backlinks("GOOD")] == ["BIG"]


def test_a_note_of_200k_links_on_one_line_keeps_the_links_of_its_head(tmp_path: Path) -> None:
    """Over the size limit and written on one line: cut at a space near the limit, not at
    the last line end (which kept the title alone, and none of the links)."""
    files = {f"notes/Note {i}.md": f"# Note {i}\n" for i in range(50)}
    files["Many links.md"] = "# Many links\n\n" + " ".join(
        f"[[Note {i % 50}|{i}]]" for i in range(200_000)
    )
    assert len(files["Many links.md"]) > 3_000_000
    with index_with(tmp_path, files) as idx:
        assert [k for k, _ in problems(idx)["Many links.md"]] == ["too-large"]
        assert {b.source.id for b in idx.backlinks("notes/Note 49")} == {"Many links"}
        with sqlite3.connect(tmp_path / "index.sqlite") as db:
            written = db.execute(
                "SELECT count(*) FROM links WHERE source = (SELECT eid FROM entries WHERE id = ?)",
                ("Many links",),
            ).fetchone()[0]
        assert 100_000 < written < 200_000  # those in the head: ~2 MiB of the ~3.7


def test_a_symlink_loop(tmp_path: Path) -> None:
    root = tmp_path / "v"
    (root / "sub").mkdir(parents=True)
    os.symlink(root, root / "sub" / "loop")
    with index_with(tmp_path, {"sub/note.md": "in sub"}) as idx:
        assert ("symlink-loop", "folder link loops back; not followed") in problems(idx)["sub/loop"]
        assert idx.entry("sub/note") is not None
        assert idx.stats()["entries"] == 2  # not indexed again through the loop


def test_an_unreadable_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "v"
    root.mkdir()
    (root / "secret.md").write_text("hidden")
    real_open = open

    def deny(path, *args, **kwargs):  # root may read any file, so deny it by hand
        if str(path).endswith("secret.md"):
            raise PermissionError(13, "Permission denied")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(files, "open", deny, raising=False)
    with index_with(tmp_path, {}) as idx:
        ((kind, message),) = problems(idx)["secret.md"]
        assert kind == "unreadable" and "Permission denied" in message
        assert_good_still_indexed(idx)


def test_a_note_made_unreadable_later_is_reported_and_comes_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """chmod 000 leaves the mtime and size as they were: the refresh must still read the
    note again and report it, and read it again once it is readable."""
    with index_with(tmp_path, {"later.md": "# Later\n\nSee [[GOOD]].\n"}) as idx:
        assert idx.entry("later") is not None and "later.md" not in problems(idx)
    note = tmp_path / "v" / "later.md"
    stamp = note.stat()
    note.chmod(0)  # what the reader does; as root it does not stop reading, so:
    if os.access(note, os.R_OK):  # as root
        real_open = open

        def deny(path, *args, **kwargs):  # what the kernel does for anyone else
            if str(path).endswith("later.md") and not os.stat(path).st_mode & 0o444:
                raise PermissionError(13, "Permission denied")
            return real_open(path, *args, **kwargs)

        monkeypatch.setattr(files, "open", deny, raising=False)
    try:
        after = note.stat()
        assert (after.st_size, after.st_mtime_ns) == (stamp.st_size, stamp.st_mtime_ns)
        with VaultIndex.open(tmp_path / "v", tmp_path / "index.sqlite") as idx:
            # before: nothing to see: the note was not read again (same size and mtime)
            ((kind, message),) = problems(idx)["later.md"]
            assert kind == "unreadable" and "Permission denied" in message
            assert idx.entry("later") is None
            assert_good_still_indexed(idx)
    finally:
        note.chmod(0o644)
    with VaultIndex.open(tmp_path / "v", tmp_path / "index.sqlite") as idx:
        assert idx.entry("later") is not None and "later.md" not in problems(idx)


def test_a_folder_named_like_an_entry_is_walked_not_read(tmp_path: Path) -> None:
    with index_with(tmp_path, {"odd.md/inner.md": "inside"}) as idx:
        assert idx.entry("odd.md/inner") is not None


def test_a_file_deleted_between_scan_and_read(tmp_path: Path) -> None:
    root = tmp_path / "v"
    root.mkdir()
    doomed = root / "doomed.md"
    doomed.write_text("soon gone")
    (root / "good.md").write_text(GOOD)

    def report(done: int, total: int, stage: str) -> None:
        if stage == "scanning":
            doomed.unlink(missing_ok=True)  # the scan has seen it; the read will not

    with VaultIndex.open(root, tmp_path / "i.sqlite", task=TaskState(on_progress=report)) as idx:
        ((kind, _),) = problems(idx)["doomed.md"]
        assert kind == "vanished"
        assert idx.entry("doomed") is None
        assert_good_still_indexed(idx)


def test_a_vault_path_that_does_not_exist(tmp_path: Path) -> None:
    with pytest.raises(VaultError, match="vault folder not found"):
        VaultIndex.open(tmp_path / "nowhere", tmp_path / "i.sqlite")


def test_names_with_spaces_and_non_ascii(tmp_path: Path) -> None:
    files = {
        "Ünïcödé notes/Café au lait.md": "Links to [[日本語のノート]] and [x](../v/good.md)",
        "日本語のノート.md": "[[Café au lait]]",
    }
    with index_with(tmp_path, files) as idx:
        assert idx.entry("Ünïcödé notes/Café au lait") is not None
        targets = {o.text: o.target for o in idx.outgoing("Ünïcödé notes/Café au lait")}
        assert targets["日本語のノート"].id == "日本語のノート"
        back = idx.backlinks("Ünïcödé notes/Café au lait")
        assert [b.source.id for b in back] == ["日本語のノート"]


def test_a_link_out_of_the_vault(tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("not part of the vault")
    with index_with(
        tmp_path, {"deep/er/x.md": "[o](../../../outside.md) [[../../../outside]]"}
    ) as idx:
        kinds = [k for k, _ in problems(idx)["deep/er/x.md"]]
        assert kinds == ["outside-link", "outside-link"]
        assert all(o.target is None for o in idx.outgoing("deep/er/x"))
        assert idx.embed_body("../outside") is None


def test_duplicate_ids_are_reported_and_both_stay_readable(tmp_path: Path) -> None:
    files = {"a/one.md": "---\nid: SAME\ntitle: First\n---\n", "b/two.md": "---\nid: SAME\n---\n"}
    with index_with(tmp_path, files) as idx:
        ((kind, message),) = problems(idx)["b/two.md"]
        assert kind == "duplicate-id" and "a/one.md" in message
        assert idx.entry("SAME").title == "First"
        assert idx.entry("b/two") is not None


def test_ambiguous_links_resolve_deterministically_and_are_reported(tmp_path: Path) -> None:
    files = {
        "x/Note.md": "in x",
        "y/deeper/Note.md": "in y",
        "y/from.md": "[[Note]]",
        "z/from.md": "[[Note]]",
    }
    with index_with(tmp_path, files) as idx:
        # Same folder first is not possible for y/from (the Note is deeper): shortest path wins.
        assert idx.outgoing("y/from")[0].target.id == "x/Note"
        assert idx.outgoing("z/from")[0].target.id == "x/Note"
        kinds = [k for k, _ in problems(idx)["z/from.md"]]
        assert kinds == ["ambiguous-link"]
