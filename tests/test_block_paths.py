"""The engine's faster option lists give exactly what the plain versions give (so simulated games stay the same).

``block_paths`` checks paths as they grow; it must give exactly the paths ``path_problem`` allows.

The reference here is the plain enumeration: every path the map offers (no
repeats, at most the block's reach, through open places only), each checked
whole with :func:`~pbem.games.caesar.rules.movement.path_problem`.
"""

from __future__ import annotations

import pytest

from pbem.core.rng import Rng
from pbem.games.caesar.rules.choices import DecisionKind
from pbem.games.caesar.rules.game import Game, new_game
from pbem.games.caesar.rules.movement import _OPEN, _activation_problem, block_paths, movable_blocks, path_problem
from pbem.games.caesar.rules.playout import random_choice
from pbem.games.caesar.rules.state import Options


def reference_paths(g: Game, side, bid: str) -> list[tuple[str, ...]]:  # type: ignore[no-untyped-def]
    c = g.state.command
    b = g.state.blocks.get(bid)
    if c is None or b is None or b.loc is None or b.side is not side or bid in g.state.moved:
        return []
    info = g.info(bid)
    if _activation_problem(g, c, b.loc):
        return []
    max_steps = 2 if info.is_navis else (3 if c.event == "Mercury" else 2)
    edges = g.board.sea_edges if info.is_navis else g.board.roads
    out = []
    stack: list[tuple[str, ...]] = [(b.loc,)]
    while stack:
        p = stack.pop()
        for e in edges[p[-1]]:
            n = e.other(p[-1])
            if n in p:
                continue
            q = p + (n,)
            if path_problem(g, side, bid, q, well_formed=True) is None:
                out.append(q)
            if len(q) - 1 < max_steps and g.control(n, side) in _OPEN:
                stack.append(q)
    return sorted(out)


@pytest.mark.parametrize("seed,tournament", [(1, False), (2, False), (3, True), (4, False), (5, True), (6, False)])
def test_block_paths_are_the_paths_path_problem_allows(seed: int, tournament: bool) -> None:
    g = new_game(seed, Options(tournament=tournament))
    rng = Rng(seed * 977)
    compared = 0
    while not g.is_over() and compared < 400:
        pend = g.pending()
        d = pend[rng.below(len(pend))]
        if d.kind is DecisionKind.MOVES:
            for bid in movable_blocks(g, d.side):
                assert block_paths(g, d.side, bid) == reference_paths(g, d.side, bid), (seed, bid)
                compared += 1
        g.apply(d.side, random_choice(g, d, rng))
    assert compared > 50


def reference_friendly_cities(g: Game, side) -> list[str]:  # type: ignore[no-untyped-def]
    """Every city holding one of ``side``'s blocks whose control is Friendly, asked place by place."""
    from pbem.games.caesar.rules.state import Control

    locs = {g.state.blocks[b].loc for b in g.on_map(side)}
    return sorted(loc for loc in locs if loc and not g.board.is_sea(loc) and g.control(loc, side) is Control.FRIENDLY)


def reference_step_blocks(g: Game, side) -> list[str]:  # type: ignore[no-untyped-def]
    """The blocks that may take a step, each checked with ``step_problem``."""
    from pbem.games.caesar.rules.levy import step_problem

    return [bid for bid in g.on_map(side) if step_problem(g, side, bid) is None]


def reference_movable_blocks(g: Game, side) -> list[str]:  # type: ignore[no-untyped-def]
    c = g.state.command
    if c is None:
        return []
    return [bid for bid in g.on_map(side)
            if bid not in g.state.moved and _activation_problem(g, c, g.state.blocks[bid].loc) is None]


def reference_new_block_options(g: Game, side) -> list:  # type: ignore[no-untyped-def]
    """The levy options as first written: every block in sorted order, filtered one by one."""
    from pbem.games.caesar.rules.board import BlockType
    from pbem.games.caesar.rules.choices import Levy
    from pbem.games.caesar.rules.levy import leader_killed
    from pbem.games.caesar.rules.state import BlockStatus

    friendly = reference_friendly_cities(g, side)
    majors = [c for c in friendly if g.board.spaces[c].is_major_port]
    killed = leader_killed(g, side)
    out = []
    for bid, b in sorted(g.state.blocks.items()):
        info = g.board.blocks[bid]
        if info.side is not side or b.status is not BlockStatus.POOL or info.type is BlockType.CLEOPATRA:
            continue
        if bid in g.board.third_leaders[side] and not killed:
            continue
        if info.type in (BlockType.LEGION, BlockType.EQUITATUS, BlockType.ELEPHANT):
            cities = [info.levy_city] if info.levy_city in set(friendly) else []
        elif info.is_navis:
            cities = majors
        else:
            cities = friendly
        out.extend(Levy(bid, c) for c in cities)
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_levy_options_keep_their_order(seed: int) -> None:
    from pbem.games.caesar.rules.board import Side
    from pbem.games.caesar.rules.levy import friendly_cities, new_block_options, step_blocks

    g = new_game(seed)
    rng = Rng(seed * 31)
    compared = 0
    while not g.is_over() and compared < 60:
        pend = g.pending()
        d = pend[rng.below(len(pend))]
        if d.kind is DecisionKind.LEVIES:
            assert new_block_options(g, d.side) == reference_new_block_options(g, d.side)
            assert step_blocks(g, d.side) == reference_step_blocks(g, d.side)
            compared += 1
        for side in Side:
            assert friendly_cities(g, side) == reference_friendly_cities(g, side)
            assert movable_blocks(g, side) == reference_movable_blocks(g, side)
        g.apply(d.side, random_choice(g, d, rng))
    assert compared > 5


@pytest.mark.parametrize("n", [0, 1, 2, 3, 7, 40])
def test_shuffle_is_fisher_yates_over_below(n: int) -> None:
    """``Rng.shuffle`` writes ``below`` out; it must draw and swap exactly as the plain loop does."""
    for seed in range(50):
        fast, plain = Rng(seed, seed * 3), Rng(seed, seed * 3)
        a, b = list(range(n)), list(range(n))
        fast.shuffle(a)
        for i in range(n - 1, 0, -1):
            j = plain.below(i + 1)
            b[i], b[j] = b[j], b[i]
        assert a == b and fast.counter == plain.counter


def reference_jupiter_targets(g: Game, side) -> list[str]:  # type: ignore[no-untyped-def]
    """Every place asked in turn: Enemy cities next to a Friendly city, Enemy seas next to a Friendly port."""
    from pbem.games.caesar.rules.state import Control

    out = []
    board = g.board
    for loc in sorted(board.spaces):
        if g.control(loc, side) is not Control.ENEMY:
            continue
        near = board.ports_of(loc) if board.is_sea(loc) else [n for n, _ in board.neighbors_by_road(loc)]
        if any(g.control(n, side) is Control.FRIENDLY for n in near):
            out.append(loc)
    return out


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_event_targets_are_the_places_the_rules_name(seed: int) -> None:
    from pbem.games.caesar.rules.board import Side
    from pbem.games.caesar.rules.eventcards import jupiter_targets, vulcan_targets
    from pbem.games.caesar.rules.state import Control

    g = new_game(seed)
    rng = Rng(seed * 7)
    seen = 0
    while not g.is_over() and seen < 300:
        pend = g.pending()
        d = pend[rng.below(len(pend))]
        for side in Side:
            assert jupiter_targets(g, side) == reference_jupiter_targets(g, side)
            assert vulcan_targets(g, side) == sorted(
                loc for loc in g.board.cities() if g.control(loc, side) is Control.ENEMY)
        seen += 1
        g.apply(d.side, random_choice(g, d, rng))
