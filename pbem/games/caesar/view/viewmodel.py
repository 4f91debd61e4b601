"""The report view model: frozen dataclasses of plain values, the only input of templates.

Built by :func:`pbem.games.caesar.view.views.build_view`; see that module for how the
enemy part is kept to what the viewer may see.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pbem.games.caesar.rules.board import BlockInfo, BlockType, Board, Side

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
class Losses:
    side: str
    own: bool
    steps: str  # the average over the simulated battles, one decimal: "2.1"
    blocks: str


@dataclass(frozen=True)
class Odds:
    """A pending battle as the viewer can estimate it, by simulation from what his side knows."""

    location: str
    samples: int
    win: int  # percent, for the viewer
    losses: tuple[Losses, ...]  # the viewer's first
    deaths: tuple[tuple[str, int], ...]  # (leader, percent) for Caesar and Pompey when they may be there


@dataclass(frozen=True)
class Tally:
    """Blocks one side was seen to move (or levy) since the last report, and where to."""

    side: str
    own: bool
    count: int
    places: str  # "Genua, Roma"


@dataclass(frozen=True)
class VpChange:
    side: str
    before: int
    now: int


@dataclass(frozen=True)
class Changes:
    """What changed since the viewer's last report (each part empty when nothing of it happened)."""

    moves: tuple[Tally, ...]
    levies: tuple[Tally, ...]
    battles: tuple[tuple[str, str], ...]  # (place, victor); victor "" while under way
    revealed: tuple[PlayedView, ...]
    vp: tuple[VpChange, ...]

    @property
    def quiet(self) -> bool:
        return not (self.moves or self.levies or self.battles or self.revealed)


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
    fairness: str = ""  # where the dice come from: the committed secret, or "practice game"
    report_id: str = ""  # the hash chain at the report's last event, shortened (``pbem audit check --report``)
    changes: Changes | None = None  # "since your last report": None when there was none (or the moderator)
    odds: tuple[Odds, ...] = ()  # the viewer's estimate of each pending battle (his knowledge only)

    @property
    def hand(self) -> tuple[str, ...]:
        """The viewer's own cards (empty for the moderator: see ``hands``)."""
        return self.hands[0].cards if not self.moderator else ()

    @property
    def vacant(self) -> tuple[LocationView, ...]:
        """The locations listed for their VP only (nobody stands there), in name order."""
        return tuple(loc for loc in self.locations if not loc.occupied)

    @property
    def sides(self) -> tuple[str, ...]:
        """The sides in the order of ``hands`` (the viewer's first): the columns of the HTML map table."""
        return tuple(h.side for h in self.hands)

    @property
    def enemy(self) -> str:
        return "" if self.moderator else Side(self.viewer).enemy.value


# ---- naming and ordering blocks, shared by the map and the history ---------------

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


def block_order(info: BlockInfo) -> tuple[int, str, int, str]:
    m = re.search(r"(\d+)$", info.name)
    return (_TYPE_ORDER[info.type], info.side.value, int(m.group(1)) if m else 0, info.name)


def name_for(board: Board, bid: str, owner: Side) -> str:
    """A block's name as ``owner`` writes it; a defector carries its origin (``Pompey Legio 37``)."""
    info = board.blocks[bid]
    if info.type is not BlockType.CLEOPATRA and info.side is not owner:
        return f"{info.side.value} {info.name}"
    return info.name
