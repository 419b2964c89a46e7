"""The ``anthology demo`` subcommand: print a demo's numbers, or open its widget alone.

``anthology.cli`` calls :func:`add_arguments` on the subcommand's parser and :func:`run`
with the parsed namespace. Qt is imported only when a window is asked for.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TextIO

from anthology.demo import DEMOS

_DEFAULT_D_KS = "1,2,4,8,16,32,64,128,256,512,1024"


def _d_k_list(text: str) -> list[int]:
    try:
        values = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a comma-separated list of integers, got {text!r}"
        ) from None
    if not values or any(v < 1 or v > 4096 for v in values):
        raise argparse.ArgumentTypeError(f"each d_k must be between 1 and 4096, got {text!r}")
    return values


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``anthology demo`` arguments to ``parser``."""
    parser.add_argument("name", help="the demo to run; known: " + ", ".join(sorted(DEMOS)))
    parser.add_argument(
        "--sweep",
        action="store_true",
        help="print the d_k sweep (all scalings) instead of opening the window",
    )
    parser.add_argument(
        "--json", action="store_true", help="with --sweep: print a JSON list of rows"
    )
    parser.add_argument(
        "--dk",
        type=_d_k_list,
        default=_d_k_list(_DEFAULT_D_KS),
        metavar="D1,D2,…",
        help="key dimensions to sweep, comma-separated (default: powers of two 1…1024)",
    )
    parser.add_argument("--n", type=_positive_int, default=64, help="number of keys (default: 64)")
    parser.add_argument(
        "--samples",
        type=_positive_int,
        default=2000,
        help="sampled queries per point (default: 2000)",
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    parser.add_argument(
        "--dtype",
        choices=("float64", "float32", "bfloat16"),
        default="float64",
        help="working precision (bfloat16 needs --backend torch; default: float64)",
    )
    parser.add_argument(
        "--backend",
        choices=("numpy", "torch"),
        default="numpy",
        help="numpy (analytic gradient) or torch (autograd); default: numpy",
    )


def _format_table(rows: list[dict], out: TextIO) -> None:
    header = ("d_k", "scaling", "Var(s)", "E[max p]", "H/ln n", "‖J‖_F med", "zero grad")
    widths = (6, 10, 11, 9, 8, 11, 9)
    out.write("  ".join(h.rjust(w) for h, w in zip(header, widths, strict=True)) + "\n")
    previous = None
    for row in rows:
        if previous is not None and row["d_k"] != previous:
            out.write("\n")
        previous = row["d_k"]
        cells = (
            str(row["d_k"]),
            row["scaling"],
            f"{row['var_logit']:.4g}",
            f"{row['mean_max_p']:.4f}",
            f"{row['entropy_norm']:.4f}",
            f"{row['jac_fro_median']:.3e}",
            f"{row['zero_grad_share']:.2%}",
        )
        out.write("  ".join(c.rjust(w) for c, w in zip(cells, widths, strict=True)) + "\n")


def option_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with the options, in the command line's words (the core's checks say
    it in Python's), before a sweep or a window starts; None when nothing is."""
    from anthology.demo.attention_scaling import TORCH_INSTALL, torch_available

    if args.dtype == "bfloat16" and args.backend != "torch":
        return "--dtype bfloat16 needs --backend torch (numpy has no bfloat16)"
    if args.backend == "torch" and not torch_available():
        return f"--backend torch needs torch, which is not installed: {TORCH_INSTALL}"
    return None


def run(args: argparse.Namespace) -> int:
    """Run ``anthology demo`` for parsed ``args``; returns the exit status."""
    if args.name not in DEMOS:
        known = ", ".join(sorted(DEMOS))
        print(f"anthology demo: unknown demo {args.name!r}. Known demos: {known}", file=sys.stderr)
        return 2
    if problem := option_problem(args):
        print(f"anthology demo: {problem}", file=sys.stderr)
        return 2
    if args.sweep:
        from anthology.demo.attention_scaling import sweep

        try:
            result = sweep(
                d_ks=args.dk,
                n=args.n,
                samples=args.samples,
                seed=args.seed,
                dtype=args.dtype,
                backend=args.backend,
            )
        except ValueError as exc:
            print(f"anthology demo: {exc}", file=sys.stderr)
            return 2
        rows = result.rows()
        if args.json:
            json.dump(rows, sys.stdout, indent=1)
            sys.stdout.write("\n")
        else:
            print(
                f"{args.name}: n = {args.n}, {args.samples} samples, {args.dtype}, "
                f"{args.backend} backend, seed {args.seed} "
                "(Var(s) mean, ‖J‖_F median over samples; zero grad: p_max rounded to 1)"
            )
            _format_table(rows, sys.stdout)
        return 0
    print("anthology demo: the window is opened by anthology.cli (this core has no Qt)",
          file=sys.stderr)  # fmt: skip
    return 2
