"""What to send next, grouped for reading on a phone: one line per block (or stack of blocks
with the same choices) saying where it can go, one line per one-of-many choice, the number of
possible orders, and one worked example line to copy.

Built only from what the side knows: its own blocks, the public control of every location, the
cards in its hand (:func:`pbem.games.caesar.orders.hints.order_templates`, computed from the same view, stays
the list of single order lines that sample games pick from).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from pbem.games.caesar.orders.hints import order_templates
from pbem.games.caesar.orders.language import block_display
from pbem.games.caesar.orders.translate import order_for
from pbem.games.caesar.rules import battle as battle_mod
from pbem.games.caesar.rules import winter as winter_mod
from pbem.games.caesar.rules.board import Side
from pbem.games.caesar.rules.cards import APOLLO, card_sort_key
from pbem.games.caesar.rules.choices import BattleAction, DecisionKind, Disband, NavisToPort, Regroup, TakeHit
from pbem.games.caesar.rules.game import Game
from pbem.games.caesar.rules.state import CommandStage, Control
from pbem.games.caesar.steps.stepdefs import StepKind

if TYPE_CHECKING:
    from pbem.games.caesar.steps.session import Session

Group = tuple[str, str]  # (heading, lines)


def _options(count: int, what: str, lines: list[str]) -> Group:
    return (f"{what} ({count} possible)", "\n".join(lines))


def _example(line: str, more: str = "") -> Group:
    return ("example to copy" + (f" ({more})" if more else ""), line)


def next_step_groups(session: Session, side: Side) -> list[Group]:
    """The grouped "what to send next" of ``side``'s report for the current step."""
    g = session.game
    step = session.step()
    if not step.awaits(side):
        return []
    name = (lambda b: block_display(g.board, b, side))
    hand = list(dict.fromkeys(sorted(g.state.hands[side], key=card_sort_key)))
    if step.kind is StepKind.YEAR_START:
        playable = [c for c in hand if c != APOLLO]
        held = g.state.hands[side]
        pairs = sum(1 for d in hand for p in playable if p != d or held.count(d) > 1)
        return [
            _options(pairs, "cards", [f"discard one of: {', '.join(hand)}", f"play one of: {', '.join(playable)}"]),
            _example(f"discard {hand[0]}\nplay {next(c for c in playable if c != hand[0]) if len(playable) > 1 else playable[0]}",
                     "the card you discard cannot also be played"),
        ]
    if step.kind is StepKind.CARD:
        playable = [c for c in hand if not (c == APOLLO and g.state.turn == 1)]
        return [_options(len(playable), "cards", [f"play one of: {', '.join(playable)}"]), _example(f"play {playable[0]}")]
    if step.kind is StepKind.COMMAND:
        return _command(g, side)
    if step.kind is StepKind.BATTLES:
        return _battles(g, side)
    if step.kind is StepKind.BATTLE and step.decision is not None:
        d = step.decision
        per: dict[str, list[str]] = {}
        count = 0
        for ch in g.legal(d):
            order = order_for(g, side, ch)
            if order is None or isinstance(ch, (NavisToPort, Disband)):
                continue
            count += 1
            if isinstance(ch, BattleAction):
                what = ch.action.value if ch.to is None else f"retreat -> {'sea ' if ch.by_sea else ''}{ch.to}"
                per.setdefault(name(ch.block), []).append(what)
            elif isinstance(ch, TakeHit):
                per.setdefault("takes the hit", []).append(name(ch.block))
            elif isinstance(ch, Regroup):
                per.setdefault(f"{name(ch.block)} regroups to", []).append(ch.to)
            else:
                per.setdefault("one of", []).append(str(order))
        lines = [f"{k}: {', '.join(v)}" for k, v in per.items()]
        first = next((str(o) for ch in g.legal(d) if (o := order_for(g, side, ch)) is not None), "pass")
        if d.kind is DecisionKind.REGROUP:
            lines.append("or no regroup: pass")
            count += 1
        return [_options(count, "answers", lines), _example(first)]
    if step.kind is StepKind.WINTER:
        lines, examples = [], []
        count = 0
        for bid in g.on_map(side):
            at = g.state.blocks[bid].loc
            if at and g.board.is_sea(at):
                ports = winter_mod.navis_ports(g, bid)
                if ports:
                    count += len(ports)
                    lines.append(f"{name(bid)} ({at}) to port: {', '.join(ports)}")
                    examples.append(f"winter: navis {name(bid)} -> {ports[0]}")
        for loc, surplus in winter_mod.over_supply(g, side):
            cands = [b for b in g.blocks_at(loc, side) if b != "Cleopatra"]
            count += len(cands)
            lines.append(f"{loc} is {surplus} over supply: disband {surplus} of {', '.join(name(b) for b in cands)}")
            examples.append(f"winter: disband {name(cands[0])}")
        return [_options(count, "winter orders", lines), _example(examples[0] if examples else "pass")]
    # deployment (and anything else): the order lines themselves are the clearest
    return order_templates(session, side)


def _command(g: Game, side: Side) -> list[Group]:
    from pbem.games.caesar.rules import eventcards as gods
    from pbem.games.caesar.rules import levy, movement

    c = g.state.command
    if c is None:
        return []
    name = (lambda b: block_display(g.board, b, side))
    if c.stage is CommandStage.EVENT:
        targets = gods.jupiter_targets(g, side) if c.event == "Jupiter" else gods.vulcan_targets(g, side) if c.event == "Vulcan" else []
        word = (c.event or "").lower()
        lines = [f"{c.event} target one of: {', '.join(targets)}"] if targets else []
        lines.append("or decline: no event")
        return [_options(len(targets) + 1, f"{c.event} targets", lines), _example(f"{word} {targets[0]}" if targets else "no event")]
    groups: list[Group] = []
    # one line per location and set of blocks with the same destinations
    stacks: dict[tuple[str, str], list[str]] = {}
    example = ""
    count = 0
    for bid in movement.movable_blocks(g, side):
        paths = movement.block_paths(g, side, bid)
        seas = movement.sea_paths(g, side, bid)
        if not paths and not seas:
            continue
        count += len(paths) + len(seas)
        at = g.state.blocks[bid].loc or ""
        stacks.setdefault((at, _where(paths, seas)), []).append(name(bid))
        if not example:
            p = paths[0] if paths else seas[0]
            example = f"{'move' if paths else 'sea'} {' -> '.join(p)}: {name(bid)}"
    lines = [f"{', '.join(sorted(blocks, key=_natural))} ({at}): {where}" for (at, where), blocks in sorted(stacks.items())]
    if lines:
        mp = f"{c.mp} MP" if not c.event else f"{c.event}: one group move"
        groups.append(_options(count, f"moves, {mp}", lines))
    if not c.event:
        news: dict[str, list[str]] = {}
        for lv in levy.new_block_options(g, side):
            news.setdefault(name(lv.block), []).append(lv.city)
        by_cities: dict[tuple[str, ...], list[str]] = {}
        for blk, cities in news.items():
            by_cities.setdefault(tuple(cities), []).append(blk)
        steps = [name(s.block) for s in levy.step_options(g, side)]
        lv_lines = []
        if by_cities:
            lv_lines.append("new block: " + "; ".join(f"{' or '.join(blks)} at {', '.join(cities)}" for cities, blks in by_cities.items()))
        if steps:
            lv_lines.append(f"step to one of: {', '.join(steps)}")
        n = sum(len(v) for v in news.values()) + len(steps)
        if lv_lines:
            groups.append(_options(n, f"levies, {c.lp} LP", lv_lines))
            if not example:
                first_blk, first_cities = next(iter(news.items()), ("", []))
                example = f"levy {first_blk} at {first_cities[0]}" if first_blk else f"levy step {steps[0]}"
    if not groups:
        return [("nothing to order", "pass")]
    groups.append(_example(example, "one order per line; list several blocks after ':'"))
    return groups


def _natural(text: str) -> tuple[object, ...]:
    """``Legio 7`` before ``Legio 10``."""
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text))


def _where(paths: list[tuple[str, ...]], seas: list[tuple[str, ...]]) -> str:
    """``"Roma, Placentia; via Placentia: Mediolanum; sea: Neapolis"`` for one block's paths."""
    direct = sorted({p[1] for p in paths if len(p) == 2})
    via: dict[str, set[str]] = {}
    for p in paths:
        if len(p) == 3:
            via.setdefault(p[1], set()).add(p[2])
    parts = [", ".join(direct)] if direct else []
    parts += [f"via {v}: {', '.join(sorted(ds))}" for v, ds in sorted(via.items())]
    by_sea = sorted({p[-1] for p in seas})
    if by_sea:
        parts.append(f"sea: {', '.join(by_sea)}")
    return "; ".join(parts)


def _battles(g: Game, side: Side) -> list[Group]:
    lines: list[str] = []
    example = ""
    locs = sorted(g.state.contests)
    if side is g.state.player1 and len(locs) > 1:
        lines.append(f"order of battles: any order of {', '.join(locs)}")
    for loc in locs:
        mine = g.blocks_at(loc, side)
        if not mine:
            continue
        attacking = g.state.contests[loc].attacker is side
        parts = []
        for navis in (False, True):
            if any(g.info(b).is_navis is navis for b in mine):
                places = battle_mod.retreat_places(g, loc, side, attacking=attacking, navis=navis)
                where = ", ".join(("sea " if s else "") + p for p, s, _ in places) or "nowhere"
                parts.append(f"{'Navis ' if navis else ''}retreat to {where}")
                if places and not example:
                    to, by_sea, _ = places[0]
                    who = "all" if not navis else ", ".join(block_display(g.board, b, side) for b in mine if g.info(b).is_navis)
                    example = f"battle {loc}: retreat round 3 when weaker {who} -> {'sea ' if by_sea else ''}{to}"
        regroup = sorted(n for n, _ in g.board.neighbors_by_road(loc) if g.control(n, side) in (Control.FRIENDLY, Control.VACANT))
        if regroup:
            parts.append(f"regroup to {', '.join(regroup)}")
        lines.append(f"{loc} ({', '.join(block_display(g.board, b, side) for b in mine)}): {'; '.join(parts)}")
    if not example:
        example = f"battle {locs[0]}: hits {block_display(g.board, g.blocks_at(locs[0], side)[0], side)}" if locs and g.blocks_at(locs[0], side) else "pass"
    return [
        (f"battle plans for {len(locs)} battle{'' if len(locs) == 1 else 's'} (all optional)", "\n".join(lines)),
        _example(example, "also: battle L: hits B, B / battle L: order B, B / regroup L: B -> L"),
    ]
