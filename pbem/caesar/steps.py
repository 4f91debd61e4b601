"""Play-by-email steps over the engine: what each side must send, checking a
submission, and resolving a step with orders, standing plans and published defaults.

A :class:`Session` is the whole adjudication state of one game (the engine
position, options, the step number, sealed submissions waiting for the other
side, standing battle plans and winter orders). It is pure and JSON-serialisable;
the store persists it after every change.

Step kinds (DESIGN "The turn cycle as steps"): deployment, year start (discard +
play), card, command (one side), battles (both: plans, Player 1 also the order of
battles), battle (option ``battles=interactive``: one open battle decision),
winter (sides with a forced choice). Anything the orders and plans leave open is
taken by a published default (RULINGS P2; :data:`DEFAULTS`), named in the
side's report as an event of kind ``default``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Callable, Iterable, Sequence

from pbem.caesar import battle as battle_mod
from pbem.caesar import winter as winter_mod
from pbem.caesar.board import Side
from pbem.caesar.cards import APOLLO, card_sort_key
from pbem.caesar.choices import (
    SEALED,
    Action,
    Audience,
    BattleAction,
    Choice,
    Decision,
    DecisionKind,
    Deploy,
    Discard,
    Disband,
    EndDisband,
    EndLevies,
    EndMoves,
    EndRegroup,
    Event,
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
from pbem.caesar.game import Game
from pbem.caesar.orders import (
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
    Order,
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
    WinterDisband,
    WinterNavis,
    block_display,
    block_from_display,
    parse_order,
    parse_orders,
)
from pbem.caesar.state import BattleStage, CommandStage, Phase
from pbem.errors import IllegalChoiceError, PbemError


class StepKind(str, Enum):
    DEPLOYMENT = "deployment"
    YEAR_START = "year-start"
    CARD = "card"
    COMMAND = "command"
    BATTLES = "battles"
    BATTLE = "battle"  # interactive: one battle decision
    WINTER = "winter"
    OVER = "over"


class BattleMode(str, Enum):
    PLANNED = "planned"
    INTERACTIVE = "interactive"


#: The published defaults (RULINGS P2), quoted in the README and in reports.
DEFAULTS: dict[str, str] = {
    "deploy": "free deployment not sent: the historical deployment (5.1)",
    "discard": "no discard sent: the lowest-Moves command card (fewest Levies on a tie) is discarded",
    "play": "no card sent: the lowest-Moves command card (fewest Levies on a tie) is played; an event only if the hand holds nothing else",
    "event": "no event orders: the event is not used",
    "moves": "no move orders: no moves",
    "levies": "no levy orders: no levies",
    "surprise": "no surprise order: no surprise battle",
    "battle-order": "battles not listed by Player 1 are fought in alphabetical order",
    "battle-turn": "a block retreats when a retreat plan applies and its destination is legal; otherwise it fires (passes with no target); blocks of the same letter act in the plan's 'order', then alphabetically",
    "forced-retreat": "an attacker that must retreat in Round 4 goes to its planned destination if legal, else to the first legal destination (by road before by sea, alphabetical)",
    "hit": "among equally strong blocks the hit goes to the first one in the plan's 'hits' list; else a non-leader before a leader, then the lowest firepower, then alphabetical",
    "regroup": "blocks regroup only as planned; otherwise they stay",
    "winter-navis": "a Navis at sea goes to its planned port if Friendly, else the first Friendly port on that sea alphabetically",
    "winter-supply": "surplus blocks are those named in 'winter: disband' first, then the weakest (alphabetical on a tie)",
    "winter-disband": "no voluntary disbands unless 'winter: disband' names them",
}


@dataclass(frozen=True)
class Step:
    number: int
    kind: StepKind
    awaiting: tuple[Side, ...]
    sealed: bool
    title: str
    decision: Decision | None = None

    def awaits(self, side: Side) -> bool:
        return side in self.awaiting


@dataclass(frozen=True)
class Settings:
    battles: BattleMode = BattleMode.PLANNED

    def to_json(self) -> dict[str, str]:
        return {"battles": self.battles.value}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Settings":
        return cls(BattleMode(d.get("battles", "planned")))


class SubmissionRejected(PbemError, ValueError):
    """A submission that is not accepted; ``errors`` lists every problem."""

    def __init__(self, errors: Sequence[OrderError]) -> None:
        self.errors = list(errors)
        super().__init__(
            f"{len(self.errors)} error(s); nothing was applied:\n" + "\n".join(f"- {e}" for e in self.errors)
        )


@dataclass
class Session:
    game: Game
    settings: Settings = field(default_factory=Settings)
    step_no: int = 1
    sealed: dict[Side, list[str]] = field(default_factory=dict)  # accepted, waiting for the step to resolve
    plans: dict[Side, list[str]] = field(default_factory=dict)  # battle plans of this game turn
    winter: dict[Side, list[str]] = field(default_factory=dict)  # winter orders of this Year
    collected: dict[str, str] = field(default_factory=dict)  # "battles"/"winter" -> "year/turn" collected

    # ---- serialisation -------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "position": self.game.to_json(),
            "settings": self.settings.to_json(),
            "step": self.step_no,
            "sealed": {s.value: v for s, v in sorted(self.sealed.items())},
            "plans": {s.value: v for s, v in sorted(self.plans.items())},
            "winter": {s.value: v for s, v in sorted(self.winter.items())},
            "collected": dict(sorted(self.collected.items())),
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Session":
        return cls(
            game=Game.from_json(d["position"]),
            settings=Settings.from_json(d.get("settings", {})),
            step_no=int(d.get("step", 1)),
            sealed={Side(k): list(v) for k, v in d.get("sealed", {}).items()},
            plans={Side(k): list(v) for k, v in d.get("plans", {}).items()},
            winter={Side(k): list(v) for k, v in d.get("winter", {}).items()},
            collected=dict(d.get("collected", {})),
        )

    def copy(self) -> "Session":
        return Session.from_json(self.to_json())

    # ---- where the game stands ----------------------------------------
    def _turn_key(self) -> str:
        st = self.game.state
        return f"{st.year}/{st.turn}"

    def step(self) -> Step:
        g = self.game
        st = g.state
        pend = g.pending()
        n = self.step_no
        when = f"{st.year}, turn {st.turn}"
        if st.phase is Phase.OVER or not pend:
            return Step(n, StepKind.OVER, (), False, "the game is over")
        kind = pend[0].kind
        if kind is DecisionKind.DEPLOY:
            return Step(n, StepKind.DEPLOYMENT, tuple(Side), True, "free deployment (5.3)")
        if kind is DecisionKind.DISCARD:
            return Step(n, StepKind.YEAR_START, tuple(Side), True, f"Year {st.year} starts: discard 1 card and play 1 card")
        if kind is DecisionKind.PLAY:
            return Step(n, StepKind.CARD, tuple(Side), True, f"{when}: play 1 card")
        if kind in (DecisionKind.EVENT_TARGET, DecisionKind.MOVES, DecisionKind.SURPRISE, DecisionKind.LEVIES):
            side = pend[0].side
            role = "Player 1" if side is st.player1 else "Player 2"
            c = st.command
            what = f"the {c.event} event" if c and c.event else f"{c.mp if c else 0} Moves, then {c.lp if c else 0} Levies"
            return Step(n, StepKind.COMMAND, (side,), False, f"{when}: command of {side} ({role}): {what}")
        if kind in (DecisionKind.BATTLE_ORDER, DecisionKind.BATTLE_TURN, DecisionKind.HIT, DecisionKind.REGROUP):
            if self.collected.get("battles") != self._turn_key():
                locs = sorted(st.contests)
                return Step(n, StepKind.BATTLES, tuple(Side), True, f"{when}: battle plans for {', '.join(locs)}")
            d = pend[0]
            return Step(n, StepKind.BATTLE, (d.side,), False, f"{when}: {describe_decision(g, d)}", d)
        # winter
        if self.collected.get("winter") != str(st.year):
            awaiting = winter_choosers(self)
            return Step(n, StepKind.WINTER, awaiting, True, f"winter of {st.year}: Navis to port, supply, disbands")
        return Step(n, StepKind.OVER, (), False, "winter is being resolved")

    # ---- checking ---------------------------------------------------------
    def check(self, side: Side, text: str) -> list[OrderLine]:
        """Parse and check a submission for the current step; raises :class:`SubmissionRejected`."""
        lines, errors = parse_orders(text, side, self.game.board)
        step = self.step()
        if not step.awaits(side):
            who = ", ".join(s.value for s in step.awaiting) or "nobody"
            raise SubmissionRejected(
                [OrderError(0, "", f"step {step.number} ({step.title}) waits for {who}, not {side}")]
            )
        found = _Checker(self, side, step).run(lines)
        if errors:
            # whole-submission complaints ("no play line") may just be a line that did not parse
            found = [e for e in found if e.lineno]
        errors = sorted(errors + found, key=lambda e: e.lineno)
        if errors:
            raise SubmissionRejected(errors)
        return lines

    # ---- submitting and resolving -----------------------------------------
    def submit(self, side: Side, text: str) -> list[Event]:
        """Accept a submission for the current step (a revision replaces the earlier one);
        resolve the step when everything awaited is in. Returns the events (empty when waiting)."""
        lines = self.check(side, text)
        self.sealed[side] = [str(ln.order) for ln in lines]
        step = self.step()
        if all(s in self.sealed for s in step.awaiting):
            return self.resolve()
        return []

    def resolve(self, *, deadline: bool = False) -> list[Event]:
        """Resolve the current step with what is in; missing sides get defaults (after a deadline)."""
        step = self.step()
        if step.kind is StepKind.OVER:
            return []
        missing = [s for s in step.awaiting if s not in self.sealed]
        if missing and not deadline:
            raise PbemError(f"step {step.number} still waits for {', '.join(s.value for s in missing)}")
        events: list[Event] = []
        if missing:
            events.append(
                Event(
                    "deadline",
                    Audience.ALL,
                    f"Step {step.number}: the deadline passed without orders from {', '.join(s.value for s in missing)}; defaults apply",
                    {"step": step.number, "missing": [s.value for s in missing]},
                )
            )
        subs = {s: [parse_order(t, s, self.game.board) for t in self.sealed.get(s, [])] for s in Side}
        self.sealed = {}
        runner = _Runner(self, events)
        runner.apply_step(step, subs, missing)
        runner.settle()
        self.step_no += 1
        return events


def describe_decision(g: Game, d: Decision) -> str:
    bs = g.state.battle
    if d.kind is DecisionKind.BATTLE_ORDER:
        return f"{d.side} chooses the next battle among {', '.join(d.get('battles', ()))}"
    if d.kind is DecisionKind.BATTLE_TURN and bs:
        names = " or ".join(g.describe(b) for b in d.get("blocks", ()))
        return f"battle of {d.location}, round {bs.round}: turn of {names}: fire, retreat or pass"
    if d.kind is DecisionKind.HIT:
        names = " or ".join(g.describe(b) for b in d.get("blocks", ()))
        return f"battle of {d.location}: a hit must go to {names}"
    if d.kind is DecisionKind.REGROUP:
        return f"battle of {d.location} won: regroup"
    return d.kind.value


def winter_choosers(session: Session) -> tuple[Side, ...]:
    """Sides that meet a real choice in this winter (Navis with two ports, surplus blocks)."""
    trial = session.copy()
    trial.collected["winter"] = str(trial.game.state.year)
    seen: set[Side] = set()
    g = trial.game
    for _ in range(500):
        pend = g.pending()
        if not pend or g.state.phase is not Phase.WINTER:
            break
        d = pend[0]
        if d.kind in (DecisionKind.WINTER_NAVIS, DecisionKind.WINTER_SUPPLY):
            seen.add(d.side)
        if d.kind is DecisionKind.WINTER_DISBAND:
            break
        g.apply(d.side, _Runner(trial, []).answer(d, {}))
    return tuple(s for s in Side if s in seen)


# ---- checking a submission --------------------------------------------------------


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
    PlayCard: "the card step (or the year start)",
    DiscardCard: "the year-start step",
    DeployOrder: "the free-deployment step",
    MoveOrder: "your command step",
    SeaOrder: "your command step",
    MainOrder: "your command step",
    LevyOrder: "your command step",
    StepOrder: "your command step",
    JupiterOrder: "your command step with Jupiter",
    VulcanOrder: "your command step with Vulcan",
    NoEventOrder: "your command step with an event",
    SurpriseOrder: "your command step with Mars or Neptune",
    FireOrder: "an interactive battle step",
    PassBlockOrder: "an interactive battle step",
    RetreatOrder: "an interactive battle step",
    HitOrder: "an interactive battle step",
}


class _Checker:
    """Checks a submission on a copy of the position, collecting every error."""

    def __init__(self, session: Session, side: Side, step: Step) -> None:
        self.session = session
        self.side = side
        self.step = step
        self.errors: list[OrderError] = []

    def err(self, ln: OrderLine, msg: str) -> None:
        self.errors.append(OrderError(ln.lineno, ln.text, msg))

    def run(self, lines: list[OrderLine]) -> list[OrderError]:
        allowed = _STEP_ORDERS.get(self.step.kind, ()) + STANDING_TYPES
        direct: list[OrderLine] = []
        for ln in lines:
            if isinstance(ln.order, allowed):
                if not isinstance(ln.order, STANDING_TYPES) or self.step.kind is StepKind.BATTLE and isinstance(ln.order, (BattlesOrder, RegroupPlan)):
                    direct.append(ln)
            else:
                where = _WHERE.get(type(ln.order), "another step")
                self.err(ln, f"this is step {self.step.number}, {self.step.title}; this order belongs to {where}")
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
        for ln in lines:
            assert isinstance(ln.order, DeployOrder)
            placement.append((ln.order.location, tuple(block_from_display(g.board, b, self.side) for b in ln.order.blocks)))
        try:
            g.check(self.side, Deploy(tuple(placement)))
        except IllegalChoiceError as exc:
            self.err(lines[0], str(exc))

    # -- command
    def check_command(self, lines: list[OrderLine]) -> None:
        trial = self.session.game.copy()
        card = trial.state.command.card if trial.state.command else "?"
        lp = trial.state.command.lp if trial.state.command else 0
        for ln, choices in _command_plan(trial, self.side, lines, self.err):
            for ch in choices:
                if _stage_passed(trial, self.side, ch):
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
        ch = _answer_choice(g, self.side, d, ln.order)
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
                for loc in o.locations:
                    if loc not in battles:
                        self.err(ln, f"there is no battle at {loc}; battles: {', '.join(sorted(battles)) or 'none'}")
                continue
            loc = o.location  # type: ignore[union-attr]
            if loc not in battles:
                self.err(ln, f"there is no battle at {loc}; battles: {', '.join(sorted(battles)) or 'none'}")
                continue
            for name in getattr(o, "blocks", ()):
                bid = block_from_display(board, name, self.side)
                b = g.state.blocks.get(bid)
                if b is None or b.side is not self.side or b.loc != loc:
                    self.err(ln, f"you have no block {name} in the battle of {loc}")
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


WINTER_ORDER_TYPES = (WinterNavis, WinterDisband)


def _ids(g: Game, side: Side, names: Iterable[str]) -> list[str]:
    return [block_from_display(g.board, n, side) for n in names]


def _command_plan(
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
        err(ln, f"your card is {c.card}" + ("" if not c.event else f"; {c.event} is a group move, not a target"))
    for ln in seas:
        o = ln.order
        assert isinstance(o, SeaOrder)
        out.append((ln, [SeaMove(b, o.path) for b in _ids(g, side, o.blocks)]))
    for ln in moves:
        o = ln.order
        if isinstance(o, MainOrder):
            out.append((ln, [MainAttack(o.location, o.origin)]))
        else:
            assert isinstance(o, MoveOrder)
            out.append((ln, [Move(b, o.path) for b in _ids(g, side, o.blocks)]))
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


def _stage_passed(g: Game, side: Side, ch: Choice) -> bool:
    """An end-of-stage choice the engine already took by itself (no Move or Levy Points left)."""
    if not isinstance(ch, (EndMoves, EndLevies)):
        return False
    c = g.state.command
    if c is None or c.side is not side:
        return True
    return c.stage is not (CommandStage.MOVES if isinstance(ch, EndMoves) else CommandStage.LEVIES)


def _answer_choice(g: Game, side: Side, d: Decision, o: Order) -> Choice | None:
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


# ---- resolving ---------------------------------------------------------------------


class _Runner:
    """Applies a step's orders, then answers everything plans and defaults can answer."""

    def __init__(self, session: Session, events: list[Event]) -> None:
        self.s = session
        self.events = events

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
                    placement = tuple((o.location, tuple(_ids(g, side, o.blocks))) for o in deploys)
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

            for ln, choices in _command_plan(g, side, lines, fail):
                for ch in choices:
                    if _stage_passed(g, side, ch):
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
                        for bid in _ids(g, side, o.blocks):
                            self.apply(side, Regroup(bid, o.to))
                if g.state.battle and g.state.battle.stage is BattleStage.REGROUP:
                    self.apply(side, EndRegroup())
            else:
                ch = _answer_choice(g, side, d, answers[0]) if answers else None
                if ch is None:
                    ch = self.answer(d, {})
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

    def _planned_retreat(self, d: Decision, plans: dict[str, list[Order]]) -> BattleAction | None:
        g = self.g
        bs = g.state.battle
        assert bs is not None
        for bid in self._turn_order(d, plans):
            for o in plans.get(d.location or "", []):
                if not isinstance(o, RetreatPlan):
                    continue
                if o.blocks and bid not in _ids(g, d.side, o.blocks):
                    continue
                if o.round is not None and bs.round < o.round:
                    continue
                if o.when_weaker and not _weaker(g, d.side):
                    continue
                ch = BattleAction(bid, Action.RETREAT, o.to, o.by_sea)
                if ch in battle_mod.retreat_options(g, bid):
                    return ch
        return None

    def _turn_order(self, d: Decision, plans: dict[str, list[Order]]) -> list[str]:
        blocks = list(d.get("blocks", ()))
        first: list[str] = []
        for o in plans.get(d.location or "", []):
            if isinstance(o, OrderPlan):
                first.extend(b for b in _ids(self.g, d.side, o.blocks) if b in blocks and b not in first)
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
            planned = self._planned_retreat(d, plans)
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
                    for b in _ids(g, side, o.blocks):
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
            opts = battle_mod.regroup_options(g, side)
            for o in plans.get(d.location or "", []):
                if isinstance(o, RegroupPlan):
                    for b in _ids(g, side, o.blocks):
                        ch = Regroup(b, o.to)
                        if ch in opts:
                            return ch
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
                    for b in _ids(g, side, o.blocks):
                        if b in cands:
                            return Disband(b)
            pick = sorted(cands, key=lambda b: (g.state.blocks[b].strength, g.label(b)))[0]
            self.default(side, "winter-supply", f"{d.location} is over its supply limit: {g.label(pick)} is disbanded (default: the weakest)")
            return Disband(pick)
        if k is DecisionKind.WINTER_DISBAND:
            for t in self.s.winter.get(side, []):
                o = parse_order(t, side, g.board)
                if isinstance(o, WinterDisband):
                    for b in _ids(g, side, o.blocks):
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


# ---- what to send next ---------------------------------------------------------------


def order_templates(session: Session, side: Side) -> list[tuple[str, str]]:
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
        d = next(iter(g.legal(Decision(side, DecisionKind.DEPLOY))))
        assert isinstance(d, Deploy)
        for loc, ids in d.placement:
            out.append(("deploy", f"deploy {loc}: {', '.join(block_display(g.board, b, side) for b in ids)}"))
    elif step.kind is StepKind.COMMAND:
        out += _command_templates(g, side)
    elif step.kind is StepKind.BATTLES:
        locs = sorted(g.state.contests)
        if side is g.state.player1 and len(locs) > 1:
            out.append(("order of battles", f"battles {', '.join(locs)}"))
        for loc in locs:
            mine = [block_display(g.board, b, side) for b in g.blocks_at(loc, side)]
            near = sorted(n for n, _ in g.board.neighbors_by_road(loc) if g.control(n, side).value in ("friendly", "vacant"))
            if near:
                out.append((f"retreat plan at {loc}", f"battle {loc}: retreat round 3 when weaker all -> {near[0]}"))
            if mine:
                out.append((f"hit order at {loc}", f"battle {loc}: hits {', '.join(mine)}"))
            if near and mine:
                out.append((f"regroup after winning {loc}", f"regroup {loc}: {mine[0]} -> {near[0]}"))
    elif step.kind is StepKind.BATTLE and step.decision is not None:
        d = step.decision
        for ch in g.legal(d):
            line = _choice_line(g, side, ch)
            if line:
                out.append(("answer", line))
        if d.kind is DecisionKind.REGROUP:
            out.append(("no regroup", "pass"))
    elif step.kind is StepKind.WINTER:
        for bid in g.on_map(side):
            loc = g.state.blocks[bid].loc
            if loc and g.board.is_sea(loc):
                for p in winter_mod.navis_ports(g, bid):
                    out.append((f"{block_display(g.board, bid, side)} to port", f"winter: navis {block_display(g.board, bid, side)} -> {p}"))
        for loc, surplus in winter_mod.over_supply(g, side):
            cands = [b for b in g.blocks_at(loc, side) if b != "Cleopatra"]
            out.append((f"{loc} is {surplus} over supply", f"winter: disband {block_display(g.board, cands[0], side)}"))
    return out


def _choice_line(g: Game, side: Side, ch: Choice) -> str | None:
    name = (lambda b: block_display(g.board, b, side))
    if isinstance(ch, BattleAction):
        if ch.action is Action.FIRE:
            return f"fire {name(ch.block)}"
        if ch.action is Action.PASS:
            return f"pass {name(ch.block)}"
        return f"retreat {name(ch.block)} -> {'sea ' if ch.by_sea else ''}{ch.to}"
    if isinstance(ch, TakeHit):
        return f"hit {name(ch.block)}"
    if isinstance(ch, NextBattle):
        return f"battles {ch.location}"
    if isinstance(ch, Regroup):
        loc = g.state.battle.loc if g.state.battle else "?"
        return f"regroup {loc}: {name(ch.block)} -> {ch.to}"
    return None


def _command_templates(g: Game, side: Side) -> list[tuple[str, str]]:
    from pbem.caesar import events as gods
    from pbem.caesar import levy, movement

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
    from pbem.caesar.movement import road_key

    room = 99
    for a, b in zip(path, path[1:]):
        e = g.board.edge_between(a, b)
        if e is None or e.kind.value == "sea":
            continue
        attacking = g.control(path[-1], side).value in ("enemy", "contested") and b == path[-1]
        c = g.state.command
        limit = g.road_limit(e.kind, attacking=attacking, pluto=bool(c and c.event == "Pluto"))
        room = min(room, limit - g.state.road_use.get(road_key(side, a, b), 0))
    return max(room, 0)
