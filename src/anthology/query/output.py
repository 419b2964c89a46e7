"""A view's results as a script reads them: text (aligned columns, groups, summaries),
JSON (values typed: dates as ISO text, links with their paths) or CSV (one row per file,
the cells as the table shows them). What ``anthology query`` prints."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from .bases import CellError, ViewResult
from .values import display, to_json

MAX_CELL = 60  # characters of a cell in the text output (the rest as "…")


def _cell(v: Any) -> str:
    return str(v) if isinstance(v, CellError) else display(v)


def as_text(result: ViewResult) -> str:
    cols = result.columns
    lines: list[str] = []
    head = f"{result.view} ({result.type}) · {result.total:,} result{'s' * (result.total != 1)}"
    lines.append(head)
    lines += [f"note: {n}" for n in result.notices]
    table = [[c.label for c in cols]]
    marks: list[tuple[int, str]] = []  # (row index in table, group line) before that row
    for g in result.groups:
        if result.grouped:
            sums = "; ".join(
                f"{result.summary_names[k]} {_cell(v)}" for k, v in g.summaries.items()
            )
            marks.append(
                (len(table), f"## {g.label} ({len(g.rows)})" + (f" — {sums}" if sums else ""))
            )
        for r in g.rows:
            table.append([_short(_cell(v)) for v in r.cells])
    widths = [max(len(row[i]) for row in table) for i in range(len(cols))]
    group_at = dict(marks)
    for n, row in enumerate(table):
        if n in group_at:
            lines.append(group_at[n])
        lines.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    if result.summaries:
        lines.append(
            "summaries: "
            + "; ".join(
                f"{c.label}: {result.summary_names[c.id]} {_cell(result.summaries[c.id])}"
                for c in cols
                if c.id in result.summaries
            )
        )
    return "\n".join(lines) + "\n"


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_CELL else text[: MAX_CELL - 1] + "…"


def _json_cell(v: Any) -> Any:
    return {"error": v.message} if isinstance(v, CellError) else to_json(v)


def as_json(result: ViewResult) -> str:
    data = {
        "view": result.view,
        "views": result.views,
        "type": result.type,
        "layout": result.layout,
        "total": result.total,
        "notices": result.notices,
        "columns": [{"id": c.id, "label": c.label} for c in result.columns],
        "groups": [
            {
                "value": _json_cell(g.value) if result.grouped else None,
                "label": g.label,
                "summaries": {k: _json_cell(v) for k, v in g.summaries.items()},
                "rows": [
                    {
                        "path": r.file.path,
                        "cells": {
                            c.id: _json_cell(v)
                            for c, v in zip(result.columns, r.cells, strict=True)
                        },
                    }
                    for r in g.rows
                ],
            }
            for g in result.groups
        ],
        "summaries": {k: _json_cell(v) for k, v in result.summaries.items()},
    }
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def as_csv(result: ViewResult) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([c.label for c in result.columns])
    for r in result.rows:
        writer.writerow([_cell(v) for v in r.cells])
    return out.getvalue()


FORMATS = {"text": as_text, "json": as_json, "csv": as_csv}
