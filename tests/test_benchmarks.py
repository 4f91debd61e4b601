"""The benchmark scripts stay runnable: each one's imports resolve and its ``--help`` works (a moved
module broke one unnoticed before). Their figures are printed by running them, never tested here."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

#: the scripts (a module whose name starts with "_" is a helper they share, not a script)
BENCHMARKS = sorted(p for p in (Path(__file__).resolve().parents[1] / "benchmarks").glob("*.py") if not p.name.startswith("_"))


def test_there_are_benchmarks() -> None:
    assert len(BENCHMARKS) >= 8


@pytest.mark.parametrize("script", BENCHMARKS, ids=lambda p: p.name)
def test_benchmark_script_starts(script: Path) -> None:
    r = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "usage:" in r.stdout


def _script(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    path = Path(__file__).resolve().parents[1] / "benchmarks" / name
    return subprocess.run([sys.executable, str(path), *args], capture_output=True, text=True, timeout=300)


def test_startup_bench_prints_the_start_up_figures() -> None:
    r = _script("startup_bench.py", "--runs", "1")
    assert r.returncode == 0, r.stderr
    assert "pbem --help: wall min" in r.stdout and "pbem --version: wall min" in r.stdout
    assert "the storage stack: not loaded" in r.stdout  # what the figure rests on: --version loads no ORM


def test_pipeline_bench_takes_languages_and_game_options() -> None:
    r = _script("pipeline_bench.py", "--steps", "2", "--runs", "1", "--languages", "es,sv", "-o", "battles=interactive")
    assert r.returncode == 0, r.stderr
    assert "verify (replay and check everything), in process" in r.stdout and "OK" in r.stdout
    assert "`pbem verify`, whole process" in r.stdout


@pytest.mark.parametrize(("args", "said"), [
    (("-o", "nonsense=1"), "unknown option 'nonsense'"),
    (("-o", "battles=maybe"), "option battles is one of planned, interactive"),
    (("-o", "battles"), "--option: write NAME=VALUE"),
    (("--languages", "fr,en"), "unknown language 'fr'"),
    (("--languages", "es"), "--languages: give 2 language codes"),
])
def test_pipeline_bench_says_what_is_wrong_with_its_arguments(args: tuple[str, ...], said: str) -> None:
    r = _script("pipeline_bench.py", "--steps", "1", *args)
    assert r.returncode == 2  # argparse's usage error, not a traceback
    assert said in r.stderr and "Traceback" not in r.stderr


def test_whole_processes_run_as_installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "benchmarks"))
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    from _wholeprocess import ROOT, installed_env, timed

    env = installed_env(tmp_path / "pycache")
    assert "PYTHONDONTWRITEBYTECODE" not in env and env["PYTHONPATH"] == str(ROOT)
    wall, _cpu, done = timed(["-c", "import pbem.core.memo, sys; print(sys.dont_write_bytecode)"], env)
    assert done.returncode == 0 and done.stdout.strip() == b"False"
    assert wall > 0
    assert list((tmp_path / "pycache").rglob("memo*.pyc"))  # the bytecode went to the run's folder


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
