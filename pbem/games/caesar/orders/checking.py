"""Checking a submission against the position as the submitting side sees it.

The orders are applied to a copy of the position, line by line; every problem
is collected with its line number (nothing stops at the first error), and the
messages come from the engine's rule checks, which read only what the side may
see (counts and control of enemy locations, never enemy identities).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pbem.core.phrase import N_, Phrase
from pbem.errors import IllegalChoiceError, PbemError
from pbem.games.caesar.orders.language import (
    ANSWER_TYPES,
    STANDING_TYPES,
    BattlesOrder,
    DeployOrder,
    DiscardCard,
    FireOrder,
    HitOrder,
    HitsPlan,
    JupiterOrder,
    LevyOrder,
    MainOrder,
    MoveOrder,
    NoEventOrder,
    OrderError,
    OrderLine,
    OrderPlan,
    PassBlockOrder,
    PassOrder,
    PlayCard,
    RegroupPlan,
    RetreatOrder,
    RetreatPlan,
    SeaOrder,
    StepOrder,
    SurpriseOrder,
    VulcanOrder,
    WinterNavis,
    block_from_display,
)
from pbem.games.caesar.orders.translate import (
    WINTER_ORDER_TYPES,
    answer_choice,
    command_choices,
    stage_passed,
)
from pbem.games.caesar.rules import battle as battle_mod
from pbem.games.caesar.rules.board import Side
from pbem.games.caesar.rules.cards import APOLLO, card_sort_key
from pbem.games.caesar.rules.choices import (
    DecisionKind,
    Deploy,
    Levy,
    LevyStep,
    Regroup,
)
from pbem.games.caesar.rules.state import CommandStage, Control
from pbem.games.caesar.steps.stepdefs import Step, StepKind, describe_decision

if TYPE_CHECKING:
    from pbem.games.caesar.steps.stepdefs import StepState



_STEP_ORDERS: dict[StepKind, tuple[type, ...]] = {
    StepKind.DEPLOYMENT: (DeployOrder,),
    StepKind.YEAR_START: (DiscardCard, PlayCard),
    StepKind.CARD: (PlayCard,),
    StepKind.COMMAND: (MoveOrder, SeaOrder, MainOrder, LevyOrder, StepOrder, JupiterOrder, VulcanOrder, NoEventOrder, SurpriseOrder, PassOrder),
    StepKind.BATTLES: (PassOrder,),
    StepKind.BATTLE: ANSWER_TYPES + (BattlesOrder, RegroupPlan, PassOrder),
    StepKind.WINTER: (PassOrder,),
}

_WHERE = {
    PlayCard: N_("the card step (or the year start)"),
    DiscardCard: N_("the year-start step"),
    DeployOrder: N_("the free-deployment step"),
    MoveOrder: N_("your command step"),
    SeaOrder: N_("your command step"),
    MainOrder: N_("your command step"),
    LevyOrder: N_("your command step"),
    StepOrder: N_("your command step"),
    JupiterOrder: N_("your command step with Jupiter"),
    VulcanOrder: N_("your command step with Vulcan"),
    NoEventOrder: N_("your command step with an event"),
    SurpriseOrder: N_("your command step with Mars or Neptune"),
    FireOrder: N_("an interactive battle step"),
    PassBlockOrder: N_("an interactive battle step"),
    RetreatOrder: N_("an interactive battle step"),
    HitOrder: N_("an interactive battle step"),
}


class Checker:
    """Checks a submission on a copy of the position, collecting every error."""

    def __init__(self, session: StepState, side: Side, step: Step) -> None:
        self.session = session
        self.side = side
        self.step = step
        self.errors: list[OrderError] = []
        self.unparsed: list[OrderError] = []

    def err(self, ln: OrderLine, msg: str) -> None:
        self.errors.append(OrderError(ln.lineno, ln.text, msg))

    def run(self, lines: list[OrderLine], unparsed: Sequence[OrderError] = ()) -> list[OrderError]:
        self.unparsed = list(unparsed)
        allowed = _STEP_ORDERS.get(self.step.kind, ()) + STANDING_TYPES
        direct: list[OrderLine] = []
        for ln in lines:
            if isinstance(ln.order, allowed):
                if not isinstance(ln.order, STANDING_TYPES) or self.step.kind is StepKind.BATTLE and isinstance(ln.order, (BattlesOrder, RegroupPlan)):
                    direct.append(ln)
            else:
                where = Phrase(_WHERE.get(type(ln.order), N_("another step")))
                self.err(ln, Phrase(N_("this is step %(step)s, %(title)s; this order belongs to %(where)s"),
                                    step=self.step.number, title=self.step.title, where=where))
        kind = self.step.kind
        if kind is StepKind.DEPLOYMENT:
            self.check_deploy(direct)
        elif kind is StepKind.YEAR_START:
            self.check_cards(direct, discard=True)
        elif kind is StepKind.CARD:
            self.check_cards(direct, discard=False)
        elif kind is StepKind.COMMAND:
            self.check_command(direct)
        elif kind is StepKind.BATTLE:
            self.check_answer(direct, lines)
        self.check_standing([ln for ln in lines if isinstance(ln.order, STANDING_TYPES)])
        return sorted(self.errors, key=lambda e: e.lineno)

    # -- cards
    def check_cards(self, lines: list[OrderLine], *, discard: bool) -> None:
        g = self.session.game
        hand = list(g.state.hands[self.side])
        plays = [ln for ln in lines if isinstance(ln.order, PlayCard)]
        discards = [ln for ln in lines if isinstance(ln.order, DiscardCard)]
        shown = ", ".join(sorted(hand, key=card_sort_key))
        if discard:
            if len(discards) != 1:
                for ln in discards[1:]:
                    self.err(ln, "discard exactly one card")
                if not discards:
                    self.errors.append(OrderError(0, "", f"no 'discard CARD' line: discard one of {shown}"))
            for ln in discards[:1]:
                assert isinstance(ln.order, DiscardCard)
                if ln.order.card not in hand:
                    self.err(ln, f"{ln.order.card} is not in your hand; you hold {shown}")
                else:
                    hand.remove(ln.order.card)
        if len(plays) != 1:
            for ln in plays[1:]:
                self.err(ln, "play exactly one card")
            if not plays:
                self.errors.append(OrderError(0, "", f"no 'play CARD' line: play one of {', '.join(sorted(hand, key=card_sort_key))}"))
        for ln in plays[:1]:
            assert isinstance(ln.order, PlayCard)
            card = ln.order.card
            if card not in hand:
                extra = " (it is the card you discard)" if discard and discards and card == discards[0].order.card else ""  # type: ignore[union-attr]
                self.err(ln, f"{card} is not in your hand{extra}; you can play {', '.join(sorted(hand, key=card_sort_key))}")
            elif card == APOLLO and (discard or g.state.turn == 1):
                self.err(ln, "Apollo cannot be played on the first game turn of a Year: there is no card to copy (C2)")

    # -- deployment
    def check_deploy(self, lines: list[OrderLine]) -> None:
        g = self.session.game
        if not lines:
            return
        placement = []
        first_line: dict[str, int] = {}
        for ln in lines:
            assert isinstance(ln.order, DeployOrder)
            loc = ln.order.location
            if loc in first_line:
                self.err(ln, f"{loc} is deployed twice (lines {first_line[loc]} and {ln.lineno}): one line per city")
                return
            first_line[loc] = ln.lineno
            placement.append((loc, tuple(block_from_display(g.board, b, self.side) for b in ln.order.blocks)))
        try:
            g.check(self.side, Deploy(tuple(placement)))
        except IllegalChoiceError as exc:
            self.err(lines[0], str(exc))

    # -- command
    def check_command(self, lines: list[OrderLine]) -> None:
        trial = self.session.game.copy()
        card = trial.state.command.card if trial.state.command else "?"
        lp = trial.state.command.lp if trial.state.command else 0
        for ln, choices in command_choices(trial, self.side, lines, self.err):
            for ch in choices:
                if stage_passed(trial, self.side, ch):
                    continue
                c = trial.state.command
                if isinstance(ch, (Levy, LevyStep)) and (c is None or c.side is not self.side):
                    self.err(ln, f"no Levy Points left: {card} gives {lp} and they are all used (6.4)")
                    break
                try:
                    trial.apply(self.side, ch)
                except PbemError as exc:
                    self.err(ln, str(exc))
                    break

        self._move_points(lines)

    def _move_points(self, lines: list[OrderLine]) -> None:
        """"No Move Points left" for every move line past the card's MP, counted over the lines as
        written, so it shows together with the other errors: a line refused for another reason, or
        one that did not parse but names its origin, still uses the activation it asks for (6.1)."""
        c = self.session.game.state.command
        if c is None or c.event or c.stage is not CommandStage.MOVES:
            return
        said = {(e.lineno, "Move Points" in e.message) for e in self.errors + self.unparsed}
        entries: list[tuple[int, int, str, int]] = []  # (rule order, line, origin, amphibious blocks)
        for ln in lines:
            if isinstance(ln.order, SeaOrder):
                entries.append((0, ln.lineno, ln.order.path[0], len(ln.order.blocks)))
            elif isinstance(ln.order, MoveOrder):
                entries.append((1, ln.lineno, ln.order.path[0], 0))
        for e in self.unparsed:
            if e.origin is not None:
                entries.append((0 if e.text.lower().startswith("sea") else 1, e.lineno, e.origin, 1 if e.text.lower().startswith("sea") else 0))
        mp, activated = c.mp, list(c.activated)
        texts = {ln.lineno: ln.text for ln in lines} | {e.lineno: e.text for e in self.unparsed}
        for _, lineno, origin, amphibious in sorted(entries):
            if amphibious:
                mp -= amphibious
                if mp < 0 and (lineno, True) not in said:
                    self.errors.append(OrderError(lineno, texts[lineno], "no Move Points left: an amphibious move costs 1 MP per block (6.3)"))
                    said.add((lineno, True))
                continue
            if origin in activated:
                continue
            if mp > 0:
                mp -= 1
                activated.append(origin)
            elif (lineno, True) not in said:
                self.errors.append(OrderError(
                    lineno, texts[lineno],
                    f"no Move Points left to activate {origin}: all {len(activated)} were used ({', '.join(activated)}) (6.1)"))
                said.add((lineno, True))

    # -- interactive battle answers
    def check_answer(self, lines: list[OrderLine], all_lines: list[OrderLine]) -> None:
        d = self.step.decision
        assert d is not None
        g = self.session.game.copy()
        answers = [ln for ln in lines if not isinstance(ln.order, PassOrder)]
        if d.kind is DecisionKind.REGROUP:
            for ln in answers:
                if not isinstance(ln.order, RegroupPlan) or ln.order.location != d.location:
                    self.err(ln, f"answer with 'regroup {d.location}: BLOCK -> DESTINATION' lines, or 'pass'")
                    continue
                for b in ln.order.blocks:
                    try:
                        g.apply(self.side, Regroup(block_from_display(g.board, b, self.side), ln.order.to))
                    except PbemError as exc:
                        self.err(ln, str(exc))
            return
        if len(answers) != 1:
            self.errors.append(OrderError(0, "", f"send exactly one answer to: {describe_decision(g, d)}"))
            return
        ln = answers[0]
        ch = answer_choice(g, self.side, d, ln.order)
        if ch is None:
            self.err(ln, f"this does not answer: {describe_decision(g, d)}")
            return
        try:
            g.check(self.side, ch)
        except PbemError as exc:
            self.err(ln, str(exc))

    # -- plans and winter orders
    def check_standing(self, lines: list[OrderLine]) -> None:
        g = self.session.game
        board = g.board
        battles = set(g.state.contests)
        if g.state.battle:
            battles.add(g.state.battle.loc)
        in_battle_step = self.step.kind in (StepKind.BATTLES, StepKind.BATTLE)
        for ln in lines:
            o = ln.order
            if isinstance(o, WINTER_ORDER_TYPES):
                self._check_winter(ln)
                continue
            if not in_battle_step:
                self.err(ln, f"battle plans are sent in the battles step; this is step {self.step.number}, {self.step.title}")
                continue
            if isinstance(o, BattlesOrder):
                if self.side is not g.state.player1:
                    self.err(ln, "only Player 1 chooses the order of battles (7.1)")
                for where in o.locations:
                    if where not in battles:
                        self.err(ln, f"there is no battle at {where}; battles: {', '.join(sorted(battles)) or 'none'}")
                continue
            assert isinstance(o, (RetreatPlan, HitsPlan, OrderPlan, RegroupPlan))
            loc = o.location
            if loc not in battles:
                self.err(ln, f"there is no battle at {loc}; battles: {', '.join(sorted(battles)) or 'none'}")
                continue
            for name in getattr(o, "blocks", ()):
                bid = block_from_display(board, name, self.side)
                b = g.state.blocks.get(bid)
                if b is None or b.side is not self.side or b.loc != loc:
                    mine = ", ".join(g.label(x, self.side) for x in g.blocks_at(loc, self.side)) or "none"
                    why = g.not_yours(bid, self.side) if b is None or b.side is not self.side else (
                        f"{name} is not in the battle of {loc}")
                    self.err(ln, f"{why}; your blocks in the battle of {loc}: {mine}")
            if isinstance(o, RetreatPlan):
                if o.by_sea:
                    reach = {p for s in board.seas_of(loc) for p in board.ports_of(s)} - {loc}
                    if o.to not in reach:
                        self.err(ln, f"{o.to} is not a port on a sea next to {loc}; by sea you could reach {', '.join(sorted(reach)) or 'nothing'}")
                else:
                    near = {n for n, _ in board.neighbors_by_road(loc)} | set(board.seas_of(loc)) | (set(board.ports_of(loc)) if board.is_sea(loc) else set())
                    if o.to not in near:
                        self.err(ln, f"{o.to} is not next to {loc}; retreats go to {', '.join(sorted(near))}")
            if isinstance(o, RegroupPlan):
                near = {n for n, _ in board.neighbors_by_road(loc)} | set(board.seas_of(loc)) | (set(board.ports_of(loc)) if board.is_sea(loc) else set())
                if o.to not in near:
                    self.err(ln, f"{o.to} is not next to {loc}; regroups go to {', '.join(sorted(near))}")

    def _check_winter(self, ln: OrderLine) -> None:
        g = self.session.game
        o = ln.order
        names = (o.block,) if isinstance(o, WinterNavis) else o.blocks  # type: ignore[union-attr]
        for name in names:
            bid = block_from_display(g.board, name, self.side)
            b = g.state.blocks.get(bid)
            if name == "Cleopatra":
                self.err(ln, "Cleopatra cannot be disbanded or sent to port (8.5)")
            elif b is None:
                self.err(ln, f"unknown block {name}")
        if isinstance(o, WinterNavis):
            bid = block_from_display(g.board, o.block, self.side)
            if not g.info(bid).is_navis:
                self.err(ln, f"{o.block} is not a Navis")
            elif not g.board.spaces[o.port].is_port:
                self.err(ln, f"{o.port} is not a port")


def plan_warnings(session: StepState, side: Side, lines: list[OrderLine]) -> list[OrderError]:
    """Battle plans that can never be carried out, by ``side``'s own knowledge: a retreat or a
    regroup into a place the enemy holds (control is public; nothing hidden is used). The
    submission is accepted; the warnings go back with the receipt and the reply."""
    g = session.game
    out: list[OrderError] = []
    for ln in lines:
        o = ln.order
        if not isinstance(o, (RetreatPlan, RegroupPlan)):
            continue
        loc = o.location
        if loc not in g.state.contests and not (g.state.battle and g.state.battle.loc == loc):
            continue  # refused by the checker already
        if g.control(o.to, side) is not Control.ENEMY:
            continue
        what = "retreat" if isinstance(o, RetreatPlan) else "regroup"
        rule = "7.6" if what == "retreat" else "7.7"
        attacking = g.state.contests[loc].attacker is side if loc in g.state.contests else False
        if what == "retreat":
            places = battle_mod.retreat_places(g, loc, side, attacking=attacking, navis=False)
            navis = battle_mod.retreat_places(g, loc, side, attacking=attacking, navis=True)
            others = sorted({("sea " if by_sea else "") + p for p, by_sea, _ in places + navis})
        else:
            others = sorted(n for n, _ in g.board.neighbors_by_road(loc) if g.control(n, side) in (Control.FRIENDLY, Control.VACANT))
        if what == "retreat":
            msg = (N_("warning: %(to)s is held by %(enemy)s, so this retreat can never be carried out (%(rule)s); from "
                      "%(loc)s you could retreat to %(places)s") if others else
                   N_("warning: %(to)s is held by %(enemy)s, so this retreat can never be carried out (%(rule)s); from "
                      "%(loc)s there is nowhere to retreat now"))
        else:
            msg = (N_("warning: %(to)s is held by %(enemy)s, so this regroup can never be carried out (%(rule)s); from "
                      "%(loc)s you could regroup to %(places)s") if others else
                   N_("warning: %(to)s is held by %(enemy)s, so this regroup can never be carried out (%(rule)s); from "
                      "%(loc)s there is nowhere to regroup now"))
        out.append(OrderError(ln.lineno, ln.text, Phrase(msg, to=o.to, enemy=Phrase(side.enemy.value), rule=rule, loc=loc,
                                                         places=", ".join(others))))
    return out
