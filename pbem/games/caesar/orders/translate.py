"""From orders to engine choices: the rule order of a command, battle answers, block names.

Used both when checking a submission and when resolving it, so the two can
never disagree about what an order means.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from pbem.games.caesar.orders.language import (
    BattlesOrder,
    DiscardCard,
    FireOrder,
    HitOrder,
    JupiterOrder,
    LevyOrder,
    MainOrder,
    MoveOrder,
    NoEventOrder,
    Order,
    OrderLine,
    PassBlockOrder,
    PassOrder,
    PlayCard,
    RegroupPlan,
    RetreatOrder,
    SeaOrder,
    StepOrder,
    SurpriseOrder,
    VulcanOrder,
    WinterDisband,
    WinterNavis,
    block_display,
    block_from_display,
)
from pbem.games.caesar.rules.board import Side
from pbem.games.caesar.rules.choices import (
    Action,
    BattleAction,
    Choice,
    Decision,
    DecisionKind,
    Disband,
    Discard,
    EndLevies,
    EndMoves,
    Jupiter,
    Levy,
    LevyStep,
    MainAttack,
    Move,
    NavisToPort,
    NextBattle,
    NoEvent,
    Play,
    Regroup,
    SeaMove,
    Surprise,
    TakeHit,
    Vulcan,
)
from pbem.games.caesar.rules.game import Game
from pbem.games.caesar.rules.state import CommandStage

WINTER_ORDER_TYPES = (WinterNavis, WinterDisband)


def block_ids(g: Game, side: Side, names: Iterable[str]) -> list[str]:
    return [block_from_display(g.board, n, side) for n in names]


def command_choices(
    g: Game, side: Side, lines: list[OrderLine], err: Callable[[OrderLine, str], None]
) -> list[tuple[OrderLine, list[Choice]]]:
    """The engine choices for a command submission, in rule order:
    event target, amphibious moves, moves and main attacks (as listed), end of
    moves, surprise battle, levies (as listed), end of levies."""
    c = g.state.command
    assert c is not None
    out: list[tuple[OrderLine, list[Choice]]] = []
    targets = [ln for ln in lines if isinstance(ln.order, (JupiterOrder, VulcanOrder, NoEventOrder))]
    seas = [ln for ln in lines if isinstance(ln.order, SeaOrder)]
    moves = [ln for ln in lines if isinstance(ln.order, (MoveOrder, MainOrder))]
    surprise = [ln for ln in lines if isinstance(ln.order, SurpriseOrder)]
    levies = [ln for ln in lines if isinstance(ln.order, (LevyOrder, StepOrder))]
    if c.stage is CommandStage.EVENT:
        for ln in targets[1:]:
            err(ln, "one event order only")
        for ln in targets[:1]:
            o = ln.order
            if isinstance(o, JupiterOrder):
                out.append((ln, [Jupiter(o.target, o.cleopatra, o.to)]))
            elif isinstance(o, VulcanOrder):
                out.append((ln, [Vulcan(o.target)]))
            else:
                out.append((ln, [NoEvent()]))
        for ln in seas + moves + surprise + levies:
            err(ln, f"{c.event} is your whole command this turn: no moves or levies (E1, E2)")
        return out
    for ln in targets:
        kind = {JupiterOrder: "Jupiter", VulcanOrder: "Vulcan"}.get(type(ln.order))
        what = f"'{ln.text.split()[0]}' is the order of the {kind} event" if kind else "'no event' is for an event card"
        if c.event:
            err(ln, f"{what}; your card is {c.event}: one group move (E3-E6)")
        else:
            err(ln, f"{what}; your card is {c.card} ({c.mp} Moves, {c.lp} Levies): send moves and levies")
    for ln in seas:
        o = ln.order
        assert isinstance(o, SeaOrder)
        out.append((ln, [SeaMove(b, o.path) for b in block_ids(g, side, o.blocks)]))
    for ln in moves:
        o = ln.order
        if isinstance(o, MainOrder):
            out.append((ln, [MainAttack(o.location, o.origin)]))
        else:
            assert isinstance(o, MoveOrder)
            out.append((ln, [Move(b, o.path) for b in block_ids(g, side, o.blocks)]))
    end_line = OrderLine(0, "", PassOrder())
    out.append((end_line, [EndMoves()]))
    if c.event in ("Mars", "Neptune"):
        for ln in surprise[1:]:
            err(ln, "one surprise battle only")
        for ln in surprise[:1]:
            assert isinstance(ln.order, SurpriseOrder)
            out.append((ln, [Surprise(ln.order.location)]))
    else:
        for ln in surprise:
            err(ln, "only Mars and Neptune make a surprise battle (E3, E4)")
    if c.event:
        for ln in levies:
            err(ln, f"an event card gives no levies ({c.event})")
        return out
    for ln in levies:
        o = ln.order
        if isinstance(o, StepOrder):
            out.append((ln, [LevyStep(block_from_display(g.board, o.block, side))]))
        else:
            assert isinstance(o, LevyOrder)
            bid = block_from_display(g.board, o.block, side)
            city = o.city or g.info(bid).levy_city
            if city is None:
                err(ln, f"say where: 'levy {o.block} at CITY' ({o.block} can be raised in any Friendly city)")
                continue
            out.append((ln, [Levy(bid, city)]))
    out.append((end_line, [EndLevies()]))
    return out


def stage_passed(g: Game, side: Side, ch: Choice) -> bool:
    """An end-of-stage choice the engine already took by itself (no Move or Levy Points left)."""
    if not isinstance(ch, (EndMoves, EndLevies)):
        return False
    c = g.state.command
    if c is None or c.side is not side:
        return True
    return c.stage is not (CommandStage.MOVES if isinstance(ch, EndMoves) else CommandStage.LEVIES)


def answer_choice(g: Game, side: Side, d: Decision, o: Order) -> Choice | None:
    if d.kind is DecisionKind.BATTLE_TURN:
        if isinstance(o, FireOrder):
            return BattleAction(block_from_display(g.board, o.block, side), Action.FIRE)
        if isinstance(o, PassBlockOrder):
            return BattleAction(block_from_display(g.board, o.block, side), Action.PASS)
        if isinstance(o, RetreatOrder):
            return BattleAction(block_from_display(g.board, o.block, side), Action.RETREAT, o.to, o.by_sea)
    if d.kind is DecisionKind.HIT and isinstance(o, HitOrder):
        return TakeHit(block_from_display(g.board, o.block, side))
    if d.kind is DecisionKind.BATTLE_ORDER and isinstance(o, BattlesOrder) and o.locations:
        return NextBattle(o.locations[0])
    return None


def order_for(g: Game, side: Side, ch: Choice) -> Order | None:
    """The order that says ``ch`` in the order language (None for the ends of stages, which go unsaid).

    The inverse of :func:`command_choices` and :func:`answer_choice`: ``str()`` of the result is
    the canonical line, so hints and sample games write exactly what the parser reads back.
    """
    def name(bid: str) -> str:
        return block_display(g.board, bid, side)

    if isinstance(ch, Discard):
        return DiscardCard(ch.card)
    if isinstance(ch, Play):
        return PlayCard(ch.card)
    if isinstance(ch, Move):
        return MoveOrder(ch.path, (name(ch.block),))
    if isinstance(ch, SeaMove):
        return SeaOrder(ch.path, (name(ch.block),))
    if isinstance(ch, MainAttack):
        return MainOrder(ch.location, ch.origin)
    if isinstance(ch, Levy):
        return LevyOrder(name(ch.block), ch.city)
    if isinstance(ch, LevyStep):
        return StepOrder(name(ch.block))
    if isinstance(ch, Jupiter):
        return JupiterOrder(ch.target, ch.cleopatra, ch.to)
    if isinstance(ch, Vulcan):
        return VulcanOrder(ch.target)
    if isinstance(ch, NoEvent):
        return NoEventOrder()
    if isinstance(ch, Surprise):
        return SurpriseOrder(ch.location)
    if isinstance(ch, BattleAction):
        if ch.action is Action.FIRE:
            return FireOrder(name(ch.block))
        if ch.action is Action.PASS:
            return PassBlockOrder(name(ch.block))
        return RetreatOrder(name(ch.block), ch.to or "", ch.by_sea)
    if isinstance(ch, TakeHit):
        return HitOrder(name(ch.block))
    if isinstance(ch, NextBattle):
        return BattlesOrder((ch.location,))
    if isinstance(ch, Regroup):
        loc = g.state.battle.loc if g.state.battle else ""
        return RegroupPlan(loc, (name(ch.block),), ch.to)
    if isinstance(ch, NavisToPort):
        return WinterNavis(name(ch.block), ch.port)
    if isinstance(ch, Disband):
        return WinterDisband((name(ch.block),))
    return None
