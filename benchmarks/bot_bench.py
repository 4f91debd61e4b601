"""Benchmark: the computer players' strength (a script, not a test).

Example::

    python benchmarks/bot_bench.py --games 20 --iterations 40
    python benchmarks/bot_bench.py --games 10 --strength 1      # the real 2 s/step budget (slow)

Plays bot vs random, bot vs greedy (the bot as either side), greedy vs random,
a strong bot (3x the budget) vs a weak one, and bot vs bot, through the step
layer as order text, and prints each side's win rate with a 95% Wilson interval.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

from pbem.games.caesar.ai.match import Tally, play_match  # noqa: E402
from pbem.games.caesar.ai.players import Bot, Budget, Player, make_player  # noqa: E402
from pbem.games.caesar.rules.board import Side  # noqa: E402
from pbem.games.caesar.rules.state import Options  # noqa: E402


def player(name: str, iterations: int | None, strength: float) -> Player:
    if name.startswith("bot"):
        scale = 3.0 if name == "bot-strong" else 1.0
        if iterations is not None:
            return Bot(Budget(iterations=int(iterations * scale)), name=name)
        return Bot(Budget(iterations=None, seconds=2.0 * strength * scale, clock=time.perf_counter), name=name)
    return make_player(name)


PAIRINGS = [
    ("bot", "random"), ("random", "bot"),
    ("bot", "greedy"), ("greedy", "bot"),
    ("greedy", "random"), ("random", "greedy"),
    ("bot-strong", "bot"), ("bot", "bot-strong"),
    ("bot", "bot"),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=10, help="games per pairing")
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--iterations", type=int, default=40, help="bot search iterations per step (0: use the time budget)")
    ap.add_argument("--strength", type=float, default=1.0, help="with --iterations 0: units of 2 s per step")
    ap.add_argument("--only", help="run only pairings whose 'caesar-pompey' name contains this "
                    "(or, with a comma, only the pairings named exactly)")
    ap.add_argument("--tournament", action="store_true", help="tournament rule C5: Caesar is Player 1 on the first game turn")
    args = ap.parse_args()
    iterations = args.iterations or None
    budget = f"{iterations} iterations/step" if iterations else f"{2 * args.strength:.1f} s/step"
    print(f"budget: {budget}; "
          f"{args.games} games per pairing" + ("; tournament rule C5" if args.tournament else ""))
    for caesar, pompey in PAIRINGS:
        name = f"{caesar}-{pompey}"
        if args.only and (name not in args.only.split(",") if "," in args.only else args.only not in name):
            continue
        tally = Tally()
        start = time.perf_counter()
        for i in range(args.games):
            players = {Side.CAESAR: player(caesar, iterations, args.strength),
                       Side.POMPEY: player(pompey, iterations, args.strength)}
            tally.add(play_match(players, args.seed + i, Options(tournament=args.tournament)))
        print(f"\n{caesar} (Caesar) vs {pompey} (Pompey): {time.perf_counter() - start:.0f} s")
        for line in tally.lines({Side.CAESAR: caesar, Side.POMPEY: pompey}):
            print("  " + line)
        m = tally.margin()
        if m is not None:
            print(f"  final VP, Caesar minus Pompey: mean {m[0]:+.1f} (95% CI {m[0] - m[1]:+.1f} to {m[0] + m[1]:+.1f})")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
