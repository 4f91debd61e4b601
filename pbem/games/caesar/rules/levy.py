"""Levies (6.4, 5.2, 7.51, M8).

Each Levy Point adds one step to a block in a Friendly city (Navis only in
port), or brings a new block from the levy pool at its lowest strength: leaders,
Auxilia and the Ballista in any Friendly city, legions, Equitatus and the
Elephant in their named city, Navis in a Friendly major port. Blocks
eliminated this Year wait for the next; the third leader needs a dead leader.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from pbem.errors import IllegalChoiceError
from pbem.games.caesar.rules.board import BlockType, Board, Side
from pbem.games.caesar.rules.choices import Choice, Decision, DecisionKind, EndLevies, Levy, LevyStep
from pbem.games.caesar.rules.state import BlockStatus, CommandStage, Control, Transition

if TYPE_CHECKING:
    from pbem.games.caesar.rules.protocol import GameLike

ROMAN = {1: "I", 2: "II", 3: "III", 4: "IV"}
# Enum members read in loops, as module names (an Enum class's attribute is slow to read)
_POOL, _DEAD = BlockStatus.POOL, BlockStatus.DEAD


def _friendly(g: GameLike, side: Side, city: str) -> bool:
    return not g.board.is_sea(city) and g.control(city, side) is Control.FRIENDLY


def third_leaders(g: GameLike, side: Side) -> frozenset[str]:
    """Leaders in the starting levy pool: the third leader (3.21, 7.51)."""
    return g.board.third_leaders[side]


def leader_killed(g: GameLike, side: Side) -> bool:
    blocks = g.state.blocks  # only leaders die (7.51); Game.problems refuses a dead block that is not one
    return any(blocks[bid].status is _DEAD for bid in g.board.leaders[side])


def new_block_problem(g: GameLike, side: Side, bid: str, city: str) -> str | None:
    st = g.state
    b = st.blocks.get(bid)
    info = g.board.blocks.get(bid)
    if info is not None and info.type is BlockType.CLEOPATRA:
        return "Cleopatra is never levied: she changes sides instead (7.52)"
    if b is None or info is None or info.side is not side:
        return g.not_yours(bid, side) if bid in g.board.blocks else f"there is no block {bid!r}"
    if b.status is BlockStatus.MAP:
        return f"{g.label(bid, side)} is already on the map; to strengthen it write a step levy (6.4)"
    if b.status is BlockStatus.DEAD:
        return f"{info.name} was killed: leaders are eliminated for good (7.51)"
    if b.status is BlockStatus.ELIMINATED:
        return f"{info.name} was eliminated this Year and cannot be levied before the next (5.2, 7.5)"
    if bid in third_leaders(g, side) and not leader_killed(g, side):
        return f"{info.name} can be levied only after one of {side}'s leaders has been killed (7.51, M8)"
    if city not in g.board.spaces:
        return f"unknown city {city!r}"
    if not _friendly(g, side, city):
        ctl = "a sea" if g.board.is_sea(city) else g.control(city, side).value
        return f"{city} is {ctl}: new blocks are raised only in Friendly cities (6.4)"
    if info.is_navis:
        if not g.board.spaces[city].is_major_port:
            return f"{city} is not a major port: Navis are built in Friendly major ports (3.26, 6.4)"
    elif info.type in (BlockType.LEGION, BlockType.EQUITATUS, BlockType.ELEPHANT) and city != info.levy_city:
        return f"{info.name} is raised only in {info.levy_city} (6.4)"
    return None


def step_problem(g: GameLike, side: Side, bid: str) -> str | None:
    b = g.state.blocks.get(bid)
    if b is None or b.side is not side or b.status is not BlockStatus.MAP or b.loc is None:
        return g.not_yours(bid, side)
    info = g.info(bid)
    if info.step_up(b.strength) is None:
        return f"{g.label(bid, side)} is at full strength ({ROMAN[b.strength]}) (3.11)"
    if g.board.is_sea(b.loc):
        return f"{g.label(bid, side)} is at sea: steps are added to Navis only in port (6.4)"
    if not _friendly(g, side, b.loc):
        return f"{b.loc} is {g.control(b.loc, side).value}: steps are added only in Friendly cities (6.4)"
    return None


def _stage(g: GameLike, side: Side) -> None:
    c = g.state.command
    if c is None or c.side is not side or c.stage is not CommandStage.LEVIES:
        raise IllegalChoiceError(f"{side} is not levying now", "6.4")
    if c.lp < 1:
        raise IllegalChoiceError("no Levy Points left (6.4)")


def check_levy(g: GameLike, d: Decision, ch: Levy) -> None:
    _stage(g, d.side)
    prob = new_block_problem(g, d.side, ch.block, ch.city)
    if prob:
        raise IllegalChoiceError(prob, legal=_where_hint(g, d.side, ch.block))


def _where_hint(g: GameLike, side: Side, bid: str) -> str:
    """What would be legal: where this block can be raised, else which blocks can be raised now."""
    cities = [c for c in sorted(g.board.cities()) if new_block_problem(g, side, bid, c) is None]
    if cities:
        return "it can be raised in " + ", ".join(cities)
    names = sorted({g.label(lv.block, side) for lv in new_block_options(g, side)})
    return ("new blocks you can raise now: " + ", ".join(names)) if names else "you can raise no new block now"


def check_step(g: GameLike, d: Decision, ch: LevyStep) -> None:
    _stage(g, d.side)
    prob = step_problem(g, d.side, ch.block)
    if prob:
        raise IllegalChoiceError(prob)


def check_end(g: GameLike, d: Decision, ch: EndLevies) -> None:
    c = g.state.command
    if c is None or c.side is not d.side or c.stage is not CommandStage.LEVIES:
        raise IllegalChoiceError(f"{d.side} is not levying now", "6.4")


def do_levy(g: GameLike, d: Decision, ch: Levy) -> None:
    c = g.state.command
    assert c is not None
    info = g.info(ch.block)
    g.place(ch.block, ch.city)
    b = g.state.blocks[ch.block]
    b.strength = info.min_strength
    g.set_side(ch.block, d.side)
    g.state.moved.add(ch.block)
    c.lp -= 1
    g.emit_split(
        "levy",
        d.side,
        f"{d.side} levies {info.name} at {ch.city} ({ROMAN[b.strength]})",
        f"{d.side} levies a new block at {ch.city}",
        {"side": d.side._value_, "block": ch.block, "loc": ch.city, "strength": b.strength},
        {"side": d.side._value_, "loc": ch.city},
    )


def do_step(g: GameLike, d: Decision, ch: LevyStep) -> None:
    c = g.state.command
    assert c is not None
    b = g.state.blocks[ch.block]
    up = g.info(ch.block).step_up(b.strength)
    assert up is not None
    b.strength = up
    c.lp -= 1
    g.emit_split(
        "levy-step",
        d.side,
        f"{d.side} adds a step to {g.label(ch.block)} at {b.loc} (now {ROMAN[up]})",
        f"{d.side} adds a step to a block at {b.loc}",
        {"side": d.side._value_, "block": ch.block, "loc": b.loc, "strength": up},
        {"side": d.side._value_, "loc": b.loc},
    )


def do_end(g: GameLike, d: Decision, ch: EndLevies) -> None:
    g.enter(Transition.FINISH_COMMAND)


def new_block_options(g: GameLike, side: Side) -> list[Levy]:
    """Every new block ``side`` may levy now, where (6.4); the same rules as :func:`new_block_problem`."""
    return [Levy(bid, city) for bid, city in new_block_pairs(g, side)]


def new_block_pairs(g: GameLike, side: Side) -> list[tuple[str, str]]:
    """:func:`new_block_options` as (block, city) pairs, in the same order."""
    return [(bid, city) for bid, cities in new_block_places(g, side) for city in cities]


def new_block_places(g: GameLike, side: Side) -> list[tuple[str, tuple[str, ...]]]:
    """Each new block ``side`` may levy now with the cities where it may (none left out when it
    has none): :func:`new_block_pairs` grouped by block, in the same order (playouts count the
    pairs and make only the one they pick)."""
    friendly = g.friendly_cities(side)
    if not friendly:  # every new block is raised in a Friendly city
        return []
    friendly_set = g.friendly_city_set(side)
    board = g.board
    third = board.third_leaders[side]
    out: list[tuple[str, tuple[str, ...]]] = []
    pool = g.pool_blocks(side)  # sorted
    if not pool:
        return out
    killed = leader_killed(g, side) if third.intersection(pool) else False
    majors: tuple[str, ...] | None = None
    where = _where_levied(board)
    for bid in pool:
        if bid in third and not killed:
            continue
        city = where[bid]
        if city is _ANY_CITY:
            out.append((bid, friendly))
        elif city is _MAJOR_PORT:
            if majors is None:
                spaces = board.spaces
                majors = tuple([c for c in friendly if spaces[c].is_major_port])
            if majors:
                out.append((bid, majors))
        elif city is not None and city in friendly_set:
            out.append((bid, (city,)))
    return out


_ANY_CITY = "any Friendly city"
_MAJOR_PORT = "a Friendly major port"
_WHERE: dict[int, tuple[Board, dict[str, str | None]]] = {}


def _where_levied(board: Board) -> dict[str, str | None]:
    """Where each block of the board is raised (6.4): its named city (None when it has none), or
    :data:`_ANY_CITY` or :data:`_MAJOR_PORT` (a Navis); per board, made once (the board kept alive with it)."""
    hit = _WHERE.get(id(board))
    if hit is None or hit[0] is not board:
        where: dict[str, str | None] = {}
        for bid, info in board.blocks.items():
            if info.type in _NAMED_CITY:
                where[bid] = info.levy_city
            else:
                where[bid] = _MAJOR_PORT if info.is_navis else _ANY_CITY
        hit = _WHERE[id(board)] = (board, where)
    return hit[1]


_NAMED_CITY = frozenset({BlockType.LEGION, BlockType.EQUITATUS, BlockType.ELEPHANT})


def friendly_cities(g: GameLike, side: Side) -> list[str]:
    """The cities ``side`` holds alone, sorted: where it raises blocks and adds steps (6.4)."""
    return list(g.friendly_cities(side))


def step_options(g: GameLike, side: Side) -> list[LevyStep]:
    """Every block that may take a step now; the same rules as :func:`step_problem`, in one pass."""
    return [LevyStep(bid) for bid in step_blocks(g, side)]


def _any_step(g: GameLike, side: Side) -> bool:
    friendly = g.friendly_city_set(side)
    if not friendly:
        return False
    blocks, top = g.state.blocks, g.board.top_strengths
    for bid in g.on_map_sorted(side):
        b = blocks[bid]
        if b.loc in friendly and b.strength != top[bid]:  # as in step_blocks
            return True
    return False


def step_blocks(g: GameLike, side: Side) -> list[str]:
    """The blocks of :func:`step_options`, in the same order."""
    friendly = g.friendly_city_set(side)
    if not friendly:
        return []
    blocks, top = g.state.blocks, g.board.top_strengths
    # step_up(b.strength) is not None: below full strength (a valid position's strengths are the block's)
    return [bid for bid in g.on_map_sorted(side) if (b := blocks[bid]).loc in friendly and b.strength != top[bid]]


def any_levy(g: GameLike, side: Side) -> bool:
    return _any_step(g, side) or _any_new_block(g, side)


def _any_new_block(g: GameLike, side: Side) -> bool:
    """Whether :func:`new_block_places` has anything, found without building it."""
    friendly = g.friendly_city_set(side)
    if not friendly:
        return False
    board = g.board
    third = board.third_leaders[side]
    where = _where_levied(board)
    killed: bool | None = None
    majors: bool | None = None
    for bid in g.pool_blocks(side):
        if bid in third:
            if killed is None:
                killed = leader_killed(g, side)
            if not killed:
                continue
        city = where[bid]
        if city is _ANY_CITY:
            return True
        if city is _MAJOR_PORT:
            if majors is None:
                spaces = board.spaces
                majors = any(spaces[c].is_major_port for c in friendly)
            if majors:
                return True
        elif city is not None and city in friendly:
            return True
    return False


def legal(g: GameLike, d: Decision) -> Iterator[Choice]:
    c = g.state.command
    if c is None or c.side is not d.side or c.stage is not CommandStage.LEVIES:
        return
    yield EndLevies()
    if c.lp < 1:
        return
    yield from new_block_options(g, d.side)
    yield from step_options(g, d.side)


_CHECK: dict[type, Callable[[GameLike, Decision, Any], None]] = {Levy: check_levy, LevyStep: check_step, EndLevies: check_end}
_DO: dict[type, Callable[[GameLike, Decision, Any], None]] = {Levy: do_levy, LevyStep: do_step, EndLevies: do_end}


def _check(g: GameLike, d: Decision, ch: Choice) -> None:
    _CHECK[type(ch)](g, d, ch)


def _do(g: GameLike, d: Decision, ch: Choice) -> None:
    _DO[type(ch)](g, d, ch)


HANDLERS = {DecisionKind.LEVIES: ((Levy, LevyStep, EndLevies), _check, _do)}
