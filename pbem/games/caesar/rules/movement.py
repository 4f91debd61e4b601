"""Command phase: group moves, Navis moves, amphibious moves, attacks (6.0-6.3, 7.3).

Rules implemented here: 1 MP activates one location (M1); a block moves one or
two cities and stops on entering an Enemy or Contested space (M2); road limits
per player per game turn (6.11, M3); Navis moves (6.2, M7); amphibious moves
first, 1 MP per block, a Navis staying in each sea crossed (6.3, M6); the Main
Attack and reserves (7.3, M4); pinning and Player 2's responses (6.13, 6.14, M5);
the event group moves of Mars, Neptune, Mercury and Pluto (E3-E6).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from pbem.errors import IllegalChoiceError
from pbem.games.caesar.rules import eventcards as gods
from pbem.games.caesar.rules import levy
from pbem.games.caesar.rules.board import Board, EdgeKind, Side, road_limit
from pbem.games.caesar.rules.choices import (
    Audience,
    Choice,
    Decision,
    DecisionKind,
    EndMoves,
    MainAttack,
    Move,
    SeaMove,
)
from pbem.games.caesar.rules.state import CommandStage, CommandState, Contest, Control, Entry, Phase, Transition

if TYPE_CHECKING:
    from pbem.games.caesar.rules.protocol import GameLike

LAND_EVENTS = {"Mars", "Mercury", "Pluto"}
TARGET_EVENTS = {"Jupiter", "Vulcan"}


_HOSTILE = frozenset({Control.ENEMY, Control.CONTESTED})
# Enum members read on every decision, as module names (an Enum class's attribute is slow to read)
_EVENT, _MOVES, _SURPRISE, _LEVIES = CommandStage.EVENT, CommandStage.MOVES, CommandStage.SURPRISE, CommandStage.LEVIES
_ALL = Audience.ALL
_COMMAND = Phase.COMMAND
_FRIENDLY = Control.FRIENDLY
_OPEN = frozenset({Control.FRIENDLY, Control.VACANT})


#: the road limits of :func:`road_limit` by Pluto, then kind: (an edge that is not the last of an attack, one that is)
_LIMITS = {pluto: {k: (road_limit(k, attacking=False, pluto=pluto), road_limit(k, attacking=True, pluto=pluto))
                   for k in (EdgeKind.MAJOR, EdgeKind.MINOR, EdgeKind.STRAIT)} for pluto in (False, True)}


def road_key(side: Side, a: str, b: str) -> str:
    return f"{side._value_}|{a}|{b}" if a < b else f"{side._value_}|{b}|{a}"


# ---- phase flow --------------------------------------------------------------


def start_command(g: GameLike, side: Side) -> None:
    st = g.state
    card = st.effective[side]
    info = g.board.card(card)
    if info.event:
        stage = _EVENT if card in TARGET_EVENTS else _MOVES
        mp = 0 if card in TARGET_EVENTS else 1
        st.command = CommandState(side, card, card, stage, mp, 0)
        what = f"the {card} event"
    else:
        st.command = CommandState(side, card, None, _MOVES, info.moves, info.levies)
        what = f"{info.moves} Moves, {info.levies} Levies"
    st.phase = _COMMAND
    role = "Player 1" if side is st.player1 else "Player 2"
    g.emit("command", _ALL, f"{side} ({role}) commands: {what}", side=side._value_, card=card)


def finish_command(g: GameLike) -> None:
    st = g.state
    cmd = st.command
    assert cmd is not None
    st.command = None
    g.emit("command-end", _ALL, f"{cmd.side} has finished its command", side=cmd.side._value_)
    if cmd.side is st.player1:
        start_command(g, cmd.side.enemy)
    else:
        g.enter(Transition.START_BATTLES)


def pending(g: GameLike) -> tuple[Decision, ...]:
    c = g.state.command
    if c is None:
        return ()
    return _command_decision(c.side, c.stage, c.card, c.mp, c.lp, c.event)


@lru_cache(maxsize=1024)
def _command_decision(side: Side, stage: CommandStage, card: str, mp: int, lp: int, event: str | None) -> tuple[Decision]:
    """The command phase's one decision, a pure function of its facts (kept per facts: a Decision
    is immutable, and the phase asks for it before every move and levy)."""
    info = (("card", card), ("mp", mp), ("lp", lp), ("event", event))
    return (Decision(side, _STAGE_KIND[stage], info=info),)


_STAGE_KIND = {
    CommandStage.EVENT: DecisionKind.EVENT_TARGET,
    CommandStage.MOVES: DecisionKind.MOVES,
    CommandStage.SURPRISE: DecisionKind.SURPRISE,
    CommandStage.LEVIES: DecisionKind.LEVIES,
}


def auto(g: GameLike) -> bool:
    """Steps of the command phase that need no decision; True when something changed."""
    c = g.state.command
    if c is None:
        return False
    stage = c.stage
    if stage is _MOVES:
        return False
    if stage is _EVENT and not gods.has_target(g, c.side, c.event or ""):
        g.emit("event-void", Audience.ALL, f"{c.event} has no legal target: no effect (E1, E2)", event=c.event)
        finish_command(g)
        return True
    if stage is _SURPRISE and not gods.surprise_candidates(g, c.side):
        g.emit("event-void", Audience.ALL, f"{c.event}: no battle to make a surprise battle (E3, E4)", event=c.event)
        finish_command(g)
        return True
    if stage is _LEVIES and (c.lp == 0 or not levy.any_levy(g, c.side)):
        finish_command(g)
        return True
    return False


# ---- legality -----------------------------------------------------------------


def _cmd(g: GameLike, side: Side) -> CommandState:
    c = g.state.command
    if c is None or c.side is not side or c.stage is not CommandStage.MOVES:
        raise IllegalChoiceError(f"{side} is not moving now", "6.0")
    return c


def _own_unmoved(g: GameLike, side: Side, bid: str) -> str:
    """The block's location; raises unless ``side`` may move it at all."""
    b = g.state.blocks.get(bid)
    if b is None or b.side is not side or b.loc is None:
        raise IllegalChoiceError(g.not_yours(bid, side), "6.1")
    if bid in g.state.moved:
        raise IllegalChoiceError(f"{g.label(bid)} has already moved this turn", "6.1, M1")
    return b.loc


def _activation_problem(g: GameLike, c: CommandState, origin: str) -> str | None:
    if origin in c.activated:
        return None
    if c.event:
        if c.activated:
            return f"{c.event} allows one group move and it was made from {c.activated[0]} (E3-E6)"
        if c.mp < 1:
            return f"{c.event} allows one group move (E3-E6)"
        return None
    if c.mp < 1:
        return f"no Move Points left to activate {origin}: all {len(c.activated)} were used ({', '.join(c.activated)}) (6.1)"
    return None


def _pin_problem(g: GameLike, side: Side, origin: str, first: str) -> str | None:
    """Pinning (6.13, M5): defenders in a location the enemy attacked this turn."""
    contest = g.state.contests.get(origin)
    if contest is None or contest.attacker is side:
        return None
    if first in contest.origins(contest.attacker):
        return (
            f"{origin} was attacked from {first}: blocks leaving {origin} may not use that road or sea border (6.13)"
        )
    pinned, free = _pin_counts(g, side, origin, contest)
    if free - 1 < pinned:
        return (
            f"{pinned} attacking block(s) in {origin} pin as many of your blocks there; "
            f"you have {free} and only {max(0, free - pinned)} may leave (6.13)"
        )
    return None


def _pin_counts(g: GameLike, side: Side, origin: str, contest: Contest) -> tuple[int, int]:
    """In ``origin``, attacked by the enemy (``contest``): how many attacking blocks pin, and how
    many of ``side``'s blocks there are free to leave (6.13, M5)."""
    attacker = contest.attacker
    entered = {e.block for e in contest.entries}
    pinned = sum(1 for b in g.blocks_at(origin, attacker) if not contest.is_reserve(b))
    free = [b for b in g.blocks_at(origin, side) if b not in entered and b not in g.state.moved]
    return pinned, len(free)


def path_problem(
    g: GameLike, side: Side, bid: str, path: tuple[str, ...], *, well_formed: bool = False
) -> str | None:
    """Why ``bid`` cannot move along ``path`` now (None when it can). Uses only what ``side`` sees.

    ``well_formed``: the caller built the path from the map (known names, no repeats, two or
    more places), so those checks are skipped; :func:`block_paths` enumerates that way.
    """
    c = g.state.command
    assert c is not None
    board = g.board
    if not well_formed:
        if len(path) < 2:
            return "a move needs an origin and at least one destination"
        for loc in path:
            if loc not in board.spaces:
                return f"unknown location {loc!r}"
        if len(set(path)) != len(path):
            return "a path may not visit the same location twice"
    origin = path[0]
    info = g.info(bid)
    prob = _activation_problem(g, c, origin)
    if prob:
        return prob
    if c.event in LAND_EVENTS and info.is_navis:
        return f"{c.event} moves land blocks only, not Navis (E3, E5, E6)"
    if c.event == "Neptune" and not info.is_navis:
        return "Neptune moves Navis only (E4)"
    steps = len(path) - 1
    dest = path[-1]
    dest_ctl = g.control(dest, side)
    attacking = dest_ctl in _HOSTILE
    if info.is_navis:
        for a, b in zip(path, path[1:]):
            e = board.edge_between(a, b)
            if e is None or e.kind is not EdgeKind.SEA:
                return f"a Navis moves along sea borders only: {a} and {b} are not joined by one (6.2)"
        if steps > 2:
            return "a Navis moves at most two seas or ports (6.2)"
        if attacking and steps > 1:
            return f"{dest} is {dest_ctl.value}: a Navis that attacks moves only one sea or port (6.2, M7)"
        if origin in c.anchors and _navis_left(g, side, origin) <= 1:
            return f"a Navis must stay in {origin} until the end of the command phase: an amphibious move crossed it (6.3)"
    else:
        max_steps = 3 if c.event == "Mercury" else 2
        for a, b in zip(path, path[1:]):
            e = board.edge_between(a, b)
            if e is None or e.kind is EdgeKind.SEA:
                near = ", ".join(n for n, _ in board.neighbors_by_road(a)) or "no city (an island: move by sea)"
                return f"no road from {a} to {b}; from {a} you can reach {near} (4.3)"
        if steps > max_steps:
            return f"a block moves at most {max_steps} cities" + (" with Mercury (E5)" if c.event == "Mercury" else " (6.1)")
        if attacking and steps > max_steps - 1:
            return (
                f"{dest} is {dest_ctl.value}: a block that moves {steps} cities cannot attack or reinforce"
                + (" (E5)" if c.event == "Mercury" else " (M2)")
            )
    for mid in path[1:-1]:
        ctl = g.control(mid, side)
        if ctl in _HOSTILE:
            return f"{mid} is {ctl.value}: a block entering it must stop there (2.2, M2)"
    if not info.is_navis:
        pluto = c.event == "Pluto"
        for i, (a, b) in enumerate(zip(path, path[1:])):
            e = board.edge_between(a, b)
            assert e is not None
            last = i == steps - 1
            limit = g.road_limit(e.kind, attacking=attacking and last, pluto=pluto)
            used = g.state.road_use.get(road_key(side, a, b), 0)
            if used + 1 > limit:
                what = {"major": "major road", "minor": "minor road", "strait": "strait"}[e.kind.value]
                return (
                    f"the {what} {a}-{b} has carried {used} of your blocks this turn; its limit is {limit}"
                    + (" when attacking" if attacking and last and e.kind is EdgeKind.STRAIT else "")
                    + (" with Pluto (E6)" if pluto and attacking and last else " (6.11, M3)")
                )
    return _pin_problem(g, side, origin, path[1])


def _navis_left(g: GameLike, side: Side, sea: str) -> int:
    return sum(1 for b in g.blocks_at(sea, side) if g.info(b).is_navis)


def check_move(g: GameLike, d: Decision, mv: Move) -> None:
    side = d.side
    _cmd(g, side)
    loc = _own_unmoved(g, side, mv.block)
    if not mv.path or mv.path[0] != loc:
        raise IllegalChoiceError(f"{g.label(mv.block)} is in {loc}, not {mv.path[0] if mv.path else '?'}", "6.1")
    prob = path_problem(g, side, mv.block, mv.path)
    if prob:
        raise IllegalChoiceError(prob, legal=_reach_hint(g, side, mv.block, block_paths(g, side, mv.block)))


def _reach_hint(g: GameLike, side: Side, bid: str, paths: list[tuple[str, ...]]) -> str:
    """What would be legal for ``bid`` instead: where its legal paths end (computed in the side's view)."""
    ends = sorted({p[-1] for p in paths})
    if not ends:
        return f"{g.label(bid)} cannot move now"
    return f"{g.label(bid)} can reach {', '.join(ends)}"


def sea_move_problem(g: GameLike, side: Side, bid: str, path: tuple[str, ...]) -> str | None:
    c = g.state.command
    assert c is not None
    board = g.board
    info = g.info(bid)
    if c.event:
        return f"{c.event} allows one group move; amphibious moves need a command card (6.3)"
    if info.is_navis:
        return "Navis move by sea on their own; amphibious moves are for land blocks (6.3)"
    if not c.amphibious_open:
        return "amphibious moves must be made before any other move of the turn (6.3, M6)"
    if c.mp < 1:
        return "no Move Points left: an amphibious move costs 1 MP per block (6.3)"
    if len(path) < 3:
        return "an amphibious move goes port, sea(s), port (6.3)"
    for loc in path:
        if loc not in board.spaces:
            return f"unknown location {loc!r}"
    origin, dest, seas = path[0], path[-1], path[1:-1]
    if not board.spaces[origin].is_port:
        return f"{origin} is not a port (6.3)"
    if not board.spaces[dest].is_port:
        return f"{dest} is not a port (6.3)"
    if dest == origin or len(set(path)) != len(path):
        return "an amphibious move may not visit the same location twice"
    for s in seas:
        if not board.is_sea(s):
            return f"{s} is not a sea: an amphibious move crosses seas only (6.3)"
        ctl = g.control(s, side)
        if ctl is not Control.FRIENDLY:
            return f"{s} is {ctl.value}: amphibious moves cross Friendly seas only (6.3)"
    for a, b in zip(path, path[1:]):
        e = board.edge_between(a, b)
        if e is None or e.kind is not EdgeKind.SEA:
            return f"{a} and {b} are not adjacent by sea (6.3)"
    ctl = g.control(dest, side)
    if ctl in _HOSTILE:
        return f"{dest} is {ctl.value}: amphibious moves never go to Enemy or Contested ports (6.3)"
    return _pin_problem(g, side, origin, path[1])


def check_sea_move(g: GameLike, d: Decision, mv: SeaMove) -> None:
    side = d.side
    _cmd(g, side)
    loc = _own_unmoved(g, side, mv.block)
    if not mv.path or mv.path[0] != loc:
        raise IllegalChoiceError(f"{g.label(mv.block)} is in {loc}, not {mv.path[0] if mv.path else '?'}", "6.3")
    prob = sea_move_problem(g, side, mv.block, mv.path)
    if prob:
        raise IllegalChoiceError(prob, legal=_reach_hint(g, side, mv.block, sea_paths(g, side, mv.block)).replace(
            "can reach", "can reach by sea").replace("cannot move now", "has no amphibious move now"))


def check_main(g: GameLike, d: Decision, ch: MainAttack) -> None:
    side = d.side
    _cmd(g, side)
    contest = g.state.contests.get(ch.location)
    if contest is None or contest.attacker is not side:
        attacked = sorted(loc for loc, c in g.state.contests.items() if c.attacker is side)
        raise IllegalChoiceError(
            f"you have not attacked {ch.location} this turn",
            "7.3",
            f"you attacked {', '.join(attacked)}" if attacked else "you have attacked nothing yet",
        )
    if ch.origin not in contest.origins(side):
        raise IllegalChoiceError(
            f"none of your blocks entered {ch.location} from {ch.origin}",
            "7.3",
            f"they came from {', '.join(contest.origins(side))}",
        )


def check_end(g: GameLike, d: Decision, ch: EndMoves) -> None:
    _cmd(g, d.side)


# ---- effects -------------------------------------------------------------------


def _enter(g: GameLike, side: Side, bid: str, frm: str, dest: str) -> bool:
    """Place ``bid`` in ``dest``; record an attack or a response when it was held by the enemy.
    True when this move starts an attack (the caller says so after the move itself)."""
    st = g.state
    before = g.control(dest, side)
    g.place(bid, dest)
    st.moved.add(bid)
    started = False
    if before in _HOSTILE:
        contest = st.contests.get(dest)
        if contest is None:
            contest = Contest(attacker=side)
            st.contests[dest] = contest
            started = True
        contest.entries.append(Entry(side, frm, bid))
    return started


def do_move(g: GameLike, d: Decision, mv: Move) -> None:
    st = g.state
    c = st.command
    assert c is not None
    side, bid, path = d.side, mv.block, mv.path
    origin = path[0]
    if origin not in c.activated:
        c.activated.append(origin)
        c.mp -= 1
    c.amphibious_open = False
    if not g.info(bid).is_navis:
        road_use = st.road_use
        for a, b in zip(path, path[1:]):
            k = road_key(side, a, b)
            road_use[k] = road_use.get(k, 0) + 1
    started = _enter(g, side, bid, path[-2], path[-1])
    at_sea = not g.board._seas.isdisjoint(path)  # some place of the path is a sea
    route = " -> ".join(path)
    sv = side._value_
    g.emit_split(
        "move",
        side,
        f"{g.label(bid)}: {route}",
        f"{sv}: a {'Navis' if at_sea else 'block'} moves {route}",
        {"side": sv, "block": bid, "path": list(path)},
        {"side": sv, "path": list(path), "navis": at_sea},
    )
    if started:  # after the move that causes it, once
        g.emit("attack", _ALL, f"{sv} attacks {path[-1]}", side=sv, loc=path[-1])


def do_sea_move(g: GameLike, d: Decision, mv: SeaMove) -> None:
    st = g.state
    c = st.command
    assert c is not None
    side, bid, path = d.side, mv.block, mv.path
    c.mp -= 1
    for s in path[1:-1]:
        if s not in c.anchors:
            c.anchors.append(s)
    g.place(bid, path[-1])
    st.moved.add(bid)
    g.emit_split(
        "sea-move",
        side,
        f"{g.label(bid)} by sea: {' -> '.join(path)}",
        f"{side}: a block moves by sea {path[0]} -> {path[-1]}",
        {"side": side.value, "block": bid, "path": list(path)},
        {"side": side.value, "path": [path[0], path[-1]]},
    )


def do_main(g: GameLike, d: Decision, ch: MainAttack) -> None:
    contest = g.state.contests[ch.location]
    contest.main[d.side] = ch.origin
    g.emit(
        "main-attack",
        Audience.ALL,
        f"{d.side}'s main attack on {ch.location} comes from {ch.origin}",
        side=d.side.value,
        loc=ch.location,
        origin=ch.origin,
    )


def do_end(g: GameLike, d: Decision, ch: EndMoves) -> None:
    c = g.state.command
    assert c is not None
    for loc, contest in sorted(g.state.contests.items()):
        if contest.attacker is d.side:
            origins = contest.origins(d.side)
            main = contest.main_origin(d.side)
            n_main = sum(1 for e in contest.entries if e.side is d.side and e.frm == main)
            g.emit(
                "attack-summary",
                Audience.ALL,
                f"Forces of {d.side}'s attack on {loc}: {n_main} block(s) from {main} (main attack)"
                + "".join(
                    f", {sum(1 for e in contest.entries if e.side is d.side and e.frm == o)} from {o} (reserves)"
                    for o in origins
                    if o != main
                ),
                loc=loc,
                side=d.side.value,
                main=main,
                pinned=n_main,
            )
    if c.event in ("Mars", "Neptune"):
        c.stage = CommandStage.SURPRISE
    elif c.event:
        finish_command(g)
    else:
        c.stage = CommandStage.LEVIES


# ---- legal choices -------------------------------------------------------------


#: per board (by id, the board kept alive with it), side, Navis or not and Pluto or not: for each
#: place, its neighbours sorted by name, as (neighbour, the road-use key of :func:`road_key`, how many
#: of the side's blocks the edge may have carried before when it is not the last edge of an attack,
#: and when it is: the limits of :func:`road_limit` less one); and whether every place's neighbours
#: are distinct (they are on the game's map: :func:`block_paths` then needs no sort). A Navis's sea
#: border carries any number (6.2).
_Steps = dict[str, tuple[tuple[str, str, int, int], ...]]
_STEPS: dict[tuple[int, Side, bool, bool], tuple[Board, _Steps, bool]] = {}
_ANY = 1 << 30  # a limit no count reaches


def _steps_from(board: Board, side: Side, navis: bool, pluto: bool) -> tuple[_Steps, bool]:
    key = (id(board), side, navis, pluto)
    hit = _STEPS.get(key)
    if hit is None or hit[0] is not board:
        adjacent = board.sea_edges if navis else board.roads
        limits = _LIMITS[pluto]
        table = {}
        distinct = True
        for here, edges in adjacent.items():
            row = []
            for e in edges:
                n = e.b if here == e.a else e.a
                plain, attack = (_ANY, _ANY) if navis else limits[e.kind]
                row.append((n, road_key(side, here, n), plain - 1, attack - 1))
            row.sort(key=lambda r: r[0])  # stable: edges to the same neighbour keep their order
            table[here] = tuple(row)
            distinct = distinct and len({r[0] for r in row}) == len(row) and here not in {r[0] for r in row}
        hit = _STEPS[key] = (board, table, distinct)
    return hit[1], hit[2]


def block_paths(g: GameLike, side: Side, bid: str) -> list[tuple[str, ...]]:
    """Every legal path for ``bid`` now (empty when it cannot move), sorted."""
    c = g.state.command
    b = g.state.blocks.get(bid)
    if c is None or b is None or b.loc is None or b.side is not side or bid in g.state.moved:
        return []
    info = g.info(bid)
    origin = b.loc
    if _activation_problem(g, c, origin):
        return []
    # What :func:`path_problem` checks that does not depend on the path: when it fails, no path is legal.
    if (c.event in LAND_EVENTS and info.is_navis) or (c.event == "Neptune" and not info.is_navis):
        return []
    if info.is_navis and origin in c.anchors and _navis_left(g, side, origin) <= 1:
        return []
    navis = info.is_navis
    max_steps = 2 if navis else (3 if c.event == "Mercury" else 2)
    attack_steps = 1 if navis else max_steps - 1  # the longest path that may end in an attack
    out: list[tuple[str, ...]] = []
    rows, distinct = _steps_from(g.board, side, navis, c.event == "Pluto")
    road_use = g.state.road_use
    hostile = g.held_by(side.enemy)  # a place is Enemy or Contested for ``side`` when the enemy has a block there

    # Each path is checked as it grows: a path is extended only while every edge of it passes as
    # an edge that is not the last of an attack (the checks of a longer path through it), and only
    # through open places. The result is the paths for which ``path_problem(..., well_formed=True)``
    # is None. An edge passes when the blocks it has carried are within its limit less one (a
    # Navis's always do: its limits are _ANY). Pinning depends on the first step only: a first step
    # it forbids is not walked at all. The paths are made in sorted order (each before its
    # extensions, neighbours by name), so that, on a map without repeated neighbours, they need
    # no sort. ``max_steps`` is 2 or 3: one loop per step.
    contest = g.state.contests.get(origin)
    barred: Collection[str] = ()  # the first steps _pin_problem forbids (none unless the enemy attacked origin)
    if contest is not None and contest.attacker is not side:
        pinned, free = _pin_counts(g, side, origin, contest)
        if free - 1 < pinned:  # too few free blocks: no block may leave by any step
            return []
        barred = contest.origins(contest.attacker)  # nor by a road or border the attack came by
    for n1, rk, plain_limit, attack_limit in rows[origin]:
        if n1 in barred:
            continue
        used = road_use.get(rk, 0)
        if n1 in hostile:
            if used <= attack_limit and attack_steps >= 1:
                out.append((origin, n1))
            continue
        if used > plain_limit:
            continue
        out.append((origin, n1))
        for n2, rk, plain_limit, attack_limit in rows[n1]:
            if n2 == origin:
                continue
            used = road_use.get(rk, 0)
            if n2 in hostile:
                if used <= attack_limit and attack_steps >= 2:
                    out.append((origin, n1, n2))
                continue
            if used > plain_limit:
                continue
            out.append((origin, n1, n2))
            if max_steps < 3:
                continue
            for n3, rk, plain_limit, attack_limit in rows[n2]:
                if n3 in (origin, n1):
                    continue
                used = road_use.get(rk, 0)
                if n3 in hostile:
                    if used <= attack_limit and attack_steps >= 3:
                        out.append((origin, n1, n2, n3))
                elif used <= plain_limit:
                    out.append((origin, n1, n2, n3))
    if not distinct:
        out.sort()
    return out


def sea_moves_open(c: CommandState) -> bool:
    """Whether the command may still make amphibious moves (6.3, M6): a command card's, before any
    other move, with an MP left. When not, :func:`sea_paths` is empty for every block."""
    return not c.event and c.amphibious_open and c.mp >= 1


def sea_paths(g: GameLike, side: Side, bid: str) -> list[tuple[str, ...]]:
    """Every legal amphibious path for ``bid`` now."""
    c = g.state.command
    b = g.state.blocks.get(bid)
    if c is None or b is None or b.loc is None or b.side is not side or bid in g.state.moved:
        return []
    if not sea_moves_open(c) or g.info(bid).is_navis:
        return []
    board = g.board
    origin = b.loc
    if not board.spaces[origin].is_port:
        return []
    out: list[tuple[str, ...]] = []
    stack: list[tuple[str, ...]] = [(origin, s) for s in board.seas_of(origin) if g.control(s, side) is _FRIENDLY]
    while stack:
        p = stack.pop()
        sea = p[-1]
        for port in board.ports_of(sea):
            q = p + (port,)
            if port != origin and sea_move_problem(g, side, bid, q) is None:
                out.append(q)
        for s in board.seas_of(sea):
            if s not in p and g.control(s, side) is _FRIENDLY:
                stack.append(p + (s,))
    return sorted(out)


def movable_blocks(g: GameLike, side: Side) -> list[str]:
    c = g.state.command
    if c is None:
        return []
    moved, blocks = g.state.moved, g.state.blocks
    # _activation_problem(g, c, loc) is None for every location, or only for the activated ones
    if c.mp >= 1 and not (c.event and c.activated):
        return [bid for bid in g.on_map_sorted(side) if bid not in moved]
    # only the blocks in the activated locations (one to four places): read from the location index
    out = [bid for loc in c.activated for bid in g.ids_at(loc) if blocks[bid].side is side and bid not in moved]
    out.sort()
    return out


def legal(g: GameLike, d: Decision) -> Iterator[Choice]:
    side = d.side
    c = g.state.command
    if c is None or c.side is not side:
        return
    yield EndMoves()
    for loc, contest in sorted(g.state.contests.items()):
        if contest.attacker is side:
            for o in contest.origins(side):
                yield MainAttack(loc, o)
    for bid in movable_blocks(g, side):
        for p in sea_paths(g, side, bid):
            yield SeaMove(bid, p)
        for p in block_paths(g, side, bid):
            yield Move(bid, p)


_CHECK: dict[type, Callable[[GameLike, Decision, Any], None]] = {
    Move: check_move,
    SeaMove: check_sea_move,
    MainAttack: check_main,
    EndMoves: check_end,
}
_DO: dict[type, Callable[[GameLike, Decision, Any], None]] = {
    Move: do_move,
    SeaMove: do_sea_move,
    MainAttack: do_main,
    EndMoves: do_end,
}


def _check(g: GameLike, d: Decision, ch: Choice) -> None:
    _CHECK[type(ch)](g, d, ch)


def _do(g: GameLike, d: Decision, ch: Choice) -> None:
    _DO[type(ch)](g, d, ch)


HANDLERS = {DecisionKind.MOVES: ((Move, SeaMove, MainAttack, EndMoves), _check, _do)}
