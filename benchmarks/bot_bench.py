"""Benchmark: the computer players' strength (a script, not a test).

Example::

    python benchmarks/bot_bench.py --games 20 --iterations 40
    python benchmarks/bot_bench.py --games 10 --strength 1      # the real 2 s/step budget (slow)
    python benchmarks/bot_bench.py --games 10 --ladder 2,8,30,120   # stronger vs weaker, both seats

Plays bot vs random, bot vs greedy (the bot as either side), greedy vs random,
a strong bot (3x the budget) vs a weak one, and bot vs bot, through the step
layer as order text, and prints each side's win rate with a 95% Wilson interval,
and what the budget gave the bot (search iterations per step it thought on).

``--ladder A,B,C``: for each neighbouring pair of budgets (iterations per step, or
``sX`` for strength X, the time budget), the stronger and the weaker bot play each
seed twice, once in each seat, and the stronger's wins and VP margin are compared
with the weaker's in the same seat (so the side's own advantage cancels out).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

from pbem.core.rng import Rng  # noqa: E402
from pbem.games.caesar.ai.belief import Observation  # noqa: E402
from pbem.games.caesar.ai.match import Tally, play_match, wilson  # noqa: E402
from pbem.games.caesar.ai.players import SECONDS_PER_STRENGTH, Answer, Bot, Budget, Player, make_player  # noqa: E402
from pbem.games.caesar.rules.board import Side  # noqa: E402
from pbem.games.caesar.rules.state import Options  # noqa: E402


@dataclass
class Counted:
    """A player that counts the steps it searched on and the iterations its budget gave it."""

    inner: Player
    name: str = ""
    per_step: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.name = self.name or self.inner.name

    def answer(self, obs: Observation, rng: Rng) -> Answer:
        a = self.inner.answer(obs, rng)
        if a.iterations:
            self.per_step.append(a.iterations)
        return a


def bot(budget: str, clock: Callable[[], float]) -> Bot:
    """``"120"``: 120 iterations per step; ``"s0.5"``: strength 0.5 (0.5 x 2 s per step by ``clock``)."""
    if budget.startswith("s"):
        return Bot(Budget(iterations=None, seconds=SECONDS_PER_STRENGTH * float(budget[1:]), clock=clock), name=f"bot {budget}")
    return Bot(Budget(iterations=int(budget)), name=f"bot {budget}")


def player(name: str, iterations: int | None, strength: float, clock: Callable[[], float]) -> Player:
    if name.startswith("bot"):
        scale = 3.0 if name == "bot-strong" else 1.0
        if iterations is not None:
            return Bot(Budget(iterations=int(iterations * scale)), name=name)
        return Bot(Budget(iterations=None, seconds=SECONDS_PER_STRENGTH * strength * scale, clock=clock), name=name)
    return make_player(name)


def said_iterations(counts: list[int]) -> str:
    if not counts:
        return "no searched steps"
    s = sorted(counts)
    return (f"{len(s)} searched steps, iterations/step median {s[len(s) // 2]}, "
            f"mean {sum(s) / len(s):.0f}, range {s[0]}-{s[-1]}")


def mean_ci(xs: list[float]) -> tuple[float, float] | None:
    """Mean and 95% half-width (normal approximation)."""
    n = len(xs)
    if n < 2:
        return None
    m = sum(xs) / n
    var = sum((x - m) ** 2 for x in xs) / (n - 1)
    return m, 1.96 * math.sqrt(var / n)


PAIRINGS = [
    ("bot", "random"), ("random", "bot"),
    ("bot", "greedy"), ("greedy", "bot"),
    ("greedy", "random"), ("random", "greedy"),
    ("bot-strong", "bot"), ("bot", "bot-strong"),
    ("bot", "bot"),
]


def pairings(args: argparse.Namespace, clock: Callable[[], float]) -> None:
    iterations = args.iterations or None
    for caesar, pompey in PAIRINGS:
        name = f"{caesar}-{pompey}"
        if args.only and (name not in args.only.split(",") if "," in args.only else args.only not in name):
            continue
        tally = Tally()
        counts: list[int] = []
        start, cpu = time.perf_counter(), time.process_time()
        for i in range(args.games):
            players = {Side.CAESAR: Counted(player(caesar, iterations, args.strength, clock)),
                       Side.POMPEY: Counted(player(pompey, iterations, args.strength, clock))}
            rec = play_match(dict(players), args.seed + i, Options(tournament=args.tournament))
            tally.add(rec)
            for s in Side:
                if players[s].name.startswith("bot"):
                    counts += players[s].per_step
            if args.verbose:
                print(f"  seed {rec.seed}: {rec.winner.value if rec.winner else 'draw'} ({rec.reason}), "
                      f"VP {rec.vp.get(Side.CAESAR, 0)}-{rec.vp.get(Side.POMPEY, 0)}", flush=True)
        print(f"\n{caesar} (Caesar) vs {pompey} (Pompey): {time.perf_counter() - start:.0f} s wall, "
              f"{time.process_time() - cpu:.0f} s CPU")
        for line in tally.lines({Side.CAESAR: caesar, Side.POMPEY: pompey}):
            print("  " + line)
        m = tally.margin()
        if m is not None:
            print(f"  final VP, Caesar minus Pompey: mean {m[0]:+.1f} (95% CI {m[0] - m[1]:+.1f} to {m[0] + m[1]:+.1f})")
        if counts:
            print(f"  the bot(s): {said_iterations(counts)}")
        sys.stdout.flush()


def ladder(args: argparse.Namespace, clock: Callable[[], float]) -> None:
    """Each neighbouring pair of budgets, every seed played with both seat assignments."""
    rungs = args.ladder.split(",")
    for weak, strong in zip(rungs, rungs[1:]):
        start, cpu = time.perf_counter(), time.process_time()
        seat_wins = {s: {"strong": 0, "weak": 0} for s in Side}  # wins in that seat, by who sat in it
        strong_wins = weak_wins = draws = 0
        edge: list[float] = []  # per seed: the stronger's VP margin minus the weaker's in the same seat, halved
        by_seat: dict[Side, dict[str, list[int]]] = {s: {"strong": [], "weak": []} for s in Side}
        counts: dict[str, list[int]] = {"strong": [], "weak": []}
        for i in range(args.games):
            seed = args.seed + i
            margins = {}
            for strong_seat in Side:
                who = {strong_seat: "strong", strong_seat.enemy: "weak"}
                players = {s: Counted(bot(strong if who[s] == "strong" else weak, clock)) for s in Side}
                rec = play_match(dict(players), seed, Options(tournament=args.tournament))
                for s in Side:
                    counts[who[s]] += players[s].per_step
                    by_seat[s][who[s]].append(rec.vp.get(s, 0) - rec.vp.get(s.enemy, 0))
                if rec.winner is None:
                    draws += 1
                else:
                    seat_wins[rec.winner][who[rec.winner]] += 1
                    if who[rec.winner] == "strong":
                        strong_wins += 1
                    else:
                        weak_wins += 1
                # the stronger's margin in its seat (its VP minus the enemy's)
                margins[strong_seat] = rec.vp.get(strong_seat, 0) - rec.vp.get(strong_seat.enemy, 0)
                if args.verbose:
                    print(f"  seed {seed}, {strong} as {strong_seat.value}: "
                          f"{rec.winner.value if rec.winner else 'draw'} ({rec.reason}), "
                          f"VP {rec.vp.get(Side.CAESAR, 0)}-{rec.vp.get(Side.POMPEY, 0)}", flush=True)
            # Caesar's margin when the stronger is Caesar, minus Caesar's margin when the weaker is:
            # the side's advantage cancels; halved, it is the stronger's edge per game in VP
            c_strong = margins[Side.CAESAR]
            c_weak = -margins[Side.POMPEY]
            edge.append((c_strong - c_weak) / 2)
        n = 2 * args.games
        lo, hi = wilson(strong_wins + draws / 2, n)
        print(f"\n{strong} vs {weak}, {args.games} seeds x both seats = {n} games: "
              f"{time.perf_counter() - start:.0f} s wall, {time.process_time() - cpu:.0f} s CPU")
        print(f"  the stronger ({strong}) won {strong_wins}, the weaker ({weak}) {weak_wins}, draws {draws}: "
              f"stronger's score {100 * (strong_wins + draws / 2) / n:.1f}% (95% CI {100 * lo:.1f}-{100 * hi:.1f}%)")
        for s in Side:
            k = len(by_seat[s]["strong"])
            for w in ("strong", "weak"):
                wins = seat_wins[s][w]
                wl, wh = wilson(wins, k)
                mc = mean_ci([float(x) for x in by_seat[s][w]])
                vp = f"VP margin {mc[0]:+.1f} (95% CI {mc[0] - mc[1]:+.1f} to {mc[0] + mc[1]:+.1f})" if mc else ""
                print(f"  as {s.value}, the {w}er ({strong if w == 'strong' else weak}): {wins}/{k} wins "
                      f"({100 * wl:.0f}-{100 * wh:.0f}%), {vp}")
        e = mean_ci(edge)
        if e is not None:
            print(f"  the stronger's edge, side-balanced: {e[0]:+.2f} VP per game (95% CI {e[0] - e[1]:+.2f} to {e[0] + e[1]:+.2f})")
        caesar_wins = seat_wins[Side.CAESAR]["strong"] + seat_wins[Side.CAESAR]["weak"]
        cl, ch = wilson(caesar_wins, n)
        print(f"  the sides: Caesar won {caesar_wins}/{n} ({100 * cl:.0f}-{100 * ch:.0f}%)")
        for w in ("weak", "strong"):
            print(f"  {strong if w == 'strong' else weak}: {said_iterations(counts[w])}")
        sys.stdout.flush()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=10, help="games per pairing (with --ladder: seeds, each played in both seats)")
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--iterations", type=int, default=40, help="bot search iterations per step (0: use the time budget)")
    ap.add_argument("--strength", type=float, default=1.0, help="with --iterations 0: units of 2 s per step")
    ap.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                    help="the time budget's clock: this process's CPU time (what an idle machine gives; default) or wall time")
    ap.add_argument("--only", help="run only pairings whose 'caesar-pompey' name contains this "
                    "(or, with a comma, only the pairings named exactly)")
    ap.add_argument("--ladder", help="budgets, weakest first, e.g. 2,8,30,120 (iterations) or s0.25,s1 (strength): "
                    "each neighbouring pair plays every seed in both seats")
    ap.add_argument("--tournament", action="store_true", help="tournament rule C5: Caesar is Player 1 on the first game turn")
    ap.add_argument("--verbose", action="store_true", help="a line per game")
    args = ap.parse_args()
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    if args.ladder:
        print(f"ladder {args.ladder} ({args.clock} clock for time budgets); {args.games} seeds from {args.seed}, "
              f"each in both seats" + ("; tournament rule C5" if args.tournament else ""))
        ladder(args, clock)
        return
    iterations = args.iterations or None
    budget = f"{iterations} iterations/step" if iterations else f"{SECONDS_PER_STRENGTH * args.strength:.1f} s/step ({args.clock} clock)"
    print(f"budget: {budget}; "
          f"{args.games} games per pairing from seed {args.seed}" + ("; tournament rule C5" if args.tournament else ""))
    pairings(args, clock)


if __name__ == "__main__":
    main()
