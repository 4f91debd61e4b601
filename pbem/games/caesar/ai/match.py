"""Whole games between computer players through the step layer, and win rates with confidence intervals.

Every answer goes through :meth:`Session.submit` as order text, exactly like a
player's email: a player whose submission the engine rejects fails the match.
Pure: the clock (for the bot's time budget) is injected by the caller.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from pbem.core.events import Event
from pbem.core.rng import Rng
from pbem.games.caesar.ai.belief import Observation, observe
from pbem.games.caesar.ai.players import Player
from pbem.games.caesar.rules.board import Side
from pbem.games.caesar.rules.game import new_game
from pbem.games.caesar.rules.state import Options
from pbem.games.caesar.steps.session import Session, StepKind


def observe_session(session: Session, log: Sequence[Event], side: Side) -> Observation:
    """What ``side`` knows at the open step: the observation of the position plus the step's public state
    and the side's own standing orders (battle plans, winter orders)."""
    step = session.step()
    public = {
        "step": step.kind.value,
        "number": step.number,
        "awaiting": [s.value for s in step.awaiting],
        "settings": session.settings.to_json(),
        "collected": dict(sorted(session.collected.items())),
        "plans": list(session.plans.get(side, [])),
        "winter": list(session.winter.get(side, [])),
    }
    return observe(session.game, log, side, public)


@dataclass
class GameRecord:
    seed: int
    winner: Side | None
    reason: str
    steps: int
    vp: dict[Side, int] = field(default_factory=dict)  # each side's VP at the end


def play_match(players: dict[Side, Player], seed: int, options: Options | None = None, *, max_steps: int = 2000) -> GameRecord:
    """One whole game; each side's player answers every step that waits for it.
    Player ``side`` draws from its own generator seeded from ``seed``."""
    g = new_game(seed, options)
    log: list[Event] = list(g.events)
    g.events = []
    session = Session(g)
    rngs = {s: Rng((seed * 2 + i + 1) * 0x9E3779B97F4A7C15 & ((1 << 64) - 1)) for i, s in enumerate(Side)}
    for _ in range(max_steps):
        step = session.step()
        if step.kind is StepKind.OVER:
            break
        for side in step.awaiting:
            obs = observe_session(session, log, side)
            text = players[side].answer(obs, rngs[side]).text
            log += session.submit(side, text)
            if session.step().number != step.number:
                break
    r = session.game.state.result
    if r is None:
        raise RuntimeError(f"game with seed {seed} did not end in {max_steps} steps")
    return GameRecord(seed, r.winner, r.reason, session.step_no - 1, dict(r.vp))


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval (95% by default) of a proportion ``wins / n``."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class Tally:
    games: int = 0
    wins: dict[str, int] = field(default_factory=lambda: {"Caesar": 0, "Pompey": 0, "draw": 0})
    margins: list[int] = field(default_factory=list)  # Caesar's VP minus Pompey's, per game

    def add(self, rec: GameRecord) -> None:
        self.games += 1
        self.wins[rec.winner.value if rec.winner else "draw"] += 1
        if rec.vp:
            self.margins.append(rec.vp.get(Side.CAESAR, 0) - rec.vp.get(Side.POMPEY, 0))

    def margin(self) -> tuple[float, float] | None:
        """The mean final VP margin (Caesar minus Pompey) and its 95% half-width (normal approximation)."""
        n = len(self.margins)
        if n < 2:
            return None
        mean = sum(self.margins) / n
        var = sum((m - mean) ** 2 for m in self.margins) / (n - 1)
        return mean, 1.96 * math.sqrt(var / n)

    def lines(self, names: dict[Side, str]) -> list[str]:
        out = []
        for s in Side:
            k = self.wins[s.value]
            lo, hi = wilson(k, self.games)
            pct = 100 * k / self.games if self.games else 0.0
            out.append(f"{s.value} ({names[s]}): {k}/{self.games} wins = {pct:.1f}% (95% CI {100 * lo:.1f}-{100 * hi:.1f}%)")
        if self.wins["draw"]:
            out.append(f"draws: {self.wins['draw']}")
        return out
