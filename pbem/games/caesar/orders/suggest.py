""""Did you mean": a misspelled block name answered by what the player most likely meant.

The parser knows only the static catalogue, so it can suggest only by spelling (``Legio 15`` ->
``Legio 16``, ``Legio 13``...). Here, with the position as the side sees it, the blocks of his
side that can do what the line asks come first (a move from Genua: his movable blocks in Genua;
``levy step``: his blocks that can take a step; a battle plan: his blocks in that battle), then the
nearest spellings among his other blocks. Only the side's own blocks and public facts are used:
nothing hidden about the enemy can show in a suggestion.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import replace

from pbem.games.caesar.orders.language import OrderError, _arabic, _Parser, block_display
from pbem.games.caesar.rules import levy, movement
from pbem.games.caesar.rules.board import Side
from pbem.games.caesar.rules.game import Game

MAX_SUGGESTIONS = 3


def likely_blocks(g: Game, side: Side, line: str) -> list[str]:
    """The side's blocks that can do what ``line`` asks (ids), as far as the line can be read."""
    words = line.strip().lower()
    p = _Parser(g.board, side)
    st = g.state
    if words.startswith(("move ", "sea ")):
        origin = p.origin_of(line)
        if origin is None:
            return movement.movable_blocks(g, side)
        here = [b for b in g.blocks_at(origin, side)]
        movable = [b for b in here if b in movement.movable_blocks(g, side)]
        return movable or here
    if re.match(r"(levy\s+step|step)\s", words):
        return [o.block for o in levy.step_options(g, side)]
    if words.startswith("levy "):
        return list(dict.fromkeys(o.block for o in levy.new_block_options(g, side)))
    m = re.match(r"(battle|regroup)\s+(.+?):", line.strip(), re.I)
    if m:
        try:
            loc = g.board.resolve_space(m.group(2))
        except Exception:  # noqa: BLE001 - a misspelled place: fall back to every block in a battle
            return [b for loc in st.contests for b in g.blocks_at(loc, side)]
        return g.blocks_at(loc, side)
    if re.match(r"(fire|pass|retreat|hit)\s", words) and st.battle is not None:
        return g.blocks_at(st.battle.loc, side)
    if words.startswith("winter"):
        if "navis" in words:
            return [b for b in g.on_map(side) if g.info(b).is_navis and g.board.is_sea(st.blocks[b].loc or "")]
        return g.on_map(side)
    return g.on_map(side)


def suggestions(g: Game, side: Side, line: str, name: str) -> tuple[str, ...]:
    """Up to three names for the unknown block ``name`` on ``line``: the likely blocks first,
    nearest spelling first among them, then the nearest spellings among the side's other blocks."""
    typed = _arabic(name).strip().lower()
    own = [bid for bid, info in g.board.blocks.items() if info.side is side]
    shown = {bid: block_display(g.board, bid, side) for bid in own + likely_blocks(g, side, line)}

    def ratio(bid: str) -> float:
        return difflib.SequenceMatcher(None, typed, shown[bid].lower()).ratio()

    likely = sorted(dict.fromkeys(likely_blocks(g, side, line)), key=lambda b: (-ratio(b), shown[b]))
    likely = [b for b in likely if ratio(b) >= 0.4]
    rest = sorted((b for b in own if b not in likely and ratio(b) >= 0.6), key=lambda b: (-ratio(b), shown[b]))
    picked = list(dict.fromkeys(shown[b] for b in likely + rest))
    return tuple(picked[:MAX_SUGGESTIONS])


def refine(g: Game, side: Side, err: OrderError) -> OrderError:
    """``err`` with its "did you mean" for unknown blocks rewritten by :func:`suggestions`."""
    message = err.message
    for name in err.unknown_blocks:
        better = suggestions(g, side, err.text, name)
        said = f"unknown {side} block {name!r}"
        new = said + ("; did you mean " + " or ".join(repr(s) for s in better) + "?" if better else "")
        # the replacement is plain text: escape it for re.sub (a name may hold a backslash)
        message = re.sub(re.escape(said) + r"(; did you mean [^?]*\?)?", new.replace("\\", "\\\\"), message, count=1)
    return replace(err, message=message)
