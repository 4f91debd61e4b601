"""What one side may see of a game: the only object a report template receives.

:func:`build_view` turns a :class:`~pbem.games.caesar.rules.game.Game` and its event log
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

from collections.abc import Mapping, Sequence

from pbem.core.events import Event
from pbem.core.phrase import N_, Phrase
from pbem.core.rng import KeyedStream, Rng
from pbem.games.caesar.rules import winter as winter_mod
from pbem.games.caesar.rules.board import Board, Side, short_name
from pbem.games.caesar.rules.cards import card_sort_key
from pbem.games.caesar.rules.game import Game
from pbem.games.caesar.rules.state import BlockStatus, Phase
from pbem.games.caesar.view.history import ELIMINATIONS, happened, sightings, visible_events
from pbem.games.caesar.view.phrases import event_phrase, read_part, side
from pbem.games.caesar.view.viewmodel import (
    MODERATOR,
    BattleView,
    BlockView,
    Changes,
    CleopatraView,
    Entry,
    Forces,
    HandView,
    Line,
    LocationView,
    Losses,
    NextStep,
    Odds,
    PlayedCard,
    PlayedView,
    RoundView,
    Score,
    Sighting,
    Tally,
    View,
    VpChange,
    block_order,
    name_for,
    roman,
)

__all__ = [
    "BattleView",
    "BlockView",
    "Changes",
    "Losses",
    "CleopatraView",
    "Entry",
    "Forces",
    "HandView",
    "Line",
    "LocationView",
    "NextStep",
    "Odds",
    "PlayedCard",
    "PlayedView",
    "RoundView",
    "Score",
    "Sighting",
    "View",
    "build_view",
    "roman",
]


# ---- public facts of the position ---------------------------------------------
#
# The enemy part of a player's view is built from these functions only. Each
# returns counts, locations or side names, never an enemy block's id, name or
# strength.


def _enemy_counts(game: Game, side: Side) -> dict[str, int]:
    """How many enemy blocks stand at each location (Cleopatra excluded): ints only."""
    return {loc: n for loc, n in _side_counts(game, side.enemy).items() if n}


def _side_counts(game: Game, side: Side) -> dict[str, int]:
    # game.count is the location index's count of the side's blocks there, Cleopatra included
    cleo = game.state.blocks["Cleopatra"]
    cleo_at = cleo.loc if cleo.status is BlockStatus.MAP and cleo.side is side else None
    out: dict[str, int] = {}
    for loc in sorted(game.board.spaces):
        n = game.count(loc, side) - (loc == cleo_at)
        if n:
            out[loc] = n
    return out


def _at_sea(board: Board, loc: str) -> bool:
    """Blocks at sea are Navis (P1): whether ``loc`` is a sea is all the view needs."""
    return board.is_sea(loc)


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


_SIDES = tuple(Side)  # (iterating the Enum class itself is slow: this runs for every location of every view)


_FIRST, _SECOND = _SIDES
_FIRST_NAME, _SECOND_NAME = _FIRST.value, _SECOND.value  # (an Enum member's value is a property: read once)


def _holder(counts: Mapping[Side, int]) -> str:
    """Who holds a location: a side's name, "contested" (both sides there) or "" (vacant)."""
    first, second = counts.get(_FIRST, 0), counts.get(_SECOND, 0)
    if first and second:
        return "contested"
    return _FIRST_NAME if first else (_SECOND_NAME if second else "")


def _scores(game: Game, occupancy: Mapping[str, Mapping[Side, int]]) -> tuple[Score, ...]:
    """VP from Friendly cities and killed enemy leaders (W2): public facts only."""
    vp = {s: 0 for s in Side}
    spaces = game.board.spaces
    for loc, counts in sorted(occupancy.items()):
        first, second = counts.get(_FIRST, 0), counts.get(_SECOND, 0)
        if first and not second:  # held by one side (what _holder says)
            vp[_FIRST] += spaces[loc].vp
        elif second and not first:
            vp[_SECOND] += spaces[loc].vp
    dead = _dead_leaders(game)
    for s in Side:
        vp[s] += dead[s.enemy]
    return tuple(Score(s.value, vp[s]) for s in Side)


# ---- the viewer's own blocks ---------------------------------------------------

class _BoardFacts:
    """What the views need of a board that never changes, worked out once per board: its spaces in
    name order (with whether each is a sea and its VP), and each block's order, names and views as
    each side writes it. Static facts only: no position and nothing of a side's knowledge."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.spaces = tuple((loc, sp, _at_sea(board, loc)) for loc, sp in sorted(board.spaces.items()))
        self._blocks: dict[tuple[str, Side], tuple[tuple[int, str, int, str], str, str, str]] = {}
        self._views: dict[tuple[str, Side, int], BlockView] = {}

    def block_view(self, bid: str, owner: Side, strength: int) -> tuple[tuple[int, str, int, str], BlockView]:
        """``bid`` as ``owner`` knows it at ``strength``, with its place in a list of blocks."""
        key = (bid, owner)
        static = self._blocks.get(key)
        if static is None:
            info = self.board.blocks[bid]
            static = self._blocks[key] = (block_order(info), name_for(self.board, bid, owner), short_name(info),
                                          info.type.value)
        vkey = (bid, owner, strength)
        bv = self._views.get(vkey)
        if bv is None:
            bv = self._views[vkey] = BlockView(static[1], static[2], strength, roman(strength), static[3])
        return static[0], bv


_FACTS: dict[int, _BoardFacts] = {}


def _facts(board: Board) -> _BoardFacts:
    facts = _FACTS.get(id(board))
    if facts is None or facts.board is not board:  # (the board is kept in its facts: its id is not reused)
        facts = _FACTS[id(board)] = _BoardFacts(board)
    return facts


def _own_blocks(game: Game, side: Side) -> dict[str, tuple[BlockView, ...]]:
    """``side``'s blocks per location with identity and strength (for that side only)."""
    facts = _facts(game.board)
    per: dict[str, list[tuple[tuple[int, str, int, str], BlockView]]] = {}
    on_map = BlockStatus.MAP
    for bid, b in sorted(game.state.blocks.items()):
        if b.status is not on_map or b.side is not side or b.loc is None or bid == "Cleopatra":
            continue
        per.setdefault(b.loc, []).append(facts.block_view(bid, side, b.strength))
    return {loc: tuple(bv for _, bv in sorted(items, key=_first)) for loc, items in sorted(per.items())}


def _first(t: tuple[tuple[int, str, int, str], BlockView]) -> tuple[int, str, int, str]:
    return t[0]


def _own_counts(game: Game, side: Side) -> dict[str, int]:
    """How many of ``side``'s blocks :func:`_own_blocks` lists at each location, without naming them."""
    out: dict[str, int] = {}
    on_map = BlockStatus.MAP
    for bid, b in game.state.blocks.items():
        if b.status is not on_map or b.side is not side or b.loc is None or bid == "Cleopatra":
            continue
        out[b.loc] = out.get(b.loc, 0) + 1
    return out


def _occupancy(game: Game, viewer: Side | None) -> dict[str, dict[Side, int]]:
    """The second part of :func:`_locations` (how many blocks of each side stand where, as ``viewer``
    counts them), without building the locations: for the scores of a previous position."""
    counts: dict[Side, dict[str, int]] = {}
    for s in _SIDES:
        counts[s] = _own_counts(game, s) if viewer is None or s is viewer else _enemy_counts(game, viewer)
    return _occupied(game, counts)


def _occupied(game: Game, counts: Mapping[Side, Mapping[str, int]]) -> dict[str, dict[Side, int]]:
    cleo_loc, cleo_side = _cleopatra(game)
    occupancy: dict[str, dict[Side, int]] = {}
    for s in _SIDES:
        for loc, n in counts[s].items():
            occupancy.setdefault(loc, {})[s] = n
    if cleo_loc is not None:
        occ = occupancy.setdefault(cleo_loc, {})
        occ[cleo_side] = occ.get(cleo_side, 0) + 1
    return occupancy


# ---- the map ---------------------------------------------------------------------


def _locations(game: Game, viewer: Side | None) -> tuple[tuple[LocationView, ...], dict[str, dict[Side, int]]]:
    known: dict[Side, dict[str, tuple[BlockView, ...]]] = {}
    counts: dict[Side, dict[str, int]] = {}
    for s in _SIDES:
        if viewer is None or s is viewer:
            known[s] = _own_blocks(game, s)
            counts[s] = {loc: len(bs) for loc, bs in known[s].items()}
        else:
            known[s] = {}
            counts[s] = _enemy_counts(game, viewer)
    cleo_loc, cleo_side = _cleopatra(game)
    occupancy = _occupied(game, counts)
    order = _SIDES if viewer is None else (viewer, viewer.enemy)
    per_side = [(s, s.value, s is viewer, counts[s], known[s]) for s in order]
    out: list[LocationView] = []
    for loc, sp, sea in _facts(game.board).spaces:
        occ = occupancy.get(loc)
        if occ is None and not sp.vp:
            continue
        forces = tuple(
            Forces(side=name, own=own, count=n, blocks=blocks.get(loc, ()), navis=sea)
            for s, name, own, here, blocks in per_side
            if (n := here.get(loc, 0))
        )
        cleo = None
        if cleo_loc == loc:
            mine = viewer is None or cleo_side is viewer
            strength = game.state.blocks["Cleopatra"].strength if mine else 0
            cleo = CleopatraView(cleo_side.value, cleo_side is viewer, strength, roman(strength))
        out.append(LocationView(loc, sp.is_sea, sp.vp, _holder(occ) if occ else "", forces, cleo))
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



# ---- since the last report ---------------------------------------------------------

_MOVES = frozenset({"move", "sea-move"})


def _changes(recent: Sequence[Event], viewer: Side, before: tuple[Score, ...], now: tuple[Score, ...]) -> Changes:
    """What changed since the viewer's last report: the moves and levies he saw (per side, with where
    they went), the battles, the cards revealed, the VP then and now. Built from the events he may
    see (``recent``) and the public scores of both positions."""
    moved: dict[str, list[str]] = {}
    levied: dict[str, list[str]] = {}
    battles: dict[str, str] = {}
    for e in recent:
        side = str(e.data.get("side", ""))
        if e.kind in _MOVES and e.data.get("path"):
            moved.setdefault(side, []).append(str(e.data["path"][-1]))
        elif e.kind == "levy" and e.data.get("loc"):
            levied.setdefault(side, []).append(str(e.data["loc"]))
        elif e.kind == "battle":
            battles[str(e.data.get("loc", ""))] = ""
        elif e.kind == "battle-end":
            battles[str(e.data.get("loc", ""))] = str(e.data.get("victor", ""))
    order = [viewer.value, viewer.enemy.value]

    def tallies(what: dict[str, list[str]]) -> tuple[Tally, ...]:
        return tuple(Tally(s, s == viewer.value, len(what[s]), ", ".join(sorted(set(what[s])))) for s in order if s in what)

    was = {s.side: s.vp for s in before}
    return Changes(
        moves=tallies(moved),
        levies=tallies(levied),
        battles=tuple(battles.items()),
        revealed=tuple(p for p in (_played([e]) for e in recent if e.kind == "reveal") if p is not None),
        vp=tuple(VpChange(s.side, was.get(s.side, s.vp), s.vp) for s in now),
    )


# ---- the phase in words ------------------------------------------------------------


def _phase_text(game: Game) -> str:
    """The phase in words (a Phrase: said in the reader's language)."""
    st = game.state
    if st.phase is Phase.DEPLOY:
        return Phrase(N_("Free deployment (5.3)"))
    if st.phase is Phase.DISCARD:
        return Phrase(N_("Start of the Year: each side discards one card and plays one"))
    if st.phase is Phase.CARD:
        return Phrase(N_("Card play: each side plays one card"))
    if st.phase is Phase.COMMAND and st.command is not None:
        role = Phrase(N_("Player 1") if st.command.side is st.player1 else N_("Player 2"))
        return Phrase(N_("Command: %(side)s (%(role)s) with %(card)s"), side=side(st.command.side.value), role=role,
                      card=st.command.card)
    if st.phase is Phase.BATTLE:
        bs = st.battle
        if bs is not None and bs.victor is not None:
            return Phrase(N_("Battle of %(loc)s: won by %(side)s, who may regroup"), loc=bs.loc, side=side(bs.victor.value))
        if bs is not None:
            return Phrase(N_("Battle of %(loc)s, Round %(n)s"), loc=bs.loc, n=bs.round)
        left = sorted(st.contests)
        return Phrase(N_("Battles: %(locs)s to fight"), locs=", ".join(left)) if left else Phrase(N_("Battles"))
    if st.phase is Phase.WINTER:
        return Phrase(N_("Winter of %(year)s"), year=st.year)
    if st.phase is Phase.OVER:
        return Phrase(N_("Game over"))
    return st.phase.value.capitalize()


# ---- entry point -------------------------------------------------------------------


def build_view(
    game: Game,
    log: Sequence[Event],
    viewer: Side | None,
    *,
    since: int = 0,
    next_step: NextStep | None = None,
    report_id: str = "",
    previous: Game | None = None,
    odds: tuple[Odds, ...] = (),
) -> View:
    """What ``viewer`` (None: the moderator) may see now.

    ``log`` is the whole event log of the game so far, in order; ``since`` is
    the index of the first event not yet reported to this viewer. ``previous`` is the position
    of that last report (None for the first): the report then opens with what changed since.
    """
    board = game.board
    st = game.state
    visible = visible_events(log, viewer)
    recent = [e for i, e in visible if i >= since]
    locations, occupancy = _locations(game, viewer)
    contested = tuple(loc for loc, c in sorted(occupancy.items()) if _holder(c) == "contested")
    awaited = next_step is not None and (viewer is None or viewer.value in next_step.awaiting)
    scores = _scores(game, occupancy)
    changes = None
    if previous is not None and viewer is not None:
        changes = _changes(recent, viewer, _scores(previous, _occupancy(previous, viewer)), scores)
    return View(
        viewer=viewer.value if viewer else MODERATOR,
        moderator=viewer is None,
        year=st.year,
        turn=st.turn,
        phase=st.phase.value,
        phase_text=_phase_text(game),
        player1=st.player1.value if st.player1 else "",
        scores=scores,
        hands=_hands(game, viewer),
        played=_played([e for _, e in visible]),
        locations=locations,
        contested=contested,
        happened=happened(board, visible, since, viewer is None),
        eliminated=tuple(event_phrase(e) for e in recent if e.kind in ELIMINATIONS),
        defaults=tuple(event_phrase(e) for e in recent if e.kind == "default"),
        last_seen=sightings(board, visible, viewer),
        result=read_part("result", winter_mod.result_text(st.result)) if st.result else "",
        next_step=next_step,
        awaited=awaited,
        fairness=fairness_note(st.rng),
        report_id=report_id,
        changes=changes,
        odds=odds if viewer is not None else (),
    )


def fairness_note(rng: object) -> str:
    """One line for every report: the commitment of a keyed game, or that a practice game's dice
    can be foreseen ("" for a stream of neither kind: simulations and games made before pbem had secrets)."""
    if isinstance(rng, KeyedStream):
        return Phrase(N_("Dice and deals: drawn from this game's secret, committed before play as SHA-256 "
                         "%(commitment)s; the secret is revealed when the game ends."), commitment=rng.commitment)
    if isinstance(rng, Rng) and rng.practice:
        return Phrase(N_("PRACTICE GAME: its dice and deals follow a fixed seed and can be foreseen; do not play it "
                         "for a result."))
    return ""
