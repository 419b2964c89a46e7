"""The CLI as a user runs it: the real entry point, a real vault, real output."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import networkx as nx
import pytest

from anthology.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_index_prints_counts_and_time(capsys, vault: Path, db_path: Path) -> None:
    code, out, _ = run(capsys, "index", str(vault), "--db", str(db_path))
    assert code == 0
    assert "Indexed 6 entries" in out and " s" in out
    code, out, _ = run(capsys, "index", str(vault), "--db", str(db_path))
    assert "6 unchanged" in out


def test_check_reports_problems_with_kind_severity_and_summary(
    capsys, vault: Path, db_path: Path
) -> None:
    # An unresolved link is a note not yet written (Obsidian shows it as normal): a
    # warning, so a vault with no error passes.
    code, out, _ = run(capsys, "check", str(vault), "--db", str(db_path))
    assert code == 0
    assert "practices/SOTA-050.md:9: warning: unresolved-link" in out
    lines = out.splitlines()
    assert lines[-2].startswith("0 errors, ") and lines[-2].endswith(" info")
    assert lines[-1].startswith("By kind: ") and "unresolved-link " in lines[-1]
    code, out, _ = run(capsys, "check", str(vault), "--db", str(db_path), "--json")
    data = json.loads(out)
    findings = data["problems"]
    assert {"path", "line", "kind", "message", "severity"} <= set(findings[0])
    assert any(f["kind"] == "unresolved-link" for f in findings)
    summary = data["summary"]
    assert set(summary["by_severity"]) == {"error", "warning", "info"}
    assert summary["by_kind"]["unresolved-link"] == sum(
        f["kind"] == "unresolved-link" for f in findings
    )
    assert sum(summary["by_severity"].values()) == sum(summary["by_kind"].values())


def test_check_exits_1_on_an_error(capsys, tmp_path: Path) -> None:
    (tmp_path / "v").mkdir()
    (tmp_path / "v" / "HOME.md").write_text("---\ntitle: [unclosed\n---\n[[a]]\n")
    (tmp_path / "v" / "a.md").write_text("[[HOME]]")
    code, out, _ = run(capsys, "check", str(tmp_path / "v"), "--db", str(tmp_path / "i.db"))
    assert code == 1
    assert "HOME.md:3: error: front-matter: " in out
    assert out.splitlines()[-1] == "By kind: front-matter 1"


def test_check_passes_on_a_clean_vault(capsys, tmp_path: Path) -> None:
    (tmp_path / "v").mkdir()
    (tmp_path / "v" / "HOME.md").write_text("[[a]]")
    (tmp_path / "v" / "a.md").write_text("[[HOME]]")
    code, out, _ = run(capsys, "check", str(tmp_path / "v"), "--db", str(tmp_path / "i.db"))
    assert code == 0 and "0 errors, 0 warnings" in out


def test_export_json_has_the_documented_shape(capsys, vault: Path, db_path: Path) -> None:
    _code, out, _ = run(capsys, "export", str(vault), "--db", str(db_path), "--format", "json")
    data = json.loads(out)
    assert set(data) == {"entries", "links", "problems"}
    lit = next(e for e in data["entries"] if e["id"] == "LIT-008")
    assert set(lit) == {"id", "path", "title", "kind", "tags", "aliases", "properties"}
    assert lit["path"] == "papers/LIT-008.md" and lit["kind"] == "literature"
    link = next(
        lk for lk in data["links"] if lk["source"] == "SOTA-050" and lk["relation"] == "source"
    )
    assert link == {"source": "SOTA-050", "target": "LIT-008", "text": "LIT-008",
                    "relation": "source", "embed": False, "line": 6, "alias": None,
                    "heading": None, "block": None, "attachment": None, "status": "resolved",
                    "markdown": False}  # fmt: skip
    assert any(lk["target"] is None and lk["text"] == "Missing Entry" for lk in data["links"])
    assert {"path", "line", "kind", "message"} <= set(data["problems"][0])


def test_export_json_tells_alias_heading_block_and_attachment(capsys, tmp_path: Path) -> None:
    vault = Path(__file__).parent / "vaults" / "obsidian-rules"
    db = str(tmp_path / "i.db")
    _code, out, _ = run(capsys, "export", str(vault), "--db", db, "--format", "json")
    data = json.loads(out)
    target = next(e for e in data["entries"] if e["path"] == "report/Report target.md")
    assert target["aliases"] == ["Target of reports", "RT"]
    links = {lk["line"]: lk for lk in data["links"] if lk["source"] == "report/Report checks"}
    assert links[7]["heading"] == "Real heading" and links[7]["block"] is None
    assert links[7]["target"] == "report/Report target" and links[7]["status"] == "resolved"
    assert links[11]["block"] == "para-1" and links[11]["heading"] is None
    assert links[13]["attachment"] == "report/attachments/diagram 1.png"
    assert links[13]["target"] is None and links[13]["embed"] is True
    assert links[13]["status"] == "attachment"
    assert links[14]["attachment"] is None and links[14]["status"] == "missing-attachment"
    assert links[6]["attachment"] is None and links[6]["status"] == "unresolved"
    aliased = [lk for lk in data["links"]
               if lk["source"] == "report/Report checks" and lk["line"] == 15]  # fmt: skip
    assert [(lk["alias"], lk["heading"]) for lk in aliased] == [
        ("shown text", None),
        ("heading alias", "Real heading"),
    ]


def test_export_graphml_opens_in_networkx(capsys, vault: Path, db_path: Path, tmp_path) -> None:
    out_file = tmp_path / "graph.graphml"
    code, _, _ = run(capsys, "export", str(vault), "--db", str(db_path), "--format", "graphml",
                     "--out", str(out_file))  # fmt: skip
    assert code == 0
    ET.parse(out_file)  # well-formed XML
    g = nx.read_graphml(out_file)
    assert g.nodes["LIT-008"]["title"] == "Attention Is All You Need"
    relations = {d["relation"] for _, _, d in g.edges(data=True)}
    assert {"introduced by", "source", "paper", "compared against", "mentions"} <= relations


def test_search_and_show(capsys, vault: Path, db_path: Path) -> None:
    code, out, _ = run(capsys, "search", "primer", str(vault), "--db", str(db_path))
    assert code == 0 and out.startswith("LIT-709 — Primer") and "[Primer]" in out
    code, out, _ = run(capsys, "search", "kind:note", str(vault), "--db", str(db_path), "--json")
    assert [h["id"] for h in json.loads(out)] == ["NOTE-011"]
    code, out, _ = run(capsys, "show", "LIT-008", str(vault), "--db", str(db_path))
    assert "Cited as “introduced by” by SOTA-050 — Scale attention weights" in out
    assert "Cited as “paper” by NOTE-011 — Attention Is All You Need" in out
    code, out, _ = run(capsys, "show", "LIT-008", str(vault), "--db", str(db_path), "--json")
    data = json.loads(out)
    assert [r["relation"] for r in data["cited_by"]] == ["introduced by", "paper", "source"]
    assert len(data["backlinks"]) >= 4 and data["outgoing"]
    code, _, err = run(capsys, "show", "NOPE", str(vault), "--db", str(db_path))
    assert code == 1 and "no entry" in err


def test_a_missing_vault_is_a_clear_message(capsys, tmp_path: Path) -> None:
    code, _out, err = run(capsys, "check", str(tmp_path / "missing"))
    assert code == 2 and "vault folder not found" in err and "Traceback" not in err


def test_the_bundled_anthology_is_the_default_vault(capsys, tmp_path: Path) -> None:
    code, out, _ = run(capsys, "show", "LIT-008", "--db", str(tmp_path / "i.db"))
    assert code == 0 and "LIT-008 — Attention Is All You Need" in out
