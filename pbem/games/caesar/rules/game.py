"""The game object: pending decisions, legal choices, applying a choice.

``Game`` wraps a :class:`GameState` (the position) and the immutable
:class:`Board`. It is the small interface every other layer uses:

* ``pending()``: the decisions waiting now (two when a sealed step waits for both);
* ``legal(decision)``: every legal choice for it, lazily;
* ``check(side, choice)``: raise :class:`IllegalChoiceError` naming the rule broken;
* ``apply(side, choice)``: check, then change the position and return the events.

Between decisions everything the rules do without asking (reveals, dice,
winter bookkeeping) runs at once. An illegal choice leaves the position
untouched: every rule module checks completely before it mutates.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import defaultdict
from collections.abc import Callable, Iterator
from typing import Any

from pbem.core.events import Event, new_event
from pbem.core.rng import RandomStream, Rng
from pbem.errors import EngineError, WrongDecisionError
from pbem.games.caesar.rules import battle, cards, levy, movement, winter
from pbem.games.caesar.rules import eventcards as gods
from pbem.games.caesar.rules.board import (
    SIDES,
    BlockInfo,
    BlockType,
    Board,
    EdgeKind,
    Side,
    default_board,
    road_limit,
    short_name,
)
from pbem.games.caesar.rules.choices import (
    Audience,
    Choice,
    Decision,
    DecisionKind,
)
from pbem.games.caesar.rules.state import (
    BlockState,
    BlockStatus,
    Control,
    GameState,
    Options,
    Phase,
    Transition,
)

ROMAN = {0: "0", 1: "I", 2: "II", 3: "III", 4: "IV"}
_IDX = {Side.CAESAR: 0, Side.POMPEY: 1}
# Enum members the hot paths read, as module names (reading an attribute of an Enum class goes
# through EnumType.__getattr__'s hook and costs several times a global's read)
_MAP, _POOL, _DEAD = BlockStatus.MAP, BlockStatus.POOL, BlockStatus.DEAD
_CLEOPATRA = BlockType.CLEOPATRA
_OVER = Phase.OVER
_FRIENDLY, _ENEMY, _CONTESTED, _VACANT = Control.FRIENDLY, Control.ENEMY, Control.CONTESTED, Control.VACANT
_CARD_PHASES = frozenset({Phase.DEPLOY, Phase.DISCARD, Phase.CARD})


def new_game(
    seed: int, options: Options | None = None, board: Board | None = None, *, rng: RandomStream | None = None
) -> Game:
    """A new game at the historical set-up (5.1), ready for the first decision. Its draws come
    from ``rng`` when given (a game file's keyed stream), else from SplitMix over ``seed``."""
    board = board or default_board()
    options = options or Options()
    blocks: dict[str, BlockState] = {}
    for _, bid, loc in board.setup_blocks:
        info = board.blocks[bid]
        if loc is None:
            blocks[bid] = BlockState(info.side, None, info.min_strength, _POOL)
        else:
            blocks[bid] = BlockState(info.side, loc, info.max_strength, _MAP)
    state = GameState(
        options=options,
        year=board.setup_year,
        turn=1,
        phase=Phase.DEPLOY if options.free_deployment else Phase.DISCARD,
        rng=rng if rng is not None else Rng(seed),
        blocks=blocks,
    )
    g = Game(state, board)
    if not options.free_deployment:
        cards.start_year(g)
    g.advance()
    return g


class Game:
    def __init__(self, state: GameState, board: Board | None = None) -> None:
        self.board = board or default_board()
        self.state = state
        self.events: list[Event] = []
        self._at: dict[str, set[str]] = defaultdict(set)
        self.reindex()

    # ---- copying and serialisation ------------------------------------
    def copy(self) -> Game:
        """An independent game at the same position: the state as its position format reads it
        back (:meth:`GameState.copy`, without the JSON text), the random stream cloned (a keyed
        stream keeps its secret)."""
        return Game(self.state.copy(), self.board)

    def to_json(self) -> dict[str, Any]:
        return self.state.to_json()

    @classmethod
    def from_json(cls, data: dict[str, Any], board: Board | None = None) -> Game:
        g = cls(GameState.from_json(data), board)
        problems = g.problems()
        if problems:
            from pbem.errors import PositionFormatError

            raise PositionFormatError("the position is not consistent:\n- " + "\n- ".join(problems))
        return g

    def reindex(self) -> None:
        self._at = defaultdict(set)
        self._n: dict[str, list[int]] = {}
        self._mine: dict[Side, set[str]] = {Side.CAESAR: set(), Side.POMPEY: set()}
        # the places where each side has a block (where its count in _n is not 0)
        self._held: dict[Side, set[str]] = {Side.CAESAR: set(), Side.POMPEY: set()}
        self._mine_sorted: dict[Side, tuple[str, ...]] = {}  # on_map's answers, kept with _mine (_mine_add, _mine_discard)
        # friendly_cities' answers (and as a set: friendly_city_set), dropped whenever who holds a place may change
        self._friendly: dict[Side, tuple[tuple[str, ...], frozenset[str]]] = {}
        # pool_blocks' answers: a block levied leaves its side's; dropped when a block returns to the pool
        self._pool: dict[Side, tuple[str, ...]] = {}
        at, n, mine, held, on_map = self._at, self._n, self._mine, self._held, BlockStatus.MAP
        for bid, b in self.state.blocks.items():
            loc = b.loc
            if b.status is on_map and loc is not None:
                at[loc].add(bid)
                side = b.side
                counts = n.get(loc)
                if counts is None:
                    counts = n[loc] = [0, 0]
                counts[_IDX[side]] += 1
                mine[side].add(bid)
                held[side].add(loc)

    def problems(self) -> list[str]:
        """Every inconsistency of the position, all at once."""
        out: list[str] = []
        st = self.state
        for bid in self.board.blocks:
            if bid not in st.blocks:
                out.append(f"block {bid} is missing")
        for bid, b in sorted(st.blocks.items()):
            info = self.board.blocks.get(bid)
            if info is None:
                out.append(f"unknown block {bid!r}")
                continue
            if b.status is BlockStatus.MAP:
                if b.loc is None or b.loc not in self.board.spaces:
                    out.append(f"{bid} is on the map at unknown location {b.loc!r}")
                elif self.board.is_sea(b.loc) and not info.is_navis:
                    out.append(f"{bid} is a land block at sea ({b.loc})")
                elif info.is_navis and not (self.board.is_sea(b.loc) or self.board.spaces[b.loc].is_port):
                    out.append(f"{bid} is a Navis in {b.loc}, which is not a port")
                if b.strength not in info.strengths():
                    out.append(f"{bid} has strength {b.strength}; it can be {info.strengths()}")
            elif b.loc is not None:
                out.append(f"{bid} is {b.status.value} but has location {b.loc}")
            if b.status is BlockStatus.DEAD and not info.is_leader:
                out.append(f"{bid} is dead but is not a leader")
            if info.type is BlockType.CLEOPATRA and b.status is not BlockStatus.MAP:
                out.append("Cleopatra must be on the map")
            if b.side is not info.side and b.status is not BlockStatus.MAP:
                out.append(f"{bid} belongs to {b.side} off the map")
        if st.phase not in (Phase.OVER,) and not 705 <= st.year <= 709:
            out.append(f"year {st.year} is outside 705-709")
        if not 1 <= st.turn <= 5:
            out.append(f"turn {st.turn} is outside 1-5")
        all_cards = sorted(c.name for c in self.board.cards)
        # a game that ended in the middle of a turn (a resignation, a forfeit) keeps its unfought battles
        for loc in self.contested_locations() if st.phase is not Phase.OVER else ():
            outside = st.phase not in (Phase.COMMAND, Phase.BATTLE) or loc not in st.contests
            if outside and (st.phase is not Phase.BATTLE or loc != (st.battle.loc if st.battle else None)):
                out.append(f"{loc} holds both sides outside a battle")
        held = sorted(st.deck + st.hands[Side.CAESAR] + st.hands[Side.POMPEY])
        if len(held) > len(all_cards):
            out.append("more cards in deck and hands than the game has")
        return out

    # ---- blocks and control ------------------------------------------
    def info(self, bid: str) -> BlockInfo:
        return self.board.blocks[bid]

    def block(self, bid: str) -> BlockState:
        return self.state.blocks[bid]

    def blocks_at(self, loc: str, side: Side | None = None) -> list[str]:
        ids = self._at.get(loc, ())
        if side is None:
            return sorted(ids)
        blocks = self.state.blocks
        return sorted(b for b in ids if blocks[b].side is side)

    def ids_at(self, loc: str) -> set[str] | tuple[()]:
        """The blocks at ``loc``, in no order (the location index itself: read it, never change it)."""
        return self._at.get(loc, ())

    def on_map(self, side: Side) -> list[str]:
        """``side``'s blocks on the map, sorted (from the location index)."""
        return list(self.on_map_sorted(side))

    def on_map_sorted(self, side: Side) -> tuple[str, ...]:
        """:meth:`on_map` as the index's own tuple (a block that comes onto or leaves the map makes a
        new one: a tuple once given never changes)."""
        done = self._mine_sorted.get(side)
        if done is None:
            done = self._mine_sorted[side] = tuple(sorted(self._mine[side]))
        return done

    def friendly_cities(self, side: Side) -> tuple[str, ...]:
        """The cities (not seas) ``side`` holds alone (:meth:`control` is Friendly), sorted; from the
        location index, kept until a block moves."""
        done = self._friendly.get(side)
        if done is None:
            done = self._friendly_of(side)
        return done[0]

    def friendly_city_set(self, side: Side) -> frozenset[str]:
        """:meth:`friendly_cities` as a set (for membership tests)."""
        done = self._friendly.get(side)
        if done is None:
            done = self._friendly_of(side)
        return done[1]

    def pool_blocks(self, side: Side) -> tuple[str, ...]:
        """The blocks of ``side``'s levy catalogue (:attr:`Board.levy_catalogue`) that are in its
        levy pool now (status POOL), in the catalogue's order; kept as blocks leave the pool
        (:meth:`place`) and made again after one returns to it (:meth:`return_to_pool`, :meth:`take_off`)."""
        done = self._pool.get(side)
        if done is None:
            blocks = self.state.blocks
            done = self._pool[side] = tuple(
                [bid for bid in self.board.levy_catalogue[side] if blocks[bid].status is _POOL])
        return done

    def return_to_pool(self, bid: str) -> None:
        """An eliminated block goes back to its levy pool (the Year's reset, 8.6)."""
        self.state.blocks[bid].status = _POOL
        self._pool.clear()

    def _friendly_of(self, side: Side) -> tuple[tuple[str, ...], frozenset[str]]:
        i = _IDX[side]
        seas = self.board._seas
        cities = tuple(sorted([loc for loc, n in self._n.items() if n[i] and not n[1 - i] and loc not in seas]))
        done = self._friendly[side] = (cities, frozenset(cities))
        return done

    def held_by(self, side: Side) -> set[str]:
        """The places where ``side`` has a block, in no order (kept by the location index: read it,
        never change it). A place is Enemy or Contested for a side when its enemy holds it."""
        return self._held[side]

    def count(self, loc: str, side: Side) -> int:
        n = self._n.get(loc)
        return n[_IDX[side]] if n else 0

    def control(self, loc: str, side: Side) -> Control:
        n = self._n.get(loc)
        if not n:
            return _VACANT
        i = _IDX[side]
        own, enemy = n[i], n[1 - i]
        if own and enemy:
            return _CONTESTED
        if own:
            return _FRIENDLY
        if enemy:
            return _ENEMY
        return _VACANT

    def contested_locations(self) -> list[str]:
        return sorted(loc for loc in self._at if self.control(loc, Side.CAESAR) is Control.CONTESTED)

    def _unindex(self, bid: str) -> None:
        """Take ``bid`` out of the location index (it stays in ``_mine``: the caller says whether it
        leaves the map). The cached answers of :meth:`friendly_cities` are dropped only when a side's
        count somewhere falls to 0, the one change of the index that can change who holds a place."""
        b = self.state.blocks[bid]
        loc = b.loc
        if b.status is _MAP and loc is not None:
            at = self._at[loc]
            at.discard(bid)
            counts = self._n[loc]
            i = _IDX[b.side]
            counts[i] -= 1
            if not counts[i]:
                self._held[b.side].discard(loc)
                self._friendly.clear()
            if not at:
                del self._at[loc]
                del self._n[loc]

    def _mine_add(self, side: Side, bid: str) -> None:
        """``bid`` comes onto the map for ``side``: into ``_mine`` and, in its place, into on_map's kept answer."""
        mine = self._mine[side]
        if bid in mine:
            return
        mine.add(bid)
        done = self._mine_sorted.get(side)
        if done is not None:
            i = bisect_left(done, bid)
            self._mine_sorted[side] = done[:i] + (bid,) + done[i:]

    def _mine_discard(self, side: Side, bid: str) -> None:
        """``bid`` leaves the map, or ``side``: out of ``_mine`` and of on_map's kept answer."""
        mine = self._mine[side]
        if bid not in mine:
            return
        mine.discard(bid)
        done = self._mine_sorted.get(side)
        if done is not None:
            i = bisect_left(done, bid)
            self._mine_sorted[side] = done[:i] + done[i + 1:]

    def place(self, bid: str, loc: str) -> None:
        b = self.state.blocks[bid]
        if b.status is _POOL:  # levied: it leaves its side's pool (levy_catalogue lists a side's own blocks)
            owner = self.board.blocks[bid].side
            done = self._pool.get(owner)
            if done is not None and bid in done:
                self._pool[owner] = tuple([x for x in done if x != bid])
        if b.status is not _MAP or b.loc is None:  # it comes onto the map
            self._mine_add(b.side, bid)
        self._unindex(bid)
        b.loc = loc
        b.status = _MAP
        self._at[loc].add(bid)
        counts = self._n.get(loc)
        if counts is None:
            counts = self._n[loc] = [0, 0]
        i = _IDX[b.side]
        if not counts[i]:  # the side comes into ``loc``: who holds it may change
            self._held[b.side].add(loc)
            self._friendly.clear()
        counts[i] += 1

    def set_side(self, bid: str, side: Side) -> None:
        """Change a block's owner (Cleopatra, Jupiter's defectors), keeping the index true."""
        b = self.state.blocks[bid]
        if b.status is BlockStatus.MAP and b.loc is not None and b.side is not side:
            n = self._n[b.loc]
            n[_IDX[b.side]] -= 1
            n[_IDX[side]] += 1
            if not n[_IDX[b.side]]:
                self._held[b.side].discard(b.loc)
            self._held[side].add(b.loc)
            self._mine_discard(b.side, bid)
            self._mine_add(side, bid)
            self._friendly.clear()
        b.side = side

    def take_off(self, bid: str, status: BlockStatus) -> None:
        """Remove a block from the map: eliminated, disbanded or killed."""
        b = self.state.blocks[bid]
        if b.status is _MAP:
            self._mine_discard(b.side, bid)
        self._unindex(bid)
        info = self.info(bid)
        if status is _POOL or b.status is _POOL:
            self._pool.clear()
        b.loc = None
        b.status = status
        b.side = info.side  # a defector goes back to its owner's pool (README, rulings)
        b.strength = info.min_strength

    def reduce(self, bid: str, by_side: Side, cause: str) -> bool:
        """One step off ``bid``; returns True when that eliminated it (7.4, 7.5)."""
        b = self.state.blocks[bid]
        new = self.info(bid).step_down(b.strength)
        if new:
            b.strength = new
            return False
        self.eliminate(bid, cause)
        return True

    def eliminate(self, bid: str, cause: str) -> None:
        """Take ``bid`` out: to the pool face-up, a leader killed (7.51), Cleopatra changing sides (7.52)."""
        b = self.state.blocks[bid]
        info = self.info(bid)
        loc = b.loc
        owner = b.side
        if info.type is BlockType.CLEOPATRA:
            self.set_side(bid, owner.enemy)
            b.strength = 1
            self.emit(
                "cleopatra",
                Audience.ALL,
                f"Cleopatra is eliminated ({cause}) and joins {owner.enemy} at strength I in {loc} (7.52)",
                loc=loc,
                side=owner.enemy.value,
            )
            return
        if info.is_leader:
            self.take_off(bid, BlockStatus.DEAD)
            self.emit(
                "killed",
                Audience.ALL,
                f"{owner}'s leader {info.name} is killed ({cause}) at {loc}: 1 VP for {owner.enemy} (7.51)",
                block=bid,
                name=info.name,
                side=owner.value,
                loc=loc,
            )
            return
        name = self.label(bid, owner)
        self.take_off(bid, BlockStatus.ELIMINATED)
        self.emit(
            "eliminated",
            Audience.ALL,
            f"{owner}'s {name} is eliminated ({cause}) at {loc}",
            block=bid,
            name=info.name,
            side=owner.value,
            loc=loc,
        )

    def label(self, bid: str, owner: Side | None = None) -> str:
        """A block's name as its owner writes it; a defector is prefixed with its origin."""
        info = self.info(bid)
        owner = owner or self.state.blocks[bid].side
        if info.type is not _CLEOPATRA and info.side is not owner:
            return f"{info.side._value_} {info.name}"
        return info.name

    def not_yours(self, bid: str, side: Side) -> str:
        """Why ``side`` cannot order block ``bid`` on the map, worded from public facts only:
        the catalogue (whose block it is), Cleopatra's side and Jupiter's defections (both announced)."""
        info = self.board.blocks.get(bid)
        if info is None:
            return f"there is no block {bid!r}"
        b = self.state.blocks[bid]
        if info.type is BlockType.CLEOPATRA:
            return f"Cleopatra fights for {b.side} now, not for you" if b.side is not side else "Cleopatra is yours"
        if b.status is BlockStatus.MAP and b.side is not side:
            if info.side is side:  # won over by Jupiter: announced to both sides
                return f"{info.name} defected to {b.side}: it is not yours now"
            return f"{info.name} is a {info.side} block, not one of yours"
        if info.side is not side:
            return f"{info.name} is a {info.side} block, not one of yours"
        where = {BlockStatus.POOL: "in your levy pool", BlockStatus.ELIMINATED: "eliminated this Year",
                 BlockStatus.DEAD: "dead"}.get(b.status, "not on the map")
        return f"{self.label(bid, side)} is {where}, not on the map"

    def describe(self, bid: str) -> str:
        b = self.state.blocks[bid]
        return f"{self.label(bid)} {ROMAN.get(b.strength, b.strength)}"

    def short(self, bid: str) -> str:
        return short_name(self.info(bid))

    def vp(self, side: Side) -> int:
        total = 0
        for loc, vp in self.board.vp_spaces:
            if self.control(loc, side) is _FRIENDLY:
                total += vp
        enemy, catalogue = side.enemy, self.board.blocks
        for bid, b in self.state.blocks.items():
            if b.status is _DEAD and catalogue[bid].side is enemy:
                total += 1
        return total

    def road_limit(self, kind: EdgeKind, *, attacking: bool, pluto: bool = False) -> int:
        return road_limit(kind, attacking=attacking, pluto=pluto)

    def resolve_own_block(self, side: Side, text: str) -> str:
        """A block ``side`` owns now, named as a player writes it (aliases, short forms)."""
        from pbem.errors import UnknownNameError
        from pbem.games.caesar.rules.board import _norm, block_aliases

        key = _norm(text)
        hits: list[str] = []
        for bid, b in self.state.blocks.items():
            info = self.board.blocks[bid]
            owner = b.side if b.status is BlockStatus.MAP else info.side
            if owner is not side:
                continue
            aliases = block_aliases(info)
            if info.side is not side or info.type is BlockType.CLEOPATRA:
                aliases = aliases + tuple(_norm(info.side.value) + a for a in aliases)
            if key in aliases:
                hits.append(bid)
        if len(hits) > 1:
            native = [h for h in hits if self.board.blocks[h].side is side]
            hits = native or hits
        if hits:
            return sorted(hits)[0]
        names = sorted(
            self.label(bid, side)
            for bid, b in self.state.blocks.items()
            if (b.side if b.status is BlockStatus.MAP else self.board.blocks[bid].side) is side
        )
        raise UnknownNameError(f"{side} block", text, self.board._suggest(text, names))

    # ---- events ------------------------------------------------------
    def emit(self, kind: str, audience: Audience, text: str, /, **data: Any) -> None:
        self.events.append(new_event((kind, audience._value_, text, data)))  # the plain value, as Event keeps it

    def emit_split(self, kind: str, owner: Side, own_text: str, enemy_text: str, own: dict[str, Any], public: dict[str, Any]) -> None:
        """An event seen in full by ``owner`` and redacted by the other side (each side's audience is its name)."""
        self.events += (new_event((kind, owner._value_, own_text, own)), new_event((kind, owner.enemy._value_, enemy_text, public)))

    # ---- the decision interface ---------------------------------------
    def pending(self) -> tuple[Decision, ...]:
        st = self.state
        ph = st.phase
        if ph is _OVER:
            return ()
        both = _SEALED_DECISIONS.get(ph)
        if both is not None:
            sealed = st.sealed
            return tuple([d for d in both if d.side not in sealed]) if sealed else both
        ask = _PENDING.get(ph)
        return ask(self) if ask is not None else ()

    def legal(self, decision: Decision) -> Iterator[Choice]:
        k = decision.kind
        if k in (DecisionKind.DEPLOY, DecisionKind.DISCARD, DecisionKind.PLAY):
            return cards.legal(self, decision)
        if k in (DecisionKind.EVENT_TARGET, DecisionKind.SURPRISE):
            return gods.legal(self, decision)
        if k is DecisionKind.MOVES:
            return movement.legal(self, decision)
        if k is DecisionKind.LEVIES:
            return levy.legal(self, decision)
        if k in (DecisionKind.BATTLE_ORDER, DecisionKind.BATTLE_TURN, DecisionKind.HIT, DecisionKind.REGROUP):
            return battle.legal(self, decision)
        return winter.legal(self, decision)

    def decision_for(self, side: Side) -> Decision:
        for d in self.pending():
            if d.side is side:
                return d
        waiting = ", ".join(f"{d.side} ({d.kind.value})" for d in self.pending()) or "nobody (the game is over)"
        raise WrongDecisionError(f"{side} has nothing to decide now; waiting for {waiting}")

    def check(self, side: Side, choice: Choice) -> Decision:
        d = self.decision_for(side)
        handler = _HANDLERS.get(d.kind)
        if handler is None or not isinstance(choice, handler[0]):
            names = ", ".join(t.__name__ for t in handler[0]) if handler else "?"
            raise WrongDecisionError(
                f"{side} must answer a {d.kind.value} decision now (with {names}), not {type(choice).__name__}"
            )
        handler[1](self, d, choice)
        return d

    def apply(self, side: Side, choice: Choice) -> list[Event]:
        """Apply one choice; returns the events it caused (and everything that followed)."""
        d = self.check(side, choice)
        self.events = []
        _HANDLERS[d.kind][2](self, d, choice)
        self.advance()
        out, self.events = self.events, []
        return out

    def apply_legal(self, d: Decision, choice: Choice) -> list[Event]:
        """Apply ``choice`` for ``d``, the decision :meth:`pending` returned just now, without
        checking it again: the caller took it from ``legal(d)`` (or an End choice of ``d``'s kind,
        always legal). For playouts, where checking a choice that was enumerated as legal costs
        a fifth of the time; the soak tests still go through :meth:`apply`, which checks."""
        self.events = []
        _HANDLERS[d.kind][2](self, d, choice)
        self.advance()
        out, self.events = self.events, []
        return out

    def advance(self) -> None:
        """Run everything the rules do without asking, up to the next real decision."""
        st = self.state  # the state object is never replaced while the game runs
        for _ in range(10_000):
            ph = st.phase
            if ph is _OVER:
                return
            if ph in _CARD_PHASES:
                if len(st.sealed) == 2:
                    cards.resolve_sealed(self)
                    continue
                return
            if not _AUTO[ph](self):
                return
        raise EngineError("the engine did not settle (a bug): no decision after 10000 automatic steps")

    def enter(self, transition: Transition, *args: Any) -> None:
        """Take one of the game turn's transitions (the phase table :data:`_TRANSITIONS` says who runs it)."""
        _TRANSITIONS[transition](self, *args)

    # ---- convenience ---------------------------------------------------
    def is_over(self) -> bool:
        return self.state.phase is _OVER


# ---- the phase table: the game turn as data -------------------------------------------------
# Each phase module runs its own phase and names the next one by a Transition; only this table
# knows which module enters which phase, so the phase modules never import one another.

_TRANSITIONS: dict[Transition, Callable[..., None]] = {
    Transition.START_YEAR: cards.start_year,
    Transition.START_COMMAND: movement.start_command,
    Transition.FINISH_COMMAND: movement.finish_command,
    Transition.START_BATTLES: battle.start_phase,
    Transition.END_TURN: battle.end_turn,
    Transition.START_WINTER: winter.start,
}
#: the decisions a phase asks (card phases ask each side for its sealed card: Game.pending)
_PENDING: dict[Phase, Callable[[Game], tuple[Decision, ...]]] = {
    Phase.COMMAND: movement.pending,
    Phase.BATTLE: battle.pending,
    Phase.WINTER: winter.pending,
}
#: the sealed decision each side makes in a card phase
_SEALED_KIND = {Phase.DEPLOY: DecisionKind.DEPLOY, Phase.DISCARD: DecisionKind.DISCARD, Phase.CARD: DecisionKind.PLAY}
#: those decisions of both sides (Caesar first), made once: a Decision is immutable
_SEALED_DECISIONS = {ph: (Decision(SIDES[0], kind), Decision(SIDES[1], kind)) for ph, kind in _SEALED_KIND.items()}
#: what a phase does by itself until it needs a decision (True: something changed)
_AUTO: dict[Phase, Callable[[Game], bool]] = {
    Phase.COMMAND: movement.auto,
    Phase.BATTLE: battle.auto,
    Phase.WINTER: winter.auto,
}

_HANDLERS: dict[DecisionKind, tuple[tuple[type, ...], Any, Any]] = {}


def _register() -> None:
    for mod in (cards, movement, levy, gods, battle, winter):
        for kind, spec in mod.HANDLERS.items():
            _HANDLERS[kind] = spec


_register()
