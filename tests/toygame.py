"""A second, tiny game system: sealed bids. It proves the core's interface (ARCHITECTURE.md).

Two sides, North and South, each start with a budget of coins. Every round both send
``bid N`` at once (sealed); the higher bid wins the round's point, both pay what they bid,
a tie scores nothing. After the last round the higher score wins. At a deadline a missing
bid is 0. A side's report shows its own budget; the other's budget follows from the bids
revealed so far, so nothing about a sealed bid shows before its round resolves.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pbem.core.events import ALL, Event
from pbem.core.game import OptionSpec, ReportContext, StepInfo, Summary
from pbem.core.orders import OrderProblem, SubmissionRejected, order_lines

SIDES = ("North", "South")


@dataclass
class Bids:
    rounds: int
    budget: dict[str, int]
    round: int = 1
    score: dict[str, int] = field(default_factory=lambda: {s: 0 for s in SIDES})
    sealed: dict[str, int] = field(default_factory=dict)
    ended: dict[str, Any] | None = None  # concluded before the last round: {"winner": side or None, "how": text}

    def step(self) -> StepInfo:
        if self.round > self.rounds or self.ended is not None:
            return StepInfo(self.round, "over", "the game is over", over=True)
        return StepInfo(self.round, "bid", f"round {self.round} of {self.rounds}: bid", SIDES,
                        tuple(s for s in SIDES if s in self.sealed), sealed=True)

    def _bid(self, side: str, text: str) -> int:
        lines = order_lines(text)
        if self.step().over:
            raise SubmissionRejected([OrderProblem(0, "", "the game is over")])
        if len(lines) != 1:
            raise SubmissionRejected([OrderProblem(n, line, "send one line: bid N") for n, line in lines[1:]]
                                     or [OrderProblem(0, "", "no bid; send one line: bid N")])
        n, line = lines[0]
        word, _, amount = line.partition(" ")
        if word.lower() != "bid" or not amount.strip().isdigit():
            raise SubmissionRejected([OrderProblem(n, line, "write it like: bid 3")])
        if int(amount) > self.budget[side]:
            raise SubmissionRejected([OrderProblem(n, line, f"you have {self.budget[side]} coins left; bid 0 to "
                                                            f"{self.budget[side]}")])
        return int(amount)

    def check(self, side: str, text: str) -> None:
        self._bid(side, text)

    def warnings(self, side: str, text: str) -> list[OrderProblem]:
        return []  # a legal bid always counts

    def submit(self, side: str, text: str, entropy: str = "") -> list[Event]:
        self.sealed[side] = self._bid(side, text)
        return self.resolve() if len(self.sealed) == len(SIDES) else []

    def resolve(self, *, deadline: bool = False) -> list[Event]:
        missing = [s for s in SIDES if s not in self.sealed]
        if missing and not deadline:
            raise ValueError(f"round {self.round} still waits for {', '.join(missing)}")
        events = [Event("deadline", ALL, f"no bid from {s}: it bids 0", {"side": s}) for s in missing]
        bids = {s: self.sealed.get(s, 0) for s in SIDES}
        for s in SIDES:
            self.budget[s] -= bids[s]
        top = max(bids.values())
        winners = [s for s in SIDES if bids[s] == top]
        if len(winners) == 1:
            self.score[winners[0]] += 1
        text = f"round {self.round}: " + ", ".join(f"{s} bid {bids[s]}" for s in SIDES)
        events.append(Event("round", ALL, text + (f"; {winners[0]} wins it" if len(winners) == 1 else "; a tie"),
                            {"round": self.round, "bids": bids}))
        self.sealed = {}
        self.round += 1
        return events

    def conclude(self, winner: str | None, how: str) -> list[Event]:
        if self.step().over:
            raise ValueError("the game is already over")
        self.ended = {"winner": winner, "how": how}
        self.sealed = {}
        self.round += 1  # the step moves on: the final reports go out
        return [Event("over", ALL, f"the game ends: {self.summary().result}", dict(self.ended))]

    def copy(self) -> Bids:
        return Bids.from_json(self.to_json())

    def attach_secret(self, secret: bytes | None) -> None:
        pass  # sealed bids draws nothing at random

    def to_json(self) -> dict[str, Any]:
        out = {"rounds": self.rounds, "budget": dict(self.budget), "round": self.round, "score": dict(self.score),
               "sealed": dict(self.sealed)}
        if self.ended is not None:
            out["ended"] = dict(self.ended)
        return out

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Bids:
        return cls(int(d["rounds"]), dict(d["budget"]), int(d["round"]), dict(d["score"]), dict(d["sealed"]),
                   dict(d["ended"]) if d.get("ended") else None)

    def summary(self) -> Summary:
        over = self.round > self.rounds or self.ended is not None
        a, b = (self.score[s] for s in SIDES)
        if self.ended is not None:
            winner = self.ended["winner"]
            result = f"{winner} wins" if winner else "a draw"
            return Summary(f"round {min(self.round, self.rounds)} of {self.rounds}", dict(self.score),
                           {"round": self.round}, True, winner, f"{result} ({self.ended['how']}), score {a}-{b}")
        winner = None if not over or a == b else SIDES[0] if a > b else SIDES[1]
        result = "" if not over else (f"{winner} wins {max(a, b)}-{min(a, b)}" if winner else f"a draw {a}-{b}")
        return Summary(f"round {min(self.round, self.rounds)} of {self.rounds}", dict(self.score),
                       {"round": self.round}, over, winner, result)


class ToySystem:
    name = "toy"
    title = "Sealed bids (a test game)"
    sides = SIDES
    options = (OptionSpec("rounds", "how many rounds", "3", tuple(str(n) for n in range(1, 10))),
               OptionSpec("budget", "coins per side", "10", tuple(str(n) for n in range(1, 100))))
    template_folder = str(Path(__file__).resolve().parent / "toy_templates")

    def start(self, seed: int, options: Mapping[str, Any], position: Mapping[str, Any] | None = None, *,
              rng: object = None) -> tuple[Bids, list[Event]]:
        if position is not None:
            return Bids.from_json(position), []
        budget = int(options.get("budget", "10"))
        game = Bids(int(options.get("rounds", "3")), {s: budget for s in SIDES})
        return game, [Event("start", ALL, f"{game.rounds} rounds; each side has {budget} coins")]

    def load(self, data: Mapping[str, Any]) -> Bids:
        return Bids.from_json(data)

    def load_position(self, text: str, source: str) -> dict[str, Any]:
        import json

        return Bids.from_json(json.loads(text)).to_json()

    def report(self, adj: Any, events: Sequence[Event], viewer: str | None, *, since: int, deadline: str | None,
               fmt: str, report_id: str = "", previous: Any = None) -> ReportContext:
        step = adj.step()
        view = {
            "viewer": viewer or "moderator",
            "round": adj.round, "rounds": adj.rounds, "score": dict(adj.score),
            "budget": {s: adj.budget[s] for s in SIDES if viewer in (None, s)},
            "sealed": [s for s in adj.sealed if viewer in (None, s)],
            "new": [e.text for e in events[since:] if e.visible_to(viewer)],
            "step": None if step.over else {"number": step.number, "title": step.title, "deadline": deadline},
            "result": adj.summary().result,
            "report_id": report_id,
        }
        return ReportContext(f"report.{'txt' if fmt == 'text' else 'html'}.j2", {"view": view})

    def random_orders(self, adj: Any, side: str, seed: int) -> str:
        return f"bid {random.Random(seed).randint(0, adj.budget[side])}"

    def describe(self, adj: Any) -> str:
        return f"round {adj.round} of {adj.rounds}, score {adj.score}, budgets {adj.budget}, sealed {adj.sealed}"

    def position(self, adj: Any) -> dict[str, Any]:
        return dict(adj.to_json())

    def simulate(self, games: int, seed: int, options: Mapping[str, Any],
                 clock: Callable[[], float] | None = None) -> dict[str, Any]:
        rng = random.Random(seed)
        tally = {"North": 0, "South": 0, "draw": 0}
        decisions = 0
        for _ in range(games):
            g, _ = self.start(seed, options)
            while not g.step().over:
                for s in SIDES:
                    g.submit(s, f"bid {rng.randint(0, g.budget[s])}")
                    decisions += 1
            tally[g.summary().winner or "draw"] += 1
        return {"games": games, "seconds": 0.0, "decisions": decisions, "games_per_second": 0.0,
                "decisions_per_second": 0.0, "tally": tally}


SYSTEM = ToySystem()
