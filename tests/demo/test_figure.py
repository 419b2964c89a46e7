"""The demo's figure in the entry: drawn from a real sweep, cached, one style per scaling."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import numpy as np
import pytest

from anthology.demo import DEMOS, figure
from anthology.demo import attention_scaling as maths
from anthology.demo.styles import PANEL_CAPTIONS, SCALING_STYLES
from anthology.palette import theme as palette_theme


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    """No memo: each test sees the cache folder (a temp one) as a new process would."""
    monkeypatch.setattr(figure, "_memo", {})
    monkeypatch.setenv("ANTHOLOGY_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / "demo"


def test_every_scaling_has_its_own_line_and_marker():
    styles = [SCALING_STYLES[s] for s in maths.SCALINGS]
    assert len({(st.width, st.dash, st.alpha) for st in styles}) == len(styles)
    assert len({st.marker for st in styles}) == len(styles)
    # The two that coincide at σ = 1 stay apart: one wide band under, one dashed line on
    # top, their markers on alternate points.
    band, line = SCALING_STYLES["1/sqrt(d)"], SCALING_STYLES["qk-norm"]
    assert band.width >= 2 * line.width and band.z < line.z and line.dash
    assert band.marker_phase != line.marker_phase
    assert set(PANEL_CAPTIONS) == set(maths.METRICS)


def test_the_figure_is_the_real_sweep_and_is_cached(fresh):
    data = figure.figure_data()
    p = figure.FIGURE_SWEEP
    again = maths.sweep(d_ks=p.d_ks, n=p.n, samples=p.samples, seed=p.seed)
    for metric in ("var_logit", "max_p"):
        for i, s in enumerate(maths.SCALINGS):
            np.testing.assert_allclose(data[metric][s], again.summary[metric]["mean"][i])
    # what the entry argues: unscaled the variance tracks d_k and attention saturates
    assert data["var_logit"]["none"][-1] == pytest.approx(4096, rel=0.1)
    assert data["var_logit"]["1/sqrt(d)"][-1] == pytest.approx(1, rel=0.1)
    assert data["max_p"]["none"][-1] > 0.9 > 0.2 > data["max_p"]["1/sqrt(d)"][-1]

    files = list(fresh.glob("*.json"))
    assert len(files) == 1
    figure._memo.clear()
    assert figure.figure_data() == json.loads(files[0].read_text())


def test_a_damaged_cache_is_recomputed_not_trusted(fresh, monkeypatch):
    fresh.mkdir(parents=True)
    (fresh / f"{figure._cache_key()}.json").write_text('{"d_ks": [1], "var_logit": "x"}')
    data = figure.figure_data()
    assert data["d_ks"] == list(figure.FIGURE_SWEEP.d_ks)
    assert json.loads((fresh / f"{figure._cache_key()}.json").read_text()) == data


def test_an_unwritable_cache_folder_costs_nothing_but_time(fresh, tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder would be")
    monkeypatch.setenv("ANTHOLOGY_CACHE_DIR", str(blocker))
    assert figure.figure_data()["d_ks"][-1] == 4096


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_svg_draws_each_scaling_in_its_theme_colour_and_style(fresh, theme):
    svg = figure.figure_svg(theme)
    colours = palette_theme(theme).demo.scalings
    lines = re.findall(r'<polyline points="([^"]+)" [^>]*stroke="([^"]+)"[^>]*/>', svg)
    # two panels × four scalings, each curve with all 13 points
    assert len(lines) == 8
    assert {c for _pts, c in lines} == set(colours.values())
    assert all(len(pts.split()) == 13 for pts, _c in lines)
    for s in maths.SCALINGS:
        style = SCALING_STYLES[s]
        want = f'stroke="{colours[s]}" stroke-width="{style.width:g}"'
        assert want in svg
        if style.dash:
            assert f'stroke-dasharray="{",".join(f"{v:g}" for v in style.dash)}"' in svg
    assert "Var(s)" in svg and "E[max p]" in svg and "QK-norm" in svg
    assert "<script" not in svg and "href" not in svg  # plain, self-contained


def test_the_caption_quotes_the_measured_numbers(fresh):
    data = figure.figure_data()
    caption = figure.figure_caption()
    assert f"{data['max_p']['none'][-1]:.2f} unscaled" in caption
    assert f"{data['max_p']['1/sqrt(d)'][-1]:.2f} with 1/√dₖ" in caption


def test_the_registry_names_the_figure_and_it_stays_qt_free():
    assert DEMOS["attention-scaling"].figure == "anthology.demo.figure"
    code = (
        "import sys, anthology.demo.figure; "
        "bad = [m for m in ('torch', 'PySide6', 'pyqtgraph') if m in sys.modules]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
