"""Battle odds as one side can estimate them: simulated battles over positions consistent with what it knows.

For each pending battle (a contested location, or the battle being fought) the side's own blocks
are exact and the enemy's are drawn by the belief sampler (:class:`~pbem.games.caesar.ai.belief.Belief`
over :func:`~pbem.games.caesar.ai.belief.observe`), so the estimate never depends on the hidden
truth: two games that differ only in the enemy's hidden blocks give the same odds. Each sample's
battle is fought by the rules engine's rules to its end, both sides firing with every block at every
turn (an attacker retreats when Round 4 obliges him; hits fall where the rules say, the first of equal
blocks when the owner may choose). Regroups are not played; a battle whose victor has no regroup to
make is not counted (the engine puts such a battle away at once, and the odds always left it out).

The battles are many (200 for each pending battle and side, in every report that shows odds, and
``pbem verify`` renders every report again), so they are not fought through the engine's decisions:
:meth:`Belief.battle_sample <pbem.games.caesar.ai.belief.Belief.battle_sample>` draws only the
battle's part of each position, and :class:`_Fight` makes the engine's state changes and dice draws
on it, in the engine's order, without decisions, checks or events. Both give exactly what the
engine gave (``_engine_fight`` over :meth:`Belief.sample`; ``tests/test_odds.py`` holds them to it).
Their draws are read from the stream's words ahead (:meth:`Rng.ahead <pbem.core.rng.Rng.ahead>`)
rather than made one call at a time, the same words in the same order; and whether the victor has
a regroup to make is asked once for each case the fights of a battle meet (:meth:`_Fight.can_regroup`).

Deterministic: the generator is seeded from public facts (the side, the place, the year and game
turn, and how many events the side has seen). Pure: no I/O, no clock.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from pbem.core import rng as rngs
from pbem.core.events import Event
from pbem.core.memo import ByIdentity
from pbem.core.rng import Rng
from pbem.games.caesar.ai.belief import BattleSample, Belief, SampleError, observe
from pbem.games.caesar.rules import battle as battle_mod
from pbem.games.caesar.rules.board import BlockType, Board, Side
from pbem.games.caesar.rules.choices import BattleAction, Choice, DecisionKind
from pbem.games.caesar.rules.game import Game
from pbem.games.caesar.rules.movement import road_key
from pbem.games.caesar.rules.state import BattleStage, BattleState, BlockStatus, Contest, Control, Phase
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


def around(board: Board, loc: str) -> frozenset[str]:
    """Every place whose control a battle at ``loc`` may ask about: where its blocks may retreat or
    regroup (:func:`~pbem.games.caesar.rules.battle.places_from`, ``regroups_from``)."""
    out = {n for n, _e in board.neighbors_by_road(loc)}
    out.update(board.seas_of(loc), board.ports_of(loc))
    for s in board.seas_of(loc):
        out.update(board.ports_of(s))
    out.discard(loc)
    return frozenset(out)


_ENEMY = {Side.CAESAR: Side.POMPEY, Side.POMPEY: Side.CAESAR}
_NO_KEY = 10_000  # above every key of _Tables' orders


@dataclass(frozen=True)
class _Tables:
    """The printed facts a fight reads, for every block of a board, as plain tables."""

    # battle.next_slot orders the blocks that have not acted by (letter, role), and in a surprise
    # battle's Round 1 by (1 - role, letter) (role: 0 the defender, 1 the attacker): the same orders
    # as numbers, for each block as a defender and as an attacker
    as_defender: dict[str, int]
    as_attacker: dict[str, int]
    surprise_defender: dict[str, int]
    surprise_attacker: dict[str, int]
    fire_defending: dict[str, int]  # combat_of's firepower, as a defender
    fire_attacking: dict[str, int]  # ... and as an attacker
    down: dict[str, dict[int, int]]  # BlockInfo.step_down of each strength

    @classmethod
    def of(cls, board: Board) -> _Tables:
        """The tables of ``board``, made once (a board never changes)."""
        return _TABLES(board)

    @classmethod
    def made(cls, board: Board) -> _Tables:
        blocks = board.blocks.items()
        return cls(
            {bid: 2 * ord(info.defend.letter) for bid, info in blocks},
            {bid: 2 * ord(info.attack.letter) + 1 for bid, info in blocks},
            {bid: 1000 + ord(info.defend.letter) for bid, info in blocks},
            {bid: ord(info.attack.letter) for bid, info in blocks},
            {bid: info.defend.fire for bid, info in blocks},
            {bid: info.attack.fire for bid, info in blocks},
            {bid: {n: info.step_down(n) for n in info.strengths()} for bid, info in blocks},
        )


_TABLES: ByIdentity[Board, _Tables] = ByIdentity(_Tables.made)


class _Fight:
    """One simulated battle at ``loc``, fought as the rules engine fights it when every block fires
    (:func:`_engine_fight`, which it replaces): the same state changes, in the same order, with the
    same draws from the game's stream, but holding only what the battle reads (the blocks at ``loc``,
    how many blocks of each side stand in the places around it) and asking no decisions, checking
    no choices and writing no events. The retreats and the regroup test are the engine's own
    (:func:`~pbem.games.caesar.rules.battle.retreats_from`, ``regroups_from``)."""

    __slots__ = ("board", "infos", "loc", "here", "side", "strength", "off", "n_here", "around", "arrived", "contest", "rng", "tables",
                 "regroups")

    def __init__(self, board: Board, loc: str, blocks: dict[str, tuple[Side, int]], around: dict[str, tuple[int, int]],
                 contest: Contest | None, rng: Rng, tables: _Tables, regroups: dict[tuple[object, ...], bool] | None = None) -> None:
        self.board = board
        self.infos = board.blocks
        self.loc = loc
        self.here = set(blocks)  # the blocks on the map at loc
        self.side = {bid: s for bid, (s, _n) in blocks.items()}
        self.strength = {bid: n for bid, (_s, n) in blocks.items()}
        self.off: dict[str, BlockStatus] = {}  # the blocks taken off the map, and how
        caesar = sum(1 for s, _n in blocks.values() if s is Side.CAESAR)
        self.n_here = [caesar, len(blocks) - caesar]  # blocks at loc by side (Game.count's order)
        self.around = around  # (Caesar, Pompey) blocks in each place of around(board, loc)
        self.arrived: dict[str, list[int]] = {}  # blocks retreated into a place of around, by side
        self.contest = contest
        self.rng = rng
        self.tables = tables  # _Tables.of(board)
        # whether a victor has a regroup to make, by what it depends on (see can_regroup): shared by
        # the fights of one battle with the same blocks around it
        self.regroups = {} if regroups is None else regroups

    # ---- Game's index, for the battle's place only --------------------------------
    def count(self, side: Side) -> int:
        return self.n_here[0 if side is Side.CAESAR else 1]

    def control(self, where: str, side: Side) -> Control:
        """:meth:`Game.control` for ``loc`` and the places around it."""
        if where == self.loc:
            caesar, pompey = self.n_here
        else:
            caesar, pompey = self.around[where]
            extra = self.arrived.get(where)
            if extra:
                caesar, pompey = caesar + extra[0], pompey + extra[1]
        own, enemy = (caesar, pompey) if side is Side.CAESAR else (pompey, caesar)
        if own and enemy:
            return Control.CONTESTED
        if own:
            return Control.FRIENDLY
        if enemy:
            return Control.ENEMY
        return Control.VACANT

    def take_off(self, bid: str, status: BlockStatus) -> None:
        self.here.discard(bid)
        self.n_here[0 if self.side[bid] is Side.CAESAR else 1] -= 1
        info = self.infos[bid]
        self.off[bid] = status
        self.side[bid] = info.side
        self.strength[bid] = info.min_strength

    def eliminate(self, bid: str) -> None:
        """:meth:`Game.eliminate`."""
        info = self.infos[bid]
        if info.type is BlockType.CLEOPATRA:
            owner = self.side[bid]
            i = 0 if owner is Side.CAESAR else 1
            self.n_here[i] -= 1
            self.n_here[1 - i] += 1
            self.side[bid] = owner.enemy
            self.strength[bid] = 1
        elif info.is_leader:
            self.take_off(bid, BlockStatus.DEAD)
        else:
            self.take_off(bid, BlockStatus.ELIMINATED)

    def reduce(self, bid: str) -> None:
        """:meth:`Game.reduce`."""
        new = self.tables.down[bid][self.strength[bid]]
        if new:
            self.strength[bid] = new
        else:
            self.eliminate(bid)

    def retreat(self, bid: str, to: str) -> None:
        """:meth:`Game.place` of a block retreating from the battle."""
        self.here.discard(bid)
        i = 0 if self.side[bid] is Side.CAESAR else 1
        self.n_here[i] -= 1
        self.arrived.setdefault(to, [0, 0])[i] += 1

    # ---- the battle (battle.py's functions of the same names) -------------------------
    def start(self, contest: Contest, surprise: bool) -> BattleState | None:
        """:func:`battle.start_battle` (None: the place is not contested)."""
        loc = self.loc
        if self.control(loc, Side.CAESAR) is not Control.CONTESTED:
            return None
        here, side = self.here, self.side
        reserves = {e.block for e in contest.entries if contest.is_reserve(e.block) and e.block in here and side[e.block] is e.side}
        attacker = contest.attacker
        return BattleState(loc=loc, attacker=attacker, defender=attacker.enemy, surprise=surprise, reserves=reserves)

    def any_in_battle(self, bs: BattleState, side: Side) -> bool:
        reserves, sides = bs.reserves, self.side
        if not reserves:  # every block at the place is in the battle
            return self.n_here[0 if side is Side.CAESAR else 1] > 0
        return any(sides[b] is side and b not in reserves for b in self.here)

    def sole_side(self, bs: BattleState) -> Side | None:
        caesar, pompey = self.n_here
        return battle_mod.sole_side(caesar, pompey, bs.defender)

    def next_slot(self, bs: BattleState) -> tuple[Side, list[str]] | None:
        sides = self.side
        reserves, acted, defender = bs.reserves, bs.acted, bs.defender
        # battle.next_slot's keys as numbers in the same order (_Tables)
        t = self.tables
        if bs.surprise and bs.round == 1:
            as_defender, as_attacker = t.surprise_defender, t.surprise_attacker
        else:
            as_defender, as_attacker = t.as_defender, t.as_attacker
        best = _NO_KEY
        found: list[str] = []
        for b in self.here:
            if b in reserves or b in acted:
                continue
            key = as_defender[b] if sides[b] is defender else as_attacker[b]
            if key < best:
                best, found = key, [b]
            elif key == best:
                found.append(b)
        if not found:
            return None
        found.sort()
        return sides[found[0]], found

    def hit_candidates(self, bs: BattleState) -> list[str]:
        """The firing block's enemies in the battle at their highest strength, sorted."""
        assert bs.firing is not None
        sides, strength, reserves = self.side, self.strength, bs.reserves
        enemy = _ENEMY[sides[bs.firing]]
        top = 0  # every block on the map has a strength of 1 or more
        found: list[str] = []
        for b in self.here:
            if sides[b] is enemy and b not in reserves:
                n = strength[b]
                if n > top:
                    top, found = n, [b]
                elif n == top:
                    found.append(b)
        found.sort()
        return found

    def retreats(self, bs: BattleState, bid: str) -> list[BattleAction]:
        return battle_mod.retreats_from(self.board, bs, self.contest, self.control, bid, self.side[bid])

    def fire(self, bs: BattleState, bid: str) -> None:
        """:func:`battle.do_turn`, firing."""
        bs.acted.add(bid)
        t = self.tables
        fire = (t.fire_defending if self.side[bid] is bs.defender else t.fire_attacking)[bid]
        rng, n = self.rng, self.strength[bid]
        dice = rng.ahead(n)  # a die is rng.below(6) + 1 (Rng.die), one word each unless one is rejected
        hits = 0
        if max(dice) < rngs.LIMITS[6]:
            rng.counter += n
            for x in dice:
                if x % 6 < fire:
                    hits += 1
        else:
            for _ in range(n):
                if rng.below(6) < fire:
                    hits += 1
        bs.hits_left = hits
        bs.firing = bid
        bs.stage = BattleStage.HITS

    def do_retreat(self, bs: BattleState, action: BattleAction) -> None:
        """:func:`battle.do_turn`, retreating."""
        bid, to = action.block, action.to
        assert to is not None
        bs.acted.add(bid)
        side = self.side[bid]
        if action.by_sea:
            bs.sea_retreats[side.value] = bs.sea_retreats.get(side.value, 0) + 1
        elif not self.infos[bid].is_navis:
            k = road_key(side, bs.loc, to)
            bs.retreat_use[k] = bs.retreat_use.get(k, 0) + 1
        self.retreat(bid, to)

    def apply_hit(self, bs: BattleState, target: str) -> None:
        self.reduce(target)
        bs.hits_left -= 1
        if self.sole_side(bs) is not None:
            bs.hits_left = 0

    def end_round(self, bs: BattleState) -> bool:
        """:func:`battle._end_round`; True when it ended the battle (the defender won)."""
        if bs.round >= battle_mod.LAST_ROUND:
            for b in sorted(b for b in self.here if self.side[b] is bs.attacker):
                self.eliminate(b)
            return True
        bs.round += 1
        bs.acted.clear()
        bs.retreat_use.clear()
        bs.sea_retreats.clear()
        if bs.round == 2 and bs.reserves:
            self.reserves_arrive(bs)
        return False

    def reserves_arrive(self, bs: BattleState) -> None:
        here, sides = self.here, self.side
        disrupted: list[Side] = []
        for side in (bs.defender, bs.attacker):
            res = [b for b in bs.reserves if sides[b] is side and b in here]
            if res and not any(b not in bs.reserves and sides[b] is side for b in here):
                disrupted.append(side)
        arriving = sorted(b for b in bs.reserves if b in here)
        bs.reserves.clear()
        for side in disrupted:
            for b in arriving:
                if sides[b] is side and b in here:
                    self.reduce(b)
            if side is bs.defender and not bs.swapped:
                bs.attacker, bs.defender = bs.defender, bs.attacker
                bs.swapped = True

    def finish(self, bs: BattleState, victor: Side, decisions: int) -> Side | None:
        """:func:`battle._finish`, then the engine's next step: the victor is asked where to regroup
        when he can (the odds count the battle), else the battle is put away and the game goes on
        (:func:`_engine_fight` does not count it)."""
        bs.victor = victor
        bs.stage = BattleStage.REGROUP
        bs.reserves.clear()
        bs.acted.clear()
        if decisions >= _MAX_DECISIONS:
            return None
        return victor if self.can_regroup(bs, victor) else None

    def can_regroup(self, bs: BattleState, victor: Side) -> bool:
        """Whether ``victor`` has a regroup to make (:func:`battle.regroups_from` gives one). Before any
        regroup is made, a block's regroups depend only on whether it is a Navis and on the control of
        the places around (what retreats changed of it): one block of each kind is asked, once for
        each such case."""
        mine = sorted(b for b in self.here if self.side[b] is victor)
        if bs.regroup_use or bs.regrouped:
            return next(battle_mod.regroups_from(self.board, bs, self.control, mine, victor), None) is not None
        infos = self.infos
        navis = next((b for b in mine if infos[b].is_navis), None)
        land = next((b for b in mine if not infos[b].is_navis), None)
        key = (victor, navis is None, land is None, *sorted((w, n[0], n[1]) for w, n in self.arrived.items()))
        found = self.regroups.get(key)
        if found is None:
            ask = [b for b in (navis, land) if b is not None]
            found = self.regroups[key] = next(battle_mod.regroups_from(self.board, bs, self.control, ask, victor), None) is not None
        return found

    def run(self, bs: BattleState, *, fought: bool) -> Side | None:
        """Fight ``bs`` to its end; the victor (None: the engine's fight would not report one).
        ``fought``: the battle was being fought in the position (its first step is its pending
        decision, not the engine's automatic steps)."""
        decisions = 0
        if fought:
            if bs.victor is not None:
                return bs.victor
            if bs.stage is BattleStage.TURNS:
                slot = self.next_slot(bs)
                if slot is None:
                    return None
                side, blocks = slot
                decisions = 1
                if bs.round == battle_mod.LAST_ROUND and side is bs.attacker:
                    self.do_retreat(bs, self.retreats(bs, blocks[0])[0])
                elif self.any_in_battle(bs, _ENEMY[side]):
                    self.fire(bs, blocks[0])
                else:
                    bs.acted.add(blocks[0])  # a pass
            elif bs.stage is BattleStage.HITS:
                cands = self.hit_candidates(bs)
                if not cands:
                    return None
                decisions = 1
                self.apply_hit(bs, cands[0])
            else:
                return None
        while True:  # Game.advance with battle.auto, and each decision it stops at, answered
            if bs.stage is BattleStage.HITS:
                cands = self.hit_candidates(bs) if bs.hits_left > 0 else []  # none needed when no hit is left
                if not cands:
                    bs.hits_left = 0
                    bs.firing = None
                    bs.stage = BattleStage.TURNS
                    continue
                if len(cands) > 1:  # the owner's choice: the first
                    if decisions >= _MAX_DECISIONS:
                        return None
                    decisions += 1
                self.apply_hit(bs, cands[0])
                continue
            winner = self.sole_side(bs)
            if winner is not None:
                return self.finish(bs, winner, decisions)
            slot = self.next_slot(bs)
            if slot is None:
                if self.end_round(bs):
                    return self.finish(bs, bs.defender, decisions)
                continue
            side, blocks = slot
            if bs.round == battle_mod.LAST_ROUND and side is bs.attacker:
                stuck = next((b for b in blocks if not self.retreats(bs, b)), None)
                if stuck is not None:
                    bs.acted.add(stuck)
                    self.eliminate(stuck)
                    continue
                if decisions >= _MAX_DECISIONS:
                    return None
                decisions += 1
                self.do_retreat(bs, self.retreats(bs, blocks[0])[0])
                continue
            enemy_there = self.any_in_battle(bs, _ENEMY[side])
            if not enemy_there and (bs.round == 1 or not any(self.retreats(bs, b) for b in blocks)):
                bs.acted.update(blocks)
                continue
            if decisions >= _MAX_DECISIONS:
                return None
            decisions += 1
            if enemy_there:
                self.fire(bs, blocks[0])
            else:
                bs.acted.add(blocks[0])  # a pass


def _fight(board: Board, loc: str, sample: BattleSample, around: dict[str, tuple[int, int]],
           tables: _Tables | None = None, regroups: dict[tuple[object, ...], bool] | None = None) -> tuple[Side | None, _Fight]:
    """Fight the battle at ``loc`` of ``sample`` to its end with the firing policy: the victor (None:
    not decided) and the fight (its blocks as they end it). ``around``: how many blocks of each side
    stand in the places around ``loc``; ``tables``: ``_Tables.of(board)`` (worked out when not given);
    ``regroups``: :attr:`_Fight.regroups` of the fights before it with the same ``around``."""
    fight = _Fight(board, loc, sample.blocks, around, sample.contest, sample.rng, tables or _Tables.of(board), regroups)
    bs = sample.battle
    if bs is None:
        if sample.contest is None:
            return None, fight
        bs = fight.start(sample.contest, sample.surprise)
        if bs is None:
            return None, fight
        return fight.run(bs, fought=False), fight
    return fight.run(bs, fought=True), fight


def _whole(g: Game, loc: str) -> BattleSample:
    """The battle at ``loc`` of a whole sampled game (:meth:`Belief.sample`), as :meth:`Belief.battle_sample` gives it."""
    st = g.state
    blocks, rng = st.blocks, st.rng
    assert isinstance(rng, Rng)  # a sampled position's stream
    bs = st.battle if st.battle is not None and st.battle.loc == loc else None
    return BattleSample({bid: (blocks[bid].side, blocks[bid].strength) for bid in g.ids_at(loc)}, st.contests.get(loc), bs,
                        st.surprise == loc, rng)


def _engine_fight(g: Game, loc: str) -> Side | None:
    """The battle at ``loc`` fought through the rules engine's decisions (what :class:`_Fight` does
    without them; kept for the tests that hold the two to the same results)."""
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
    board = belief.board
    near: dict[str, tuple[int, int]] | None = None
    tables = _Tables.of(board)
    regroups: dict[tuple[object, ...], bool] = {}  # the fights' can_regroup answers around ``near``
    for _ in range(samples):
        try:
            one = belief.battle_sample(rng, loc)
            if one is None:
                g = belief.sample(rng)
                one = _whole(g, loc)
                ring = {x: (g.count(x, Side.CAESAR), g.count(x, Side.POMPEY)) for x in around(board, loc)}
            else:
                if near is None:
                    near = belief.counts(around(board, loc))
                ring = near
        except SampleError:
            return None
        before = {bid: sc for bid, sc in one.blocks.items() if bid != "Cleopatra"}
        victor, fight = _fight(board, loc, one, ring, tables, regroups if ring is near else None)
        if victor is None:
            continue
        done += 1
        for leader in LEADERS:
            present[leader] += leader in before
        wins += victor is side
        off, now = fight.off, fight.strength
        for bid, (owner, strength) in before.items():
            status = off.get(bid)
            if status is not None:
                elim[owner] += 1
                steps[owner] += strength
                if bid in killed:
                    killed[bid] += status is BlockStatus.DEAD
            else:
                steps[owner] += max(0, strength - now[bid])
    if not done:
        return None
    return BattleOdds(loc, side, done, wins, steps, elim, killed, present)
