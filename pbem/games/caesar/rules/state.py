"""The complete position of a game of Julius Caesar, and its JSON form.

``GameState`` holds everything needed to continue a game exactly: blocks,
cards (deck, hands, what was played), this turn's road use and attacks, the
battle in progress, winter progress and the random stream. ``to_json`` and
``from_json`` implement the documented *position format* (README, "Position
format"); ``from_json(to_json(s)) == s`` for every reachable state.

Sets are kept for membership tests but always written sorted, and code that
iterates them sorts first, so nothing depends on Python's hash order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from pbem.core.rng import RandomStream, stream_from_json
from pbem.errors import PositionFormatError
from pbem.games.caesar.rules.board import Side

POSITION_FORMAT = "pbem-caesar-position"
POSITION_VERSION = 1
LAST_YEAR = 709
TURNS_PER_YEAR = 5


class Phase(str, Enum):
    DEPLOY = "deploy"  # option free deployment (5.3), before the first Year
    DISCARD = "discard"  # Year start: each side discards one card unseen
    CARD = "card"  # each side plays one card
    COMMAND = "command"
    BATTLE = "battle"
    WINTER = "winter"
    OVER = "over"


class Transition(str, Enum):
    """The moves of the game turn from one phase to the next (rules 2.0-8.0), taken by name:
    the phase modules ask the game to enter the next phase (``Game.enter``) and the game's
    phase table says which module runs it, so no phase module imports another."""

    START_YEAR = "start-year"  # W5/2.1: shuffle and deal, then the card phase
    START_COMMAND = "start-command"  # 6.0: a side's command (Player 1, then Player 2)
    FINISH_COMMAND = "finish-command"  # the command is done: the other side's, or the battles
    START_BATTLES = "start-battles"  # 7.0
    END_TURN = "end-turn"  # the next game turn, or winter after the fifth
    START_WINTER = "start-winter"  # 8.0


class Control(str, Enum):
    """A location from one side's point of view (4.21)."""

    FRIENDLY = "friendly"
    ENEMY = "enemy"
    CONTESTED = "contested"
    VACANT = "vacant"


class BlockStatus(str, Enum):
    MAP = "map"
    POOL = "pool"  # in the levy pool, available
    ELIMINATED = "eliminated"  # in the pool face-up: not before next Year (5.2)
    DEAD = "dead"  # a leader killed (7.51): a trophy for the enemy


class CommandStage(str, Enum):
    EVENT = "event"  # Jupiter / Vulcan target
    MOVES = "moves"
    SURPRISE = "surprise"  # Mars / Neptune: name the surprise battle
    LEVIES = "levies"


class BattleStage(str, Enum):
    TURNS = "turns"
    HITS = "hits"  # the owner chooses which of equal blocks takes a hit
    REGROUP = "regroup"


class WinterStage(str, Enum):
    NAVIS = "navis"
    SUPPLY = "supply"
    DISBAND = "disband"


@dataclass(frozen=True)
class Options:
    free_deployment: bool = False  # 5.3
    tournament: bool = False  # C5: Caesar is Player 1 on the first game turn

    def to_json(self) -> dict[str, bool]:
        return {"free_deployment": self.free_deployment, "tournament": self.tournament}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Options:
        return cls(bool(data.get("free_deployment", False)), bool(data.get("tournament", False)))


@dataclass
class BlockState:
    side: Side  # current owner (Cleopatra and Jupiter's defectors change side)
    loc: str | None  # None when off the map
    strength: int
    status: BlockStatus


@dataclass
class Entry:
    """One block entering a contested location this turn, and by which way."""

    side: Side
    frm: str
    block: str


@dataclass
class Contest:
    """A location attacked this turn: who attacked and how every block came in."""

    attacker: Side
    entries: list[Entry] = field(default_factory=list)
    main: dict[Side, str] = field(default_factory=dict)  # declared Main Attack origin per side (M4)

    def main_origin(self, side: Side) -> str | None:
        if side in self.main:
            return self.main[side]
        for e in self.entries:
            if e.side is side:
                return e.frm
        return None

    def is_reserve(self, block: str) -> bool:
        """Reserves (7.3): the attacker's blocks not via the Main Attack; every defender entry."""
        for e in self.entries:
            if e.block == block:
                if e.side is not self.attacker:
                    return True
                return e.frm != self.main_origin(e.side)
        return False

    def origins(self, side: Side) -> list[str]:
        out: list[str] = []
        for e in self.entries:
            if e.side is side and e.frm not in out:
                out.append(e.frm)
        return out


@dataclass
class CommandState:
    side: Side
    card: str  # effective card (after Apollo)
    event: str | None
    stage: CommandStage
    mp: int
    lp: int
    activated: list[str] = field(default_factory=list)
    amphibious_open: bool = True  # no other move made yet (6.3)
    anchors: list[str] = field(default_factory=list)  # seas crossed by amphibious moves (M6)


@dataclass
class BattleState:
    loc: str
    attacker: Side
    defender: Side
    round: int = 1
    stage: BattleStage = BattleStage.TURNS
    surprise: bool = False
    reserves: set[str] = field(default_factory=set)
    acted: set[str] = field(default_factory=set)
    retreat_use: dict[str, int] = field(default_factory=dict)  # "side|A|B" -> blocks this round
    sea_retreats: dict[str, int] = field(default_factory=dict)  # side -> sea retreats this round
    hits_left: int = 0
    firing: str | None = None  # block whose hits are being applied
    victor: Side | None = None
    regroup_use: dict[str, int] = field(default_factory=dict)
    regrouped: set[str] = field(default_factory=set)
    swapped: bool = False  # disruption made the attacker the defender (7.31)


@dataclass
class WinterState:
    stage: WinterStage
    side: Side = Side.CAESAR  # whose disbanding is asked (Caesar first, then Pompey)


@dataclass
class Result:
    winner: Side | None  # None: a draw
    reason: str
    vp: dict[Side, int]


@dataclass
class GameState:
    options: Options
    year: int
    turn: int
    phase: Phase
    rng: RandomStream
    blocks: dict[str, BlockState]
    deck: list[str] = field(default_factory=list)
    hands: dict[Side, list[str]] = field(default_factory=lambda: {Side.CAESAR: [], Side.POMPEY: []})
    sealed: dict[Side, Any] = field(default_factory=dict)  # sealed answers waiting for the other side
    played: dict[Side, str] = field(default_factory=dict)  # cards as played this turn
    effective: dict[Side, str] = field(default_factory=dict)  # after Apollo (C2)
    prev_effective: dict[Side, str] = field(default_factory=dict)  # previous game turn of this Year
    player1: Side | None = None
    moved: set[str] = field(default_factory=set)  # blocks that moved, retreated into or were levied (M1)
    road_use: dict[str, int] = field(default_factory=dict)  # "side|A|B" -> blocks this turn (M3)
    contests: dict[str, Contest] = field(default_factory=dict)
    surprise: str | None = None  # the surprise battle of Mars / Neptune (E3, E4)
    command: CommandState | None = None
    battle: BattleState | None = None
    fought: list[str] = field(default_factory=list)
    winter: WinterState | None = None
    result: Result | None = None

    # ---- queries that need no board ------------------------------------
    def p2(self) -> Side | None:
        return self.player1.enemy if self.player1 else None

    def on_map(self, side: Side | None = None) -> list[str]:
        return sorted(
            bid for bid, b in self.blocks.items() if b.status is BlockStatus.MAP and (side is None or b.side is side)
        )

    # ---- copying -------------------------------------------------------
    def copy(self, *, blocks: dict[str, BlockState] | None = None) -> GameState:
        """The position as ``GameState.from_json(self.to_json())`` reads it back (every container
        new, in the order that round trip gives: blocks, road use and contests sorted, the sides
        in :class:`Side`'s order, sets filled from sorted lists), built directly; the random stream
        is cloned (a keyed stream keeps its secret, which the position format leaves out).
        ``blocks``: the copy's blocks, made by the caller (sorted by id, new objects); by default
        copies of this position's."""
        sides = _SIDES_ORDER
        if blocks is None:
            blocks = {bid: BlockState(b.side, b.loc, b.strength, b.status) for bid, b in sorted(self.blocks.items())}
        st = GameState(
            options=self.options,
            year=self.year,
            turn=self.turn,
            phase=self.phase,
            rng=self.rng.clone(),
            blocks=blocks,
            deck=list(self.deck),
            hands={Side.CAESAR: [], Side.POMPEY: [], **{s: list(self.hands[s]) for s in sides if s in self.hands}},
            sealed={s: _jsonable(self.sealed[s]) for s in sides if s in self.sealed},
            played={s: self.played[s] for s in sides if s in self.played},
            effective={s: self.effective[s] for s in sides if s in self.effective},
            prev_effective={s: self.prev_effective[s] for s in sides if s in self.prev_effective},
            player1=self.player1,
            moved=set(sorted(self.moved)),
            road_use=dict(sorted(self.road_use.items())),
            contests={
                loc: Contest(c.attacker, [Entry(e.side, e.frm, e.block) for e in c.entries],
                             {s: c.main[s] for s in sides if s in c.main})
                for loc, c in sorted(self.contests.items())
            },
            surprise=self.surprise,
            fought=list(self.fought),
        )
        c = self.command
        if c:
            st.command = CommandState(c.side, c.card, c.event, c.stage, c.mp, c.lp, list(c.activated),
                                      c.amphibious_open, list(c.anchors))
        b = self.battle
        if b:
            st.battle = BattleState(
                b.loc, b.attacker, b.defender, b.round, b.stage, b.surprise, set(sorted(b.reserves)),
                set(sorted(b.acted)), dict(sorted(b.retreat_use.items())), dict(sorted(b.sea_retreats.items())),
                b.hits_left, b.firing, b.victor, dict(sorted(b.regroup_use.items())), set(sorted(b.regrouped)),
                b.swapped,
            )
        if self.winter:
            st.winter = WinterState(self.winter.stage, self.winter.side)
        r = self.result
        if r:
            st.result = Result(r.winner, r.reason, {s: r.vp[s] for s in sides if s in r.vp})
        return st

    # ---- position format ---------------------------------------------
    def to_json(self) -> dict[str, Any]:
        def sides(d: Mapping[Side, Any]) -> dict[str, Any]:
            return {s.value: d[s] for s in Side if s in d}

        out: dict[str, Any] = {
            "format": POSITION_FORMAT,
            "version": POSITION_VERSION,
            "options": self.options.to_json(),
            "year": self.year,
            "turn": self.turn,
            "phase": self.phase.value,
            "rng": self.rng.to_json(),
            "blocks": {
                bid: {"side": b.side.value, "loc": b.loc, "strength": b.strength, "status": b.status.value}
                for bid, b in sorted(self.blocks.items())
            },
            "deck": list(self.deck),
            "hands": sides({s: list(h) for s, h in self.hands.items()}),
            "sealed": sides({s: _jsonable(v) for s, v in self.sealed.items()}),
            "played": sides(self.played),
            "effective": sides(self.effective),
            "prev_effective": sides(self.prev_effective),
            "player1": self.player1.value if self.player1 else None,
            "moved": sorted(self.moved),
            "road_use": dict(sorted(self.road_use.items())),
            "contests": {
                loc: {
                    "attacker": c.attacker.value,
                    "entries": [[e.side.value, e.frm, e.block] for e in c.entries],
                    "main": sides(c.main),
                }
                for loc, c in sorted(self.contests.items())
            },
            "surprise": self.surprise,
            "command": None,
            "battle": None,
            "fought": list(self.fought),
            "winter": None,
            "result": None,
        }
        if self.command:
            c = self.command
            out["command"] = {
                "side": c.side.value,
                "card": c.card,
                "event": c.event,
                "stage": c.stage.value,
                "mp": c.mp,
                "lp": c.lp,
                "activated": list(c.activated),
                "amphibious_open": c.amphibious_open,
                "anchors": list(c.anchors),
            }
        if self.battle:
            b = self.battle
            out["battle"] = {
                "loc": b.loc,
                "attacker": b.attacker.value,
                "defender": b.defender.value,
                "round": b.round,
                "stage": b.stage.value,
                "surprise": b.surprise,
                "reserves": sorted(b.reserves),
                "acted": sorted(b.acted),
                "retreat_use": dict(sorted(b.retreat_use.items())),
                "sea_retreats": dict(sorted(b.sea_retreats.items())),
                "hits_left": b.hits_left,
                "firing": b.firing,
                "victor": b.victor.value if b.victor else None,
                "regroup_use": dict(sorted(b.regroup_use.items())),
                "regrouped": sorted(b.regrouped),
                "swapped": b.swapped,
            }
        if self.winter:
            out["winter"] = {"stage": self.winter.stage.value, "side": self.winter.side.value}
        if self.result:
            out["result"] = {
                "winner": self.result.winner.value if self.result.winner else None,
                "reason": self.result.reason,
                "vp": sides(self.result.vp),
            }
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameState:
        try:
            return _from_json(data)
        except PositionFormatError:
            raise
        except KeyError as exc:
            raise PositionFormatError(
                f"the position has no {exc.args[0]!r} field (see 'Position format' in the README)"
            ) from exc
        except (TypeError, ValueError, AttributeError) as exc:
            raise PositionFormatError(f"not a valid position document: {type(exc).__name__}: {exc}") from exc


def _jsonable(v: Any) -> Any:
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in sorted(v.items())}
    return v


def _sides(d: Mapping[str, Any] | None) -> dict[Side, Any]:
    return {Side(k): v for k, v in (d or {}).items()}


_SIDES_ORDER = tuple(Side)
_SIDE_OF = {s.value: s for s in Side}
_STATUS_OF = {s.value: s for s in BlockStatus}


def _block_state(b: Mapping[str, Any]) -> BlockState:
    """One block of a position document (its side and status looked up in a table: a position has
    some 70 blocks and is read for every report; anything else is read by the Enum, which says
    what is wrong)."""
    v = b["side"]
    side = _SIDE_OF.get(v) if type(v) is str else None
    if side is None:
        side = Side(v)
    loc, strength = b["loc"], int(b["strength"])
    v = b["status"]
    status = _STATUS_OF.get(v) if type(v) is str else None
    return BlockState(side, loc, strength, status if status is not None else BlockStatus(v))


def _from_json(data: Mapping[str, Any]) -> GameState:
    if data.get("format") != POSITION_FORMAT:
        raise PositionFormatError(
            f"'format' is {data.get('format')!r}; a position document has \"format\": \"{POSITION_FORMAT}\""
        )
    if data.get("version") != POSITION_VERSION:
        raise PositionFormatError(f"position version {data.get('version')!r} is not supported (expected {POSITION_VERSION})")
    st = GameState(
        options=Options.from_json(data.get("options", {})),
        year=int(data["year"]),
        turn=int(data["turn"]),
        phase=Phase(data["phase"]),
        rng=stream_from_json(data["rng"]),
        blocks={bid: _block_state(b) for bid, b in data["blocks"].items()},
        deck=list(data.get("deck", [])),
        hands={Side.CAESAR: [], Side.POMPEY: [], **{s: list(h) for s, h in _sides(data.get("hands")).items()}},
        sealed=_sides(data.get("sealed")),
        played=_sides(data.get("played")),
        effective=_sides(data.get("effective")),
        prev_effective=_sides(data.get("prev_effective")),
        player1=Side(data["player1"]) if data.get("player1") else None,
        moved=set(data.get("moved", [])),
        road_use={k: int(v) for k, v in data.get("road_use", {}).items()},
        contests={
            loc: Contest(
                attacker=Side(c["attacker"]),
                entries=[Entry(Side(s), f, b) for s, f, b in c.get("entries", [])],
                main=_sides(c.get("main")),
            )
            for loc, c in data.get("contests", {}).items()
        },
        surprise=data.get("surprise"),
        fought=list(data.get("fought", [])),
    )
    if data.get("command"):
        c = data["command"]
        st.command = CommandState(
            side=Side(c["side"]),
            card=c["card"],
            event=c.get("event"),
            stage=CommandStage(c["stage"]),
            mp=int(c["mp"]),
            lp=int(c["lp"]),
            activated=list(c.get("activated", [])),
            amphibious_open=bool(c.get("amphibious_open", True)),
            anchors=list(c.get("anchors", [])),
        )
    if data.get("battle"):
        b = data["battle"]
        st.battle = BattleState(
            loc=b["loc"],
            attacker=Side(b["attacker"]),
            defender=Side(b["defender"]),
            round=int(b["round"]),
            stage=BattleStage(b["stage"]),
            surprise=bool(b.get("surprise", False)),
            reserves=set(b.get("reserves", [])),
            acted=set(b.get("acted", [])),
            retreat_use={k: int(v) for k, v in b.get("retreat_use", {}).items()},
            sea_retreats={k: int(v) for k, v in b.get("sea_retreats", {}).items()},
            hits_left=int(b.get("hits_left", 0)),
            firing=b.get("firing"),
            victor=Side(b["victor"]) if b.get("victor") else None,
            regroup_use={k: int(v) for k, v in b.get("regroup_use", {}).items()},
            regrouped=set(b.get("regrouped", [])),
            swapped=bool(b.get("swapped", False)),
        )
    if data.get("winter"):
        st.winter = WinterState(WinterStage(data["winter"]["stage"]), Side(data["winter"]["side"]))
    if data.get("result"):
        r = data["result"]
        st.result = Result(Side(r["winner"]) if r.get("winner") else None, r["reason"], _sides(r.get("vp")))
    return st
