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

from pbem.core.events import Event
from pbem.core.orders import SubmissionRejected
from pbem.core.phrase import N_, Phrase
from pbem.core.rng import KeyedStream
from pbem.errors import PbemError
from pbem.games.caesar.orders.checking import Checker, plan_warnings
from pbem.games.caesar.orders.hints import order_templates
from pbem.games.caesar.orders.language import (
    OrderError,
    OrderLine,
    parse_order,
    parse_orders,
)
from pbem.games.caesar.orders.suggest import refine
from pbem.games.caesar.rules.board import Side
from pbem.games.caesar.rules.choices import (
    Audience,
    DecisionKind,
)
from pbem.games.caesar.rules.state import Phase
from pbem.games.caesar.rules.winter import result_text
from pbem.games.caesar.steps.adjudicate import Runner
from pbem.games.caesar.steps.stepdefs import (
    DEFAULTS,
    BattleMode,
    Settings,
    Step,
    StepKind,
    StepState,
    describe_decision,
)
from pbem.games.caesar.view.phrases import read_part
from pbem.games.caesar.view.phrases import side as say_side

__all__ = [
    "DEFAULTS",
    "BattleMode",
    "Session",
    "Settings",
    "Step",
    "StepKind",
    "SubmissionRejected",
    "describe_decision",
    "order_templates",
    "winter_choosers",
]


class Session(StepState):
    """The adjudication state of one game, with the steps' procedure (``StepState`` holds its data)."""

    def attach_secret(self, secret: bytes | None) -> None:
        """Give a keyed game's stream its secret (see :class:`pbem.core.rng.KeyedStream`)."""
        rng = self.game.state.rng
        if isinstance(rng, KeyedStream):
            rng.attach(secret)


    def step(self) -> Step:
        g = self.game
        st = g.state
        pend = g.pending()
        n = self.step_no
        when = Phrase(N_("%(year)s, turn %(turn)s"), year=st.year, turn=st.turn)
        if st.phase is Phase.OVER or not pend:
            over = (Phrase(N_("the game is over: %(result)s"), result=read_part("result", result_text(st.result)))
                    if st.result else Phrase(N_("the game is over")))
            return Step(n, StepKind.OVER, (), False, over)
        kind = pend[0].kind
        if kind is DecisionKind.DEPLOY:
            return Step(n, StepKind.DEPLOYMENT, tuple(Side), True, Phrase(N_("free deployment (5.3)")))
        if kind is DecisionKind.DISCARD:
            return Step(n, StepKind.YEAR_START, tuple(Side), True,
                        Phrase(N_("Year %(year)s starts: discard 1 card and play 1 card"), year=st.year))
        if kind is DecisionKind.PLAY:
            return Step(n, StepKind.CARD, tuple(Side), True, Phrase(N_("%(when)s: play 1 card"), when=when))
        if kind in (DecisionKind.EVENT_TARGET, DecisionKind.MOVES, DecisionKind.SURPRISE, DecisionKind.LEVIES):
            side = pend[0].side
            role = Phrase(N_("Player 1") if side is st.player1 else N_("Player 2"))
            c = st.command
            what = (Phrase(N_("the %(card)s event"), card=c.event) if c and c.event else
                    Phrase(N_("%(moves)s Moves, then %(levies)s Levies"), moves=c.mp if c else 0, levies=c.lp if c else 0))
            return Step(n, StepKind.COMMAND, (side,), False,
                        Phrase(N_("%(when)s: command of %(side)s (%(role)s): %(what)s"), when=when, side=say_side(side.value),
                               role=role, what=what))
        if kind in (DecisionKind.BATTLE_ORDER, DecisionKind.BATTLE_TURN, DecisionKind.HIT, DecisionKind.REGROUP):
            if self.collected.get("battles") != self._turn_key():
                locs = sorted(st.contests)
                return Step(n, StepKind.BATTLES, tuple(Side), True,
                            Phrase(N_("%(when)s: battle plans for %(locs)s"), when=when, locs=", ".join(locs)))
            d = pend[0]
            return Step(n, StepKind.BATTLE, (d.side,), False, Phrase(N_("%(when)s: %(what)s"), when=when,
                                                                     what=describe_decision(g, d)), d)
        # winter
        if self.collected.get("winter") != str(st.year):
            awaiting = winter_choosers(self)
            return Step(n, StepKind.WINTER, awaiting, True,
                        Phrase(N_("winter of %(year)s: Navis to port, supply, disbands"), year=st.year))
        return Step(n, StepKind.OVER, (), False, Phrase(N_("winter is being resolved")))

    # ---- checking ---------------------------------------------------------
    def check(self, side: Side, text: str) -> list[OrderLine]:
        """Parse and check a submission for the current step; raises :class:`SubmissionRejected`."""
        lines, errors = parse_orders(text, side, self.game.board)
        errors = [refine(self.game, side, e) for e in errors]  # "did you mean" by the side's own blocks
        step = self.step()
        if not step.awaits(side):
            who = ", ".join(s.value for s in step.awaiting) or "nobody"
            raise SubmissionRejected([OrderError(0, "", Phrase(N_("step %(step)s (%(title)s) waits for %(who)s, not %(side)s"),
                                                             step=step.number, title=step.title, who=who,
                                                             side=say_side(side.value)))])
        found = Checker(self, side, step).run(lines, unparsed=errors)
        if errors:
            # whole-submission complaints ("no play line") may just be a line that did not parse
            found = [e for e in found if e.lineno]
        errors = sorted(errors + found, key=lambda e: e.lineno)
        if errors:
            raise SubmissionRejected(errors)
        return lines

    def warnings(self, side: Side, text: str, checked: list[OrderLine] | None = None) -> list[OrderError]:
        """Accepted orders that can never be carried out (battle plans into enemy-held places),
        by the side's own knowledge; call before :meth:`submit`, which may resolve the step.
        ``checked``: what :meth:`check` returned for this text (its lines: not parsed again)."""
        lines = checked if checked is not None else parse_orders(text, side, self.game.board)[0]
        return plan_warnings(self, side, lines)

    # ---- submitting and resolving -----------------------------------------
    def submit(self, side: Side, text: str, entropy: str = "", checked: list[OrderLine] | None = None) -> list[Event]:
        """Accept a submission for the current step (a revision replaces the earlier one);
        resolve the step when everything awaited is in. Returns the events (empty when waiting).
        ``entropy`` (the submission's hash) keys the draws of the step in a keyed game.
        ``checked``: what :meth:`check` returned for this side and text in this same state, so
        they are not checked again (the caller vouches that nothing changed in between)."""
        lines = checked if checked is not None else self.check(side, text)
        self.sealed[side] = [str(ln.order) for ln in lines]
        if entropy:
            self.entropy[side] = entropy
        else:
            self.entropy.pop(side, None)
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
        rng = self.game.state.rng
        if isinstance(rng, KeyedStream):  # this step's draws: keyed by the submissions that closed it
            rng = self.game.state.rng = rng.for_step(
                step.number, [f"{s.value}:{self.entropy[s]}" for s in Side if s in self.entropy])
        self.sealed = {}
        self.entropy = {}
        runner = Runner(self, events)
        runner.apply_step(step, subs, missing)
        runner.settle()
        self.step_no += 1
        if isinstance(rng, KeyedStream) and rng.secret is not None and self.step().kind is StepKind.OVER:
            events.append(reveal_event(rng))
        return events


def reveal_event(rng: KeyedStream) -> Event:
    """The end of a keyed game: its secret, for everyone to check every draw."""
    assert rng.secret is not None
    return Event(
        "secret",
        Audience.ALL,
        f"The game is over, so its secret is revealed: {rng.secret.hex()}. Its SHA-256 is the commitment "
        f"{rng.commitment} shown in every report; with both sides' submissions it recomputes every die "
        "and deal (`pbem audit check`).",
        {"secret": rng.secret.hex(), "commitment": rng.commitment},
    )



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
        g.apply(d.side, Runner(trial, []).answer(d, {}))
    return tuple(s for s in Side if s in seen)
