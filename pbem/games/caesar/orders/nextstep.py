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

from pbem.core.phrase import N_, Phrase, joined
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
    return (Phrase(N_("%(what)s (%(n)s possible)"), what=what, n=count), joined(lines, "\n"))


def _example(line: str, more: str = "") -> Group:
    return (Phrase(N_("example to copy (%(more)s)"), more=more) if more else Phrase(N_("example to copy")), line)


def _either(names: list[str]) -> str:
    """``A or B or C`` (a Phrase when there are two or more)."""
    out = names[0] if names else ""
    for name in names[1:]:
        out = Phrase(N_("%(first)s or %(next)s"), first=out, next=name)
    return out


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
            _options(pairs, Phrase(N_("cards")), [Phrase(N_("discard one of: %(cards)s"), cards=", ".join(hand)),
                                                   Phrase(N_("play one of: %(cards)s"), cards=", ".join(playable))]),
            _example(f"discard {hand[0]}\nplay {next(c for c in playable if c != hand[0]) if len(playable) > 1 else playable[0]}",
                     Phrase(N_("the card you discard cannot also be played"))),
        ]
    if step.kind is StepKind.CARD:
        playable = [c for c in hand if not (c == APOLLO and g.state.turn == 1)]
        return [_options(len(playable), Phrase(N_("cards")), [Phrase(N_("play one of: %(cards)s"), cards=", ".join(playable))]),
                _example(f"play {playable[0]}")]
    if step.kind is StepKind.COMMAND:
        return _command(g, side)
    if step.kind is StepKind.BATTLES:
        return _battles(g, side)
    if step.kind is StepKind.BATTLE and step.decision is not None:
        d = step.decision
        per: dict[str, list[str]] = {}
        heads: dict[str, tuple[str, dict[str, str]]] = {}  # a line's message and its values but the options
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
                heads["takes the hit"] = (N_("takes the hit: %(options)s"), {})
            elif isinstance(ch, Regroup):
                per.setdefault(f"{name(ch.block)} regroups to", []).append(ch.to)
                heads[f"{name(ch.block)} regroups to"] = (N_("%(block)s regroups to: %(options)s"), {"block": name(ch.block)})
            else:
                per.setdefault("one of", []).append(str(order))
                heads["one of"] = (N_("one of: %(options)s"), {})
        lines = [Phrase(heads[k][0], **heads[k][1], options=", ".join(v)) if k in heads
                 else f"{k}: {', '.join(v)}" for k, v in per.items()]
        first = next((str(o) for ch in g.legal(d) if (o := order_for(g, side, ch)) is not None), "pass")
        if d.kind is DecisionKind.REGROUP:
            lines.append(Phrase(N_("or no regroup: pass")))
            count += 1
        return [_options(count, Phrase(N_("answers")), lines), _example(first)]
    if step.kind is StepKind.WINTER:
        lines, examples = [], []
        count = 0
        for bid in g.on_map(side):
            at = g.state.blocks[bid].loc
            if at and g.board.is_sea(at):
                ports = winter_mod.navis_ports(g, bid)
                if ports:
                    count += len(ports)
                    lines.append(Phrase(N_("%(block)s (%(loc)s) to port: %(ports)s"), block=name(bid), loc=at,
                                        ports=", ".join(ports)))
                    examples.append(f"winter: navis {name(bid)} -> {ports[0]}")
        for loc, surplus in winter_mod.over_supply(g, side):
            cands = [b for b in g.blocks_at(loc, side) if b != "Cleopatra"]
            count += len(cands)
            lines.append(Phrase(N_("%(loc)s is %(n)s over supply: disband %(n)s of %(blocks)s"), loc=loc, n=surplus,
                                blocks=", ".join(name(b) for b in cands)))
            examples.append(f"winter: disband {name(cands[0])}")
        return [_options(count, Phrase(N_("winter orders")), lines), _example(examples[0] if examples else "pass")]
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
        lines: list[str] = [Phrase(N_("%(card)s target one of: %(targets)s"), card=c.event or "",
                                   targets=", ".join(targets))] if targets else []
        lines.append(Phrase(N_("or decline: no event")))
        return [_options(len(targets) + 1, Phrase(N_("%(card)s targets"), card=c.event or ""), lines),
                _example(f"{word} {targets[0]}" if targets else "no event")]
    groups: list[Group] = []
    # one line per location and set of blocks with the same destinations
    stacks: dict[tuple[str, str], list[str]] = {}  # (where, its Phrase as a key: the same English)
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
    lines = [Phrase(N_("%(blocks)s (%(loc)s): %(where)s"), blocks=", ".join(sorted(blocks, key=_natural)), loc=at, where=where)
             for (at, where), blocks in sorted(stacks.items())]
    if lines:
        mp = (Phrase(N_("moves, %(n)s MP"), n=c.mp) if not c.event
              else Phrase(N_("moves, %(card)s: one group move"), card=c.event))
        groups.append(_options(count, mp, lines))
    if not c.event:
        news: dict[str, list[str]] = {}
        for lv in levy.new_block_options(g, side):
            news.setdefault(name(lv.block), []).append(lv.city)
        by_cities: dict[tuple[str, ...], list[str]] = {}
        for blk, cities in news.items():
            by_cities.setdefault(tuple(cities), []).append(blk)
        steps = [name(s.block) for s in levy.step_options(g, side)]
        lv_lines: list[str] = []
        if by_cities:
            lv_lines.append(Phrase(N_("new block: %(options)s"), options=joined(
                [Phrase(N_("%(blocks)s at %(cities)s"), blocks=_either(blks), cities=", ".join(cities))
                 for cities, blks in by_cities.items()], "; ")))
        if steps:
            lv_lines.append(Phrase(N_("step to one of: %(blocks)s"), blocks=", ".join(steps)))
        n = sum(len(v) for v in news.values()) + len(steps)
        if lv_lines:
            groups.append(_options(n, Phrase(N_("levies, %(n)s LP"), n=c.lp), lv_lines))
            if not example:
                first_blk, first_cities = next(iter(news.items()), ("", []))
                example = f"levy {first_blk} at {first_cities[0]}" if first_blk else f"levy step {steps[0]}"
    if not groups:
        return [(Phrase(N_("nothing to order")), "pass")]
    groups.append(_example(example, Phrase(N_("one order per line; list several blocks after ':'"))))
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
    parts: list[str] = [", ".join(direct)] if direct else []
    parts += [Phrase(N_("via %(place)s: %(places)s"), place=v, places=", ".join(sorted(ds))) for v, ds in sorted(via.items())]
    by_sea = sorted({p[-1] for p in seas})
    if by_sea:
        parts.append(Phrase(N_("sea: %(places)s"), places=", ".join(by_sea)))
    return joined(parts, "; ")


def _battles(g: Game, side: Side) -> list[Group]:
    lines: list[str] = []
    example = ""
    locs = sorted(g.state.contests)
    if side is g.state.player1 and len(locs) > 1:
        lines.append(Phrase(N_("order of battles: any order of %(locs)s"), locs=", ".join(locs)))
    for loc in locs:
        mine = g.blocks_at(loc, side)
        if not mine:
            continue
        attacking = g.state.contests[loc].attacker is side
        parts: list[str] = []
        for navis in (False, True):
            if any(g.info(b).is_navis is navis for b in mine):
                places = battle_mod.retreat_places(g, loc, side, attacking=attacking, navis=navis)
                where = ", ".join(("sea " if s else "") + p for p, s, _ in places) or Phrase(N_("nowhere"))
                parts.append(Phrase(N_("Navis retreat to %(where)s") if navis else N_("retreat to %(where)s"), where=where))
                if places and not example:
                    to, by_sea, _ = places[0]
                    who = "all" if not navis else ", ".join(block_display(g.board, b, side) for b in mine if g.info(b).is_navis)
                    example = f"battle {loc}: retreat round 3 when weaker {who} -> {'sea ' if by_sea else ''}{to}"
        regroup = sorted(n for n, _ in g.board.neighbors_by_road(loc) if g.control(n, side) in (Control.FRIENDLY, Control.VACANT))
        if regroup:
            parts.append(Phrase(N_("regroup to %(places)s"), places=", ".join(regroup)))
        lines.append(Phrase("%(loc)s (%(blocks)s): %(where)s", loc=loc,
                            blocks=", ".join(block_display(g.board, b, side) for b in mine), where=joined(parts, "; ")))
    if not example:
        example = f"battle {locs[0]}: hits {block_display(g.board, g.blocks_at(locs[0], side)[0], side)}" if locs and g.blocks_at(locs[0], side) else "pass"
    return [
        (Phrase(N_("battle plans for %(n)s battle (all optional)") if len(locs) == 1
                else N_("battle plans for %(n)s battles (all optional)"), n=len(locs)), joined(lines, "\n")),
        _example(example, Phrase(N_("also: battle L: hits B, B / battle L: order B, B / regroup L: B -> L"))),
    ]
