"""Invariants every reachable position satisfies (used by soak tests and ``simulate --check``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pbem.games.caesar.rules.board import PLUTO_LIMIT, ROAD_LIMIT, Side
from pbem.games.caesar.rules.state import LAST_YEAR, BlockStatus, Control, Phase

if TYPE_CHECKING:
    from pbem.games.caesar.rules.game import Game


def violations(g: Game) -> list[str]:
    """Every broken invariant of ``g``'s position (empty when sound)."""
    out = list(g.problems())
    st = g.state
    board = g.board
    # blocks never lost or duplicated: the index agrees with the blocks
    seen: dict[str, str] = {}
    for loc, ids in g._at.items():
        for b in ids:
            if b in seen:
                out.append(f"{b} indexed in {seen[b]} and {loc}")
            seen[b] = loc
            if st.blocks[b].loc != loc or st.blocks[b].status is not BlockStatus.MAP:
                out.append(f"{b} indexed in {loc} but is {st.blocks[b].status.value} at {st.blocks[b].loc}")
    on_map = {b for b, s in st.blocks.items() if s.status is BlockStatus.MAP}
    if on_map != set(seen):
        out.append(f"index and blocks disagree: {sorted(on_map ^ set(seen))}")
    for side in Side:
        truth = sorted(b for b, s in st.blocks.items() if s.status is BlockStatus.MAP and s.side is side)
        if g.on_map(side) != truth:
            out.append(f"the index of {side}'s blocks disagrees with the blocks")
        held = tuple(sorted(c for c in board.spaces if not board.is_sea(c) and g.control(c, side) is Control.FRIENDLY))
        pool = tuple(b for b in board.levy_catalogue[side] if st.blocks[b].status is BlockStatus.POOL)
        if g.pool_blocks(side) != pool:
            out.append(f"the levy pool kept for {side} disagrees with the blocks")
        if g.held_by(side) != {loc for loc in board.spaces if g.count(loc, side)}:
            out.append(f"the places kept as {side}'s disagree with the blocks")
        if g.friendly_cities(side) != held or g.friendly_city_set(side) != frozenset(held):
            out.append(f"the Friendly cities kept for {side} disagree with the blocks")
    if len(st.blocks) != len(board.blocks):
        out.append(f"{len(st.blocks)} blocks, the game has {len(board.blocks)}")
    # no location holds both sides outside the command and battle phases
    if st.phase not in (Phase.COMMAND, Phase.BATTLE):
        for loc in g.contested_locations():
            out.append(f"{loc} holds both sides in the {st.phase.value} phase")
    # road limits (Pluto raises them for one group move that attacks)
    pluto = st.effective.get(Side.CAESAR) == "Pluto" or st.effective.get(Side.POMPEY) == "Pluto"
    for key, n in st.road_use.items():
        _, a, b = key.split("|")
        e = board.edge_between(a, b)
        if e is None:
            out.append(f"road use on {a}-{b}, which is no road")
            continue
        limit = (PLUTO_LIMIT if pluto else ROAD_LIMIT)[e.kind]
        if n > limit:
            out.append(f"road {a}-{b} carried {n} blocks of one side (limit {limit})")
    # VP equals what the board says
    for side in Side:
        vp = 0
        for city, sp in board.spaces.items():
            if sp.vp and g.control(city, side) is Control.FRIENDLY:
                vp += sp.vp
        vp += sum(1 for b, s in st.blocks.items() if s.status is BlockStatus.DEAD and board.blocks[b].side is side.enemy)
        if vp != g.vp(side):
            out.append(f"{side} VP {g.vp(side)} but the board says {vp}")
    if st.year > LAST_YEAR:
        out.append(f"the game went past {LAST_YEAR}")
    cards = sorted(c.name for c in board.cards)
    if len(st.deck) + sum(len(h) for h in st.hands.values()) > len(cards):
        out.append("too many cards")
    return out
