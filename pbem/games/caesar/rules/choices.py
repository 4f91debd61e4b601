"""Decisions the engine asks for, the choices that answer them, and events.

A :class:`Decision` says who must decide what; the engine lists the legal
:data:`Choice` values for it and applies one at a time. Choices are small
frozen dataclasses whose ``repr`` pastes back into Python.

Events are what happened, each with its audience (RULINGS P1): the engine
emits an owner's version and the opponent's version of anything hidden.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from pbem.games.caesar.rules.board import Side


class DecisionKind(str, Enum):
    DEPLOY = "deploy"  # free deployment (5.3), sealed, both sides
    DISCARD = "discard"  # sealed, both sides
    PLAY = "play"  # sealed, both sides
    EVENT_TARGET = "event-target"  # Jupiter or Vulcan
    MOVES = "moves"  # group, Navis and amphibious moves, main attacks; then EndMoves
    SURPRISE = "surprise"  # Mars / Neptune: which battle is the surprise battle
    LEVIES = "levies"
    BATTLE_ORDER = "battle-order"  # Player 1 picks the next battle
    BATTLE_TURN = "battle-turn"  # one block: fire, retreat or pass
    HIT = "hit"  # which of equally strong blocks takes the hit
    REGROUP = "regroup"
    WINTER_NAVIS = "winter-navis"  # a Navis at sea chooses its port
    WINTER_SUPPLY = "winter-supply"  # disband a block over the supply limit
    WINTER_DISBAND = "winter-disband"  # voluntary disbands


SEALED = frozenset({DecisionKind.DEPLOY, DecisionKind.DISCARD, DecisionKind.PLAY})


@dataclass(frozen=True, init=False)
class Decision:
    side: Side
    kind: DecisionKind
    location: str | None = None  # battle, city over supply, ...
    block: str | None = None  # the Navis in winter, the block whose turn it is
    info: tuple[tuple[str, Any], ...] = ()  # extra facts for the asker (hits left, round, ...)

    def __init__(self, side: Side, kind: DecisionKind, location: str | None = None, block: str | None = None,
                 info: tuple[tuple[str, Any], ...] = ()) -> None:
        # what the frozen dataclass's own __init__ does, in one step (the engine asks ~300 decisions a game)
        self.__dict__.update(side=side, kind=kind, location=location, block=block, info=info)

    def get(self, key: str, default: Any = None) -> Any:
        return dict(self.info).get(key, default)


# ---- choices -----------------------------------------------------------------


@dataclass(frozen=True)
class Deploy:
    """Free deployment: the blocks in each set-up city (block ids)."""

    placement: tuple[tuple[str, tuple[str, ...]], ...]


@dataclass(frozen=True)
class Discard:
    card: str


@dataclass(frozen=True)
class Play:
    card: str


@dataclass(frozen=True)
class Move:
    """One block along ``path`` (origin first): roads for land blocks, sea borders for Navis."""

    block: str
    path: tuple[str, ...]


@dataclass(frozen=True)
class SeaMove:
    """An amphibious move (6.3): port, one or more Friendly seas, port."""

    block: str
    path: tuple[str, ...]


@dataclass(frozen=True)
class MainAttack:
    """Declare the Main Attack into ``location`` to be the blocks from ``origin`` (7.3, M4)."""

    location: str
    origin: str


@dataclass(frozen=True)
class EndMoves:
    pass


@dataclass(frozen=True)
class Levy:
    """A new block from the levy pool, at ``city``."""

    block: str
    city: str


@dataclass(frozen=True)
class LevyStep:
    block: str


@dataclass(frozen=True)
class EndLevies:
    pass


@dataclass(frozen=True)
class Jupiter:
    """E1: the target location; ``cleopatra`` names her instead of a random draw; ``to`` where a defector goes."""

    target: str
    cleopatra: bool = False
    to: str | None = None


@dataclass(frozen=True)
class Vulcan:
    target: str


@dataclass(frozen=True)
class NoEvent:
    """Decline the event's action (or it has no legal target)."""


@dataclass(frozen=True)
class Surprise:
    location: str | None  # None: no surprise battle


@dataclass(frozen=True)
class NextBattle:
    location: str


class Action(str, Enum):
    FIRE = "fire"
    RETREAT = "retreat"
    PASS = "pass"


@dataclass(frozen=True)
class BattleAction:
    block: str
    action: Action
    to: str | None = None  # retreat destination
    by_sea: bool = False  # a sea retreat (7.64)


@dataclass(frozen=True)
class TakeHit:
    block: str


@dataclass(frozen=True)
class Regroup:
    block: str
    to: str


@dataclass(frozen=True)
class EndRegroup:
    pass


@dataclass(frozen=True)
class NavisToPort:
    block: str
    port: str


@dataclass(frozen=True)
class Disband:
    block: str


@dataclass(frozen=True)
class EndDisband:
    pass


Choice = (Deploy | Discard | Play | Move | SeaMove | MainAttack | EndMoves | Levy | LevyStep | EndLevies |
    Jupiter | Vulcan | NoEvent | Surprise | NextBattle | BattleAction | TakeHit | Regroup | EndRegroup |
    NavisToPort | Disband | EndDisband)


# ---- events ------------------------------------------------------------------


class Audience(str, Enum):
    ALL = "all"
    CAESAR = "Caesar"
    POMPEY = "Pompey"
    MODERATOR = "moderator"

    @classmethod
    def of(cls, side: Side) -> Audience:
        return _OF_SIDE[side]

    def sees(self, viewer: Side | None) -> bool:
        """Whether ``viewer`` (None = moderator) may see an event with this audience."""
        if viewer is None:
            return True
        return self is Audience.ALL or self.value == viewer.value


_OF_SIDE = {side: Audience(side.value) for side in Side}


# ---- JSON form of choices (conformance cases, decision trails) ----------------

_CHOICE_TYPES: dict[str, type] = {
    t.__name__: t
    for t in (
        Deploy, Discard, Play, Move, SeaMove, MainAttack, EndMoves, Levy, LevyStep, EndLevies, Jupiter, Vulcan,
        NoEvent, Surprise, NextBattle, BattleAction, TakeHit, Regroup, EndRegroup, NavisToPort, Disband, EndDisband,
    )
}


def choice_to_json(ch: Choice) -> dict[str, Any]:
    """``{"type": "Move", "block": "Caesar:Legio 8", "path": ["Genua", "Roma"]}``."""
    from dataclasses import fields

    out: dict[str, Any] = {"type": type(ch).__name__}
    for f in fields(ch):
        v = getattr(ch, f.name)
        if isinstance(v, Enum):
            v = v.value
        elif isinstance(v, tuple):
            v = [list(x) if isinstance(x, tuple) else x for x in v]
            if f.name == "placement":
                v = {loc: list(ids) for loc, ids in getattr(ch, f.name)}
        out[f.name] = v
    return out


def choice_from_json(data: dict[str, Any]) -> Choice:
    from dataclasses import fields

    name = data.get("type")
    cls = _CHOICE_TYPES.get(str(name))
    if cls is None:
        raise ValueError(f"unknown choice type {name!r}; expected one of {', '.join(sorted(_CHOICE_TYPES))}")
    kwargs: dict[str, Any] = {}
    for f in fields(cls):
        if f.name not in data:
            continue
        v = data[f.name]
        if f.name == "path":
            v = tuple(v)
        elif f.name == "placement":
            v = tuple((loc, tuple(ids)) for loc, ids in sorted(v.items()))
        elif f.name == "action":
            v = Action(v)
        kwargs[f.name] = v
    choice: Choice = cls(**kwargs)
    return choice
