"""The vocabulary of play-by-email steps: step kinds, settings, the published defaults.

Shared by the session (:mod:`pbem.caesar.steps`), the submission checker
(:mod:`pbem.caesar.checking`), the adjudicator (:mod:`pbem.caesar.adjudicate`)
and the order hints (:mod:`pbem.caesar.hints`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Sequence

from pbem.caesar.board import Side
from pbem.caesar.choices import (
    Decision,
    DecisionKind,
)
from pbem.caesar.game import Game
from pbem.caesar.orders import (
    OrderError,
)
from pbem.errors import PbemError


class StepKind(str, Enum):
    DEPLOYMENT = "deployment"
    YEAR_START = "year-start"
    CARD = "card"
    COMMAND = "command"
    BATTLES = "battles"
    BATTLE = "battle"  # interactive: one battle decision
    WINTER = "winter"
    OVER = "over"


class BattleMode(str, Enum):
    PLANNED = "planned"
    INTERACTIVE = "interactive"


#: The published defaults (RULINGS P2), quoted in the README and in reports.
DEFAULTS: dict[str, str] = {
    "deploy": "free deployment not sent: the historical deployment (5.1)",
    "discard": "no discard sent: the lowest-Moves command card (fewest Levies on a tie) is discarded",
    "play": "no card sent: the lowest-Moves command card (fewest Levies on a tie) is played; an event only if the hand holds nothing else",
    "event": "no event orders: the event is not used",
    "moves": "no move orders: no moves",
    "levies": "no levy orders: no levies",
    "surprise": "no surprise order: no surprise battle",
    "battle-order": "battles not listed by Player 1 are fought in alphabetical order",
    "battle-turn": "a block retreats when a retreat plan applies and its destination is legal; otherwise it fires (passes with no target); blocks of the same letter act in the plan's 'order', then alphabetically",
    "forced-retreat": "an attacker that must retreat in Round 4 goes to its planned destination if legal, else to the first legal destination (by road before by sea, alphabetical)",
    "hit": "among equally strong blocks the hit goes to the first one in the plan's 'hits' list; else a non-leader before a leader, then the lowest firepower, then alphabetical",
    "regroup": "blocks regroup only as planned; otherwise they stay",
    "plan-not-done": "a plan line that cannot be carried out for a block (a retreat or regroup it cannot make) is not, for that block; the report names the line",
    "winter-navis": "a Navis at sea goes to its planned port if Friendly, else the first Friendly port on that sea alphabetically",
    "winter-supply": "surplus blocks are those named in 'winter: disband' first, then the weakest (alphabetical on a tie)",
    "winter-disband": "no voluntary disbands unless 'winter: disband' names them",
}


@dataclass(frozen=True)
class Step:
    number: int
    kind: StepKind
    awaiting: tuple[Side, ...]
    sealed: bool
    title: str
    decision: Decision | None = None

    def awaits(self, side: Side) -> bool:
        return side in self.awaiting


@dataclass(frozen=True)
class Settings:
    battles: BattleMode = BattleMode.PLANNED

    def to_json(self) -> dict[str, str]:
        return {"battles": self.battles.value}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Settings":
        return cls(BattleMode(d.get("battles", "planned")))


class SubmissionRejected(PbemError, ValueError):
    """A submission that is not accepted; ``errors`` lists every problem."""

    def __init__(self, errors: Sequence[OrderError]) -> None:
        self.errors = list(errors)
        super().__init__(
            f"{len(self.errors)} error{'' if len(self.errors) == 1 else 's'}; nothing was applied:\n" + "\n".join(f"- {e}" for e in self.errors)
        )


def describe_decision(g: Game, d: Decision) -> str:
    bs = g.state.battle
    if d.kind is DecisionKind.BATTLE_ORDER:
        return f"{d.side} chooses the next battle among {', '.join(d.get('battles', ()))}"
    if d.kind is DecisionKind.BATTLE_TURN and bs:
        names = " or ".join(g.describe(b) for b in d.get("blocks", ()))
        return f"battle of {d.location}, round {bs.round}: turn of {names}: fire, retreat or pass"
    if d.kind is DecisionKind.HIT:
        names = " or ".join(g.describe(b) for b in d.get("blocks", ()))
        return f"battle of {d.location}: a hit must go to {names}"
    if d.kind is DecisionKind.REGROUP:
        return f"battle of {d.location} won: regroup"
    return d.kind.value
