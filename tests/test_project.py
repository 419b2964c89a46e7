"""Project rules that a reviewer would otherwise have to remember."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from anthology.cli import COMMANDS, build_parser

ROOT = Path(__file__).resolve().parent.parent
CORE = ("vault", "query", "layout", "demo", "graph")
# Qt-free modules beside the packages
CORE_MODULES = ("palette.py", "paths.py", "tasks.py", "user_state.py")
QT = ("PySide6", "pyqtgraph", "shiboken6")


def test_the_core_never_imports_qt() -> None:
    offenders = []
    src = ROOT / "src" / "anthology"
    paths = [p for package in CORE for p in (src / package).rglob("*.py")]
    for path in paths + [src / name for name in CORE_MODULES]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
                if node.module.startswith("anthology.ui"):
                    offenders.append(f"{path}: {node.module}")
            offenders += [f"{path}: {n}" for n in names if n.split(".")[0] in QT]
    assert offenders == []


# The only tests that time anything: each compares two sizes of the same work in one run (a
# linear scanner takes about 4x as long on 4x the input, a quadratic one 16x). A test never
# compares a duration with a fixed number of seconds: speed is measured in benchmarks/.
RATIO_TESTS = {
    "test_linear_scanners.py",
    "test_render_budgets.py",
    "test_render_layout_budget.py",
    "test_search_bounds.py",
}


def test_no_test_holds_a_wall_clock_limit() -> None:
    timing = re.compile(r"\b(perf_counter|process_time|timeit)\b")
    offenders = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "tests").rglob("*.py")
        if path.name not in {*RATIO_TESTS, "test_project.py"}
        and timing.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == [], "time work in benchmarks/, assert work done in tests"


def readme_block(heading: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(rf"{heading}.*?```(?:sh|bash|console)?\n(.+?)```", text, re.S)
    assert m, f"README has no command under {heading!r}"
    return m.group(1).strip()


def test_ci_runs_exactly_the_readmes_test_command() -> None:
    command = readme_block("## Run the tests")
    assert "\n" not in command, "the README's test command is one line"
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert command in ci.splitlines()


def test_the_readme_documents_every_cli_command() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    for command in COMMANDS:
        assert f"anthology {command}" in text, f"README does not document `anthology {command}`"
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert set(sub.choices) == set(COMMANDS)


def test_creating_an_index_imports_no_schema_tool(tmp_path: Path) -> None:
    """The schema is plain DDL (vault/schema.py): making an index imports neither
    sqlite-utils (with numpy and its plugins' entry points, it made creating an index 61 ms
    instead of 8; pandas, when installed, 0.3 s more) nor pandas nor click."""
    import subprocess
    import sys

    vault = tmp_path / "vault"  # the index never goes inside the vault
    vault.mkdir()
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from anthology.vault.index import VaultIndex\n"
        f"VaultIndex.open({str(vault)!r}, Path({str(tmp_path / 'i.sqlite')!r})).close()\n"
        "print(sorted({'sqlite_utils', 'pandas', 'click'} & set(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)  # fmt: skip
    assert out.stdout.strip() == "[]"


def test_a_rerun_that_finds_nothing_changed_loads_no_parser_render_or_numpy(
    tmp_path: Path,
) -> None:
    """`anthology index` on an index already up to date (issue 35): the scan and one
    comparison with the index, then the counts. The parser (YAML), the renderer
    (python-markdown), numpy and the worker pool cost ~0.2 s to import, more than the
    rest of a 10,000-note re-run: they load when a file is read or a graph asked for.
    The first run, which reads the notes, does load the parser."""
    import subprocess
    import sys

    vault = tmp_path / "vault"
    (vault / "notes").mkdir(parents=True)
    (vault / "notes" / "A note.md").write_text("---\ntags: [x]\n---\n# A\n[[B]]\n")
    (vault / "B.md").write_text("# B\n")
    heavy = ("numpy", "yaml", "markdown", "anthology.vault.parse", "concurrent.futures")
    code = (
        "import sys\n"
        "from anthology.cli import main\n"
        f"main(['index', {str(vault)!r}, '--db', {str(tmp_path / 'i.sqlite')!r}])\n"
        f"print(sorted(m for m in {heavy!r} if m in sys.modules))\n"
    )
    runs = [
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout.splitlines()
        for _ in range(2)
    ]
    assert "Read 2 files (2 new, 0 changed), 0 unchanged, 0 removed" in runs[0]
    assert "anthology.vault.parse" in runs[0][-1]
    assert "Read 0 files (0 new, 0 changed), 2 unchanged, 0 removed" in runs[1]
    assert runs[1][-1] == "[]"


def test_ruff_lint_and_format_are_clean() -> None:
    """The habits the README promises, kept by CI rather than by memory."""
    import shutil
    import subprocess
    import sys

    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    assert ruff, "ruff is part of the test extra"
    for args in (["check", "."], ["format", "--check", "."]):
        out = subprocess.run([ruff, *args], cwd=ROOT, capture_output=True, text=True)
        assert out.returncode == 0, f"ruff {' '.join(args)}:\n{out.stdout}{out.stderr}"


def test_the_core_type_checks() -> None:
    """mypy over the core and ui/ (see [tool.mypy] in pyproject)."""
    import shutil
    import subprocess
    import sys

    mypy = shutil.which("mypy", path=str(Path(sys.executable).parent)) or shutil.which("mypy")
    assert mypy, "mypy is part of the test extra"
    out = subprocess.run([mypy], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, f"mypy:\n{out.stdout}{out.stderr}"


def test_the_import_rules_hold() -> None:
    """import-linter's contracts in pyproject.toml: Qt only in ui/, the layers, no cycles."""
    import shutil
    import subprocess
    import sys

    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    lint = lint or shutil.which("lint-imports")
    assert lint, "import-linter is part of the test extra"
    out = subprocess.run([lint, "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, f"lint-imports:\n{out.stdout[-3000:]}{out.stderr}"
    assert "0 broken" in out.stdout


# A private name (``_x``) is its module's own: another module that needs it gets it under a
# public name. A private submodule imported inside its own package is fine (``from
# anthology.layout import _repulsion`` in anthology/layout/force_layout.py).
def private_imports(src: Path) -> set[tuple[str, str]]:
    """(importing module, imported ``module._name``) for every private name imported from
    another module under ``src``, absolute or relative imports alike."""
    found = set()
    for path in src.rglob("*.py"):
        parts = list(path.relative_to(src).with_suffix("").parts)
        package = parts[:-1]
        if parts[-1] == "__init__":
            parts = package
        module = ".".join(parts)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            base = package[: len(package) - node.level + 1] if node.level else []
            source = ".".join([*base, *([node.module] if node.module else [])])
            for alias in node.names:
                name = alias.name
                if not name.startswith("_") or name.startswith("__"):
                    continue
                sub = src.joinpath(*source.split("."), name)
                is_module = sub.with_suffix(".py").is_file() or (sub / "__init__.py").is_file()
                if is_module and module.startswith(source + "."):
                    continue  # a private submodule, inside its own package
                found.add((module, f"{source}.{name}"))
    return found


def test_the_private_import_check_sees_what_it_should(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    files = {
        "__init__.py": "",
        "a.py": "def _helper(): ...\n",
        "_engine.py": "",
        "b.py": "from pkg.a import _helper\nfrom pkg import _engine\n",
        "sub/__init__.py": "",
        "sub/c.py": "from ..a import _helper, __doc__\nfrom .. import _engine\n",
    }
    for name, text in files.items():
        (pkg / name).write_text(text, encoding="utf-8")
    (tmp_path / "other.py").write_text("from pkg import _engine\n", encoding="utf-8")
    assert private_imports(tmp_path) == {
        ("pkg.b", "pkg.a._helper"),
        ("pkg.sub.c", "pkg.a._helper"),
        ("other", "pkg._engine"),  # outside the package: not its own
    }


def test_no_module_imports_another_modules_private_names() -> None:
    found = private_imports(ROOT / "src")
    assert found == set(), "give the name a public spelling"
