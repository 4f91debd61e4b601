"""What to send next: the legal choices of the current step as order lines ready to copy."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pbem.core.phrase import N_, Phrase
from pbem.games.caesar.orders.language import (
    block_display,
)
from pbem.games.caesar.orders.translate import order_for
from pbem.games.caesar.rules import battle as battle_mod
from pbem.games.caesar.rules import winter as winter_mod
from pbem.games.caesar.rules.board import EdgeKind, Side
from pbem.games.caesar.rules.cards import APOLLO, card_sort_key
from pbem.games.caesar.rules.choices import (
    Decision,
    DecisionKind,
    Deploy,
    Disband,
    NavisToPort,
)
from pbem.games.caesar.rules.game import Game
from pbem.games.caesar.rules.state import CommandStage, Control
from pbem.games.caesar.steps.stepdefs import StepKind

if TYPE_CHECKING:
    from pbem.games.caesar.steps.stepdefs import StepState



def order_templates(session: StepState, side: Side) -> list[tuple[str, str]]:
    """(label, order line) pairs for the side's report: the legal choices of the current step, ready to copy."""
    g = session.game
    step = session.step()
    out: list[tuple[str, str]] = []
    if not step.awaits(side):
        return out
    hand = sorted(g.state.hands[side], key=card_sort_key)
    if step.kind is StepKind.YEAR_START:
        out += [("discard one", f"discard {c}") for c in dict.fromkeys(hand)]
        out += [("play one", f"play {c}") for c in dict.fromkeys(hand) if c != APOLLO]
    elif step.kind is StepKind.CARD:
        out += [("play one", f"play {c}") for c in dict.fromkeys(hand) if not (c == APOLLO and g.state.turn == 1)]
    elif step.kind is StepKind.DEPLOYMENT:
        historical = next(iter(g.legal(Decision(side, DecisionKind.DEPLOY))))
        assert isinstance(historical, Deploy)
        for loc, ids in historical.placement:
            out.append((Phrase(N_("deploy")), f"deploy {loc}: {', '.join(block_display(g.board, b, side) for b in ids)}"))
    elif step.kind is StepKind.COMMAND:
        out += _command_templates(g, side)
    elif step.kind is StepKind.BATTLES:
        locs = sorted(g.state.contests)
        if side is g.state.player1 and len(locs) > 1:
            out.append(("order of battles", f"battles {', '.join(locs)}"))
        for loc in locs:
            mine = [block_display(g.board, b, side) for b in g.blocks_at(loc, side)]
            near = sorted(n for n, _ in g.board.neighbors_by_road(loc) if g.control(n, side) in (Control.FRIENDLY, Control.VACANT))
            attacking = g.state.contests[loc].attacker is side
            for navis in (False, True):
                kind = [b for b in g.blocks_at(loc, side) if g.info(b).is_navis is navis]
                places = battle_mod.retreat_places(g, loc, side, attacking=attacking, navis=navis)
                if kind and places:
                    to, by_sea, _ = places[0]
                    who = ", ".join(block_display(g.board, b, side) for b in kind) if navis else "all"
                    label = f"retreat plan at {loc}" + (" (Navis)" if navis else "")
                    label += ": " + ", ".join(("sea " if s else "") + p for p, s, _ in places)
                    out.append((label, f"battle {loc}: retreat round 3 when weaker {who} -> {'sea ' if by_sea else ''}{to}"))
            if mine:
                out.append((f"hit order at {loc}", f"battle {loc}: hits {', '.join(mine)}"))
            if near and mine:
                out.append((f"regroup after winning {loc}", f"regroup {loc}: {mine[0]} -> {near[0]}"))
    elif step.kind is StepKind.BATTLE and step.decision is not None:
        d = step.decision
        for ch in g.legal(d):
            order = order_for(g, side, ch)
            if order and not isinstance(ch, (NavisToPort, Disband)):
                out.append(("answer", str(order)))
        if d.kind is DecisionKind.REGROUP:
            out.append(("no regroup", "pass"))
    elif step.kind is StepKind.WINTER:
        for bid in g.on_map(side):
            at = g.state.blocks[bid].loc
            if at and g.board.is_sea(at):
                for p in winter_mod.navis_ports(g, bid):
                    out.append((f"{block_display(g.board, bid, side)} to port", f"winter: navis {block_display(g.board, bid, side)} -> {p}"))
        for loc, surplus in winter_mod.over_supply(g, side):
            cands = [b for b in g.blocks_at(loc, side) if b != "Cleopatra"]
            out.append((f"{loc} is {surplus} over supply", f"winter: disband {block_display(g.board, cands[0], side)}"))
    return out


def _command_templates(g: Game, side: Side) -> list[tuple[str, str]]:
    from pbem.games.caesar.rules import eventcards as gods
    from pbem.games.caesar.rules import levy, movement

    c = g.state.command
    out: list[tuple[str, str]] = []
    if c is None:
        return out
    name = (lambda b: block_display(g.board, b, side))
    if c.stage is CommandStage.EVENT:
        if c.event == "Jupiter":
            out += [("Jupiter target", f"jupiter {t}") for t in gods.jupiter_targets(g, side)]
        elif c.event == "Vulcan":
            out += [("Vulcan target", f"vulcan {t}") for t in gods.vulcan_targets(g, side)]
        out.append(("decline", "no event"))
        return out
    by_origin: dict[str, list[str]] = {}
    for bid in movement.movable_blocks(g, side):
        paths = movement.block_paths(g, side, bid)
        for p in paths:
            by_origin.setdefault(f"{' -> '.join(p)}", []).append(name(bid))
        for p in movement.sea_paths(g, side, bid)[:3]:
            out.append(("amphibious", f"sea {' -> '.join(p)}: {name(bid)}"))
    for path, names in sorted(by_origin.items()):
        room = _path_room(g, side, path.split(" -> "))
        out.append((f"move (up to {room} by road)" if room < len(names) else "move", f"move {path}: {', '.join(names[:room])}"))
    if not c.event:
        for lv in levy.new_block_options(g, side):
            out.append(("levy", f"levy {name(lv.block)} at {lv.city}"))
        for st in levy.step_options(g, side):
            out.append(("levy a step", f"levy step {name(st.block)}"))
    return out


def _path_room(g: Game, side: Side, path: list[str]) -> int:
    """How many more of ``side``'s blocks the roads of ``path`` can carry this turn."""
    from pbem.games.caesar.rules.movement import road_key

    room = 99
    for a, b in zip(path, path[1:]):
        e = g.board.edge_between(a, b)
        if e is None or e.kind is EdgeKind.SEA:
            continue
        attacking = g.control(path[-1], side) in (Control.ENEMY, Control.CONTESTED) and b == path[-1]
        c = g.state.command
        limit = g.road_limit(e.kind, attacking=attacking, pluto=bool(c and c.event == "Pluto"))
        room = min(room, limit - g.state.road_use.get(road_key(side, a, b), 0))
    return max(room, 0)
