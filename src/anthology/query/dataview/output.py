"""A DQL query's results as a script reads them (``anthology query VAULT 'TABLE …'``): text
(aligned columns; a TASK as an indented checklist; a CALENDAR as dated lines), JSON (values
typed as :func:`anthology.query.values.to_json` types them) or CSV (a TABLE's cells, a LIST's
items, one task or day per row)."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from ..bases import CellError
from ..values import to_json
from .result import DqlResult, TaskRow

MAX_CELL = 60  # characters of a cell in the text output (the rest as "…")


def _cell(v: Any) -> str:
    from . import display_text

    if isinstance(v, CellError):
        return str(v)
    return display_text(v)


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_CELL else text[: MAX_CELL - 1] + "…"


def _json_cell(v: Any) -> Any:
    return {"error": v.message} if isinstance(v, CellError) else to_json(v)


def _task_lines(task: TaskRow, depth: int) -> list[str]:
    box = f"[{task.status}] " if task.status is not None else ""
    lines = [f"{'  ' * depth}- {box}{task.text}"]
    for child in task.children:
        lines += _task_lines(child, depth + 1)
    return lines


def as_text(result: DqlResult) -> str:
    lines = [f"{result.type.upper()} · {result.total:,} result{'s' * (result.total != 1)}"]
    lines += [f"note: {w}" for w in result.warnings]
    if result.type == "table":
        table = [list(result.headers)] + [
            [_short(_cell(v)) for v in row[: len(result.headers)]] for row in result.rows
        ]
        widths = [max(len(r[i]) for r in table if i < len(r)) for i in range(len(result.headers))]
        for n, row in enumerate(table):
            lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=False)).rstrip())
            if n == 0:
                lines.append("  ".join("-" * w for w in widths))
    elif result.type == "list":
        for row in result.rows:
            lines.append("- " + ": ".join(_cell(v) for v in row[:2]))
    elif result.type == "task":
        for group in result.tasks:
            lines.append(f"## {_cell(group.key)}")
            for task in group.tasks:
                lines += _task_lines(task, 0)
    else:
        for day in result.days:
            lines.append(f"{day.day.at.date().isoformat()}  {_cell(day.link)}")
    if result.truncated:
        lines.append(f"({len(result.rows):,} of {result.total:,} shown)")
    return "\n".join(lines) + "\n"


def _task_json(task: TaskRow) -> dict[str, Any]:
    return {
        "path": task.path,
        "line": task.line,
        "text": task.text,
        "status": task.status,
        "children": [_task_json(c) for c in task.children],
    }


def as_json(result: DqlResult) -> str:
    data: dict[str, Any] = {"type": result.type, "total": result.total,
                            "warnings": result.warnings}  # fmt: skip
    if result.type == "table":
        data["headers"] = result.headers
        data["rows"] = [[_json_cell(v) for v in row] for row in result.rows]
    elif result.type == "list":
        data["rows"] = [[_json_cell(v) for v in row] for row in result.rows]
    elif result.type == "task":
        data["groups"] = [
            {"key": _json_cell(g.key), "tasks": [_task_json(t) for t in g.tasks]}
            for g in result.tasks
        ]
    else:
        data["days"] = [{"day": to_json(d.day), "link": to_json(d.link)} for d in result.days]
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def as_csv(result: DqlResult) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    if result.type == "table":
        writer.writerow(result.headers)
        for row in result.rows:
            writer.writerow([_cell(v) for v in row])
    elif result.type == "list":
        for row in result.rows:
            writer.writerow([_cell(v) for v in row])
    elif result.type == "task":
        writer.writerow(["group", "path", "line", "status", "text"])

        def walk(key: str, task: TaskRow) -> None:
            writer.writerow([key, task.path, task.line, task.status or "", task.text])
            for child in task.children:
                walk(key, child)

        for group in result.tasks:
            for task in group.tasks:
                walk(_cell(group.key), task)
    else:
        writer.writerow(["day", "link"])
        for d in result.days:
            writer.writerow([d.day.at.date().isoformat(), _cell(d.link)])
    return out.getvalue()


FORMATS = {"text": as_text, "json": as_json, "csv": as_csv}
