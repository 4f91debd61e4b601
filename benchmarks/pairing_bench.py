"""Benchmark: Swiss pairing of a whole season with random results (a script, not a test).

Example::

    python benchmarks/pairing_bench.py --players 64 --rounds 9 --seasons 20

Plays ``--seasons`` Swiss seasons of ``--players`` players (random results, no games) through
:func:`pbem.tournament.swiss_pairing` and the standings, and prints the pairing time per round
(the slowest round too) and how many rematches were forced: a round gets a rematch only when
no pairing without one exists, which happens when a Swiss runs nearly as many rounds as there
are players (8 players, 7 rounds); a round-robin is the format for that.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

from pbem.tournament import PairingRecord, compute_standings, swiss_pairing  # noqa: E402


def season(players: int, rounds: int, rng: random.Random) -> tuple[list[float], int]:
    names = [f"p{i:03d}" for i in range(players)]
    pairings: list[PairingRecord] = []
    played: set[frozenset[str]] = set()
    byes: dict[str, int] = {}
    times, rematches = [], 0
    for r in range(1, rounds + 1):
        order = [s.player for s in compute_standings(names, pairings)]
        t0 = time.perf_counter()
        pairs, bye = swiss_pairing(order, played, byes)
        times.append(time.perf_counter() - t0)
        for t, (a, b) in enumerate(pairs, start=1):
            rematches += frozenset((a, b)) in played
            played.add(frozenset((a, b)))
            outcome = rng.random()
            winner = a if outcome < 0.45 else b if outcome < 0.9 else None
            pairings.append(PairingRecord(round=r, table=t, first=a, second=b, over=True, winner=winner,
                                          score_first=rng.randint(0, 10), score_second=rng.randint(0, 10)))
        if bye is not None:
            byes[bye] = byes.get(bye, 0) + 1
            pairings.append(PairingRecord(round=r, table=len(pairs) + 1, first=bye, over=True))
    return times, rematches


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=64)
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--seasons", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    all_times: list[float] = []
    forced = 0
    for _ in range(args.seasons):
        times, rematches = season(args.players, args.rounds, rng)
        all_times += times
        forced += rematches
    mean = sum(all_times) / len(all_times)
    print(f"{args.seasons} seasons of {args.players} players, {args.rounds} rounds: pairing {mean * 1000:.2f} ms "
          f"per round on average, slowest {max(all_times) * 1000:.2f} ms; rematches forced: {forced}")


if __name__ == "__main__":
    main()
