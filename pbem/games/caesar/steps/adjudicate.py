"""Resolving a step: the orders, then the standing plans, then the published defaults.

:class:`Runner` applies a step's orders to the position and answers every
decision that is not a player's step (battles once the plans are in, winter
once collected) from the side's plans, or else by the default of
:data:`pbem.games.caesar.steps.stepdefs.DEFAULTS`, emitting a ``default`` event that names it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pbem.core.events import Event
from pbem.errors import PbemError
from pbem.games.caesar.orders.language import (
    ANSWER_TYPES,
    STANDING_TYPES,
    BattlesOrder,
    DeployOrder,
    DiscardCard,
    HitsPlan,
    Order,
    OrderLine,
    OrderPlan,
    PlayCard,
    RegroupPlan,
    RetreatPlan,
    WinterDisband,
    WinterNavis,
    block_from_display,
    parse_order,
)
from pbem.games.caesar.orders.translate import (
    WINTER_ORDER_TYPES,
    answer_choice,
    block_ids,
    command_choices,
    stage_passed,
)
from pbem.games.caesar.rules import battle as battle_mod
from pbem.games.caesar.rules.board import Side
from pbem.games.caesar.rules.cards import APOLLO
from pbem.games.caesar.rules.choices import (
    Action,
    Audience,
    BattleAction,
    Choice,
    Decision,
    DecisionKind,
    Deploy,
    Disband,
    Discard,
    EndDisband,
    EndLevies,
    EndMoves,
    EndRegroup,
    NavisToPort,
    NextBattle,
    NoEvent,
    Play,
    Regroup,
    Surprise,
    TakeHit,
)
from pbem.games.caesar.rules.game import Game
from pbem.games.caesar.rules.state import BattleStage, CommandStage, Phase
from pbem.games.caesar.steps.stepdefs import DEFAULTS, BattleMode, Step, StepKind

if TYPE_CHECKING:
    from pbem.games.caesar.steps.stepdefs import StepState



class Runner:
    """Applies a step's orders, then answers everything plans and defaults can answer."""

    def __init__(self, session: StepState, events: list[Event]) -> None:
        self.s = session
        self.events = events
        self._not_done: set[str] = set()

    @property
    def g(self) -> Game:
        return self.s.game

    def default(self, side: Side, key: str, text: str) -> None:
        self.events.append(Event("default", Audience.of(side), text, {"side": side.value, "default": key, "rule": DEFAULTS[key]}))

    def apply(self, side: Side, ch: Choice) -> None:
        self.events.extend(self.g.apply(side, ch))

    def apply_step(self, step: Step, subs: dict[Side, list[Order]], missing: list[Side]) -> None:
        g = self.g
        for side in Side:
            standing = [o for o in subs.get(side, []) if isinstance(o, STANDING_TYPES)]
            if any(isinstance(o, WINTER_ORDER_TYPES) for o in standing):
                self.s.winter[side] = [str(o) for o in standing if isinstance(o, WINTER_ORDER_TYPES)]
            plans = [str(o) for o in standing if not isinstance(o, WINTER_ORDER_TYPES)]
            if plans:
                self.s.plans[side] = self.s.plans.get(side, []) + plans if step.kind is StepKind.BATTLE else plans
        kind = step.kind
        if kind is StepKind.DEPLOYMENT:
            for side in Side:
                deploys = [o for o in subs.get(side, []) if isinstance(o, DeployOrder)]
                if deploys:
                    placement = tuple((o.location, tuple(block_ids(g, side, o.blocks))) for o in deploys)
                    self.apply(side, Deploy(placement))
                else:
                    self.default(side, "deploy", "historical deployment (default)")
                    self.apply(side, next(iter(g.legal(Decision(side, DecisionKind.DEPLOY)))))
        elif kind in (StepKind.YEAR_START, StepKind.CARD):
            if kind is StepKind.YEAR_START:
                for side in Side:
                    ds = [o for o in subs.get(side, []) if isinstance(o, DiscardCard)]
                    if ds:
                        self.apply(side, Discard(ds[0].card))
                    else:
                        card = default_card(g.state.hands[side], g.state.turn, for_discard=True)
                        self.default(side, "discard", f"{side} discards {card} (default)")
                        self.apply(side, Discard(card))
            for side in Side:
                ps = [o for o in subs.get(side, []) if isinstance(o, PlayCard)]
                if ps:
                    self.apply(side, Play(ps[0].card))
                else:
                    card = default_card(g.state.hands[side], g.state.turn, for_discard=False)
                    self.default(side, "play", f"{side} plays {card} (default)")
                    self.apply(side, Play(card))
        elif kind is StepKind.COMMAND:
            side = step.awaiting[0]
            lines = [OrderLine(i + 1, str(o), o) for i, o in enumerate(subs.get(side, []))]
            if side in missing:
                self.default(side, "moves", f"{side}: no orders by the deadline: no moves, no levies (default)")

            def fail(ln: OrderLine, msg: str) -> None:
                raise PbemError(f"an accepted order failed at resolution (a bug): {ln.text}: {msg}")

            for _line, choices in command_choices(g, side, lines, fail):
                for ch in choices:
                    if stage_passed(g, side, ch):
                        continue
                    self.apply(side, ch)
            self._finish_command(side)
        elif kind is StepKind.BATTLES:
            self.s.collected["battles"] = self.s._turn_key()
        elif kind is StepKind.BATTLE:
            side = step.awaiting[0]
            d = step.decision
            assert d is not None
            answers = [o for o in subs.get(side, []) if isinstance(o, ANSWER_TYPES + (BattlesOrder, RegroupPlan))]
            if d.kind is DecisionKind.REGROUP:
                for o in answers:
                    if isinstance(o, RegroupPlan):
                        for bid in block_ids(g, side, o.blocks):
                            self.apply(side, Regroup(bid, o.to))
                if g.state.battle and g.state.battle.stage is BattleStage.REGROUP:
                    self.apply(side, EndRegroup())
            else:
                given = answer_choice(g, side, d, answers[0]) if answers else None
                ch = given if given is not None else self.answer(d, {})
                self.apply(side, ch)
        elif kind is StepKind.WINTER:
            self.s.collected["winter"] = str(g.state.year)

    def _finish_command(self, side: Side) -> None:
        """Close whatever is left of the command: event without target, surprise, levies."""
        g = self.g
        for _ in range(10):
            c = g.state.command
            if c is None or c.side is not side:
                return
            if c.stage is CommandStage.EVENT:
                self.default(side, "event", f"{side} makes no use of {c.event} (default)")
                self.apply(side, NoEvent())
            elif c.stage is CommandStage.MOVES:
                self.apply(side, EndMoves())
            elif c.stage is CommandStage.SURPRISE:
                self.apply(side, Surprise(None))
            elif c.stage is CommandStage.LEVIES:
                self.apply(side, EndLevies())

    def settle(self) -> None:
        """Answer every decision that is not a player's step (battles once plans are in; winter once collected)."""
        for _ in range(100_000):
            step = self.s.step()
            g = self.g
            pend = g.pending()
            if not pend:
                return
            d = pend[0]
            if step.kind is StepKind.BATTLE:
                if self.s.settings.battles is BattleMode.INTERACTIVE and not self.covered(d):
                    return
                self.apply(d.side, self.answer(d, self._plans(d.side)))
                continue
            if step.kind is StepKind.OVER and g.state.phase is Phase.WINTER:
                self.apply(d.side, self.answer(d, {}))
                continue
            if step.kind is StepKind.WINTER and not step.awaiting:
                self.s.collected["winter"] = str(g.state.year)
                continue
            return
        raise PbemError("the step did not settle (a bug)")

    # ---- plans and defaults ------------------------------------------------
    def _plans(self, side: Side) -> dict[str, list[Order]]:
        out: dict[str, list[Order]] = {}
        for t in self.s.plans.get(side, []):
            o = parse_order(t, side, self.g.board)
            out.setdefault(getattr(o, "location", "*"), []).append(o)
        return out

    def covered(self, d: Decision) -> bool:
        """In interactive mode: does the side's plan answer this decision explicitly?"""
        plans = self._plans(d.side)
        if d.kind is DecisionKind.BATTLE_ORDER:
            listed = [loc for o in plans.get("*", []) if isinstance(o, BattlesOrder) for loc in o.locations]
            return any(loc in d.get("battles", ()) for loc in listed)
        if d.kind is DecisionKind.HIT:
            names = [n for o in plans.get(d.location or "", []) if isinstance(o, HitsPlan) for n in o.blocks]
            return any(block_from_display(self.g.board, n, d.side) in d.get("blocks", ()) for n in names)
        if d.kind is DecisionKind.REGROUP:
            return any(isinstance(o, RegroupPlan) for o in plans.get(d.location or "", []))
        if d.kind is DecisionKind.BATTLE_TURN:
            return self._planned_retreat(d, plans) is not None
        return True

    def _planned_retreat(self, d: Decision, plans: dict[str, list[Order]], *, report: bool = False) -> BattleAction | None:
        g = self.g
        bs = g.state.battle
        assert bs is not None
        for bid in self._turn_order(d, plans):
            for o in plans.get(d.location or "", []):
                if not isinstance(o, RetreatPlan):
                    continue
                if o.blocks and bid not in block_ids(g, d.side, o.blocks):
                    continue
                if o.round is not None and bs.round < o.round:
                    continue
                if o.when_weaker and not _weaker(g, d.side):
                    continue
                ch = BattleAction(bid, Action.RETREAT, o.to, o.by_sea)
                opts = battle_mod.retreat_options(g, bid)
                if ch in opts:
                    return ch
                if report:
                    where = ", ".join(("sea " if x.by_sea else "") + (x.to or "") for x in opts) or "nowhere"
                    self.plan_not_done(d.side, o, bid, f"it cannot retreat to {'sea ' if o.by_sea else ''}{o.to} "
                                                       f"(it could retreat to {where})")
        return None

    def plan_not_done(self, side: Side, plan: Order, bid: str, why: str) -> None:
        """Say in the side's report that a plan line was not carried out for one block (once per
        battle, block and line), naming the line: nothing of a plan is skipped silently."""
        key = f"{self.g.state.year}/{self.g.state.turn}|{getattr(plan, 'location', '')}|{bid}|{plan}"
        if key in self._not_done:
            return
        self._not_done.add(key)
        self.default(side, "plan-not-done", f"{getattr(plan, 'location', '')}: the plan line '{plan}' is not carried out "
                                             f"for {self.g.label(bid)}: {why}")

    def _turn_order(self, d: Decision, plans: dict[str, list[Order]]) -> list[str]:
        blocks = list(d.get("blocks", ()))
        first: list[str] = []
        for o in plans.get(d.location or "", []):
            if isinstance(o, OrderPlan):
                first.extend(b for b in block_ids(self.g, d.side, o.blocks) if b in blocks and b not in first)
        rest = sorted((b for b in blocks if b not in first), key=lambda b: self.g.label(b))
        return first + rest

    def answer(self, d: Decision, plans: dict[str, list[Order]]) -> Choice:
        """The plan's answer to ``d``, else the published default (and say so)."""
        g = self.g
        side = d.side
        k = d.kind
        if k is DecisionKind.BATTLE_ORDER:
            rem = list(d.get("battles", ()))
            for o in plans.get("*", []):
                if isinstance(o, BattlesOrder):
                    for loc in o.locations:
                        if loc in rem:
                            return NextBattle(loc)
            self.default(side, "battle-order", f"{side} fights {rem[0]} next (default: alphabetical)")
            return NextBattle(rem[0])
        if k is DecisionKind.BATTLE_TURN:
            bs = g.state.battle
            assert bs is not None
            planned = self._planned_retreat(d, plans, report=True)
            if planned:
                return planned
            order = self._turn_order(d, plans)
            bid = order[0]
            opts = battle_mod.turn_options(g, bid)
            if bs.round == battle_mod.LAST_ROUND and side is bs.attacker:
                dest = sorted(opts, key=lambda o: (o.by_sea, o.to or ""))[0]
                self.default(side, "forced-retreat", f"{g.label(bid)} must retreat from {d.location}: to {dest.to}{' by sea' if dest.by_sea else ''} (default)")
                return dest
            fire = BattleAction(bid, Action.FIRE)
            if fire in opts:
                return fire
            return BattleAction(bid, Action.PASS)
        if k is DecisionKind.HIT:
            cands = list(d.get("blocks", ()))
            for o in plans.get(d.location or "", []):
                if isinstance(o, HitsPlan):
                    for b in block_ids(g, side, o.blocks):
                        if b in cands:
                            return TakeHit(b)

            def weight(b: str) -> tuple[int, int, str]:
                info = g.info(b)
                return (1 if info.is_leader else 0, max(info.attack.fire, info.defend.fire), g.label(b))

            pick = sorted(cands, key=weight)[0]
            self.default(side, "hit", f"the hit at {d.location} goes to {g.label(pick)} (default among {', '.join(g.label(b) for b in cands)})")
            return TakeHit(pick)
        if k is DecisionKind.REGROUP:
            bs = g.state.battle
            assert bs is not None
            regroups = battle_mod.regroup_options(g, side)
            for o in plans.get(d.location or "", []):
                if isinstance(o, RegroupPlan):
                    for b in block_ids(g, side, o.blocks):
                        ch = Regroup(b, o.to)
                        if ch in regroups:
                            return ch
                        if g.state.blocks[b].loc == d.location and b not in bs.regrouped:
                            where = ", ".join(r.to for r in regroups if r.block == b) or "nowhere"
                            self.plan_not_done(side, o, b, f"it cannot regroup to {o.to} (it could regroup to {where})")
            return EndRegroup()
        if k is DecisionKind.WINTER_NAVIS:
            ports = list(d.get("ports", ()))
            for t in self.s.winter.get(side, []):
                o = parse_order(t, side, g.board)
                if isinstance(o, WinterNavis) and block_from_display(g.board, o.block, side) == d.block and o.port in ports:
                    return NavisToPort(d.block or "", o.port)
            self.default(side, "winter-navis", f"{g.label(d.block or '')} winters in {ports[0]} (default)")
            return NavisToPort(d.block or "", ports[0])
        if k is DecisionKind.WINTER_SUPPLY:
            cands = [ch.block for ch in g.legal(d) if isinstance(ch, Disband)]
            for t in self.s.winter.get(side, []):
                o = parse_order(t, side, g.board)
                if isinstance(o, WinterDisband):
                    for b in block_ids(g, side, o.blocks):
                        if b in cands:
                            return Disband(b)
            pick = sorted(cands, key=lambda b: (g.state.blocks[b].strength, g.label(b)))[0]
            self.default(side, "winter-supply", f"{d.location} is over its supply limit: {g.label(pick)} is disbanded (default: the weakest)")
            return Disband(pick)
        if k is DecisionKind.WINTER_DISBAND:
            for t in self.s.winter.get(side, []):
                o = parse_order(t, side, g.board)
                if isinstance(o, WinterDisband):
                    for b in block_ids(g, side, o.blocks):
                        st = g.state.blocks.get(b)
                        if st and st.side is side and st.loc is not None:
                            return Disband(b)
            return EndDisband()
        raise PbemError(f"no default for a {k.value} decision outside its step")


def _weaker(g: Game, side: Side) -> bool:
    """The retreat condition 'when weaker': our steps in the battle are fewer than the enemy's."""
    bs = g.state.battle
    assert bs is not None

    def steps(s: Side) -> int:
        return sum(g.state.blocks[b].strength for b in g.blocks_at(bs.loc, s) if b not in bs.reserves)

    return steps(side) < steps(side.enemy)


def default_card(hand: Sequence[str], turn: int, *, for_discard: bool) -> str:
    """RULINGS P2 / deadlines: the lowest-Moves command card, fewest Levies on a tie."""
    commands = sorted((c for c in hand if "/" in c), key=lambda c: (int(c.split("/")[0]), int(c.split("/")[1])))
    if commands:
        return commands[0]
    events = sorted(c for c in hand if for_discard or not (c == APOLLO and turn == 1))
    return events[0]
