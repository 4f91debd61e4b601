"""Benchmark: one HTML report with its map, and one text report (a script, not a test).

Example::

    python benchmarks/report_bench.py --games 4 --runs 5

Plays ``--games`` random games part way (seeds 1, 2, ...), takes the views of
both sides and the moderator at several points, and renders each view's HTML
report (with the SVG map) and text report. Prints the median time of one report
over all views and runs, as wall time and as CPU time of this process (the
machine may be shared: CPU time is the steadier figure), and the first HTML
report of the process, which also lays out the board's names and serializes its
static layers (sea, roads, names, legend) once.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

from pbem.core.rng import Rng  # noqa: E402
from pbem.games.caesar.rules.board import Side  # noqa: E402
from pbem.games.caesar.rules.game import new_game  # noqa: E402
from pbem.games.caesar.rules.playout import random_decisions  # noqa: E402
from pbem.games.caesar.view import views  # noqa: E402
from pbem.games.caesar.view.render import view_context  # noqa: E402
from pbem.render import render  # noqa: E402


def sample_views(games: int) -> list[views.View]:
    out = []
    for seed in range(1, games + 1):
        g = new_game(seed)
        log = list(g.events)
        rng = Rng(seed * 31 + 5)
        for _ in range(8):
            log += random_decisions(g, rng, 25)
            for viewer in (Side.CAESAR, Side.POMPEY, None):  # one step's three reports, as the pipeline renders them
                out.append(views.build_view(g, log, viewer, since=len(log) // 2))
    return out


def forget_positions() -> None:
    """Drop what the map remembers of positions already drawn (layouts, drawn locations) and what the
    templates remember of rows already made (``cached``), so a second run does not find every position
    drawn before; the board's static layers and the compiled templates stay."""
    from pbem import render as rendering
    from pbem.games.caesar.view import svgmap

    for static in svgmap._board_layout.values():  # (named, not looked up: a rename must break this loudly)
        static.layouts.clear()
        static.xml._locations.clear()
    rendering.environment().globals["cached"] = rendering._cacher()


def timed(render, vs: list[views.View], runs: int) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """Median wall and CPU milliseconds of one ``render(view)``."""
    wall, cpu = [], []
    for _ in range(runs):
        forget_positions()
        for v in vs:
            w0, c0 = time.perf_counter(), time.process_time()
            render(v)
            wall.append(time.perf_counter() - w0)
            cpu.append(time.process_time() - c0)
    return statistics.median(wall) * 1000, statistics.median(cpu) * 1000


def render_html(view: views.View) -> str:
    return render("caesar", view_context(view, "html"))


def render_text(view: views.View) -> str:
    return render("caesar", view_context(view, "text"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=4, help="games to take views from (default: %(default)s)")
    ap.add_argument("--runs", type=int, default=3, help="times each view is rendered (default: %(default)s)")
    args = ap.parse_args()
    vs = sample_views(args.games)
    t0 = time.perf_counter()
    render_html(vs[0])
    first = (time.perf_counter() - t0) * 1000
    html_wall, html_cpu = timed(render_html, vs, args.runs)
    text_wall, text_cpu = timed(render_text, vs, args.runs)
    print(f"views: {len(vs)} ({args.games} games x 8 points x 3 viewers), {args.runs} runs each")
    print(f"one HTML report with its map: median {html_wall:.1f} ms wall, {html_cpu:.1f} ms cpu")
    print(f"one text report:              median {text_wall:.2f} ms wall, {text_cpu:.2f} ms cpu")
    print(f"first HTML report of the process (board layers built once): {first:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
