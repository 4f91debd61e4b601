"""Random but legal *order text* for every step: soak tests of the step layer and sample games.

Each step's orders are found by playing random legal engine choices on a copy
of the position (:func:`pbem.games.caesar.rules.playout.random_choice`) and writing them in
the order language, so they go through the same parser and checks as a
player's email.
"""

from __future__ import annotations

from pbem.core.rng import Rng
from pbem.games.caesar.orders.translate import order_for
from pbem.games.caesar.rules.board import Side
from pbem.games.caesar.rules.playout import random_choice
from pbem.games.caesar.steps.session import Session, StepKind, order_templates


def random_orders(session: Session, side: Side, rng: Rng) -> str:
    """A random legal submission for ``side`` in the current step."""
    step = session.step()
    g = session.game
    lines: list[str] = []
    if step.kind is StepKind.YEAR_START:
        hand = list(g.state.hands[side])
        discard = rng.choice(hand)
        hand.remove(discard)
        playable = [c for c in hand if c != "Apollo"]
        lines = [f"discard {discard}", f"play {rng.choice(playable)}"]
    elif step.kind is StepKind.CARD:
        playable = [c for c in g.state.hands[side] if not (c == "Apollo" and g.state.turn == 1)]
        lines = [f"play {rng.choice(playable)}"]
    elif step.kind is StepKind.COMMAND:
        trial = g.copy()
        for _ in range(200):
            pend = trial.pending()
            if not pend or pend[0].side is not side or trial.state.command is None or trial.state.command.side is not side:
                break
            ch = random_choice(trial, pend[0], rng)
            order = order_for(trial, side, ch)
            line = str(order) if order else None
            trial.apply(side, ch)
            if line:
                lines.append(line)
    elif step.kind in (StepKind.BATTLES, StepKind.WINTER, StepKind.BATTLE, StepKind.DEPLOYMENT):
        options = order_templates(session, side)
        if step.kind is StepKind.BATTLE:
            lines = [rng.choice(options)[1]] if options else ["pass"]
        else:
            picked = [t for _, t in options if rng.below(3) == 0]
            lines = picked if step.kind is not StepKind.DEPLOYMENT else [t for _, t in options]
            if not lines:
                lines = ["pass"]
    return "\n".join(lines) + "\n"
