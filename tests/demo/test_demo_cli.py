"""`anthology demo`: the hooks the main CLI calls, driven directly."""

from __future__ import annotations

import argparse
import json

import pytest

from anthology.demo import cli

ROW_KEYS = {
    "d_k",
    "scaling",
    "var_logit",
    "mean_max_p",
    "entropy_norm",
    "jac_fro_median",
    "zero_grad_share",
}


def _parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="anthology demo")
    cli.add_arguments(parser)
    return parser.parse_args(argv)


def test_defaults():
    args = _parse("attention-scaling")
    assert args.dk == [2**i for i in range(11)]
    assert (args.n, args.samples, args.dtype, args.backend) == (64, 2000, "float64", "numpy")
    assert not args.sweep and not args.json


def test_sweep_json_has_every_d_k_and_scaling(capsys):
    status = cli.run(_parse("attention-scaling", "--sweep", "--json", "--samples", "128"))
    assert status == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 11 * 4
    assert all(set(row) == ROW_KEYS for row in rows)
    assert {row["scaling"] for row in rows} == {"none", "1/sqrt(d)", "1/d", "qk-norm"}
    assert sorted({row["d_k"] for row in rows}) == [2**i for i in range(11)]
    by_key = {(row["d_k"], row["scaling"]): row for row in rows}
    assert by_key[(1024, "none")]["var_logit"] == pytest.approx(1024, rel=0.1)
    assert by_key[(1024, "1/sqrt(d)")]["var_logit"] == pytest.approx(1, rel=0.1)
    assert by_key[(1024, "none")]["mean_max_p"] > 0.9


def test_sweep_table(capsys):
    status = cli.run(_parse("attention-scaling", "--sweep", "--dk", "1,16", "--samples", "64"))
    assert status == 0
    out = capsys.readouterr().out
    assert "E[max p]" in out and "qk-norm" in out and "1/sqrt(d)" in out
    assert len([line for line in out.splitlines() if line.strip().startswith("16 ")]) == 4


def test_unknown_demo_returns_2_and_names_the_known_ones(capsys):
    assert cli.run(_parse("foo", "--sweep")) == 2
    err = capsys.readouterr().err
    assert "unknown demo 'foo'" in err and "attention-scaling" in err


def test_bfloat16_with_numpy_is_a_clear_error(capsys):
    args = _parse("attention-scaling", "--sweep", "--dtype", "bfloat16", "--dk", "4")
    assert cli.run(args) == 2
    err = capsys.readouterr().err
    assert "--dtype bfloat16 needs --backend torch" in err
    assert "backend='torch'" not in err  # the command line's words, not Python's


def test_the_torch_backend_without_torch_says_how_to_add_the_cpu_build(capsys, monkeypatch):
    from anthology.demo import attention_scaling

    monkeypatch.setattr(attention_scaling, "torch_available", lambda: False)
    args = _parse("attention-scaling", "--sweep", "--backend", "torch", "--dk", "4")
    assert cli.run(args) == 2
    err = capsys.readouterr().err
    assert "--backend torch needs torch" in err and "whl/cpu" in err


@pytest.mark.torch
def test_torch_backend_bfloat16(capsys):
    pytest.importorskip("torch")
    args = _parse(
        "attention-scaling",
        "--sweep",
        "--json",
        "--dtype",
        "bfloat16",
        "--backend",
        "torch",
        "--dk",
        "256",
        "--samples",
        "128",
    )
    assert cli.run(args) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 4
    assert next(r for r in rows if r["scaling"] == "none")["zero_grad_share"] > 0.1


@pytest.mark.parametrize("bad", ["", "1,x", "0", "8192"])
def test_bad_d_k_lists_are_rejected(bad, capsys):
    with pytest.raises(SystemExit):
        _parse("attention-scaling", "--dk", bad)
    assert "--dk" in capsys.readouterr().err
