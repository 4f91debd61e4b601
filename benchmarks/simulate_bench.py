"""Benchmark: random whole games through the rules engine (a script, not a test).

Example::

    python benchmarks/simulate_bench.py --games 1000 --seed 1
    python benchmarks/simulate_bench.py --games 200 --tournament --check

Prints games/s (wall, and CPU time of this process), decisions/s and the tally
of winners; the tally is the same for the same seeds on every machine. ``--check`` also runs the
invariants after every decision (much slower; it measures the soak test, not the
engine).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

from pbem.games.caesar.rules.game import Game  # noqa: E402
from pbem.games.caesar.rules.invariants import violations  # noqa: E402
from pbem.games.caesar.rules.playout import PlayoutError, SimulationReport, play_random_game, simulate  # noqa: E402
from pbem.games.caesar.rules.state import Options  # noqa: E402


def _checked(games: int, seed: int, options: Options) -> SimulationReport:
    def check(g: Game) -> None:
        problems = violations(g)
        if problems:
            raise AssertionError("; ".join(problems))

    tally = {"Caesar": 0, "Pompey": 0, "draw": 0}
    decisions = 0
    start = time.perf_counter()
    for i in range(games):
        r = play_random_game(seed + i, options, keep_trail=False, check=check)
        tally[r.winner.value if r.winner else "draw"] += 1
        decisions += r.decisions
    return SimulationReport(games, time.perf_counter() - start, decisions, tally)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", "-n", type=int, default=200, help="games to play (default: %(default)s)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the first game; game i uses seed + i (default: %(default)s)")
    ap.add_argument("--tournament", action="store_true", help="option tournament (C5)")
    ap.add_argument("--check", action="store_true", help="check the invariants after every decision")
    args = ap.parse_args(argv)
    options = Options(tournament=args.tournament)
    cpu0 = time.process_time()
    try:
        report = _checked(args.games, args.seed, options) if args.check else simulate(args.games, args.seed, options, clock=time.perf_counter)
    except PlayoutError as exc:
        print(f"FAILED: {exc}", file=sys.stderr)
        return 1
    cpu = time.process_time() - cpu0
    t = report.tally
    print(f"games:       {report.games} (seeds {args.seed}..{args.seed + report.games - 1}){' with invariant checks' if args.check else ''}")
    print(f"time:        {report.seconds:.2f} s")
    print(f"games/s:     {report.games_per_second:.1f} wall, {report.games / cpu if cpu else 0:.1f} cpu "
          "(the machine may be shared: cpu is the steadier figure)")
    print(f"decisions/s: {report.decisions_per_second:.0f} ({report.decisions} decisions, {report.decisions / max(1, report.games):.0f} per game)")
    print(f"tally:       Caesar {t['Caesar']}, Pompey {t['Pompey']}, draw {t['draw']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
