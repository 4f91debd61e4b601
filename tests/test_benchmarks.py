"""The benchmark scripts stay runnable: each one's imports resolve and its ``--help`` works (a moved
module broke one unnoticed before). Their figures are printed by running them, never tested here."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = sorted((Path(__file__).resolve().parents[1] / "benchmarks").glob("*.py"))


def test_there_are_benchmarks() -> None:
    assert len(BENCHMARKS) >= 8


@pytest.mark.parametrize("script", BENCHMARKS, ids=lambda p: p.name)
def test_benchmark_script_starts(script: Path) -> None:
    r = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "usage:" in r.stdout


def test_report_bench_draws_every_map_afresh_on_each_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its figure is of a report whose map is laid out, not found drawn already: forget_positions empties
    what the map keeps of positions (it once looked up a memo by a name a refactor had removed, and
    forgot nothing, so the figure fell by half)."""
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import report_bench

    from pbem.games.caesar.view import svgmap

    view = report_bench.sample_views(1)[0]
    report_bench.render_html(view)
    kept = svgmap._board_layout.values()
    assert any(static.layouts for static in kept) and any(static.xml._locations for static in kept)
    report_bench.forget_positions()
    assert not any(static.layouts or static.xml._locations for static in svgmap._board_layout.values())
