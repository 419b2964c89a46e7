"""What the benchmarks that run a child process share: its answer (the last JSON line it
printed) and the values after a flag on the command line."""

from __future__ import annotations

import json
import sys
from typing import Any


def last_json(stdout: str) -> dict[str, Any] | None:
    """The last line of ``stdout`` that is a JSON object (a child's answer), or None."""
    lines = [ln for ln in stdout.splitlines() if ln.startswith("{")]
    return json.loads(lines[-1]) if lines else None


def args_after(flag: str, argv: list[str] | None = None) -> list[str]:
    """The values given after ``flag`` on the command line, up to the next flag."""
    out, grab = [], False
    for a in sys.argv[1:] if argv is None else argv:
        if a.startswith("--"):
            grab = a == flag
        elif grab:
            out.append(a)
    return out
