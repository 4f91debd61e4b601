"""What one side may see of a game: the only object a report template receives.

:func:`build_view` turns a :class:`~pbem.caesar.game.Game` and its event log
into a :class:`View`, a tree of frozen dataclasses holding plain values
(``str``, ``int``, ``bool``, tuples). Templates never see the game itself, so
nothing hidden can reach a report through them (DESIGN, "Hidden information
and reports"; RULINGS P1).

How the enemy part is made, and why it cannot leak:

* the viewer's own blocks (identity and strength) come from the position,
  selected by owner in :func:`_own_blocks`;
* enemy blocks on the map are *numbers*: :func:`_enemy_counts` returns only an
  ``int`` per location, and a sea holds only Navis (:func:`_at_sea`);
* Cleopatra's blue block is public where she stands and whose she is
  (:func:`_cleopatra`); her strength only when she is the viewer's;
* everything else about the enemy (battle reveals, eliminations, Jupiter's
  draw, dice) comes from events whose audience the viewer may see
  (:meth:`Audience.sees`): played cards, what happened, the "last seen" list.

The moderator (``viewer=None``) sees every block with identity and strength.
Pure: no I/O, deterministic (everything sorted or kept in log order).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from pbem.caesar.board import Board, BlockInfo, BlockType, Side, short_name
from pbem.caesar.cards import card_sort_key
from pbem.caesar.choices import Audience, Event
from pbem.caesar.game import Game
from pbem.caesar.state import BlockStatus, Phase

__all__ = [
    "BattleView",
    "BlockView",
    "CleopatraView",
    "Entry",
    "Forces",
    "HandView",
    "Line",
    "LocationView",
    "NextStep",
    "PlayedCard",
    "PlayedView",
    "RoundView",
    "Score",
    "Sighting",
    "View",
    "build_view",
    "roman",
]

MODERATOR = "moderator"
_ROMAN = {1: "I", 2: "II", 3: "III", 4: "IV"}


def roman(strength: int) -> str:
    """``3`` -> ``"III"``; ``0`` (unknown) -> ``""``."""
    return _ROMAN.get(strength, str(strength) if strength else "")


# ---- the view ----------------------------------------------------------------


@dataclass(frozen=True)
class NextStep:
    """What the viewer is asked to send next; built by the caller.

    ``templates`` are ``(label, order lines)`` pairs ready to copy into a reply.
    """

    number: int
    title: str
    deadline: str | None = None
    awaiting: tuple[str, ...] = ()  # side names ("Caesar", "Pompey")
    templates: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class BlockView:
    """A block whose identity the viewer knows (his own; every block for the moderator)."""

    name: str  # as its owner writes it: "Legio 8"; a defector "Pompey Legio 37"
    short: str  # "L8"
    strength: int
    roman: str  # "III"
    kind: str  # BlockType value: "leader", "legion", ...

    @property
    def label(self) -> str:
        """Compact, for the map: ``"L8 III"``."""
        return f"{self.short} {self.roman}"

    @property
    def text(self) -> str:
        """For tables: ``"Legio 8 III"``."""
        return f"{self.name} {self.roman}"


@dataclass(frozen=True)
class Forces:
    """One side's blocks at one location (Cleopatra is shown apart)."""

    side: str
    own: bool  # the viewer's side (False for the moderator)
    count: int
    blocks: tuple[BlockView, ...]  # identities known to the viewer; () for an enemy
    navis: bool  # at sea: every block there is a Navis

    @property
    def known(self) -> bool:
        return len(self.blocks) == self.count


@dataclass(frozen=True)
class CleopatraView:
    side: str
    own: bool
    strength: int  # 0 unless she is the viewer's (or for the moderator)
    roman: str


@dataclass(frozen=True)
class LocationView:
    name: str
    sea: bool
    vp: int
    holder: str  # a side name, "contested", or "" (vacant)
    forces: tuple[Forces, ...]  # sides present; the viewer's first
    cleopatra: CleopatraView | None = None

    @property
    def occupied(self) -> bool:
        return bool(self.forces) or self.cleopatra is not None


@dataclass(frozen=True)
class Score:
    side: str
    vp: int

    @property
    def text(self) -> str:
        return f"{self.side} {self.vp}"


@dataclass(frozen=True)
class HandView:
    side: str
    size: int
    cards: tuple[str, ...]  # () when the viewer may not see them
    known: bool


@dataclass(frozen=True)
class PlayedCard:
    side: str
    card: str
    effective: str  # after Apollo (C2); equal to ``card`` otherwise

    @property
    def text(self) -> str:
        """``"Pompey Apollo (copying 3/1)"``."""
        copy = f" (copying {self.effective})" if self.effective != self.card else ""
        return f"{self.side} {self.card}{copy}"


@dataclass(frozen=True)
class PlayedView:
    year: int
    turn: int
    cards: tuple[PlayedCard, ...]


@dataclass(frozen=True)
class Line:
    kind: str  # the event kind, or the kind of a grouped run of events
    text: str
    dice: tuple[int, ...] = ()
    hits: int = 0
    fire: int = 0  # a die at or below this is a hit


@dataclass(frozen=True)
class RoundView:
    number: int  # 0: the round is not known (the log starts mid-battle)
    lines: tuple[Line, ...]


@dataclass(frozen=True)
class BattleView:
    location: str
    attacker: str
    surprise: bool
    continued: bool  # this report starts in the middle of the battle
    opening: tuple[str, ...]  # the blocks revealed at the start, per side
    rounds: tuple[RoundView, ...]
    outcome: tuple[Line, ...]  # the winner and the regroups


@dataclass(frozen=True)
class Entry:
    """One item of "what happened": a heading, a line, or a whole battle."""

    kind: str  # "heading" | "line" | "battle"
    text: str = ""
    battle: BattleView | None = None


@dataclass(frozen=True)
class Sighting:
    """The latest the viewer saw of an enemy block (revealed in battle or by an event)."""

    side: str
    name: str
    short: str
    strength: int
    roman: str
    location: str
    year: int
    turn: int
    status: str  # "seen" | "eliminated" | "killed"


@dataclass(frozen=True)
class View:
    viewer: str  # "Caesar", "Pompey" or "moderator"
    moderator: bool
    year: int
    turn: int
    phase: str
    phase_text: str
    player1: str  # "" when not yet known this game turn
    scores: tuple[Score, ...]  # Caesar, Pompey
    hands: tuple[HandView, ...]  # the viewer's first
    played: PlayedView | None
    locations: tuple[LocationView, ...]  # occupied or worth VP, by name
    contested: tuple[str, ...]
    happened: tuple[Entry, ...]
    eliminated: tuple[str, ...]  # since the last report
    defaults: tuple[str, ...]  # defaults applied since the last report (P2)
    last_seen: tuple[Sighting, ...]
    result: str  # "" while the game goes on
    next_step: NextStep | None
    awaited: bool  # the next step waits for the viewer

    @property
    def hand(self) -> tuple[str, ...]:
        """The viewer's own cards (empty for the moderator: see ``hands``)."""
        return self.hands[0].cards if not self.moderator else ()

    @property
    def enemy(self) -> str:
        return "" if self.moderator else Side(self.viewer).enemy.value


# ---- public facts of the position ---------------------------------------------
#
# The enemy part of a player's view is built from these functions only. Each
# returns counts, locations or side names, never an enemy block's id, name or
# strength.


def _enemy_counts(game: Game, side: Side) -> dict[str, int]:
    """How many enemy blocks stand at each location (Cleopatra excluded): ints only."""
    return {loc: n for loc, n in _side_counts(game, side.enemy).items() if n}


def _side_counts(game: Game, side: Side) -> dict[str, int]:
    out: dict[str, int] = {}
    for loc in sorted(game.board.spaces):
        n = sum(1 for bid in game.blocks_at(loc, side) if bid != "Cleopatra")
        if n:
            out[loc] = n
    return out


def _at_sea(game: Game, loc: str) -> bool:
    """Blocks at sea are Navis (P1): whether ``loc`` is a sea is all the view needs."""
    return game.board.is_sea(loc)


def _cleopatra(game: Game) -> tuple[str | None, Side]:
    """Where the blue block stands and whose it is (both public)."""
    b = game.state.blocks["Cleopatra"]
    return (b.loc if b.status is BlockStatus.MAP else None), b.side


def _dead_leaders(game: Game) -> dict[Side, int]:
    """Leaders killed per original side (announced to both, 7.51)."""
    out = {s: 0 for s in Side}
    for bid, b in sorted(game.state.blocks.items()):
        if b.status is BlockStatus.DEAD:
            out[game.board.blocks[bid].side] += 1
    return out


def _holder(counts: Mapping[Side, int]) -> str:
    present = [s for s in Side if counts.get(s, 0)]
    if len(present) == 2:
        return "contested"
    return present[0].value if present else ""


def _scores(game: Game, occupancy: Mapping[str, Mapping[Side, int]]) -> tuple[Score, ...]:
    """VP from Friendly cities and killed enemy leaders (W2): public facts only."""
    vp = {s: 0 for s in Side}
    for loc, counts in sorted(occupancy.items()):
        holder = _holder(counts)
        if holder in (Side.CAESAR.value, Side.POMPEY.value):
            vp[Side(holder)] += game.board.spaces[loc].vp
    dead = _dead_leaders(game)
    for s in Side:
        vp[s] += dead[s.enemy]
    return tuple(Score(s.value, vp[s]) for s in Side)


# ---- the viewer's own blocks ---------------------------------------------------

_TYPE_ORDER = {
    BlockType.LEADER: 0,
    BlockType.LEGION: 1,
    BlockType.EQUITATUS: 2,
    BlockType.ELEPHANT: 3,
    BlockType.AUXILIA: 4,
    BlockType.BALLISTA: 5,
    BlockType.NAVIS: 6,
    BlockType.CLEOPATRA: 7,
}


def _block_order(info: BlockInfo) -> tuple[int, str, int, str]:
    m = re.search(r"(\d+)$", info.name)
    return (_TYPE_ORDER[info.type], info.side.value, int(m.group(1)) if m else 0, info.name)


def _name_for(board: Board, bid: str, owner: Side) -> str:
    """A block's name as ``owner`` writes it; a defector carries its origin (``Pompey Legio 37``)."""
    info = board.blocks[bid]
    if info.type is not BlockType.CLEOPATRA and info.side is not owner:
        return f"{info.side.value} {info.name}"
    return info.name


def _own_blocks(game: Game, side: Side) -> dict[str, tuple[BlockView, ...]]:
    """``side``'s blocks per location with identity and strength (for that side only)."""
    per: dict[str, list[tuple[tuple[int, str, int, str], BlockView]]] = {}
    for bid, b in sorted(game.state.blocks.items()):
        if b.status is not BlockStatus.MAP or b.side is not side or b.loc is None or bid == "Cleopatra":
            continue
        info = game.board.blocks[bid]
        bv = BlockView(_name_for(game.board, bid, side), short_name(info), b.strength, roman(b.strength), info.type.value)
        per.setdefault(b.loc, []).append((_block_order(info), bv))
    return {loc: tuple(bv for _, bv in sorted(items, key=lambda t: t[0])) for loc, items in sorted(per.items())}


# ---- the map ---------------------------------------------------------------------


def _locations(game: Game, viewer: Side | None) -> tuple[tuple[LocationView, ...], dict[str, dict[Side, int]]]:
    board = game.board
    known: dict[Side, dict[str, tuple[BlockView, ...]]] = {}
    counts: dict[Side, dict[str, int]] = {}
    for s in Side:
        if viewer is None or s is viewer:
            known[s] = _own_blocks(game, s)
            counts[s] = {loc: len(bs) for loc, bs in known[s].items()}
        else:
            known[s] = {}
            counts[s] = _enemy_counts(game, viewer)
    cleo_loc, cleo_side = _cleopatra(game)
    occupancy: dict[str, dict[Side, int]] = {}
    for s in Side:
        for loc, n in counts[s].items():
            occupancy.setdefault(loc, {})[s] = n
    if cleo_loc is not None:
        occ = occupancy.setdefault(cleo_loc, {})
        occ[cleo_side] = occ.get(cleo_side, 0) + 1
    order = list(Side) if viewer is None else [viewer, viewer.enemy]
    out: list[LocationView] = []
    for loc in sorted(board.spaces):
        sp = board.spaces[loc]
        if loc not in occupancy and not sp.vp:
            continue
        forces = tuple(
            Forces(
                side=s.value,
                own=s is viewer,
                count=counts[s].get(loc, 0),
                blocks=known[s].get(loc, ()),
                navis=_at_sea(game, loc),
            )
            for s in order
            if counts[s].get(loc, 0)
        )
        cleo = None
        if cleo_loc == loc:
            mine = viewer is None or cleo_side is viewer
            strength = game.state.blocks["Cleopatra"].strength if mine else 0
            cleo = CleopatraView(cleo_side.value, cleo_side is viewer, strength, roman(strength))
        out.append(LocationView(loc, sp.is_sea, sp.vp, _holder(occupancy.get(loc, {})), forces, cleo))
    return tuple(out), occupancy


# ---- cards -----------------------------------------------------------------------


def _hands(game: Game, viewer: Side | None) -> tuple[HandView, ...]:
    order = list(Side) if viewer is None else [viewer, viewer.enemy]
    out = []
    for s in order:
        size = len(game.state.hands[s])  # how many cards: public (P1)
        if viewer is None or s is viewer:
            cards = tuple(sorted(game.state.hands[s], key=card_sort_key))
            out.append(HandView(s.value, size, cards, True))
        else:
            out.append(HandView(s.value, size, (), False))
    return tuple(out)


def _played(visible: Sequence[Event]) -> PlayedView | None:
    for e in reversed(visible):
        if e.kind == "reveal":
            played, eff = e.data.get("played", {}), e.data.get("effective", {})
            cards = tuple(
                PlayedCard(s.value, str(played[s.value]), str(eff.get(s.value, played[s.value])))
                for s in Side
                if s.value in played
            )
            return PlayedView(int(e.data.get("year", 0)), int(e.data.get("turn", 0)), cards)
    return None


# ---- events ----------------------------------------------------------------------


def _visible(log: Sequence[Event], viewer: Side | None) -> list[tuple[int, Event]]:
    """The events ``viewer`` may see, with their index in the log.

    The moderator sees every event; of an owner's version and the opponent's
    redacted copy (``Game.emit_split``) he is shown the owner's only.
    """
    out = []
    for i, e in enumerate(log):
        if not e.audience.sees(viewer):
            continue
        if viewer is None and _is_redacted_copy(e):
            continue
        out.append((i, e))
    return out


def _is_redacted_copy(e: Event) -> bool:
    side = e.data.get("side")
    return e.audience in (Audience.CAESAR, Audience.POMPEY) and isinstance(side, str) and side != e.audience.value


_BATTLE_KINDS = frozenset(
    {"round", "fire", "hit", "pass", "retreat", "no-retreat", "eliminated", "killed", "cleopatra",
     "reserves", "disrupted", "swap", "battle-end", "regroup"}
)
_GROUPED = frozenset({"move", "sea-move", "navis-port", "regroup", "levy", "levy-step", "disband"})
_ELIMINATIONS = frozenset({"eliminated", "killed", "navis-disbanded"})
# progress notices that say nothing a report does not show better
_SKIPPED = frozenset({"sealed", "default"})


class _Clock:
    """Year and game turn as the log goes by (from public events)."""

    def __init__(self, year: int) -> None:
        self.year = year
        self.turn = 1

    def see(self, e: Event) -> None:
        if e.kind == "year":
            self.year, self.turn = int(e.data.get("year", self.year)), 1
        elif e.kind == "reveal":
            self.year = int(e.data.get("year", self.year))
            self.turn = int(e.data.get("turn", self.turn))


def _suffix(text: str) -> str:
    """A trailing ``(why)`` of an event text: ``"(winter supply: Genua supports 3)"``."""
    m = re.search(r"\(([^()]*)\)$", text)
    return m.group(0) if m else ""


def _group_key(e: Event) -> tuple[Any, ...]:
    d = e.data
    where = tuple(d.get("path") or ()) or (d.get("loc"),)
    return (e.kind, d.get("side"), where, "block" in d, bool(d.get("navis")), _suffix(e.text))


def _grouped_text(board: Board, run: Sequence[Event], tag_side: bool) -> str:
    """One line for a run of like events: ``Pompey: 3 blocks move Genua -> Roma``.

    ``tag_side`` names the side before an owner's version (the moderator sees
    both sides' own versions).
    """
    first = run[0]
    d = first.data
    side = str(d.get("side", ""))
    n = len(run)
    one = n == 1
    path_list = [str(p) for p in d.get("path") or ()]
    path = " -> ".join(path_list)
    start, end = (path_list[0], path_list[-1]) if path_list else ("", "")
    loc = str(d.get("loc", ""))
    why = _suffix(first.text)
    why = f" {why}" if why else ""
    if "block" in d:
        owner = Side(side) if side in (s.value for s in Side) else None
        names = []
        for e in run:
            bid = str(e.data["block"])
            nm = _name_for(board, bid, owner) if owner is not None and bid in board.blocks else bid
            if "strength" in e.data:
                nm += f" ({'now ' if first.kind == 'levy-step' else ''}{roman(int(e.data['strength']))})"
            names.append(nm)
        what = ", ".join(names)
        pre = f"{side} " if tag_side else ""
        own = {
            "move": f"{pre}{what}: {path}",
            "sea-move": f"{pre}{what} by sea: {path}",
            "navis-port": f"{pre}{what} {'winters' if one else 'winter'} in {end} (from {start})",
            "regroup": f"{pre}{what} {'regroups' if one else 'regroup'} {path}",
            "levy": f"{side} levies {what} at {loc}",
            "levy-step": f"{side} adds {'a step' if one else 'steps'} at {loc}: {what}",
            "disband": f"{side} disbands {what} at {loc}{why}",
        }
        return own.get(first.kind) or "; ".join(e.text for e in run)
    navis = bool(d.get("navis")) or first.kind == "navis-port"
    unit = ("a Navis" if navis else "a block") if one else (f"{n} Navis" if navis else f"{n} blocks")
    s_ = "s" if one else ""
    enemy = {
        "move": f"{side}: {unit} move{s_} {path}",
        "sea-move": f"{side}: {unit} move{s_} by sea {path}",
        "navis-port": f"{side}: {unit} {'goes' if one else 'go'} from {start} to {end}",
        "regroup": f"{side}: {unit} regroup{s_} {path}",
        "levy": f"{side} levies {'a new block' if one else f'{n} new blocks'} at {loc}",
        "levy-step": f"{side} adds {'a step to a block' if one else f'{n} steps to blocks'} at {loc}",
        "disband": f"{side} disbands {unit} at {loc}{why}",
    }
    return enemy.get(first.kind) or "; ".join(e.text for e in run)


def _line(e: Event) -> Line:
    if e.kind == "fire" and e.data.get("dice"):
        combat = str(e.data.get("combat", ""))
        fire = int(combat[1:]) if combat[1:].isdigit() else 0
        text = e.text.split(": ")[0] if " fires: " in e.text else e.text
        return Line("fire", text, tuple(int(x) for x in e.data["dice"]), int(e.data.get("hits", 0)), fire)
    return Line(e.kind, e.text)


def _opening(e: Event) -> tuple[str, ...]:
    attacker = str(e.data.get("attacker", ""))
    reserves = e.data.get("reserves", {}) or {}
    sides = [attacker] + [s.value for s in Side if s.value != attacker]
    out = []
    for s in sides:
        shown = [f"{r['name']} {roman(int(r['strength']))}" for r in e.data.get("revealed", ()) if r.get("side") == s]
        n_res = int(reserves.get(s, 0))
        role = "attacking" if s == attacker else "defending"
        text = f"{s} ({role}): {', '.join(shown) or 'none'}"
        if n_res:
            text += f"; {n_res} in reserve"
        out.append(text)
    return tuple(out)


class _BattleBuilder:
    def __init__(self, loc: str, attacker: str, surprise: bool, continued: bool, opening: tuple[str, ...], rnd: int) -> None:
        self.loc, self.attacker, self.surprise, self.continued, self.opening = loc, attacker, surprise, continued, opening
        self.rounds: list[tuple[int, list[Line]]] = []
        self.outcome: list[Line] = []
        self.ended = False
        if continued:
            self.rounds.append((rnd, []))

    def add(self, e: Event) -> None:
        if e.kind == "round":
            self.rounds.append((int(e.data.get("round", 0)), []))
        elif e.kind == "battle-end":
            self.ended = True
            self.outcome.append(_line(e))
        elif self.ended:
            self.outcome.append(_line(e))
        else:
            if not self.rounds:
                self.rounds.append((0, []))
            self.rounds[-1][1].append(_line(e))

    def build(self) -> BattleView:
        rounds = tuple(RoundView(n, tuple(lines)) for n, lines in self.rounds)
        return BattleView(self.loc, self.attacker, self.surprise, self.continued, self.opening, rounds, tuple(self.outcome))


def _belongs(b: _BattleBuilder, e: Event) -> bool:
    if e.kind not in _BATTLE_KINDS:
        return False
    if e.kind == "regroup":
        return b.ended and tuple(e.data.get("path") or ("",))[0] == b.loc
    loc = e.data.get("loc")
    return loc is None or loc == b.loc


def _battle_context(visible: Sequence[tuple[int, Event]], since: int, loc: str) -> tuple[str, bool, int]:
    """Attacker, surprise and round of a battle already under way before ``since``."""
    attacker, surprise, rnd = "", False, 0
    for i, e in visible:
        if i >= since:
            break
        if e.data.get("loc") != loc:
            continue
        if e.kind == "battle":
            attacker, surprise, rnd = str(e.data.get("attacker", "")), bool(e.data.get("surprise")), 1
        elif e.kind == "round":
            rnd = int(e.data.get("round", rnd))
        elif e.kind == "swap":
            attacker = ""
    return attacker, surprise, rnd


def _happened(board: Board, visible: Sequence[tuple[int, Event]], since: int, tag_side: bool) -> tuple[Entry, ...]:
    out: list[Entry] = []
    battle: _BattleBuilder | None = None
    run: list[Event] = []

    def flush_run() -> None:
        if run:
            out.append(Entry("line", _grouped_text(board, run, tag_side)))
            run.clear()

    def flush_battle() -> None:
        nonlocal battle
        if battle is not None:
            out.append(Entry("battle", battle=battle.build()))
            battle = None

    for i, e in visible:
        if i < since or e.kind in _SKIPPED:
            continue
        if battle is not None and _belongs(battle, e):
            battle.add(e)
            continue
        if battle is None and e.kind in _BATTLE_KINDS - {"eliminated", "killed", "cleopatra", "regroup"} and e.data.get("loc"):
            flush_run()
            loc = str(e.data["loc"])
            attacker, surprise, rnd = _battle_context(visible, since, loc)
            battle = _BattleBuilder(loc, attacker, surprise, True, (), rnd if e.kind != "round" else 0)
            if e.kind == "round":
                battle.rounds.clear()
            battle.add(e)
            continue
        flush_battle()
        if e.kind in _GROUPED:
            if run and _group_key(run[-1]) != _group_key(e):
                flush_run()
            run.append(e)
            continue
        flush_run()
        if e.kind == "battle":
            battle = _BattleBuilder(
                str(e.data.get("loc", "")), str(e.data.get("attacker", "")), bool(e.data.get("surprise")), False,
                _opening(e), 1,
            )
        elif e.kind == "reveal":
            out.append(Entry("heading", f"Game turn {e.data.get('turn')} of {e.data.get('year')}"))
            out.append(Entry("line", e.text.split(": ", 1)[-1]))
        elif e.kind == "year":
            out.append(Entry("heading", f"Year {e.data.get('year')}"))
            out.append(Entry("line", e.text))
        elif e.kind == "winter":
            out.append(Entry("heading", e.text))
        elif e.kind == "battle-phase":
            out.append(Entry("heading", "Battles"))
            out.append(Entry("line", e.text))
        else:
            out.append(Entry("line", e.text))
    flush_battle()
    flush_run()
    return tuple(out)


# ---- "last seen" memory ----------------------------------------------------------


@dataclass
class _Seen:
    side: str
    name: str
    strength: int
    location: str
    year: int
    turn: int
    status: str


def _sightings(board: Board, visible: Sequence[tuple[int, Event]], viewer: Side | None) -> tuple[Sighting, ...]:
    """The latest strength and place of every enemy block the viewer saw revealed."""
    if viewer is None:
        return ()
    seen: dict[str, _Seen] = {}
    clock = _Clock(board.setup_year)
    last_reserves: list[str] = []

    def note(bid: str, *, side: str | None = None, name: str | None = None, strength: int | None = None,
             loc: str | None = None, status: str = "seen") -> None:
        if bid not in board.blocks:
            return
        info = board.blocks[bid]
        prev = seen.get(bid)
        s = _Seen(
            side=side or (prev.side if prev else info.side.value),
            name=name or (prev.name if prev else info.name),
            strength=strength if strength is not None else (prev.strength if prev else 0),
            location=loc or (prev.location if prev else ""),
            year=clock.year,
            turn=clock.turn,
            status=status,
        )
        seen[bid] = s

    for _, e in visible:
        clock.see(e)
        d = e.data
        bid = str(d.get("block", ""))
        loc = d.get("loc")
        if e.kind in ("battle", "reserves"):
            if e.kind == "reserves":
                last_reserves = [str(r["block"]) for r in d.get("revealed", ())]
            for r in d.get("revealed", ()):
                note(str(r["block"]), side=str(r["side"]), name=str(r["name"]), strength=int(r["strength"]), loc=loc)
        elif e.kind == "disrupted":
            for b in last_reserves:
                p = seen.get(b)
                if p is not None and p.side == d.get("side") and p.status == "seen" and b in board.blocks:
                    note(b, strength=board.blocks[b].step_down(p.strength) or p.strength)
        elif e.kind == "fire" and bid:
            note(bid, side=str(d.get("side") or "") or None, strength=len(d.get("dice", ())) or None, loc=loc)
        elif e.kind == "hit" and bid:
            note(bid, strength=int(d["strength"]), loc=loc)
        elif e.kind in ("pass", "no-retreat") and bid:
            note(bid, loc=loc)
        elif e.kind == "retreat" and bid:
            note(bid, loc=str(d.get("to") or loc or ""))
        elif e.kind == "jupiter" and bid:
            note(bid, strength=int(d["strength"]), loc=loc)
        elif e.kind == "step-lost" and bid:
            p = seen.get(bid)
            if p is not None and bid in board.blocks:
                note(bid, strength=board.blocks[bid].step_down(p.strength) or p.strength)
        elif e.kind == "defection" and bid:
            note(bid, side=str(d.get("side")), loc=str(d.get("to") or "") or None)
        elif e.kind in ("eliminated", "navis-disbanded") and bid:
            note(bid, side=str(d.get("side") or "") or None, loc=loc, status="eliminated")
        elif e.kind == "killed" and bid:
            note(bid, side=str(d.get("side") or "") or None, loc=loc, status="killed")
        elif e.kind == "cleopatra" and "Cleopatra" in seen:
            seen["Cleopatra"].side = str(d.get("side"))
    out = []
    for bid in sorted(seen, key=lambda b: _block_order(board.blocks[b])):
        s = seen[bid]
        if s.side == viewer.value:
            continue  # a block that is (now) the viewer's own
        info = board.blocks[bid]
        out.append(Sighting(s.side, s.name, short_name(info) if s.name == info.name else s.name, s.strength,
                            roman(s.strength), s.location, s.year, s.turn, s.status))
    return tuple(out)


# ---- the phase in words ------------------------------------------------------------


def _phase_text(game: Game) -> str:
    st = game.state
    if st.phase is Phase.DEPLOY:
        return "Free deployment (5.3)"
    if st.phase is Phase.DISCARD:
        return "Start of the Year: each side discards one card and plays one"
    if st.phase is Phase.CARD:
        return "Card play: each side plays one card"
    if st.phase is Phase.COMMAND and st.command is not None:
        role = "Player 1" if st.command.side is st.player1 else "Player 2"
        return f"Command: {st.command.side} ({role}) with {st.command.card}"
    if st.phase is Phase.BATTLE:
        bs = st.battle
        if bs is not None and bs.victor is not None:
            return f"Battle of {bs.loc}: won by {bs.victor}, who may regroup"
        if bs is not None:
            return f"Battle of {bs.loc}, Round {bs.round}"
        left = sorted(st.contests)
        return "Battles" + (f": {', '.join(left)} to fight" if left else "")
    if st.phase is Phase.WINTER:
        return f"Winter of {st.year}"
    if st.phase is Phase.OVER:
        return "Game over"
    return st.phase.value.capitalize()


# ---- entry point -------------------------------------------------------------------


def build_view(
    game: Game,
    log: Sequence[Event],
    viewer: Side | None,
    *,
    since: int = 0,
    next_step: NextStep | None = None,
) -> View:
    """What ``viewer`` (None: the moderator) may see now.

    ``log`` is the whole event log of the game so far, in order; ``since`` is
    the index of the first event not yet reported to this viewer.
    """
    board = game.board
    st = game.state
    visible = _visible(log, viewer)
    recent = [e for i, e in visible if i >= since]
    locations, occupancy = _locations(game, viewer)
    contested = tuple(loc for loc, c in sorted(occupancy.items()) if _holder(c) == "contested")
    awaited = next_step is not None and (viewer is None or viewer.value in next_step.awaiting)
    return View(
        viewer=viewer.value if viewer else MODERATOR,
        moderator=viewer is None,
        year=st.year,
        turn=st.turn,
        phase=st.phase.value,
        phase_text=_phase_text(game),
        player1=st.player1.value if st.player1 else "",
        scores=_scores(game, occupancy),
        hands=_hands(game, viewer),
        played=_played([e for _, e in visible]),
        locations=locations,
        contested=contested,
        happened=_happened(board, visible, since, viewer is None),
        eliminated=tuple(e.text for e in recent if e.kind in _ELIMINATIONS),
        defaults=tuple(e.text for e in recent if e.kind == "default"),
        last_seen=_sightings(board, visible, viewer),
        result=st.result.reason if st.result else "",
        next_step=next_step,
        awaited=awaited,
    )

