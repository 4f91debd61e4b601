"""Battle phase (7.0-7.8, RULINGS B1-B7).

Player 1 picks the order of battles. Each battle has up to four rounds; in a
round every block has one turn, A before B before C before D, the defender
first at the same letter (in a surprise battle's Round 1 every attacking block
goes before any defender). A turn is fire, retreat (from Round 2) or pass;
attackers must retreat in Round 4. Hits land at once on the strongest enemy
block, the owner choosing among equals. Reserves arrive in Round 2, after the
disruption check. The winner may regroup.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from pbem.errors import IllegalChoiceError
from pbem.games.caesar.rules.board import ROAD_LIMIT, SIDES, Board, EdgeKind, Side
from pbem.games.caesar.rules.choices import (
    Action,
    Audience,
    BattleAction,
    Choice,
    Decision,
    DecisionKind,
    EndRegroup,
    NextBattle,
    Regroup,
    TakeHit,
)
from pbem.games.caesar.rules.movement import road_key
from pbem.games.caesar.rules.state import BattleStage, BattleState, Contest, Control, Phase, Transition

if TYPE_CHECKING:
    from pbem.games.caesar.rules.protocol import GameLike

ROMAN = {0: "0", 1: "I", 2: "II", 3: "III", 4: "IV"}
RETREAT_STRAIT_LIMIT = 1  # 7.61
LAST_ROUND = 4
#: who controls a place for a side (:meth:`Game.control`'s signature)
ControlOf = Callable[[str, Side], Control]


# ---- phase flow --------------------------------------------------------------


def start_phase(g: GameLike) -> None:
    st = g.state
    st.phase = Phase.BATTLE
    st.command = None
    st.battle = None
    if st.contests:
        g.emit("battle-phase", Audience.ALL, f"Battles to fight: {', '.join(sorted(st.contests))}", locs=sorted(st.contests))


def end_turn(g: GameLike) -> None:
    st = g.state
    st.moved.clear()
    st.road_use.clear()
    st.contests.clear()
    st.surprise = None
    st.command = None
    st.battle = None
    st.fought = []
    st.prev_effective = dict(st.effective)
    st.player1 = None
    if st.turn >= 5:
        g.enter(Transition.START_WINTER)
    else:
        st.turn += 1
        st.phase = Phase.CARD


def remaining(g: GameLike) -> list[str]:
    return sorted(g.state.contests)


def start_battle(g: GameLike, loc: str) -> None:
    st = g.state
    contest = st.contests[loc]
    if g.control(loc, Side.CAESAR) is not Control.CONTESTED:
        del st.contests[loc]
        return
    attacker = contest.attacker
    reserves = {
        e.block
        for e in contest.entries
        if contest.is_reserve(e.block) and g.state.blocks[e.block].loc == loc and g.state.blocks[e.block].side is e.side
    }
    bs = BattleState(loc=loc, attacker=attacker, defender=attacker.enemy, surprise=st.surprise == loc, reserves=reserves)
    st.battle = bs
    revealed = [
        {"block": b, "side": g.state.blocks[b].side.value, "name": g.label(b), "strength": g.state.blocks[b].strength}
        for b in g.blocks_at(loc)
        if b not in reserves
    ]
    parts = []
    for side in (attacker, attacker.enemy):
        shown = [g.describe(b) for b in g.blocks_at(loc, side) if b not in reserves]
        n_res = sum(1 for b in reserves if g.state.blocks[b].side is side)
        role = "attacking" if side is attacker else "defending"
        parts.append(f"{side} ({role}): {', '.join(shown) or 'none'}" + (f"; {n_res} in reserve" if n_res else ""))
    g.emit(
        "battle",
        Audience.ALL,
        f"Battle of {loc}" + (" (surprise battle)" if bs.surprise else "") + ": " + "; ".join(parts),
        loc=loc,
        attacker=attacker.value,
        revealed=revealed,
        reserves={s.value: sum(1 for b in reserves if g.state.blocks[b].side is s) for s in SIDES},
        surprise=bs.surprise,
    )
    g.emit("round", Audience.ALL, f"{loc}, Round 1", loc=loc, round=1)


def _battle(g: GameLike) -> BattleState:
    bs = g.state.battle
    if bs is None:
        raise IllegalChoiceError("no battle is being fought now", "7.1")
    return bs


def combat_of(g: GameLike, bid: str, bs: BattleState) -> tuple[str, int]:
    info = g.info(bid)
    c = info.defend if g.state.blocks[bid].side is bs.defender else info.attack
    return c.letter, c.fire


def _in_battle(g: GameLike, bs: BattleState, side: Side | None = None) -> list[str]:
    """The blocks fighting at the battle (not its reserves), of ``side`` or both, sorted."""
    reserves = bs.reserves
    if side is None:
        return sorted(b for b in g.ids_at(bs.loc) if b not in reserves)
    blocks = g.state.blocks
    return sorted(b for b in g.ids_at(bs.loc) if b not in reserves and blocks[b].side is side)


def _any_in_battle(g: GameLike, bs: BattleState, side: Side) -> bool:
    """Whether ``_in_battle(g, bs, side)`` has any block (without listing them)."""
    reserves, blocks = bs.reserves, g.state.blocks
    return any(blocks[b].side is side and b not in reserves for b in g.ids_at(bs.loc))


def next_slot(g: GameLike) -> tuple[Side, list[str]] | None:
    """Whose turn it is and which of his blocks may take it (same letter: owner's choice)."""
    bs = g.state.battle
    assert bs is not None
    blocks, infos = g.state.blocks, g.board.blocks
    reserves, acted, defender = bs.reserves, bs.acted, bs.defender
    surprise = bs.surprise and bs.round == 1
    best: tuple[int, int] | None = None
    found: list[str] = []
    # the blocks in any order: every block of the best key is kept, and they are sorted at the end
    for b in g.ids_at(bs.loc):
        if b in reserves or b in acted:
            continue
        info = infos[b]
        if blocks[b].side is defender:  # combat_of's letter, and the role
            letter, role = info.defend.letter, 0
        else:
            letter, role = info.attack.letter, 1
        key = (1 - role, ord(letter)) if surprise else (ord(letter), role)
        if best is None or key < best:
            best, found = key, [b]
        elif key == best:
            found.append(b)
    if not found:
        return None
    found.sort()
    return blocks[found[0]].side, found  # one key, one role: every block found is of one side


def hit_candidates(g: GameLike) -> list[str]:
    bs = g.state.battle
    assert bs is not None and bs.firing is not None
    firing_side = g.state.blocks[bs.firing].side
    targets = _in_battle(g, bs, firing_side.enemy)
    if not targets:
        return []
    top = max(g.state.blocks[b].strength for b in targets)
    return [b for b in targets if g.state.blocks[b].strength == top]


def pending(g: GameLike) -> tuple[Decision, ...]:
    st = g.state
    bs = st.battle
    if bs is None:
        rem = remaining(g)
        if rem and st.player1:
            return (Decision(st.player1, DecisionKind.BATTLE_ORDER, info=(("battles", tuple(rem)),)),)
        return ()
    if bs.stage is BattleStage.TURNS:
        slot = next_slot(g)
        if slot is None:
            return ()
        side, blocks = slot
        return (Decision(side, DecisionKind.BATTLE_TURN, bs.loc, info=(("round", bs.round), ("blocks", tuple(blocks)))),)
    if bs.stage is BattleStage.HITS:
        cands = hit_candidates(g)
        if not cands:
            return ()
        side = g.state.blocks[cands[0]].side
        return (
            Decision(side, DecisionKind.HIT, bs.loc, info=(("blocks", tuple(cands)), ("hits", bs.hits_left), ("firing", bs.firing))),
        )
    if bs.victor is None:
        return ()
    return (Decision(bs.victor, DecisionKind.REGROUP, bs.loc),)


def auto(g: GameLike) -> bool:
    st = g.state
    bs = st.battle
    if bs is None:
        rem = remaining(g)
        if not rem:
            end_turn(g)
            return True
        if len(rem) == 1:
            start_battle(g, rem[0])
            return True
        return False
    if bs.stage is BattleStage.HITS:
        cands = hit_candidates(g)
        if bs.hits_left <= 0 or not cands:
            bs.hits_left = 0
            bs.firing = None
            bs.stage = BattleStage.TURNS
            return True
        if len(cands) == 1:
            _apply_hit(g, cands[0])
            return True
        return False
    if bs.stage is BattleStage.TURNS:
        winner = _sole_side(g)
        if winner is not None:
            _finish(g, winner)
            return True
        slot = next_slot(g)
        if slot is None:
            _end_round(g)
            return True
        side, blocks = slot
        if bs.round == LAST_ROUND and side is bs.attacker:
            for b in blocks:
                if not retreat_options(g, b):
                    bs.acted.add(b)
                    g.emit("no-retreat", Audience.ALL, f"{g.describe(b)} must retreat and cannot (B4)", block=b, loc=bs.loc)
                    g.eliminate(b, "no retreat in Round 4")
                    return True
            return False
        if not _any_in_battle(g, bs, side.enemy) and (bs.round == 1 or not any(retreat_options(g, b) for b in blocks)):
            for b in blocks:
                bs.acted.add(b)
            g.emit("pass", Audience.ALL, f"{side}: no target for {len(blocks)} block(s); they pass", loc=bs.loc)
            return True
        return False
    # regroup
    if bs.victor is None or next(_regroups(g, bs.victor), None) is None:  # no regroup to ask for
        g.state.battle = None
        return True
    return False


def _sole_side(g: GameLike) -> Side | None:
    bs = g.state.battle
    assert bs is not None
    return sole_side(g.count(bs.loc, Side.CAESAR), g.count(bs.loc, Side.POMPEY), bs.defender)


def sole_side(caesar: int, pompey: int, defender: Side) -> Side | None:
    """Who holds the battle's place alone, given each side's blocks there (None: both are there; the
    defender when nobody is left)."""
    if caesar and pompey:
        return None
    if caesar:
        return Side.CAESAR
    if pompey:
        return Side.POMPEY
    return defender


def _end_round(g: GameLike) -> None:
    bs = g.state.battle
    assert bs is not None
    if bs.round >= LAST_ROUND:
        for b in g.blocks_at(bs.loc, bs.attacker):
            g.eliminate(b, "still in battle after Round 4")
        _finish(g, bs.defender)
        return
    bs.round += 1
    bs.acted.clear()
    bs.retreat_use.clear()
    bs.sea_retreats.clear()
    g.emit("round", Audience.ALL, f"{bs.loc}, Round {bs.round}", loc=bs.loc, round=bs.round)
    if bs.round == 2 and bs.reserves:
        _reserves_arrive(g)


def _reserves_arrive(g: GameLike) -> None:
    """Disruption (7.31, B3), then the reserves join the battle (7.3)."""
    bs = g.state.battle
    assert bs is not None
    disrupted: list[Side] = []
    for side in (bs.defender, bs.attacker):
        res = sorted(b for b in bs.reserves if g.state.blocks[b].side is side and g.state.blocks[b].loc == bs.loc)
        if res and not _in_battle(g, bs, side):
            disrupted.append(side)
    arriving = sorted(b for b in bs.reserves if g.state.blocks[b].loc == bs.loc)
    bs.reserves.clear()
    g.emit(
        "reserves",
        Audience.ALL,
        f"Reserves arrive at {bs.loc}: " + ", ".join(f"{g.state.blocks[b].side} {g.describe(b)}" for b in arriving),
        loc=bs.loc,
        revealed=[
            {"block": b, "side": g.state.blocks[b].side.value, "name": g.label(b), "strength": g.state.blocks[b].strength}
            for b in arriving
        ],
    )
    for side in disrupted:
        g.emit("disrupted", Audience.ALL, f"{side}'s reserves at {bs.loc} are disrupted: each loses a step (7.31)", loc=bs.loc, side=side.value)
        for b in arriving:
            if g.state.blocks[b].side is side and g.state.blocks[b].loc == bs.loc:
                g.reduce(b, side.enemy, "disruption")
        if side is bs.defender and not bs.swapped:
            bs.attacker, bs.defender = bs.defender, bs.attacker
            bs.swapped = True
            g.emit("swap", Audience.ALL, f"{bs.attacker} is now the attacker at {bs.loc} and {bs.defender} the defender (7.31)", loc=bs.loc)


def _finish(g: GameLike, victor: Side) -> None:
    st = g.state
    bs = st.battle
    assert bs is not None
    st.contests.pop(bs.loc, None)
    st.fought.append(bs.loc)
    bs.victor = victor
    bs.stage = BattleStage.REGROUP
    bs.reserves.clear()
    bs.acted.clear()
    g.emit("battle-end", Audience.ALL, f"Battle of {bs.loc}: {victor} wins", loc=bs.loc, victor=victor.value)


# ---- retreats and regroups -----------------------------------------------------


def navis_origins(g: GameLike, loc: str, side: Side) -> set[str]:
    """The seas and ports from which ``side``'s Navis came into the fight at ``loc`` (B7)."""
    return _navis_origins(g.board, g.state.contests.get(loc), side)


def _navis_origins(board: Board, contest: Contest | None, side: Side) -> set[str]:
    if contest is None:
        return set()
    return {e.frm for e in contest.entries if e.side is side and board.blocks[e.block].is_navis}


def retreat_places(g: GameLike, loc: str, side: Side, *, attacking: bool, navis: bool) -> list[tuple[str, bool, EdgeKind | None]]:
    """Where a block of ``side`` may retreat from the fight at ``loc`` (7.6-7.64, 7.82, B4, B7),
    before the limits of a round (road limits, one Sea Retreat): ``(place, by_sea, road kind)``.
    Used by the battle itself and, before a battle starts, by the plan hints and plan warnings."""
    return places_from(g.board, g.state.contests.get(loc), g.control, loc, side, attacking=attacking, navis=navis)


def places_from(
    board: Board, contest: Contest | None, control: ControlOf, loc: str, side: Side, *, attacking: bool, navis: bool
) -> list[tuple[str, bool, EdgeKind | None]]:
    """:func:`retreat_places` from its inputs: the contest at ``loc`` and who controls each place
    (``control(place, side)``, as :meth:`Game.control` answers), so that a simulation holding only
    the fight and its surroundings (the battle odds) retreats by the same rules."""
    own_origins = set(contest.origins(side)) if contest else set()
    enemy_origins = set(contest.origins(side.enemy)) if contest else set()
    out: list[tuple[str, bool, EdgeKind | None]] = []

    def ctl(x: str) -> Control:
        return control(x, side)

    if navis:
        # B7 (7.82): an attacking Navis may go back to any sea or port from which its side's
        # attacking Navis came into the battle, read for them together as 7.62 reads "road(s)
        # used to start or reinforce the battle" for land blocks; not only its own origin.
        came = _navis_origins(board, contest, side) if attacking else set()
        dests: set[str] = set()
        seas = board.seas_of(loc)
        ports = board.ports_of(loc) if board.is_sea(loc) else ()
        for s in seas:
            if ctl(s) is Control.FRIENDLY or (ctl(s) is Control.VACANT and (s in came if attacking else s not in enemy_origins)):
                dests.add(s)
        for p in ports:
            if ctl(p) is Control.FRIENDLY or (attacking and p in came and ctl(p) is Control.VACANT):
                dests.add(p)
        return [(d, False, None) for d in sorted(dests)]
    for n, e in board.neighbors_by_road(loc):
        c = ctl(n)
        if c not in (Control.FRIENDLY, Control.VACANT):
            continue
        if attacking:
            if c is Control.VACANT and n not in own_origins:
                continue
        elif n in enemy_origins:
            continue
        out.append((n, False, e.kind))
    if board.spaces[loc].is_port:
        by_sea: set[str] = set()
        for s in board.seas_of(loc):
            if ctl(s) is Control.FRIENDLY:
                by_sea.update(p for p in board.ports_of(s) if p != loc and ctl(p) is Control.FRIENDLY)
        out.extend((p, True, None) for p in sorted(by_sea))
    return out


def retreat_options(g: GameLike, bid: str) -> list[BattleAction]:
    """Every legal retreat of ``bid`` this turn (7.6-7.64, 7.82)."""
    st = g.state
    bs = st.battle
    assert bs is not None
    return retreats_from(g.board, bs, st.contests.get(bs.loc), g.control, bid, st.blocks[bid].side)


def retreats_from(board: Board, bs: BattleState, contest: Contest | None, control: ControlOf, bid: str, side: Side) -> list[BattleAction]:
    """:func:`retreat_options` from its inputs (:func:`places_from`): ``bid`` of ``side`` in the battle ``bs``."""
    if bs.round < 2:
        return []
    out: list[BattleAction] = []
    places = places_from(board, contest, control, bs.loc, side, attacking=side is bs.attacker, navis=board.blocks[bid].is_navis)
    for to, by_sea, kind in places:
        if by_sea:
            # B4 (7.64): at most one Sea Retreat per battle round *for each side*, counted apart
            # (bs.sea_retreats is keyed by side): 7.2's example lets "both players Sea Retreat via
            # their own Friendly sea" in one round, so one side's Sea Retreat never uses up the other's.
            if bs.sea_retreats.get(side.value, 0) >= 1:
                continue
        elif kind is not None:
            limit = RETREAT_STRAIT_LIMIT if kind is EdgeKind.STRAIT else ROAD_LIMIT[kind]
            if bs.retreat_use.get(road_key(side, bs.loc, to), 0) + 1 > limit:
                continue
        out.append(BattleAction(bid, Action.RETREAT, to, by_sea=by_sea))
    return out


def regroup_options(g: GameLike, side: Side) -> list[Regroup]:
    return list(_regroups(g, side))


def _regroups(g: GameLike, side: Side) -> Iterator[Regroup]:
    """:func:`regroup_options` one by one (the battle's end asks only whether there is one)."""
    bs = g.state.battle
    assert bs is not None
    return regroups_from(g.board, bs, g.control, g.blocks_at(bs.loc, side), side)


def regroups_from(board: Board, bs: BattleState, control: ControlOf, blocks: list[str], side: Side) -> Iterator[Regroup]:
    """:func:`_regroups` from its inputs (:func:`places_from`): ``blocks``, ``side``'s blocks at the battle, sorted."""
    loc = bs.loc
    for bid in blocks:
        if bid in bs.regrouped:
            continue
        if board.blocks[bid].is_navis:
            dests = list(board.seas_of(loc)) + (list(board.ports_of(loc)) if board.is_sea(loc) else [])
            for d in sorted(dests):
                if control(d, side) in (Control.FRIENDLY, Control.VACANT):
                    yield Regroup(bid, d)
            continue
        for n, e in board.neighbors_by_road(loc):
            if control(n, side) not in (Control.FRIENDLY, Control.VACANT):
                continue
            if bs.regroup_use.get(road_key(side, loc, n), 0) + 1 > ROAD_LIMIT[e.kind]:
                continue
            yield Regroup(bid, n)


# ---- checks and effects -----------------------------------------------------------


def check_order(g: GameLike, d: Decision, ch: NextBattle) -> None:
    if g.state.battle is not None:
        raise IllegalChoiceError(f"the battle of {g.state.battle.loc} is not over yet", "7.1")
    rem = remaining(g)
    if ch.location not in rem:
        raise IllegalChoiceError(f"there is no battle to fight at {ch.location}", "7.1", "battles left: " + ", ".join(rem))


def do_order(g: GameLike, d: Decision, ch: NextBattle) -> None:
    g.emit("battle-order", Audience.ALL, f"{d.side} chooses to fight at {ch.location} next", loc=ch.location)
    start_battle(g, ch.location)


def turn_options(g: GameLike, bid: str) -> list[BattleAction]:
    bs = g.state.battle
    assert bs is not None
    side = g.state.blocks[bid].side
    out: list[BattleAction] = []
    if not (bs.round == LAST_ROUND and side is bs.attacker):
        if _any_in_battle(g, bs, side.enemy):
            out.append(BattleAction(bid, Action.FIRE))
        out.append(BattleAction(bid, Action.PASS))
    out.extend(retreat_options(g, bid))
    return out


def first_turn_option(g: GameLike, bid: str) -> BattleAction:
    """``turn_options(g, bid)[0]`` without the rest of the list: fire when an enemy block is in the
    battle, else pass; an attacker's first retreat in Round 4 (IndexError when it has none, as the
    list's first item would be)."""
    bs = g.state.battle
    assert bs is not None
    side = g.state.blocks[bid].side
    if not (bs.round == LAST_ROUND and side is bs.attacker):
        return BattleAction(bid, Action.FIRE if _any_in_battle(g, bs, side.enemy) else Action.PASS)
    return retreat_options(g, bid)[0]


def check_turn(g: GameLike, d: Decision, ch: BattleAction) -> None:
    bs = _battle(g)
    blocks = d.get("blocks", ())
    if ch.block not in blocks:
        names = ", ".join(g.label(b) for b in blocks)
        raise IllegalChoiceError(
            f"it is not {g.label(ch.block) if ch.block in g.state.blocks else ch.block}'s battle turn", "7.2", f"the turn belongs to {names}"
        )
    side = g.state.blocks[ch.block].side
    if ch.action is not Action.RETREAT and (ch.to is not None or ch.by_sea):
        raise IllegalChoiceError(f"only a retreat has a destination; to {ch.action.value}, name no place", "7.2")
    if ch.action is Action.FIRE:
        if bs.round == LAST_ROUND and side is bs.attacker:
            raise IllegalChoiceError("attacking blocks must retreat in Round 4 and cannot fire", "7.2, B4")
        return
    if ch.action is Action.PASS:
        if bs.round == LAST_ROUND and side is bs.attacker:
            raise IllegalChoiceError("attacking blocks must retreat in Round 4", "7.2, B4")
        return
    if bs.round < 2:
        raise IllegalChoiceError("no retreats in Round 1", "7.6")
    opts = retreat_options(g, ch.block)
    if ch not in opts:
        where = ", ".join(o.to + (" (by sea)" if o.by_sea else "") for o in opts if o.to)
        raise IllegalChoiceError(
            f"{g.label(ch.block)} cannot retreat to {ch.to}" + (" by sea" if ch.by_sea else ""),
            "7.6-7.64",
            f"it can retreat to {where}" if where else "it has no retreat",
        )


def do_turn(g: GameLike, d: Decision, ch: BattleAction) -> None:
    st = g.state
    bs = _battle(g)
    bid = ch.block
    bs.acted.add(bid)
    side = st.blocks[bid].side
    if ch.action is Action.PASS:
        g.emit("pass", Audience.ALL, f"{side} {g.describe(bid)} passes", loc=bs.loc, block=bid)
        return
    if ch.action is Action.RETREAT:
        assert ch.to is not None
        if ch.by_sea:
            bs.sea_retreats[side.value] = bs.sea_retreats.get(side.value, 0) + 1
        elif not g.info(bid).is_navis:
            k = road_key(side, bs.loc, ch.to)
            bs.retreat_use[k] = bs.retreat_use.get(k, 0) + 1
        g.emit(
            "retreat",
            Audience.ALL,
            f"{side} {g.describe(bid)} retreats {'by sea ' if ch.by_sea else ''}to {ch.to}",
            loc=bs.loc,
            block=bid,
            to=ch.to,
            by_sea=ch.by_sea,
        )
        g.place(bid, ch.to)
        st.moved.add(bid)
        return
    letter, fire = combat_of(g, bid, bs)
    strength = st.blocks[bid].strength
    dice = [st.rng.die("dice") for _ in range(strength)]
    hits = sum(1 for x in dice if x <= fire)
    g.emit(
        "fire",
        Audience.ALL,
        f"{side} {g.describe(bid)} ({letter}{fire}) fires: {' '.join(map(str, dice))} = {hits} hit(s)",
        loc=bs.loc,
        block=bid,
        side=side.value,
        dice=dice,
        hits=hits,
        combat=f"{letter}{fire}",
    )
    bs.hits_left = hits
    bs.firing = bid
    bs.stage = BattleStage.HITS


def _apply_hit(g: GameLike, target: str) -> None:
    bs = g.state.battle
    assert bs is not None and bs.firing is not None
    by = g.state.blocks[bs.firing].side
    owner = g.state.blocks[target].side
    name = g.label(target)
    gone = g.reduce(target, by, f"hit by {g.label(bs.firing)}")
    if not gone:
        g.emit("hit", Audience.ALL, f"{owner} {name} takes a hit: now {ROMAN[g.state.blocks[target].strength]}", loc=bs.loc, block=target, strength=g.state.blocks[target].strength)
    bs.hits_left -= 1
    if _sole_side(g) is not None:
        bs.hits_left = 0


def check_hit(g: GameLike, d: Decision, ch: TakeHit) -> None:
    bs = _battle(g)
    if bs.stage is not BattleStage.HITS:
        raise IllegalChoiceError("no hit to assign now", "7.4")
    cands = hit_candidates(g)
    if ch.block not in cands:
        raise IllegalChoiceError(
            f"{g.label(ch.block) if ch.block in g.state.blocks else ch.block} is not among the strongest blocks",
            "7.4, B2",
            "the hit must go to " + " or ".join(g.describe(b) for b in cands),
        )


def do_hit(g: GameLike, d: Decision, ch: TakeHit) -> None:
    _apply_hit(g, ch.block)


def check_regroup(g: GameLike, d: Decision, ch: Choice) -> None:
    bs = _battle(g)
    if bs.stage is not BattleStage.REGROUP or bs.victor is not d.side:
        raise IllegalChoiceError("no regroup now", "7.7")
    if isinstance(ch, EndRegroup):
        return
    assert isinstance(ch, Regroup)
    opts = regroup_options(g, d.side)
    if ch not in opts:
        mine = sorted({o.to for o in opts if o.block == ch.block})
        raise IllegalChoiceError(
            f"{g.label(ch.block) if ch.block in g.state.blocks else ch.block} cannot regroup to {ch.to}",
            "7.7, 7.83, B6",
            f"it can regroup to {', '.join(mine)}" if mine else "it cannot regroup",
        )


def do_regroup(g: GameLike, d: Decision, ch: Choice) -> None:
    bs = _battle(g)
    if isinstance(ch, EndRegroup):
        g.state.battle = None
        return
    assert isinstance(ch, Regroup)
    side = d.side
    if not g.info(ch.block).is_navis:
        k = road_key(side, bs.loc, ch.to)
        bs.regroup_use[k] = bs.regroup_use.get(k, 0) + 1
    bs.regrouped.add(ch.block)
    g.place(ch.block, ch.to)
    g.emit_split(
        "regroup",
        side,
        f"{g.label(ch.block)} regroups {bs.loc} -> {ch.to}",
        f"{side}: a block regroups {bs.loc} -> {ch.to}",
        {"side": side.value, "block": ch.block, "path": [bs.loc, ch.to]},
        {"side": side.value, "path": [bs.loc, ch.to]},
    )


def legal(g: GameLike, d: Decision) -> Iterator[Choice]:
    bs = g.state.battle
    if d.kind is DecisionKind.BATTLE_ORDER:
        if bs is None:
            for loc in remaining(g):
                yield NextBattle(loc)
        return
    if bs is None:
        return
    if d.kind is DecisionKind.BATTLE_TURN:
        for b in d.get("blocks", ()):
            yield from turn_options(g, b)
    elif d.kind is DecisionKind.HIT:
        for b in hit_candidates(g):
            yield TakeHit(b)
    elif d.kind is DecisionKind.REGROUP:
        yield EndRegroup()
        if bs.victor is d.side:
            yield from regroup_options(g, d.side)


HANDLERS = {
    DecisionKind.BATTLE_ORDER: ((NextBattle,), check_order, do_order),
    DecisionKind.BATTLE_TURN: ((BattleAction,), check_turn, do_turn),
    DecisionKind.HIT: ((TakeHit,), check_hit, do_hit),
    DecisionKind.REGROUP: ((Regroup, EndRegroup), check_regroup, do_regroup),
}
