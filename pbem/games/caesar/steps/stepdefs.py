"""The vocabulary of play-by-email steps: step kinds, settings, the published defaults.

Shared by the session (:mod:`pbem.games.caesar.steps.session`), the submission checker
(:mod:`pbem.games.caesar.orders.checking`), the adjudicator (:mod:`pbem.games.caesar.steps.adjudicate`)
and the order hints (:mod:`pbem.games.caesar.orders.hints`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Self

from pbem.core.phrase import N_, Phrase
from pbem.games.caesar.rules.board import Side
from pbem.games.caesar.rules.choices import (
    Decision,
    DecisionKind,
)
from pbem.games.caesar.rules.game import Game


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
    def from_json(cls, d: dict[str, Any]) -> Settings:
        return cls(BattleMode(d.get("battles", "planned")))


@dataclass
class StepState:
    """One game's whole adjudication state as data: the engine position, the options, the step number,
    sealed submissions waiting for the other side, standing battle plans and winter orders.
    :class:`~pbem.games.caesar.steps.session.Session` adds the procedure; the checker, the
    adjudicator and the hints read the state through this class, so none of them imports the session."""

    game: Game
    settings: Settings = field(default_factory=Settings)
    step_no: int = 1
    sealed: dict[Side, list[str]] = field(default_factory=dict)  # accepted, waiting for the step to resolve
    plans: dict[Side, list[str]] = field(default_factory=dict)  # battle plans of this game turn
    winter: dict[Side, list[str]] = field(default_factory=dict)  # winter orders of this Year
    collected: dict[str, str] = field(default_factory=dict)  # "battles"/"winter" -> "year/turn" collected
    entropy: dict[Side, str] = field(default_factory=dict)  # hashes of the sealed submissions (keyed draws)

    # ---- serialisation -------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "position": self.game.to_json(),
            "settings": self.settings.to_json(),
            "step": self.step_no,
            "sealed": {s.value: v for s, v in sorted(self.sealed.items())},
            "plans": {s.value: v for s, v in sorted(self.plans.items())},
            "winter": {s.value: v for s, v in sorted(self.winter.items())},
            "collected": dict(sorted(self.collected.items())),
            **({"entropy": {s.value: v for s, v in sorted(self.entropy.items())}} if self.entropy else {}),
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Self:
        return cls(
            game=Game.from_json(d["position"]),
            settings=Settings.from_json(d.get("settings", {})),
            step_no=int(d.get("step", 1)),
            sealed={Side(k): list(v) for k, v in d.get("sealed", {}).items()},
            plans={Side(k): list(v) for k, v in d.get("plans", {}).items()},
            winter={Side(k): list(v) for k, v in d.get("winter", {}).items()},
            collected=dict(d.get("collected", {})),
            entropy={Side(k): str(v) for k, v in d.get("entropy", {}).items()},
        )

    def copy(self) -> Self:
        """An independent state, equal to the one its JSON reads back, made without the JSON text: the
        position by :meth:`Game.copy` (its random stream cloned: a keyed stream keeps its secret), the
        tables in the order :meth:`to_json` writes them (``tests/test_fast_copy.py``)."""
        return type(self)(
            game=self.game.copy(),
            settings=self.settings,  # frozen
            step_no=self.step_no,
            sealed={s: list(v) for s, v in sorted(self.sealed.items())},
            plans={s: list(v) for s, v in sorted(self.plans.items())},
            winter={s: list(v) for s, v in sorted(self.winter.items())},
            collected=dict(sorted(self.collected.items())),
            entropy={s: str(v) for s, v in sorted(self.entropy.items())},
        )

    # ---- where the game stands ----------------------------------------
    def _turn_key(self) -> str:
        st = self.game.state
        return f"{st.year}/{st.turn}"

    def step(self) -> Step:
        """The open step (the session's procedure decides it)."""
        raise NotImplementedError


def _either(names: list[str]) -> str:
    """``A or B or C`` (a Phrase when there are two or more)."""
    out = names[0] if names else ""
    for name in names[1:]:
        out = Phrase(N_("%(first)s or %(next)s"), first=out, next=name)
    return out


def describe_decision(g: Game, d: Decision) -> str:
    """What a battle decision asks (a Phrase: said in the reader's language)."""
    bs = g.state.battle
    if d.kind is DecisionKind.BATTLE_ORDER:
        return Phrase(N_("%(side)s chooses the next battle among %(locs)s"), side=Phrase(d.side.value),
                      locs=", ".join(d.get("battles", ())))
    if d.kind is DecisionKind.BATTLE_TURN and bs:
        names = _either([g.describe(b) for b in d.get("blocks", ())])
        return Phrase(N_("battle of %(loc)s, round %(n)s: turn of %(blocks)s: fire, retreat or pass"), loc=d.location,
                      n=bs.round, blocks=names)
    if d.kind is DecisionKind.HIT:
        names = _either([g.describe(b) for b in d.get("blocks", ())])
        return Phrase(N_("battle of %(loc)s: a hit must go to %(blocks)s"), loc=d.location, blocks=names)
    if d.kind is DecisionKind.REGROUP:
        return Phrase(N_("battle of %(loc)s won: regroup"), loc=d.location)
    return d.kind.value
