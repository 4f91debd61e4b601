"""What one side knows, and complete positions consistent with it (a belief sampler).

:func:`observe` turns a game, its event log and a side into an :class:`Observation`:
the position with everything hidden from that side taken out, and the events that
side may see. It is the only input of the computer players (:mod:`pbem.games.caesar.ai.players`)
and of anything else that must reason as one side does (battle odds). Taken out:

* the enemy's blocks on the map (non-Cleopatra, and not face up in the battle being
  fought, whose blocks are revealed to both sides): their identities and strengths. What
  stays is public: how many stand where (the same counts as the side's report,
  :func:`pbem.games.caesar.view.views._enemy_counts`), and each one's part in this turn's public
  record (which contest entry it made, whether it moved, its battle role), under a
  placeholder name ``?N`` numbered by that public record only;
* which of the enemy's off-map blocks are in the pool and which were disbanded
  unseen this Year (blocks eliminated in battle are announced by name and stay known);
* the strength of an enemy Cleopatra;
* the enemy's hand (its size stays), the order and content of the deck, the enemy's
  sealed answer, and the game's random stream (future dice).

:class:`Belief` fills those back in at random (its own generator, never the game's),
so that every sample is a legal position whose observation equals the one it was
drawn from: ``observe(belief.sample(rng), log, side) == obs``.

Pure: no I/O, no clock; deterministic given the generator.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pbem.core import rng as rngs
from pbem.core.events import Event
from pbem.core.rng import Rng
from pbem.games.caesar.rules.board import Board, Side, default_board
from pbem.games.caesar.rules.choices import Decision, DecisionKind
from pbem.games.caesar.rules.game import Game
from pbem.games.caesar.rules.state import BattleState, BlockState, BlockStatus, Contest, Entry, GameState
from pbem.games.caesar.view.history import visible_events

CLEOPATRA = "Cleopatra"
#: Events that name an eliminated block to both sides.
_NAMED_ELIMINATIONS = frozenset({"eliminated", "killed"})
#: a hidden block is at full strength when ``rng.below(_FULL) < full * _FULL`` (a power of two: no word is rejected)
_FULL = 1 << 20


@dataclass(frozen=True)
class Observation:
    """Everything ``side`` knows: the redacted position and the events it may see (JSON text)."""

    side: Side
    position: str  # canonical JSON of the redacted position
    events: tuple[str, ...]  # canonical JSON of each visible event, in log order
    session: str = "{}"  # the step layer's public state and the side's own standing orders

    def data(self) -> dict[str, Any]:
        loaded: dict[str, Any] = json.loads(self.position)
        return loaded

    def session_data(self) -> dict[str, Any]:
        loaded: dict[str, Any] = json.loads(self.session)
        return loaded


def _canon(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


@lru_cache(maxsize=1 << 16)
def _event_text(e: Event) -> str:
    """``_canon(e.to_json())``, made once for each event: a game's log is observed again and again
    (every odds estimate, every computer move), and an event never changes."""
    return _canon(e.to_json())


def _this_year(newest_first: Iterable[Event]) -> list[Event]:
    """The visible events since the last deal (the start of this Year), in their order, from the visible
    events read newest first (no more of them is read than this Year's)."""
    out = []
    for e in newest_first:
        out.append(e)
        if e.kind == "year":
            break
    out.reverse()
    return out


def known_eliminated(visible: Sequence[Event], enemy: Side, board: Board) -> set[str]:
    """Enemy blocks announced (by name) as eliminated or killed this Year."""
    out: set[str] = set()
    for e in _this_year(reversed(visible)):
        bid = e.data.get("block")
        if (e.kind in _NAMED_ELIMINATIONS and isinstance(bid, str) and bid in board.blocks
                and board.blocks[bid].side is enemy):
            out.add(bid)
    return out


def battle_revealed(visible: Sequence[Event], g: Game, enemy: Side) -> set[str]:
    """Enemy blocks revealed in the battle being fought (7.1; reserves when they arrive) and still in it."""
    bs = g.state.battle
    if bs is None:
        return set()
    start = None
    for i, e in enumerate(visible):
        if e.kind == "battle" and e.data.get("loc") == bs.loc:
            start = i
    if start is None:
        return set()
    out: set[str] = set()
    for e in visible[start:]:
        if e.kind in ("battle", "reserves") and e.data.get("loc") == bs.loc:
            for r in e.data.get("revealed", []):
                out.add(str(r.get("block")))
    st = g.state
    return {b for b in out if b in st.blocks and st.blocks[b].status is BlockStatus.MAP
            and st.blocks[b].loc == bs.loc and st.blocks[b].side is enemy}


def _is_hidden(g: Game, bid: str, side: Side, known: set[str], revealed: set[str]) -> bool:
    b = g.state.blocks[bid]
    info = g.board.blocks[bid]
    if bid == CLEOPATRA or bid in revealed:
        return False
    if b.status is BlockStatus.MAP:
        return b.side is side.enemy
    if b.status in (BlockStatus.POOL, BlockStatus.ELIMINATED):
        return info.side is side.enemy and bid not in known
    return False


def _public_marks(state: dict[str, Any], bid: str) -> list[Any]:
    """Where a block appears in the turn's public record (contest entries, moves, battle roles)."""
    marks: list[Any] = []
    for loc, c in sorted(state["contests"].items()):
        for i, (_s, frm, b) in enumerate(c["entries"]):
            if b == bid:
                marks.append(["entry", loc, i, frm])
    if bid in state["moved"]:
        marks.append(["moved"])
    cmd = state.get("command")
    if cmd and bid in cmd["activated"]:
        marks.append(["activated", cmd["activated"].index(bid)])
    bs = state.get("battle")
    if bs:
        for key in ("reserves", "acted", "regrouped"):
            if bid in bs[key]:
                marks.append([key])
        if bs["firing"] == bid:
            marks.append(["firing"])
    return marks


def _rename(state: dict[str, Any], names: dict[str, str]) -> None:
    """Replace block ids in the turn's record by ``names`` (hidden ids -> placeholders, or back)."""

    def r(b: str) -> str:
        return names.get(b, b)

    for c in state["contests"].values():
        c["entries"] = [[s, frm, r(b)] for s, frm, b in c["entries"]]
    state["moved"] = sorted(r(b) for b in state["moved"])
    cmd = state.get("command")
    if cmd:
        cmd["activated"] = [r(b) for b in cmd["activated"]]
    bs = state.get("battle")
    if bs:
        for key in ("reserves", "acted", "regrouped"):
            bs[key] = sorted(r(b) for b in bs[key])
        if bs["firing"] is not None:
            bs["firing"] = r(bs["firing"])


def _rename_state(st: GameState, names: dict[str, str]) -> None:
    """:func:`_rename` on a state: block ids in the turn's record replaced by ``names``, the sets
    filled from sorted lists as the position format reads them."""

    def r(b: str) -> str:
        return names.get(b, b)

    for c in st.contests.values():
        c.entries = [Entry(e.side, e.frm, r(e.block)) for e in c.entries]
    st.moved = set(sorted(r(b) for b in st.moved))
    cmd = st.command
    if cmd:
        cmd.activated = [r(b) for b in cmd.activated]
    bs = st.battle
    if bs:
        bs.reserves = set(sorted(r(b) for b in bs.reserves))
        bs.acted = set(sorted(r(b) for b in bs.acted))
        bs.regrouped = set(sorted(r(b) for b in bs.regrouped))
        if bs.firing is not None:
            bs.firing = r(bs.firing)


def observe(game: Game, log: Sequence[Event], side: Side, session: dict[str, Any] | None = None) -> Observation:
    """What ``side`` knows of ``game`` (whose whole event log is ``log``)."""
    visible = [e for _, e in visible_events(log, side)]
    st = game.state
    enemy = side.enemy
    known = known_eliminated(visible, enemy, game.board)
    d = st.to_json()
    del d["rng"]
    d["deck"] = len(st.deck)
    d["hands"] = {side.value: list(st.hands[side]), enemy.value: len(st.hands[enemy])}
    d["sealed"] = {k: v for k, v in d["sealed"].items() if k == side.value}
    d["enemy_sealed"] = enemy in st.sealed
    revealed = battle_revealed(visible, game, enemy)  # face up in the battle: identity and strength public
    hidden = sorted(bid for bid in st.blocks if _is_hidden(game, bid, side, known, revealed))
    on_map = [bid for bid in hidden if st.blocks[bid].status is BlockStatus.MAP]
    keyed = sorted(on_map, key=lambda bid: (st.blocks[bid].loc or "", _canon(_public_marks(d, bid)), bid))
    # ties in the key are blocks nobody can tell apart: their order does not matter
    names = {bid: f"?{i}" for i, bid in enumerate(keyed)}
    _rename(d, names)
    blocks = d["blocks"]
    for bid in hidden:
        del blocks[bid]
    if st.blocks[CLEOPATRA].side is enemy:
        blocks[CLEOPATRA]["strength"] = 0
    off = [bid for bid in hidden if st.blocks[bid].status is not BlockStatus.MAP]
    d["hidden"] = {
        "ids": hidden,  # public: the enemy's blocks not known dead or eliminated, and defectors to him
        "map": {names[bid]: st.blocks[bid].loc for bid in keyed},
        # each unseen winter disband is announced ("disbands a block at ..."): the count is public
        "unseen_eliminated": sum(1 for bid in off if st.blocks[bid].status is BlockStatus.ELIMINATED),
        "known_eliminated": sorted(known),
    }
    return Observation(side, _canon(d), tuple(map(_event_text, visible)), _canon(session or {}))


class SampleError(RuntimeError):
    """No consistent position was found (a bug or an impossible observation)."""


class Belief:
    """Complete positions consistent with one :class:`Observation`, drawn at random.

    ``full``: the chance that a hidden enemy block on the map is drawn at its full strength
    rather than at a uniformly random one of its strengths (every block starts the game at full
    strength and most stay near it; the battle odds keep the uniform draw, 0)."""

    def __init__(self, obs: Observation, board: Board | None = None, *, full: float = 0.0) -> None:
        self.obs = obs
        self.full = full
        self.side = obs.side
        self.board = board or default_board()
        self.base = obs.data()
        # the visible events since the last deal (all that is read of them), parsed from the newest back
        self.this_year = _this_year(Event.from_json(json.loads(text)) for text in reversed(obs.events))
        hidden = self.base["hidden"]
        self.ids: list[str] = list(hidden["ids"])
        self.slots: list[tuple[str, str]] = sorted(hidden["map"].items(), key=lambda kv: int(kv[0][1:]))
        self.unseen_eliminated: int = int(hidden["unseen_eliminated"])
        self.candidates: dict[str, list[str]] = {}
        for ph, loc in self.slots:
            self.candidates[ph] = [bid for bid in self.ids if self._fits(bid, loc)]
        # the placeholders' candidate lists, each distinct one once (one for each kind of place)
        self._pools: list[tuple[str, ...]] = sorted({tuple(c) for c in self.candidates.values()})
        index = {pool: i for i, pool in enumerate(self._pools)}
        self._pool_of = {ph: index[tuple(c)] for ph, c in self.candidates.items()}
        self._pools_with = {bid: tuple(i for i, pool in enumerate(self._pools) if bid in pool) for bid in self.ids}
        # the order _assign fills the placeholders in: the most constrained first
        self._order = sorted(self.slots, key=lambda s: (len(self.candidates[s[0]]), int(s[0][1:])))
        self.must_place = [bid for bid in self.ids if self.board.blocks[bid].side is self.side]  # defectors
        self.unknown_cards = self._unknown_cards()
        self._state: GameState | None = None  # the observed position, read by _template
        self._block_order: list[str] = []  # every block id, sorted (set by _template)
        self._known: dict[str, tuple[Side, str | None, int, BlockStatus]] = {}  # the known blocks' fields (ditto)
        self._slot_loc: dict[str, str] = {}  # placeholder -> its location (set by _template)
        self._strengths: dict[str, tuple[int, ...]] = {}  # hidden block -> its strengths (set by _template)
        self._spots: dict[str, _Spot] = {}  # battle_sample's place -> what its samples share

    def _fits(self, bid: str, loc: str) -> bool:
        info = self.board.blocks[bid]
        sp = self.board.spaces[loc]
        if sp.is_sea:
            return info.is_navis
        return (not info.is_navis) or sp.is_port

    def _unknown_cards(self) -> list[str]:
        """Cards that may be in the enemy's hand or the deck (or be his unseen discard)."""
        side = self.side
        pool = Counter(c.name for c in self.board.cards)
        pool.subtract(self.base["hands"][side.value])
        for e in self.this_year:
            if e.kind == "reveal":
                for card in e.data.get("played", {}).values():
                    pool[str(card)] -= 1
            elif e.kind == "discard" and e.data.get("side") == side.value:
                pool[str(e.data.get("card"))] -= 1
        return sorted(pool.elements())

    # ---- drawing --------------------------------------------------------
    def _assign(self, rng: Rng) -> dict[str, str]:
        """Identities for the placeholders: a random matching that respects block types. Each
        placeholder draws uniformly from its candidates not drawn yet, in their order: the
        placeholders of one kind of place share one list of those (:attr:`_pools`), kept as they
        are drawn from rather than filtered again for each placeholder. Each draw is
        ``rng.below(len(free))``, read from the stream's words ahead (:meth:`Rng.ahead`, one word a
        draw) and handed to ``rng.below`` itself when its word is rejected."""
        pools, pool_of, pools_with = self._pools, self._pool_of, self._pools_with
        order = self._order
        for _ in range(200):
            out: dict[str, str] = {}
            free_lists = [list(pool) for pool in pools]  # each pool's candidates not drawn yet, in order
            ok = True
            # defectors must stand on the map: seat them first where they fit
            for bid in self.must_place:
                spots = [ph for ph, loc in order if ph not in out and bid in self.candidates[ph]]
                if not spots:
                    ok = False
                    break
                ph = rng.choice(spots)
                out[ph] = bid
                for i in pools_with[bid]:
                    free_lists[i].remove(bid)
            limits = rngs.LIMITS
            words, used = rng.ahead(len(order)), 0  # at most one draw a placeholder, none rejected
            for ph, _loc in order:
                if not ok:
                    break
                if ph in out:
                    continue
                free = free_lists[pool_of[ph]]
                n = len(free)
                if not n:
                    ok = False
                    break
                x = words[used]
                if x < (limits[n] if n < 256 else rngs.limit(n)):
                    used += 1
                    bid = free[x % n]
                else:  # a rejected word (a chance below n / 2**64): rng.below draws on, then the words after it
                    rng.counter += used
                    bid = free[rng.below(n)]
                    words, used = rng.ahead(len(order)), 0
                out[ph] = bid
                for i in pools_with[bid]:
                    free_lists[i].remove(bid)
            rng.counter += used
            if ok:
                return out
        raise SampleError("no assignment of hidden blocks fits the observation")

    def _strengths_of(self, rng: Rng, names: dict[str, str]) -> list[int]:
        """The strengths of the placeholders' blocks, in ``names``' order: for each, when :attr:`full`
        is above 0, whether it is at full strength (``rng.below(1 << 20)``, never rejected), and if it
        is not, ``rng.choice`` of its strengths; read from the words ahead as :meth:`_assign` reads them."""
        all_strengths = self._strengths
        full = self.full
        limits = rngs.LIMITS
        ahead = 2 * len(names) if full > 0 else len(names)
        words, used = rng.ahead(ahead), 0
        out = []
        for bid in names.values():
            strengths = all_strengths[bid]  # highest first
            if full > 0:
                used += 1
                if words[used - 1] % _FULL < full * _FULL:
                    out.append(strengths[0])
                    continue
            n = len(strengths)
            x = words[used]
            if x < limits[n]:
                used += 1
                out.append(strengths[x % n])
            else:  # a rejected word: as in _assign
                rng.counter += used
                out.append(strengths[rng.below(n)])
                words, used = rng.ahead(ahead), 0
        rng.counter += used
        return out

    def _draw_cards(self, rng: Rng, enemy: Side) -> tuple[list[str], list[str], int]:
        """The enemy's hand (sorted) and the deck, dealt from the cards this side has not seen, and the
        seed of the sampled game's own stream: the draws every sample ends with, in this order."""
        cards = list(self.unknown_cards)
        rng.shuffle(cards)
        n_enemy = int(self.base["hands"][enemy.value])
        n_deck = int(self.base["deck"])
        if len(cards) < n_enemy + n_deck:
            raise SampleError(f"{len(cards)} unknown cards for a hand of {n_enemy} and a deck of {n_deck}")
        return sorted(cards[:n_enemy], key=_card_key), cards[n_enemy : n_enemy + n_deck], rng.next64()

    def sample_state(self, rng: Rng) -> dict[str, Any]:
        """One complete position (JSON form) consistent with the observation."""
        side, enemy = self.side, self.side.enemy
        d = json.loads(self.obs.position)
        del d["hidden"]
        del d["enemy_sealed"]
        names = self._assign(rng)
        blocks = d["blocks"]
        slot_loc = dict(self.slots)
        for ph, bid in names.items():
            info = self.board.blocks[bid]
            strengths = info.strengths()
            at_full = self.full > 0 and rng.below(_FULL) < self.full * _FULL
            strength = strengths[0] if at_full else rng.choice(strengths)  # strengths(): highest first
            blocks[bid] = {"side": enemy.value, "loc": slot_loc[ph], "strength": strength, "status": "map"}
        off = [bid for bid in self.ids if bid not in names.values()]
        rng.shuffle(off)
        for i, bid in enumerate(off):
            info = self.board.blocks[bid]
            status = BlockStatus.ELIMINATED if i < self.unseen_eliminated else BlockStatus.POOL
            blocks[bid] = {"side": info.side.value, "loc": None, "strength": info.min_strength, "status": status.value}
        if blocks[CLEOPATRA]["side"] == enemy.value:
            blocks[CLEOPATRA]["strength"] = rng.choice(self.board.blocks[CLEOPATRA].strengths())
        d["blocks"] = dict(sorted(blocks.items()))
        _rename(d, names)
        hand, deck, seed = self._draw_cards(rng, enemy)
        d["hands"] = {side.value: list(self.base["hands"][side.value]), enemy.value: hand}
        d["deck"] = deck
        d["rng"] = {"seed": seed, "counter": 0}
        return d

    def _template(self) -> GameState:
        """The observed position as a state, read once: the known blocks, the turn's record under
        the placeholder names, no enemy cards, no deck (:meth:`sample` fills those in)."""
        if self._state is None:
            d = self.obs.data()
            del d["hidden"]
            del d["enemy_sealed"]
            side = self.side
            d["hands"] = {side.value: list(self.base["hands"][side.value])}
            d["deck"] = []
            d["rng"] = {"seed": 0, "counter": 0}
            self._state = GameState.from_json(d)
            self._block_order = sorted({*self._state.blocks, *self.ids})
            self._known = {bid: (b.side, b.loc, b.strength, b.status) for bid, b in self._state.blocks.items()}
            self._slot_loc = dict(self.slots)
            self._strengths = {bid: self.board.blocks[bid].strengths() for bid in self.ids}
        return self._state

    def sample(self, rng: Rng) -> Game:
        """One complete position consistent with the observation, as a game: the position
        ``GameState.from_json(self.sample_state(rng))`` gives, with the same draws in the same
        order, built from the observed state read once (:meth:`_template`) rather than from JSON."""
        enemy = self.side.enemy
        board_blocks = self.board.blocks
        names = self._assign(rng)
        template = self._template()
        drawn: dict[str, BlockState] = {}
        slot_loc = self._slot_loc
        on_map = BlockStatus.MAP
        for (ph, bid), strength in zip(names.items(), self._strengths_of(rng, names)):
            drawn[bid] = BlockState(enemy, slot_loc[ph], strength, on_map)
        placed = set(names.values())
        off = [bid for bid in self.ids if bid not in placed]
        rng.shuffle(off)
        for i, bid in enumerate(off):
            info = board_blocks[bid]
            status = BlockStatus.ELIMINATED if i < self.unseen_eliminated else BlockStatus.POOL
            drawn[bid] = BlockState(info.side, None, info.min_strength, status)
        known = self._known
        # every block in id order (the hidden ones are all drawn, on the map or off it): the sorted dict
        blocks = {bid: drawn[bid] if bid in drawn else BlockState(*known[bid]) for bid in self._block_order}
        cleo = blocks[CLEOPATRA]
        if cleo.side is enemy:
            cleo.strength = rng.choice(board_blocks[CLEOPATRA].strengths())
        st = template.copy(blocks=blocks)
        _rename_state(st, names)
        st.hands[enemy], st.deck, seed = self._draw_cards(rng, enemy)
        st.rng = Rng(seed, 0)
        g = Game(st, self.board)
        if self.base["enemy_sealed"]:
            # his sealed answer is unseen: any legal one from the sampled hand
            enemy = self.side.enemy
            kind = {"deploy": DecisionKind.DEPLOY, "discard": DecisionKind.DISCARD}.get(g.state.phase.value, DecisionKind.PLAY)
            g.apply(enemy, rng.choice(list(g.legal(Decision(enemy, kind)))))
        return g

    # ---- one battle's blocks only (the battle odds) ---------------------------------
    def battle_sample(self, rng: Rng, loc: str) -> BattleSample | None:
        """What :meth:`sample` gives of the battle at ``loc`` (its blocks on the map, its contest, the
        battle being fought there, the game's random stream), with the same draws in the same order
        but without the rest of the position. None, drawing nothing, when the sample needs the whole
        game (the enemy's sealed answer, drawn from its legal choices): use :meth:`sample`.

        The draws are read as word positions (:class:`_Cut`) when the place allows it and none of their
        words is rejected; else they are made one by one, as :meth:`sample` makes them."""
        if self.base["enemy_sealed"]:
            return None
        spot = self._spots.get(loc)
        if spot is None:
            spot = self._spots[loc] = self._spot(loc)
        enemy = self.side.enemy
        cut = spot.cut
        words = rng.ahead(cut.words) if cut is not None else []
        if cut is not None and max(words) < rngs.kept_below(cut.largest):
            names, blocks, seed = self._cut_sample(spot, cut, words)
            rng.counter += cut.words
        else:
            names = self._assign(rng)
            blocks = dict(spot.known)
            slot_loc = self._slot_loc
            for (ph, bid), strength in zip(names.items(), self._strengths_of(rng, names)):  # as sample() draws them
                if slot_loc[ph] == loc:
                    blocks[bid] = (enemy, strength)
            rng.skip_shuffle(len(self.ids) - len(names))  # the off-map blocks' order: not read here
            if spot.cleopatra is enemy:
                strength = rng.choice(self.board.blocks[CLEOPATRA].strengths())
                if CLEOPATRA in blocks:
                    blocks[CLEOPATRA] = (enemy, strength)
            seed = self._skip_cards(rng)
        contest = spot.contest
        if contest is not None:
            contest = Contest(contest.attacker, [Entry(e.side, e.frm, names.get(e.block, e.block)) for e in contest.entries], dict(contest.main))
        battle = spot.battle
        if battle is not None:
            def r(b: str) -> str:
                return names.get(b, b)

            b = battle
            battle = BattleState(
                b.loc, b.attacker, b.defender, b.round, b.stage, b.surprise, {r(x) for x in b.reserves}, {r(x) for x in b.acted},
                dict(b.retreat_use), dict(b.sea_retreats), b.hits_left, r(b.firing) if b.firing is not None else None, b.victor,
                dict(b.regroup_use), {r(x) for x in b.regrouped}, b.swapped,
            )
        return BattleSample(blocks, contest, battle, spot.surprise, Rng(seed, 0))

    def _cut_sample(self, spot: _Spot, cut: _Cut, words: list[int]) -> tuple[dict[str, str], dict[str, tuple[Side, int]], int]:
        """What the draws above give of the battle (the placeholders it names, its blocks and the sampled
        game's seed), read from their words when none of them is rejected (see :class:`_Cut`)."""
        pools, pool_of, pools_with = self._pools, self._pool_of, self._pools_with
        free_lists = [list(pool) for pool in pools]
        names: dict[str, str] = {}
        for bid, spots, x in zip(self.must_place, cut.seats, words):  # _assign's seats for the defectors
            left = [ph for ph in spots if ph not in names]
            names[left[x % len(left)]] = bid
            for i in pools_with[bid]:
                free_lists[i].remove(bid)
        at = len(names)  # the next word
        for ph, _loc in self._order[:cut.assigned]:  # _assign's draws, as far as they are read
            if ph in names:
                continue
            free = free_lists[pool_of[ph]]
            bid = names[ph] = free[words[at] % len(free)]
            at += 1
            for i in pools_with[bid]:
                free_lists[i].remove(bid)
        enemy = self.side.enemy
        blocks = dict(spot.known)
        all_strengths = self._strengths
        # _strengths_of's draws of the blocks at the place: one word each after _assign's, in the order of
        # ``names`` (the placeholders not drawn above come after them all)
        # (without defectors, the names were drawn in _order: a placeholder's place there is its place in them)
        order_of = {ph: k for k, ph in enumerate(names)} if self.must_place else cut.position
        n = len(self._order)
        for ph in cut.here:
            strengths = all_strengths[names[ph]]
            blocks[names[ph]] = (enemy, strengths[words[n + order_of[ph]] % len(strengths)])
        if cut.cleopatra is not None and CLEOPATRA in blocks:
            strengths = self.board.blocks[CLEOPATRA].strengths()
            blocks[CLEOPATRA] = (enemy, strengths[words[cut.cleopatra] % len(strengths)])
        return names, blocks, words[-1]

    def _cut(self, needed: set[str], here: list[str], cleopatra: bool) -> _Cut | None:
        """The draws of :meth:`battle_sample` as word positions (see :class:`_Cut`), or None when how many
        there are may depend on what is drawn: a defector who may find no seat or a pool of candidates
        that may run out (then :meth:`_assign` draws again), or the full-strength draw."""
        self._template()  # (the hidden blocks' strengths)
        order = self._order
        n = len(order)
        if self.full > 0 or n == 0:
            return None
        # each defector has a seat left whatever the ones before took
        seats = tuple(tuple(ph for ph, _loc in order if bid in self.candidates[ph]) for bid in self.must_place)
        if any(len(spots) <= k for k, spots in enumerate(seats)):
            return None
        for j, (ph, _loc) in enumerate(order):  # each placeholder's pool keeps a block whatever was drawn before it
            mine = set(self._pools[self._pool_of[ph]])
            taken = sum(1 for other, _l in order[:j] if mine.intersection(self._pools[self._pool_of[other]]))
            if taken + sum(1 for bid in self.must_place if bid in mine) >= len(mine):
                return None
        off = len(self.ids) - n
        cards = len(self.unknown_cards)
        if cards < int(self.base["hands"][self.side.enemy.value]) + int(self.base["deck"]):
            return None  # (_skip_cards raises)
        cleo = len(self.board.blocks[CLEOPATRA].strengths())
        largest = max(n, max(len(p) for p in self._pools), max(map(len, self._strengths.values()), default=1), off, cards, cleo)
        if largest >= 256:
            return None
        position = {ph: j for j, (ph, _loc) in enumerate(order)}
        assigned = 1 + max((position[ph] for ph in needed), default=-1)
        words = 2 * n + max(off - 1, 0) + cleopatra + max(cards - 1, 0) + 1
        return _Cut(words, largest, seats, assigned, position, tuple(here), 2 * n + max(off - 1, 0) if cleopatra else None)

    def _skip_cards(self, rng: Rng) -> int:
        """:meth:`_draw_cards`' draws without the cards: the sampled game's seed."""
        n_enemy = int(self.base["hands"][self.side.enemy.value])
        n_deck = int(self.base["deck"])
        cards = len(self.unknown_cards)
        rng.skip_shuffle(cards)
        if cards < n_enemy + n_deck:
            raise SampleError(f"{cards} unknown cards for a hand of {n_enemy} and a deck of {n_deck}")
        return rng.next64()

    def _spot(self, loc: str) -> _Spot:
        """What every sample shares of the battle at ``loc``: the known blocks there, its contest and
        battle (hidden blocks under their placeholders), where Cleopatra stands."""
        st = self._template()
        known = {bid: (side, strength) for bid, (side, where, strength, status) in self._known.items()
                 if status is BlockStatus.MAP and where == loc}
        bs = st.battle if st.battle is not None and st.battle.loc == loc else None
        contest = st.contests.get(loc)
        here = [ph for ph, where in self.slots if where == loc]
        named = set(here)  # every placeholder the sample's battle names: its blocks, its contest's and battle's
        if contest is not None:
            named.update(e.block for e in contest.entries)
        if bs is not None:
            named.update(bs.reserves, bs.acted, bs.regrouped, [bs.firing] if bs.firing is not None else [])
        cleopatra = st.blocks[CLEOPATRA].side
        cut = self._cut({ph for ph in named if ph in self._slot_loc}, here, cleopatra is self.side.enemy)
        return _Spot(known, contest, bs, st.surprise == loc, cleopatra, cut)

    def counts(self, places: Iterable[str]) -> dict[str, tuple[int, int]]:
        """How many blocks of each side (Caesar's, Pompey's) stand in each of ``places`` in every
        sample: the known blocks and the enemy's hidden ones (public: observe keeps their places)."""
        self._template()
        wanted = set(places)
        out = {x: [0, 0] for x in wanted}
        for side, where, _strength, status in self._known.values():
            if status is BlockStatus.MAP and where in wanted:
                out[where][0 if side is Side.CAESAR else 1] += 1
        enemy = 0 if self.side.enemy is Side.CAESAR else 1
        for _ph, where in self.slots:
            if where in wanted:
                out[where][enemy] += 1
        return {x: (n[0], n[1]) for x, n in out.items()}


@dataclass(frozen=True)
class _Spot:
    known: dict[str, tuple[Side, int]]  # the known blocks on the map at the place: side, strength
    contest: Contest | None  # its contest (placeholders for hidden blocks)
    battle: BattleState | None  # the battle being fought there (ditto)
    surprise: bool  # it is the turn's surprise battle
    cleopatra: Side  # whose Cleopatra is
    cut: _Cut | None  # its draws as word positions (None: they are drawn one by one)


@dataclass(frozen=True)
class _Cut:
    """:meth:`Belief.battle_sample`'s draws as positions in the stream's words, when each draw reads one
    word (none is rejected: every word is below the limit of the largest draw, ``largest``) and how many
    draws there are does not depend on what is drawn. Then the sample reads only the words it needs:
    the placeholders' draws up to the last one the battle names (``assigned``; :meth:`Belief._assign`
    draws them in ``_order``), the strengths of the placeholders at the place, and the seed (the last
    word); the other draws (the rest of the placeholders and their strengths, the off-map blocks' and
    the cards' shuffles) only move the stream on."""

    words: int  # every draw of a sample, and the seed
    largest: int  # the largest ``n`` drawn below
    seats: tuple[tuple[str, ...], ...]  # for each defector, the placeholders it may be seated at, in _order
    assigned: int  # the placeholders drawn, in _order
    position: dict[str, int]  # each placeholder's place in _order
    here: tuple[str, ...]  # the placeholders at the place
    cleopatra: int | None  # the word of Cleopatra's strength (None: she is not the enemy's)


@dataclass(frozen=True)
class BattleSample:
    """One sample of a battle (:meth:`Belief.battle_sample`)."""

    blocks: dict[str, tuple[Side, int]]  # the blocks on the map at the place: side, strength
    contest: Contest | None
    battle: BattleState | None  # the battle being fought there (a copy of the position's)
    surprise: bool
    rng: Rng  # the sampled game's random stream


def _card_key(name: str) -> tuple[int, str]:
    from pbem.games.caesar.rules.cards import card_sort_key

    return card_sort_key(name)


__all__ = ["BattleSample", "Belief", "Observation", "SampleError", "known_eliminated", "observe"]
