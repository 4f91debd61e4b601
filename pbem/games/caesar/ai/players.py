"""Computer players: random, one-ply greedy, and the bot (information-set Monte Carlo search).

Every player answers one play-by-email step for one side, from that side's
:class:`~pbem.games.caesar.ai.belief.Observation` only, with a submission in the order
language (the same text a person would send). The engine is only ever run on
positions drawn from the :class:`~pbem.games.caesar.ai.belief.Belief` of that
observation, never on the real game, so the answer cannot depend on anything the
side has not seen. Random choices come from the player's own generator.

The bot (:class:`Bot`) decides its step one engine decision at a time (a card, a
group move, a levy, a battle answer). For each decision it keeps a short list of
candidates, the best few by its one-ply score (:func:`evaluate` right after the
choice): for moves these are group moves (:func:`move_plans`: the blocks of one
location that can reach one place, strongest first, so force is concentrated and
one Move Point is one decision) plus "end the moves". It runs single-level
information-set Monte Carlo search over them in rounds: each round draws a fresh
complete position from the belief (hidden blocks, leaning to full strength as they
start the game; the enemy's hand; future dice), replays the bot's earlier choices of
this step, and tries every candidate still in on that same position with the same
simulation dice (common random numbers: the difference between two candidates is
not luck). After the candidate, play goes on until the game turn's battles are
over: commands by :func:`attack_moves` (a group takes a VP city it can beat, as
both players would), levies and other decisions at random, blocks in battle fire;
after a move or a levy the bot's own side makes no more this turn (the next one is
the next decision's business). The result is scored: a finished game as a win,
loss or draw; otherwise a logistic of :func:`evaluate` (VP, strength on the map,
battles to come, and who presses each VP city) centred on the score where the
decision was taken. The decision's budget is cut into equal phases, one per halving (8
candidates: 3), and at the end of each the worse half of the candidates is dropped
(successive halving), so more budget sharpens every comparison, not only the last. The
best mean is played. Search stops at an iteration budget, or when an injected clock
passes its deadline, whichever comes first.

Battle plans and winter orders are left to the published defaults (every block
fires; surplus blocks are the weakest), which the adjudicator applies anyway.

Pure: no I/O; the clock (if any) is injected.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from pbem.core.rng import Rng
from pbem.errors import PbemError
from pbem.games.caesar.ai.belief import Belief, Observation
from pbem.games.caesar.orders.translate import order_for
from pbem.games.caesar.rules.board import Board, Side
from pbem.games.caesar.rules.choices import (
    Action,
    BattleAction,
    Choice,
    Decision,
    DecisionKind,
    EndLevies,
    EndMoves,
    MainAttack,
    Move,
    SeaMove,
)
from pbem.games.caesar.rules.game import Game
from pbem.games.caesar.rules.movement import block_paths, movable_blocks, sea_paths
from pbem.games.caesar.rules.playout import random_choice
from pbem.games.caesar.rules.state import BlockStatus, CommandStage, Control, Phase
from pbem.games.caesar.steps.stepdefs import StepKind

#: Seconds per step at ``--strength 1`` (the issue's default on the reference machine).
SECONDS_PER_STRENGTH = 2.0


@dataclass(frozen=True)
class Budget:
    """How long to think per step: an iteration cap and/or a clock deadline (``seconds`` by ``clock``)."""

    iterations: int | None = 400
    seconds: float | None = None
    clock: Callable[[], float] | None = None
    horizon: int = 120  # at most this many simulated decisions after the candidate

    @classmethod
    def for_strength(cls, strength: float, clock: Callable[[], float] | None, iterations: int | None = None) -> Budget:
        if clock is None or iterations is not None:
            return cls(iterations=iterations or max(20, int(200 * strength)))
        return cls(iterations=None, seconds=SECONDS_PER_STRENGTH * strength, clock=clock)


@dataclass(frozen=True)
class Weighed:
    """One alternative the bot considered, for ``--explain``."""

    order: str
    visits: int
    value: float  # mean score in [0, 1]: wins count 1, draws 0.5
    one_ply: bool = False  # the greedy choice, played unless the search beats it by the margin


@dataclass(frozen=True)
class Answer:
    text: str  # the submission
    considered: tuple[tuple[str, tuple[Weighed, ...]], ...] = ()  # (decision, alternatives) per decision
    iterations: int = 0


class Player(Protocol):
    name: str

    def answer(self, obs: Observation, rng: Rng) -> Answer: ...


# ---- scoring ---------------------------------------------------------------------


def heuristic(g: Game, side: Side) -> float:
    """How good ``g`` looks for ``side``, in [0, 1] (1 a won game)."""
    st = g.state
    if st.phase is Phase.OVER and st.result is not None:
        w = st.result.winner
        return 0.5 if w is None else (1.0 if w is side else 0.0)
    vp = {s: g.vp(s) for s in Side}
    strength = {s: 0 for s in Side}
    for b in st.blocks.values():
        if b.status is BlockStatus.MAP:
            strength[b.side] += b.strength
    score = float(vp[side] - vp[side.enemy]) + 0.08 * (strength[side] - strength[side.enemy])
    for loc in g.contested_locations():
        sp = g.board.spaces[loc]
        if not sp.vp:
            continue
        here = {s: sum(st.blocks[b].strength for b in g.blocks_at(loc, s)) for s in Side}
        if here[side] != here[side.enemy]:
            score += 0.6 * sp.vp * (1 if here[side] > here[side.enemy] else -1)
    return 1.0 / (1.0 + math.exp(-score / 2.5))


#: What one strength point on the map is worth in the bot's evaluation, in victory points
#: (a Navis's half of that: it takes no city).
STEP_VALUE = 0.3
#: The guessed strength of an enemy block whose strength the side has not seen.
GUESS_STRENGTH = 2.5


def evaluate(g: Game, side: Side, *, blind: bool = False, pressure: float | None = None) -> float:
    """The bot's score of ``g`` for ``side``, in victory points: the VP difference, plus
    :data:`STEP_VALUE` per strength point more on the map than the enemy (blocks win the
    cities of later turns, and a lost battle costs them), plus, for each contested city
    still to be fought over, its VP times how clearly one side is stronger there.
    ``blind``: the enemy's strength in a contested city is guessed from his block count (the
    working position's enemy strengths are one sample's, not knowledge)."""
    st = g.state
    board = g.board
    enemy = side.enemy
    vp = g.vp(side) - g.vp(enemy)
    # the strength of each side at each place (the enemy's guessed from his block count when blind)
    force: dict[str, list[float]] = {}
    material = 0.0
    for bid, b in st.blocks.items():
        if b.status is not BlockStatus.MAP or b.loc is None:
            continue
        mine = b.side is side
        material += (b.strength if mine else -b.strength) * (0.5 if board.blocks[bid].is_navis else 1.0)
        here = force.get(b.loc)
        if here is None:
            here = force[b.loc] = [0.0, 0.0]
        here[0 if mine else 1] += b.strength if mine or not blind else GUESS_STRENGTH
    score = float(vp) + STEP_VALUE * material
    for loc, (mine_here, theirs_here) in force.items():
        if mine_here and theirs_here:  # contested: a battle to come
            v = board.spaces[loc].vp
            if v:
                score += v * math.tanh((mine_here - theirs_here) / 3.0)
    pressure = PRESSURE if pressure is None else pressure
    if pressure:
        # who could take or hold each city next: the strength in it and one road from it
        none = (0.0, 0.0)
        for loc, near, v in _vp_cities(board):
            f = force.get(loc, none)
            diff = f[0] - f[1]
            for n in near:
                f = force.get(n, none)
                diff += f[0] - f[1]
            if diff:
                score += pressure * v * math.tanh(diff / 4.0)
    return score


#: The weight of the pressure term of :func:`evaluate` (per VP of a city).
PRESSURE = 0.25
_VP_CITIES: dict[int, tuple[Board, list[tuple[str, tuple[str, ...], int]]]] = {}


def _vp_cities(board: Board) -> list[tuple[str, tuple[str, ...], int]]:
    """The cities worth victory points, the places one road away from each, and its VP."""
    got = _VP_CITIES.get(id(board))
    if got is None or got[0] is not board:
        got = _VP_CITIES[id(board)] = (board, [
            (name, tuple(sorted(e.other(name) for e in board.roads.get(name, ()))), sp.vp)
            for name, sp in sorted(board.spaces.items()) if sp.vp
        ])
    return got[1]


def outcome(g: Game, side: Side, base: float, scale: float = 2.0, pressure: float | None = None) -> float:
    """A simulation's result for ``side`` in [0, 1]: a finished game as win 1, draw 0.5, loss 0;
    otherwise a logistic of :func:`evaluate` centred on ``base`` (the score where the decision
    was taken), so gains and losses from here weigh alike whether the side is ahead or behind."""
    st = g.state
    if st.phase is Phase.OVER and st.result is not None:
        w = st.result.winner
        return 0.5 if w is None else (1.0 if w is side else 0.0)
    return 1.0 / (1.0 + math.exp(-(evaluate(g, side, pressure=pressure) - base) / scale))


def playout_choice(g: Game, d: Decision, rng: Rng) -> Choice:
    """The fast policy of the simulations: random, except that blocks in battle fire when they can
    (a random retreat or pass throws battles away and makes every attack look bad)."""
    if d.kind is DecisionKind.BATTLE_TURN:
        fire = [o for o in g.legal(d) if isinstance(o, BattleAction) and o.action is Action.FIRE]
        if fire:
            return rng.choice(fire)
    return random_choice(g, d, rng)


def attack_moves(g: Game, side: Side, rng: Rng) -> None:
    """The simulations' command policy (both sides): while Move Points last, move the whole group
    that can take a city worth VP, vacant or held by fewer blocks than the group could beat
    (the enemy's strength guessed from his block count, as a player sees it), the best such
    target first; then end the moves. Cheap: no copies, one path search per group."""
    board = g.board
    blocks = g.state.blocks
    enemy = side.enemy
    for _ in range(8):
        c = g.state.command
        if c is None or c.side is not side or c.stage is not CommandStage.MOVES or g.is_over():
            return
        groups: dict[str, list[str]] = {}
        for bid in movable_blocks(g, side):
            if not board.blocks[bid].is_navis:
                loc = blocks[bid].loc
                assert loc is not None
                groups.setdefault(loc, []).append(bid)
        best: tuple[float, str, str] | None = None
        for loc in sorted(groups):
            ids = sorted(groups[loc], key=lambda b: (-blocks[b].strength, b))
            own = sum(blocks[b].strength for b in ids)
            for path in block_paths(g, side, ids[0]):
                dest = path[-1]
                v = board.spaces[dest].vp
                if not v or dest == loc:
                    continue
                ctl = g.control(dest, side)
                if ctl is Control.FRIENDLY:
                    continue
                edge = own - 1.3 * GUESS_STRENGTH * g.count(dest, enemy)
                if edge <= 0:
                    continue
                value = v + 0.1 * edge + rng.below(100) / 1000
                if best is None or value > best[0]:
                    best = (value, loc, dest)
        if best is None or rng.below(6) == 0:
            break
        _, loc, dest = best
        for bid in sorted(groups[loc], key=lambda b: (-blocks[b].strength, b)):
            paths = [p for p in block_paths(g, side, bid) if p[-1] == dest]
            if paths:
                g.apply(side, Move(bid, min(paths, key=lambda p: (len(p), p))))
    c = g.state.command
    if c is not None and c.side is side and c.stage is CommandStage.MOVES and not g.is_over():
        g.apply(side, EndMoves())


def rollout(g: Game, side: Side, rng: Rng, horizon: int, *, still: bool = False,
            score: Callable[[Game], float] | None = None, policy: bool = False) -> float:
    """Play on with :func:`playout_choice` until this game turn's battles are over (at most
    ``horizon`` decisions), then score the position for ``side`` (``score``, or :func:`heuristic`).
    ``still``: ``side`` moves and levies no more this turn (a move is judged as "this move, then
    stop": the next one is the next decision's business, and random moves after it would only add
    noise). ``policy``: commands move by :func:`attack_moves`, not at random."""
    start = (g.state.year, g.state.turn)
    for _ in range(horizon):
        if g.is_over():
            break
        st = g.state
        if (st.year, st.turn) != start and st.phase in (Phase.CARD, Phase.DISCARD, Phase.WINTER):
            break
        pend = g.pending()
        d = pend[0] if len(pend) == 1 else pend[rng.below(len(pend))]
        ch: Choice
        if policy and d.kind is DecisionKind.MOVES and not (still and d.side is side):
            attack_moves(g, d.side, rng)
            continue
        if still and d.side is side and d.kind is DecisionKind.MOVES:
            ch = EndMoves()
        elif still and d.side is side and d.kind is DecisionKind.LEVIES:
            ch = EndLevies()
        else:
            ch = playout_choice(g, d, rng)
        g.apply(d.side, ch)
    return score(g) if score is not None else heuristic(g, side)


# ---- the step driver ----------------------------------------------------------------


def _own_decision(g: Game, side: Side, kind: StepKind) -> Decision | None:
    """``side``'s next decision that belongs to the open step (None: the step is done)."""
    pend = g.pending()
    if not pend:
        return None
    mine = [d for d in pend if d.side is side]
    if kind is StepKind.COMMAND:
        c = g.state.command
        if g.state.phase is not Phase.COMMAND or c is None or c.side is not side or not mine or pend[0].side is not side:
            return None
        return mine[0]
    return mine[0] if mine else None


def _advance_to_own(g: Game, side: Side, rng: Rng) -> None:
    """Let the other side make its sealed choices (at random) until ``side`` has one to make."""
    for _ in range(10):
        pend = g.pending()
        if not pend or any(d.side is side for d in pend):
            return
        d = pend[0]
        g.apply(d.side, random_choice(g, d, rng))


def _replay(g: Game, side: Side, choices: Sequence[Choice], rng: Rng) -> None:
    for ch in choices:
        _advance_to_own(g, side, rng)
        g.apply(side, ch)


#: (belief, working position, decision, the step's earlier choices, generator) -> (the choices to make
#: now: one, or a group move's several; the alternatives weighed; simulations run)
Chooser = Callable[[Belief, Game, Decision, list[Choice], Rng], tuple[Sequence[Choice], tuple[Weighed, ...], int]]


def _drive(obs: Observation, rng: Rng, choose: Chooser, *, full: float = 0.0) -> Answer:
    sess = obs.session_data()
    kind = StepKind(sess.get("step", StepKind.OVER.value))
    side = obs.side
    if kind in (StepKind.BATTLES, StepKind.WINTER, StepKind.OVER):
        return Answer("pass\n")
    belief = Belief(obs, full=full)
    work = belief.sample(rng)  # the bot's own pieces and cards are exact in every sample
    if kind is StepKind.DEPLOYMENT:
        from pbem.games.caesar.orders.language import block_display
        from pbem.games.caesar.rules.cards import historical_deployment

        placement = historical_deployment(work, side).placement
        deploy = [f"deploy {loc}: {', '.join(block_display(work.board, b, side) for b in ids)}" for loc, ids in placement]
        return Answer("\n".join(deploy) + "\n")
    prefix: list[Choice] = []
    lines: list[str] = []
    considered: list[tuple[str, tuple[Weighed, ...]]] = []
    total = 0
    for _ in range(400):
        _advance_to_own(work, side, rng)
        own = _own_decision(work, side, kind)
        if own is None:
            break
        d = own
        if kind is StepKind.YEAR_START and d.kind not in (DecisionKind.DISCARD, DecisionKind.PLAY):
            break
        plan, weighed, n = choose(belief, work, d, prefix, rng)
        total += n
        if weighed:
            considered.append((d.kind.value, weighed))
        for ch in plan:
            order = order_for(work, side, ch)
            work.apply(side, ch)
            prefix.append(ch)
            if order is not None:
                lines.append(str(order))
        if kind in (StepKind.CARD, StepKind.BATTLE):
            break
        if kind is StepKind.YEAR_START and d.kind is DecisionKind.PLAY:
            break
    return Answer("\n".join(lines or ["pass"]) + "\n", tuple(considered), total)


# ---- candidates ------------------------------------------------------------------------


def candidates(g: Game, d: Decision, rng: Rng, cap: int) -> list[Choice]:
    """Legal choices for ``d``; when there are more than ``cap``, the stage's end plus a random ``cap``."""
    opts: list[Choice] = [o for o in g.legal(d) if not isinstance(o, MainAttack)]  # the first entry's road is the main attack
    if len(opts) <= cap:
        return opts
    ends: list[Choice] = [o for o in opts if isinstance(o, (EndMoves, EndLevies))]
    rest = [o for o in opts if not isinstance(o, (EndMoves, EndLevies))]
    rng.shuffle(rest)
    return ends + rest[: cap - len(ends)]


Plan = tuple[Choice, ...]


def _group_to(g: Game, side: Side, blocks: Sequence[str], dest: str) -> Plan:
    """Move as many of ``blocks`` (in that order) to ``dest`` as the rules let, each by its shortest
    legal path, on a copy of ``g``; the moves made."""
    trial = g.copy()
    out: list[Choice] = []
    for bid in blocks:
        paths = [p for p in block_paths(trial, side, bid) if p[-1] == dest]
        if not paths:
            continue
        mv = Move(bid, min(paths, key=lambda p: (len(p), p)))
        trial.apply(side, mv)
        out.append(mv)
    return tuple(out)


def move_plans(g: Game, side: Side) -> list[Plan]:
    """Candidate group moves for ``side``'s next activation: for each location it may activate and each
    place its blocks can reach, the whole group that can go there (strongest first), and when some
    would stay, the group without its weakest block; a Navis moves alone; every amphibious move
    alone; and "end the moves". Distinct plans only."""
    board = g.board
    blocks = g.state.blocks
    by_loc: dict[str, list[str]] = {}
    for bid in movable_blocks(g, side):
        loc = blocks[bid].loc
        assert loc is not None
        by_loc.setdefault(loc, []).append(bid)
    plans: list[Plan] = [(EndMoves(),)]
    seen: set[Plan] = set(plans)

    def add(plan: Plan) -> None:
        if plan and plan not in seen:
            seen.add(plan)
            plans.append(plan)

    for loc in sorted(by_loc):
        here = by_loc[loc]
        land = sorted((b for b in here if not board.blocks[b].is_navis), key=lambda b: (-blocks[b].strength, b))
        for bid in here:
            if board.blocks[bid].is_navis:
                for path in block_paths(g, side, bid):
                    add((Move(bid, path),))
        dests = sorted({p[-1] for b in land for p in block_paths(g, side, b)})
        for dest in dests:
            whole = _group_to(g, side, land, dest)
            add(whole)
            if len(whole) > 1:
                add(whole[:-1])
        for bid in land:
            for path in sea_paths(g, side, bid):
                add((SeaMove(bid, path),))
    return plans


def _one_ply(g: Game, side: Side, ch: Choice) -> float:
    trial = g.copy()
    trial.apply(side, ch)
    return heuristic(trial, side)


# ---- the players ---------------------------------------------------------------------


@dataclass
class RandomPlayer:
    """A uniformly random legal choice at every decision (moves: end with odds 1 in 4)."""

    name: str = "random"

    def answer(self, obs: Observation, rng: Rng) -> Answer:
        def choose(belief: Belief, g: Game, d: Decision, prefix: list[Choice], r: Rng) -> tuple[Sequence[Choice], tuple[Weighed, ...], int]:
            return (random_choice(g, d, r),), (), 0

        return _drive(obs, rng, choose)


@dataclass
class GreedyPlayer:
    """One ply: the choice whose position scores best right after it (on one sampled position)."""

    name: str = "greedy"
    cap: int = 48

    def answer(self, obs: Observation, rng: Rng) -> Answer:
        def choose(belief: Belief, g: Game, d: Decision, prefix: list[Choice], r: Rng) -> tuple[Sequence[Choice], tuple[Weighed, ...], int]:
            opts = candidates(g, d, r, self.cap)
            scored = [(_one_ply(g, d.side, ch), i, ch) for i, ch in enumerate(opts)]
            best = max(scored, key=lambda t: (t[0], -t[1]))
            return (best[2],), (), len(opts)

        return _drive(obs, rng, choose)


@dataclass
class Bot:
    """Single-level information-set Monte Carlo search over sampled positions (see the module text)."""

    budget: Budget = field(default_factory=Budget)
    name: str = "bot"
    width: int = 8  # candidates kept per decision (the best by the one-ply score)
    margin: float = 0.0  # how much better (mean score) than the one-ply choice a candidate must do
    full: float = 0.6  # the belief's chance that a hidden enemy block is at full strength
    pressure: float = PRESSURE  # the weight of the evaluation's pressure term
    policy: bool = True  # the simulations' commands attack by :func:`attack_moves` (False: random moves)

    def answer(self, obs: Observation, rng: Rng) -> Answer:
        b = self.budget
        start = b.clock() if b.clock else 0.0

        def left() -> float:
            assert b.clock is not None and b.seconds is not None
            return start + b.seconds - b.clock()

        spent = [0]

        def choose(belief: Belief, g: Game, d: Decision, prefix: list[Choice], r: Rng) -> tuple[Sequence[Choice], tuple[Weighed, ...], int]:
            side = d.side
            base = evaluate(g, side, blind=True, pressure=self.pressure)
            opts: list[Plan]
            if d.kind is DecisionKind.MOVES:
                opts = move_plans(g, side)
            else:
                opts = [(ch,) for ch in candidates(g, d, r, 48)]
            if len(opts) == 1:
                return opts[0], (), 0
            prior = [_plan_score(g, side, plan, self.pressure) for plan in opts]
            order = sorted(range(len(opts)), key=lambda k: (-prior[k], k))
            if len(opts) > self.width:
                keep = order[: self.width - 1]
                if 0 not in keep and d.kind is DecisionKind.MOVES:
                    keep.append(0)  # "end the moves" is always weighed
                else:
                    keep.append(order[self.width - 1])
                order = keep
            opts = [opts[k] for k in order]
            bias = [prior[k] for k in order]
            greedy = max(range(len(opts)), key=lambda k: (bias[k], -k))
            # each decision gets a share of what is left of the step's budget (a command has several)
            share = 3 if d.kind in (DecisionKind.MOVES, DecisionKind.EVENT_TARGET) else (
                2 if d.kind in (DecisionKind.DISCARD, DecisionKind.LEVIES) else 1)
            cap = None if b.iterations is None else max(len(opts), (b.iterations - spent[0]) // share)
            deadline = None
            began = 0.0
            if b.clock is not None and b.seconds is not None:
                began = b.clock()
                deadline = began + max(0.0, left()) / share
            visits = [0] * len(opts)
            total = [0.0] * len(opts)
            alive = list(range(len(opts)))
            n = rounds = 0
            # successive halving with the decision's budget cut into equal phases, one per halving
            # (8 candidates: 8, then 4, then 2), so that a candidate dropped early has had its fair
            # share of samples whatever the budget: more budget sharpens every comparison, not only
            # the last one
            phases = max(1, math.ceil(math.log2(len(opts))))
            phase = in_phase = 0

            def phase_over() -> bool:
                if cap is not None and n >= cap * (phase + 1) / phases:
                    return True
                if deadline is not None and b.clock is not None:
                    return b.clock() >= began + (deadline - began) * (phase + 1) / phases
                return False
            still = d.kind in (DecisionKind.MOVES, DecisionKind.LEVIES)

            def score(x: Game) -> float:
                return outcome(x, side, base, pressure=self.pressure)

            while True:
                if cap is not None and n + len(alive) > cap and rounds > 0:
                    break
                if deadline is not None and b.clock is not None and rounds > 0 and b.clock() >= deadline:
                    break
                # one round: every candidate still in is tried on the same sampled position with the
                # same simulation dice (common random numbers), so their difference is not luck
                det = _position_for(belief, g, d, prefix, r)
                seed = r.next64()
                for i in alive:
                    trial = det.copy()
                    try:
                        for ch in opts[i]:
                            trial.apply(side, ch)
                    except PbemError:  # a group move this sample does not allow (it cannot differ: defensive)
                        continue
                    total[i] += rollout(trial, side, Rng(seed), b.horizon, still=still, score=score, policy=self.policy)
                    visits[i] += 1
                    n += 1
                rounds += 1
                in_phase += 1
                # at least two rounds a phase: one shared sample is too few to drop a candidate on
                if in_phase >= 2 and len(alive) > 2 and phase_over():
                    alive.sort(key=lambda k: (-_mean(total, visits, k), k))
                    alive = sorted(set(alive[: max(2, (len(alive) + 1) // 2)]) | {greedy})
                    phase += 1
                    in_phase = 0
            spent[0] += n
            best = max(alive, key=lambda k: (_mean(total, visits, k), -k))
            if _mean(total, visits, best) - _mean(total, visits, greedy) < self.margin:
                best = greedy  # the search must show a clear gain to overrule the one-ply choice
            weighed = tuple(
                sorted(
                    (Weighed(_say_plan(g, side, opts[k]), visits[k], _mean(total, visits, k), k == greedy)
                     for k in range(len(opts))),
                    key=lambda w: (-w.visits, -w.value, w.order),
                )
            )
            return opts[best], weighed, n

        return _drive(obs, rng, choose, full=self.full)


def _mean(total: list[float], visits: list[int], k: int) -> float:
    return total[k] / visits[k] if visits[k] else 0.0


def _plan_score(g: Game, side: Side, plan: Plan, pressure: float) -> float:
    """The bot's one-ply score of a plan: :func:`evaluate` right after it, enemy strengths guessed."""
    trial = g.copy()
    for ch in plan:
        trial.apply(side, ch)
    return evaluate(trial, side, blind=True, pressure=pressure)


def _say_plan(g: Game, side: Side, plan: Plan) -> str:
    if len(plan) == 1:
        return _say(g, side, plan[0])
    trial = g.copy()
    out = []
    for ch in plan:
        out.append(_say(trial, side, ch))
        trial.apply(side, ch)
    return "; ".join(out)


def _position_for(belief: Belief, g: Game, d: Decision, prefix: list[Choice], rng: Rng) -> Game:
    """A fresh sampled position at decision ``d`` (the bot's earlier choices of the step replayed).
    Samples where the hidden part changes what is asked (whose turn it is in a battle, when
    reserves arrive) are drawn again; the working position ``g`` is the last resort."""
    for _ in range(20):
        det = belief.sample(rng)
        try:
            _replay(det, d.side, prefix, rng)
            _advance_to_own(det, d.side, rng)
        except PbemError:
            continue
        if any(p == d for p in det.pending()):
            return det
    return g.copy()


def _say(g: Game, side: Side, ch: Choice) -> str:
    order = order_for(g, side, ch)
    if order is not None:
        return str(order)
    return "end moves" if isinstance(ch, EndMoves) else "end levies" if isinstance(ch, EndLevies) else type(ch).__name__


def make_player(name: str, strength: float = 1.0, clock: Callable[[], float] | None = None, iterations: int | None = None) -> Player:
    """``bot``, ``greedy`` or ``random``; the bot thinks ``strength`` times the default budget."""
    if name == "random":
        return RandomPlayer()
    if name == "greedy":
        return GreedyPlayer()
    if name == "bot":
        return Bot(Budget.for_strength(strength, clock, iterations))
    raise ValueError(f"unknown player {name!r}; choose bot, greedy or random")


PLAYERS = ("bot", "greedy", "random")
