"""``anthology export VAULT --entry ID --format html|pdf --out FILE`` (issue 31, item 7): one
entry as File › Export as HTML / PDF writes it, from a script. The HTML is self-contained
(every picture the render made, whatever its kind, inside the file; nothing it refers to
outside it); the PDF is the pane's page, drawn by a QApplication the command starts
offscreen itself; a wrong entry, format or target is one line and a non-zero exit."""

from __future__ import annotations

import base64
import os
import re
import subprocess
import sys
from html import unescape
from pathlib import Path

import pytest

from anthology.cli import main
from anthology.vault.render import blocks, clear_render_cache
from sample_vault import write_vault

ROOT = Path(__file__).resolve().parents[1]
# a 1×1 PNG (red): a diagram as another helper's renderer would hand it over
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
)
NOTES = {
    "Reading/Figures and sound.md": (
        "# Figures and sound\n\nThe energy is $E = mc^2$, as [[Other note]] says.\n\n"
        "![[attachments/red dot.png]]\n\n"
        "> [!tip] Listen\n> The keynote, in full:\n\n![[keynote.wav]]\n\n"
        "```testdiagram\nA --> B\n```\n\n"
        "```testdrawing\nsketch\n```\n\n"
        "Closing words of the entry.\n"
    ),
    "Other note.md": "# Other note\n\nBack to [[Figures and sound]].\n",
}


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    import wave

    root = write_vault(tmp_path / "vault", NOTES)
    (root / "attachments").mkdir()
    (root / "attachments" / "red dot.png").write_bytes(PNG)
    with wave.open(str(root / "keynote.wav"), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(8000)
        w.writeframes(b"\x00\x00" * 8000 * 75)  # 1:15
    return root


@pytest.fixture
def helpers_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two fenced kinds as other helpers add them: each renders to a picture it puts in
    ``ctx.resources`` under a key of its own scheme (a PNG; an SVG with a script)."""

    def diagram(ctx, _lang: str, code: str) -> str:
        ctx.resources["diagram:1"] = PNG
        return f'<p><img src="diagram:1" alt="{code.strip()}" /></p>'

    def drawing(ctx, _lang: str, _code: str) -> str:
        ctx.resources["drawing:1"] = (
            b'<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10">'
            b'<script>alert(1)</script><rect width="20" height="10" fill="blue"/></svg>'
        )
        return '<p><img src="drawing:1" alt="a sketch" /></p>'

    monkeypatch.setitem(blocks.FENCED, "testdiagram", diagram)
    monkeypatch.setitem(blocks.FENCED, "testdrawing", drawing)
    clear_render_cache()


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    try:
        rc = main([str(a) for a in argv])
    except SystemExit as exc:  # argparse's refusal of an argument
        rc = int(exc.code or 0)
    out, err = capsys.readouterr()
    return rc, out, err


def text_of(page: str) -> str:
    body = re.sub(r"<(style|svg)\b.*?</\1>", " ", page, flags=re.S)
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", body)).split())


def test_html_export_is_the_entry_self_contained(
    capsys, tmp_path: Path, vault: Path, helpers_blocks: None
) -> None:
    out = tmp_path / "out" / "figures.html"
    out.parent.mkdir()
    db = tmp_path / "index.sqlite"
    rc, stdout, err = run(capsys, "export", vault, "--db", db, "--entry", "Figures and sound",
                          "--format", "html", "--out", out)  # fmt: skip
    assert rc == 0, err
    assert stdout.startswith(f"Wrote {out}")
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "<title>Figures and sound</title>" in page
    text = text_of(page)
    assert "The energy is" in text and "Closing words of the entry." in text
    assert "Listen" in text and "keynote.wav" in text and "Audio · WAV · 1:15" in text
    assert "Other note" in text  # the link's text stays, its target goes
    # every picture inside: the vault's, the typeset formula, both helpers' resources
    uris = re.findall(r'src="(data:[^;"]+);base64,([^"]+)"', page)
    kinds = sorted(kind for kind, _data in uris)
    assert kinds == ["data:image/png", "data:image/png", "data:image/svg+xml"]
    assert "<svg" in page and "E = mc^2" in page  # the formula, inline
    svg = next(base64.b64decode(d) for k, d in uris if k == "data:image/svg+xml")
    assert b"<rect" in svg and b"<script" not in svg  # another helper's SVG, sanitised
    # and nothing that points outside the file (an SVG's namespace is a name, not a link)
    assert not re.search(r"""(src|href)=["'](?!data:|#)""", page)
    rest = re.sub(r'data:[^"]+|xmlns(:\w+)?="[^"]*"', "", page)
    assert not re.search(r"\b(vault|math|diagram|drawing|entry|file|https?):", rest)


def test_html_export_to_standard_output(capsys, tmp_path: Path, vault: Path) -> None:
    rc, stdout, _err = run(capsys, "export", vault, "--db", tmp_path / "i.sqlite",
                           "--entry", "other note", "--format", "html")  # fmt: skip
    assert rc == 0 and "<title>Other note</title>" in stdout and "Back to" in stdout


def refused(rc: int, err: str, words: str) -> bool:
    lines = [line for line in err.splitlines() if line.strip()]
    return rc != 0 and len(lines) == 1 and lines[0].startswith("anthology: ") and words in err


def test_wrong_entry_format_or_target_is_one_line(capsys, tmp_path: Path, vault: Path) -> None:
    db = tmp_path / "i.sqlite"
    out = tmp_path / "x.html"
    rc, _o, err = run(capsys, "export", vault, "--db", db, "--entry", "Nowhere", "--format",
                      "html", "--out", out)  # fmt: skip
    assert refused(rc, err, "no entry with id “Nowhere”") and not out.exists()
    for target in (tmp_path, tmp_path / "missing" / "x.html", Path("/proc/x.html")):
        for fmt in ("html", "pdf"):
            rc, _o, err = run(capsys, "export", vault, "--db", db, "--entry", "Other note",
                              "--format", fmt, "--out", target)  # fmt: skip
            assert refused(rc, err, str(target)), (target, fmt, err)
    rc, _o, err = run(capsys, "export", vault, "--db", db, "--entry", "Other note",
                      "--format", "docx", "--out", out)  # fmt: skip
    assert rc == 2 and "invalid choice: 'docx'" in err
    rc, _o, err = run(capsys, "export", vault, "--db", db, "--format", "pdf", "--out", out)
    assert refused(rc, err, "needs --entry")
    rc, _o, err = run(capsys, "export", vault, "--db", db, "--entry", "Other note", "--format",
                      "pdf")  # fmt: skip
    assert refused(rc, err, "needs --out")
    rc, _o, err = run(capsys, "export", vault, "--db", db, "--entry", "Other note", "--format",
                      "json")  # fmt: skip
    assert refused(rc, err, "--entry is for --format html or pdf")
    assert not out.exists()


def test_pdf_export_runs_without_a_display_and_holds_the_text(tmp_path: Path, vault: Path) -> None:
    """The real command in a process of its own, with no display and no platform chosen:
    it starts its QApplication offscreen itself."""
    import pypdfium2 as pdfium  # the test extra's (pyproject.toml)

    out = tmp_path / "figures.pdf"
    env = {k: v for k, v in os.environ.items()
           if k not in ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY")}  # fmt: skip
    env["PYTHONPATH"] = str(ROOT / "src")
    proc = subprocess.run(
        [sys.executable, "-m", "anthology", "export", str(vault), "--db",
         str(tmp_path / "i.sqlite"), "--entry", "Figures and sound", "--format", "pdf",
         "--out", str(out)],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    data = out.read_bytes()
    assert data.startswith(b"%PDF")
    doc = pdfium.PdfDocument(data)
    text = " ".join(doc[i].get_textpage().get_text_range() for i in range(len(doc)))
    text = " ".join(text.split())
    assert "Figures and sound" in text and "The energy is" in text
    assert "Closing words of the entry." in text and "Audio · WAV · 1:15" in text
    doc.close()


def test_the_command_line_and_its_html_export_load_no_qt(tmp_path: Path, vault: Path) -> None:
    """The CLI module is light at import, and an HTML export never starts Qt."""
    out = tmp_path / "page.html"
    code = (
        "import sys\n"
        "from anthology.cli import main\n"
        "qt = lambda: sorted(m for m in sys.modules if m.startswith(('PySide6', 'shiboken6')))\n"
        "print(qt())\n"
        f"rc = main(['export', {str(vault)!r}, '--db', {str(tmp_path / 'i.sqlite')!r}, "
        f"'--entry', 'Other note', '--format', 'html', '--out', {str(out)!r}])\n"
        "print(rc, qt())\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=300)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["[]", f"Wrote {out} ({out.stat().st_size:,} bytes)", "0 []"]
