"""The layout tests build graphs with the benchmarks' generator: make it importable."""

from __future__ import annotations

import sys
from pathlib import Path

_BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
if str(_BENCHMARKS) not in sys.path:
    sys.path.insert(0, str(_BENCHMARKS))
