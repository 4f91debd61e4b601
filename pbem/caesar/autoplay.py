"""Random but legal *order text* for every step: soak tests of the step layer and sample games.

Each step's orders are found by playing random legal engine choices on a copy
of the position (:func:`pbem.caesar.playout.random_choice`) and writing them in
the order language, so they go through the same parser and checks as a
player's email.
"""

from __future__ import annotations

from pbem.caesar.board import Side
from pbem.caesar.choices import (
    Choice,
    Discard,
    EndLevies,
    EndMoves,
    Jupiter,
    Levy,
    LevyStep,
    MainAttack,
    Move,
    NoEvent,
    Play,
    SeaMove,
    Surprise,
    Vulcan,
)
from pbem.caesar.game import Game
from pbem.caesar.orders import block_display
from pbem.caesar.playout import random_choice
from pbem.caesar.rng import Rng
from pbem.caesar.steps import Session, StepKind, order_templates


def choice_line(g: Game, side: Side, ch: Choice) -> str | None:
    name = (lambda b: block_display(g.board, b, side))
    if isinstance(ch, Discard):
        return f"discard {ch.card}"
    if isinstance(ch, Play):
        return f"play {ch.card}"
    if isinstance(ch, Move):
        return f"move {' -> '.join(ch.path)}: {name(ch.block)}"
    if isinstance(ch, SeaMove):
        return f"sea {' -> '.join(ch.path)}: {name(ch.block)}"
    if isinstance(ch, MainAttack):
        return f"main {ch.location} from {ch.origin}"
    if isinstance(ch, Levy):
        return f"levy {name(ch.block)} at {ch.city}"
    if isinstance(ch, LevyStep):
        return f"levy step {name(ch.block)}"
    if isinstance(ch, Jupiter):
        return f"jupiter {ch.target}" + (": Cleopatra" if ch.cleopatra else "") + (f" -> {ch.to}" if ch.to else "")
    if isinstance(ch, Vulcan):
        return f"vulcan {ch.target}"
    if isinstance(ch, NoEvent):
        return "no event"
    if isinstance(ch, Surprise):
        return f"surprise {ch.location or 'none'}"
    if isinstance(ch, (EndMoves, EndLevies)):
        return None
    return None


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
            line = choice_line(trial, side, ch)
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
