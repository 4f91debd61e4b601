"""Julius Caesar as a pbem game system: the adapter between the core and this package.

The core (store, audit, mail, CLI) knows Julius Caesar only through :data:`SYSTEM`, a
:class:`~pbem.core.game.GameSystem`, and the :class:`CaesarAdjudication` objects it makes.
Sides are plain strings at this border ("Caesar", "Pompey"); inside they are :class:`Side`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pbem.core.events import ALL, Event
from pbem.core.game import OptionSpec, ReportContext, StepInfo, Summary
from pbem.core.orders import OrderProblem, SubmissionRejected
from pbem.core.rng import KeyedStream, RandomStream, Rng
from pbem.errors import EngineError, PbemError
from pbem.games.caesar.rules.board import Side
from pbem.games.caesar.rules.game import Game, new_game
from pbem.games.caesar.rules.state import Options, Phase, Result
from pbem.games.caesar.rules.winter import result_text
from pbem.games.caesar.steps.session import BattleMode, Session, Settings, StepKind

__all__ = ["SYSTEM", "CaesarAdjudication", "CaesarSystem"]

SIDES: tuple[str, ...] = tuple(s.value for s in Side)


def _side(side: str) -> Side:
    try:
        return Side(side)
    except ValueError:
        raise PbemError(f"{side!r} is not a side of Julius Caesar; the sides are {' and '.join(SIDES)}") from None


@dataclass
class CaesarAdjudication:
    """One game's adjudication state (a :class:`Session`) behind the core's interface.

    The core checks a submission, asks for its warnings, then submits it (:func:`pbem.decide.decide`):
    the lines :meth:`check` found are kept for the other two, which would otherwise parse and check
    the same text again, as long as nothing changed in between (the same side, text, step and sealed
    orders; every method that changes the session forgets them)."""

    session: Session
    _checked: tuple[Any, list[Any]] | None = field(default=None, repr=False, compare=False)

    def _state_key(self, side: str, text: str) -> Any:
        return side, text, self.session.step_no, tuple((s, tuple(o)) for s, o in self.session.sealed.items())

    def _lines_checked(self, side: str, text: str) -> list[Any] | None:
        kept = self._checked
        return kept[1] if kept is not None and kept[0] == self._state_key(side, text) else None

    @property
    def game(self) -> Game:
        return self.session.game

    def step(self) -> StepInfo:
        s = self.session.step()
        return StepInfo(
            number=s.number,
            kind=s.kind.value,
            title=s.title,
            awaiting=tuple(x.value for x in s.awaiting),
            received=tuple(x.value for x in s.awaiting if x in self.session.sealed),
            sealed=s.sealed,
            over=s.kind is StepKind.OVER,
        )

    def check(self, side: str, text: str) -> None:
        self._checked = None
        try:
            lines = self.session.check(_side(side), text)
        except SubmissionRejected as exc:  # the problems as Phrases: a reply says them in the player's language
            raise SubmissionRejected([_said(e) for e in exc.errors]) from None
        self._checked = (self._state_key(side, text), lines)

    def warnings(self, side: str, text: str) -> list[OrderProblem]:
        return [_said(e) for e in self.session.warnings(_side(side), text, self._lines_checked(side, text))]

    def submit(self, side: str, text: str, entropy: str = "") -> list[Event]:
        lines, self._checked = self._lines_checked(side, text), None
        return self.session.submit(_side(side), text, entropy, checked=lines)

    def resolve(self, *, deadline: bool = False) -> list[Event]:
        self._checked = None
        return self.session.resolve(deadline=deadline)

    def conclude(self, winner: str | None, how: str) -> list[Event]:
        """End the game now (a resignation): the Result names the winner and how, the score is the VP held."""
        self._checked = None
        g = self.session.game
        st = g.state
        if st.phase is Phase.OVER:
            raise EngineError("the game is already over")
        vp = {s: g.vp(s) for s in Side}
        st.result = Result(_side(winner) if winner else None, how, vp)
        st.phase = Phase.OVER
        st.winter = None
        self.session.sealed.clear()
        self.session.step_no += 1
        return [Event("game-over", ALL, f"Game over: {result_text(st.result)}",
                      {"winner": winner, "vp": {s.value: vp[s] for s in Side}, "reason": how})]

    def copy(self) -> CaesarAdjudication:
        return CaesarAdjudication(self.session.copy())

    def attach_secret(self, secret: bytes | None) -> None:
        self.session.attach_secret(secret)

    def to_json(self) -> dict[str, Any]:
        return self.session.to_json()

    def summary(self) -> Summary:
        g = self.session.game
        st = g.state
        score = {s.value: g.vp(s) for s in Side}
        over = st.phase is Phase.OVER
        winner, result = None, ""
        if over and st.result is not None:
            winner = st.result.winner.value if st.result.winner else None
            result = result_text(st.result)
        return Summary(headline=f"{st.year}, turn {st.turn}", score=score, facts={"year": st.year, "turn": st.turn},
                       over=over, winner=winner, result=result)


class CaesarSystem:
    name = "caesar"
    title = "Julius Caesar (Columbia Games, 2010)"
    sides = SIDES
    options: tuple[OptionSpec, ...] = (
        OptionSpec("battles", "planned: battle plans decide every battle choice; interactive: the deciding side "
                   "is asked at each open battle decision (a step of its own)", "planned", ("planned", "interactive")),
        OptionSpec("free_deployment", "free deployment (rule 5.3)", False),
        OptionSpec("tournament", "tournament rule C5: Caesar is Player 1 on the first game turn", False),
    )

    def _settings(self, options: Mapping[str, Any]) -> Settings:
        return Settings(BattleMode(str(options.get("battles", "planned"))))

    def start(self, seed: int, options: Mapping[str, Any], position: Mapping[str, Any] | None = None, *,
              rng: RandomStream | None = None) -> tuple[CaesarAdjudication, list[Event]]:
        settings = self._settings(options)
        if position is not None:
            game0 = Game.from_json(dict(position))
            old = game0.state.rng
            if isinstance(rng, KeyedStream):  # a game file's keyed stream replaces the position's own
                game0.state.rng = rng
            elif isinstance(old, Rng):  # a practice game keeps the position's seed and counter
                game0.state.rng = Rng(old.seed, old.counter, practice=True)
            return CaesarAdjudication(Session(game0, settings)), []
        game0 = new_game(seed, Options.from_json(options), rng=rng)
        opening = list(game0.events)  # the opening deal and "Year begins"
        game0.events = []
        return CaesarAdjudication(Session(game0, settings)), opening

    def load(self, data: Mapping[str, Any]) -> CaesarAdjudication:
        return CaesarAdjudication(Session.from_json(dict(data)))

    def load_position(self, text: str, source: str) -> dict[str, Any]:
        from pbem.games.caesar.rules.scenario import scenario_from_text

        return scenario_from_text(text, source).to_json()

    def report(self, adj: Any, events: Sequence[Event], viewer: str | None, *, since: int,
               deadline: str | None, fmt: str, report_id: str = "", previous: Any = None) -> ReportContext:
        from pbem.games.caesar.view.render import view_context

        key = (viewer, since, len(events), deadline, report_id)
        cached = self._last_view
        if cached is not None and cached[0] is adj and cached[1] == key and cached[3] is previous:
            view = cached[2]  # the text and the HTML report of one recipient share their view
        else:
            view = self._view(adj.session, events, viewer, since=since, deadline=deadline, report_id=report_id,
                              previous=previous.session.game if previous is not None else None)
            self._last_view = (adj, key, view, previous)
        return view_context(view, fmt)

    _last_view: tuple[Any, tuple[Any, ...], Any, Any] | None = None

    def _view(self, session: Session, events: Sequence[Event], viewer: str | None, *, since: int,
              deadline: str | None, report_id: str, previous: Game | None = None) -> Any:
        from pbem.games.caesar.orders.nextstep import next_step_groups
        from pbem.games.caesar.view.views import NextStep, build_view, fairness_note

        side = _side(viewer) if viewer is not None else None
        step = session.step()
        next_step = None
        if step.kind is not StepKind.OVER:
            next_step = NextStep(
                number=step.number,
                title=step.title,
                deadline=deadline,
                awaiting=tuple(s.value for s in step.awaiting),
                templates=tuple(next_step_groups(session, side)) if side else (),
            )
        # the report id and "since your last report" are stated by games with a fairness note (keyed or
        # practice), so the reports of games made before pbem had secrets stay byte for byte what they were
        current = bool(fairness_note(session.game.state.rng))
        odds = _odds(session.game, events, side) if current and side is not None else ()
        return build_view(session.game, list(events), side, since=since, next_step=next_step,
                          report_id=report_id if current else "", previous=previous if current else None, odds=odds)

    def random_orders(self, adj: Any, side: str, seed: int) -> str:
        from pbem.games.caesar.rules.autoplay import random_orders

        return random_orders(adj.session, _side(side), Rng(seed))

    def position(self, adj: Any) -> dict[str, Any]:
        """The position document (``pbem state --json``)."""
        return adj.session.game.to_json()

    def describe(self, adj: Any) -> str:
        session = adj.session
        g = session.game
        s = g.state
        lines = [f"year {s.year}, turn {s.turn}, phase {s.phase.value}, step {session.step_no}",
                 f"VP: Caesar {g.vp(Side.CAESAR)}, Pompey {g.vp(Side.POMPEY)}"]
        for side in Side:
            lines.append(f"{side.value} holds: {', '.join(s.hands[side]) or 'no cards'}")
        at: dict[str, list[str]] = {}
        for bid in sorted(g.on_map(Side.CAESAR) + g.on_map(Side.POMPEY)):
            b = s.blocks[bid]
            at.setdefault(b.loc or "", []).append(f"{b.side.value[0]}:{g.describe(bid)}")
        lines += [f"  {loc}: {', '.join(at[loc])}" for loc in sorted(at)]
        return "\n".join(lines)

    def simulate(self, games: int, seed: int, options: Mapping[str, Any],
                 clock: Callable[[], float] | None = None) -> dict[str, Any]:
        from pbem.games.caesar.rules.playout import PlayoutError, play_random_game
        from pbem.games.caesar.rules.playout import simulate as run

        opts = Options.from_json(options)
        try:
            rep = run(games, seed, opts, clock=clock)
        except PlayoutError as exc:
            trail = exc.trail
            if not trail:  # played without a trail for speed: replay that game to get one
                try:
                    play_random_game(exc.seed, opts, keep_trail=True)
                except PlayoutError as again:
                    trail = again.trail
            lines = [f"game with seed {exc.seed} failed: {type(exc.cause).__name__}: {exc.cause}",
                     f"decision trail ({len(trail)} decisions, oldest first):"]
            lines += [f"  {i}. {side}: {choice}" for i, (side, choice) in enumerate(trail, start=1)]
            lines.append(f"reproduce with: pbem simulate --games 1 --seed {exc.seed}")
            raise EngineError("\n".join(lines)) from exc
        return {"games": rep.games, "seconds": rep.seconds, "decisions": rep.decisions,
                "games_per_second": rep.games_per_second, "decisions_per_second": rep.decisions_per_second,
                "tally": rep.tally}


    # ---- computer players (pbem bot, pbem new --computer, pbem simulate --play) -----------------

    def computer_answer(self, adj: Any, events: Sequence[Event], side: str, *, strength: float,
                        iterations: int | None, seed: int, clock: Callable[[], float]) -> tuple[str, list[str]]:
        """The bot's submission for ``side`` at the open step, from that side's observation only (its
        events and its view: :func:`~pbem.games.caesar.ai.match.observe_session`), and why."""
        from pbem.games.caesar.ai.match import observe_session
        from pbem.games.caesar.ai.players import make_player

        who = _side(side)
        obs = observe_session(adj.session, list(events), who)
        player = make_player("bot", strength, clock, iterations)
        answer = player.answer(obs, Rng(seed))
        margin = 100 * float(getattr(player, "margin", 0.0))
        why = [f"{answer.iterations} search iterations over positions consistent with what {who.value} has seen;",
               f"the one-ply choice is played unless another beats its estimate by {margin:g} points"]
        for what, alternatives in answer.considered:
            why.append(f"{what}:")
            why += [f"  {w.order:<40} est. {100 * w.value:5.1f}%  ({w.visits} samples)"
                    + ("  one-ply choice" if w.one_ply else "") for w in alternatives[:6]]
        return answer.text, why

    def match(self, games: int, seed: int, options: Mapping[str, Any], players: Mapping[str, str], *,
              strength: float, iterations: int | None, clock: Callable[[], float]) -> dict[str, Any]:
        """Whole games between computer players (``bot``, ``greedy``, ``random``) through the step layer."""
        from pbem.games.caesar.ai.match import Tally, play_match
        from pbem.games.caesar.ai.players import make_player

        names = {_side(s): p for s, p in players.items()}
        tally = Tally()
        start = clock()
        for i in range(games):
            tally.add(play_match({s: make_player(names[s], strength, clock, iterations) for s in Side}, seed + i,
                                 Options.from_json(options)))
        return {"games": tally.games, "seconds": clock() - start, "players": {s.value: n for s, n in names.items()},
                "tally": tally.wins, "lines": list(tally.lines(names))}


def _odds(game: Game, events: Sequence[Event], side: Side) -> tuple[Any, ...]:
    """The report's battle odds: each pending battle as ``side`` can estimate it (its knowledge only)."""
    from pbem.games.caesar.ai.odds import LEADERS, battle_odds, pending_battles
    from pbem.games.caesar.view.views import Losses, Odds

    out = []
    for loc in pending_battles(game):
        o = battle_odds(game, events, side, loc)
        if o is not None:
            losses = tuple(Losses(s.value, s is side, f"{o.steps_lost[s] / o.samples:.1f}",
                                  f"{o.eliminated[s] / o.samples:.1f}") for s in (side, side.enemy))
            deaths = tuple((leader.split(":")[1], o.percent(o.killed[leader])) for leader in LEADERS
                           if o.present[leader])
            out.append(Odds(loc, o.samples, o.percent(o.wins), losses, deaths))
    return tuple(out)


SYSTEM = CaesarSystem()


def _said(problem: OrderProblem) -> OrderProblem:
    """``problem`` with its message as a Phrase when the game knows its words (English unchanged)."""
    from dataclasses import replace

    from pbem.games.caesar.view.phrases import problem_phrase

    said = problem_phrase(problem.message)
    return replace(problem, message=said) if said is not problem.message else problem
