"""Run every benchmark and print one table of ratios against the peers, measured in one run.

    python benchmarks/run.py [NAME…] [--json] [--quick]

NAME selects ``benchmarks/bench_NAME.py`` (e.g. ``index``, ``layout``, ``demo``). Each module
has ``run(quick: bool) -> list[dict]`` returning rows ``{"name", "size", "unit", "ours",
"peer", "peer_value", "ratio"}``; for times, ``ratio = peer_value / ours`` (above 1: we are
faster). With ``--json`` each row is printed as one JSON object per line.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import sys
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def discover() -> dict[str, Path]:
    return {p.stem.removeprefix("bench_"): p for p in sorted(HERE.glob("bench_*.py"))}


def load(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


def fmt(value: object) -> str:
    if isinstance(value, float):
        if math.isnan(value):
            return "—"
        return f"{value:.3g}" if abs(value) < 1000 else f"{value:,.0f}"
    return "—" if value is None else str(value)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="benchmarks to run (default: all)")
    ap.add_argument("--json", action="store_true", help="one JSON object per line")
    ap.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    args = ap.parse_args(argv)
    available = discover()
    names = args.names or list(available)
    unknown = [n for n in names if n not in available]
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}; have: {', '.join(available)}",
              file=sys.stderr)  # fmt: skip
        return 2
    rows: list[dict] = []
    failed = False
    for name in names:
        try:
            module_rows = load(available[name]).run(quick=args.quick)
        except Exception:  # a broken benchmark must not hide the others' figures
            traceback.print_exc()
            failed = True
            continue
        for row in module_rows:
            rows.append(row)
            if args.json:
                print(json.dumps(row, ensure_ascii=False), flush=True)
    if not args.json:
        header = ("benchmark", "size", "unit", "ours", "peer", "peer value", "ratio")
        table = [header] + [
            (r["name"], fmt(r["size"]), r["unit"], fmt(r["ours"]), r["peer"] or "—",
             fmt(r["peer_value"]), fmt(r["ratio"]))
            for r in rows
        ]  # fmt: skip
        widths = [max(len(str(row[i])) for row in table) for i in range(len(header))]
        for k, row in enumerate(table):
            print("  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)))
            if k == 0:
                print("  ".join("-" * w for w in widths))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
