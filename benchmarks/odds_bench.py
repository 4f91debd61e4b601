"""Benchmark: the battle odds of one pending battle for one side (a script, not a test).

Example::

    python benchmarks/odds_bench.py --games 6 --samples 200

Plays ``--games`` random practice games (seeds 1, 2, ...) until a battle is pending, then estimates
it for both sides (``pbem.games.caesar.ai.odds.battle_odds``). Prints the median and the slowest
estimate, as wall time and as CPU time of this process (the machine may be shared), per battle and
per simulated battle: the cost a report with one pending battle adds.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

from pbem.core.rng import Rng  # noqa: E402
from pbem.games.caesar.ai.odds import battle_odds, pending_battles  # noqa: E402
from pbem.games.caesar.rules.board import Side  # noqa: E402
from pbem.games.caesar.rules.game import new_game  # noqa: E402
from pbem.games.caesar.rules.playout import random_choice  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=6)
    ap.add_argument("--samples", type=int, default=200)
    args = ap.parse_args()
    wall: list[float] = []
    cpu: list[float] = []
    for seed in range(1, args.games + 1):
        g = new_game(seed, rng=Rng(seed, practice=True))
        log = list(g.events)
        rng = Rng(seed)
        while not g.is_over() and not g.state.contests:
            pend = g.pending()
            d = pend[rng.below(len(pend))]
            log += g.apply(d.side, random_choice(g, d, rng))
        for loc in pending_battles(g)[:1]:
            for side in Side:
                w, c = time.perf_counter(), time.process_time()
                battle_odds(g, log, side, loc, args.samples)
                wall.append(time.perf_counter() - w)
                cpu.append(time.process_time() - c)
    n = len(wall)
    print(f"{n} estimates of {args.samples} simulated battles each")
    print(f"per estimate: median {statistics.median(wall) * 1000:.0f} ms wall, {statistics.median(cpu) * 1000:.0f} ms CPU; "
          f"slowest {max(wall) * 1000:.0f} ms wall")
    print(f"per simulated battle: {statistics.median(cpu) / args.samples * 1e6:.0f} us CPU (median)")


if __name__ == "__main__":
    main()
