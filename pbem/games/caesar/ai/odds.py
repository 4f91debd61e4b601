"""Battle odds as one side can estimate them: simulated battles over positions consistent with what it knows.

For each pending battle (a contested location, or the battle being fought) the side's own blocks
are exact and the enemy's are drawn by the belief sampler (:class:`~pbem.games.caesar.ai.belief.Belief`
over :func:`~pbem.games.caesar.ai.belief.observe`), so the estimate never depends on the hidden
truth: two games that differ only in the enemy's hidden blocks give the same odds. Each sample's
battle is fought with the rules engine to its end, both sides firing with every block at every turn
(an attacker retreats when Round 4 obliges him; hits fall where the rules say, the first of equal
blocks when the owner may choose). Regroups are not played.

Deterministic: the generator is seeded from public facts (the side, the place, the year and game
turn, and how many events the side has seen). Pure: no I/O, no clock.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from pbem.core.events import Event
from pbem.core.rng import Rng
from pbem.games.caesar.ai.belief import Belief, SampleError, observe
from pbem.games.caesar.rules import battle as battle_mod
from pbem.games.caesar.rules.board import Side
from pbem.games.caesar.rules.choices import Choice, DecisionKind
from pbem.games.caesar.rules.game import Game
from pbem.games.caesar.rules.state import BlockStatus, Phase
from pbem.games.caesar.view.history import visible_events

__all__ = ["SAMPLES", "BattleOdds", "battle_odds", "pending_battles"]

#: Simulated battles per pending battle (the report says how many).
SAMPLES = 200
#: The named leaders whose death the odds state (the game is lost with them: 7.51, W2).
LEADERS = ("Caesar:Caesar", "Pompey:Pompey")
_MAX_DECISIONS = 400  # a battle has at most 4 rounds of some 20 block turns and their hits


@dataclass(frozen=True)
class BattleOdds:
    """The estimate of one battle for ``side``: frequencies out of ``samples`` simulated battles."""

    location: str
    side: Side
    samples: int
    wins: int  # battles ``side`` won
    steps_lost: dict[Side, int]  # strength points lost, summed over the samples
    eliminated: dict[Side, int]  # blocks eliminated, summed over the samples
    killed: dict[str, int]  # leader id -> samples in which he was killed
    present: dict[str, int]  # leader id -> samples in which he stood in the battle

    def percent(self, n: int) -> int:
        return round(100 * n / self.samples) if self.samples else 0


def pending_battles(game: Game) -> list[str]:
    """Where a battle is pending: the battle being fought (until it is won), then the other contests."""
    st = game.state
    out = []
    if st.battle is not None and st.battle.victor is None:
        out.append(st.battle.loc)
    out += [loc for loc in sorted(st.contests) if loc not in out]
    return out


def _seed(side: Side, loc: str, game: Game, seen: int) -> int:
    text = f"pbem battle odds|{side.value}|{loc}|{game.state.year}|{game.state.turn}|{seen}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def _fight(g: Game, loc: str) -> Side | None:
    """Fight the battle at ``loc`` in ``g`` to its end with the firing policy; the victor (None: not decided)."""
    st = g.state
    if st.battle is None or st.battle.loc != loc:
        if loc not in st.contests:
            return None
        st.phase, st.command, st.battle = Phase.BATTLE, None, None
        battle_mod.start_battle(g, loc)
        g.advance()
    for _ in range(_MAX_DECISIONS):
        bs = st.battle
        if bs is None or bs.loc != loc:
            return None
        if bs.victor is not None:
            return bs.victor
        pend = g.pending()
        if not pend:
            return None
        d = pend[0]
        choice: Choice
        if d.kind is DecisionKind.BATTLE_TURN:
            # fire when it can (turn_options lists Fire first when it is there): the first option
            choice = battle_mod.first_turn_option(g, d.get("blocks")[0])
        elif d.kind is DecisionKind.HIT:
            choice = next(iter(g.legal(d)))
        else:
            return None
        g.apply_legal(d, choice)  # taken from the decision's own options: legal, so not checked again
    return None


def battle_odds(game: Game, log: Sequence[Event], side: Side, loc: str, samples: int = SAMPLES) -> BattleOdds | None:
    """``side``'s odds in the battle at ``loc``, from ``side``'s observation only (None when no position
    consistent with it can be drawn)."""
    belief = Belief(observe(game, log, side))
    rng = Rng(_seed(side, loc, game, len(visible_events(log, side))))
    wins = 0
    steps = {s: 0 for s in Side}
    elim = {s: 0 for s in Side}
    killed = dict.fromkeys(LEADERS, 0)
    present = dict.fromkeys(LEADERS, 0)
    done = 0
    for _ in range(samples):
        try:
            g = belief.sample(rng)
        except SampleError:
            return None
        blocks = g.state.blocks
        there = [bid for bid in g.blocks_at(loc) if bid != "Cleopatra"]
        before = {bid: (blocks[bid].side, blocks[bid].strength) for bid in there}
        victor = _fight(g, loc)
        if victor is None:
            continue
        done += 1
        for leader in LEADERS:
            present[leader] += leader in before
        wins += victor is side
        for bid, (owner, strength) in before.items():
            b = blocks[bid]
            if b.status is not BlockStatus.MAP:
                elim[owner] += 1
                steps[owner] += strength
                if bid in killed:
                    killed[bid] += b.status is BlockStatus.DEAD
            else:
                steps[owner] += max(0, strength - b.strength)
    if not done:
        return None
    return BattleOdds(loc, side, done, wins, steps, elim, killed, present)
