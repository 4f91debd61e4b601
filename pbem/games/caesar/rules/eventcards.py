"""Event cards with a target (Jupiter, Vulcan) and the surprise battle (E1-E4).

Mars, Neptune, Mercury and Pluto are group moves with special limits and live
in :mod:`pbem.games.caesar.rules.movement`; this module handles their surprise battle choice.
Apollo is resolved in the card phase (:mod:`pbem.games.caesar.rules.cards`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from pbem.errors import IllegalChoiceError
from pbem.games.caesar.rules.board import Side
from pbem.games.caesar.rules.choices import Audience, Choice, Decision, DecisionKind, Jupiter, NoEvent, Surprise, Vulcan
from pbem.games.caesar.rules.state import CommandStage, Contest, Control, Transition

if TYPE_CHECKING:
    from pbem.games.caesar.rules.protocol import GameLike


def _is(g: GameLike, loc: str, side: Side, what: Control) -> bool:
    return g.control(loc, side) is what


def jupiter_targets(g: GameLike, side: Side) -> list[str]:
    """Enemy cities next to a Friendly city; seas with enemy Navis next to a Friendly port (E1)."""
    board = g.board
    friendly = g.friendly_cities(side)  # ports are cities: a Friendly port is one of them
    if not friendly:
        return []
    own = set(friendly)
    out = [loc for loc in g.friendly_cities(side.enemy)  # the cities that are Enemy for ``side``
           if any(n in own for n, _ in board.neighbors_by_road(loc))]
    out += [sea for sea in board._seas if _is(g, sea, side, Control.ENEMY) and any(p in own for p in board.ports_of(sea))]
    return sorted(out)


def jupiter_destinations(g: GameLike, side: Side, target: str) -> list[str]:
    if g.board.is_sea(target):
        return []
    return sorted(n for n, _ in g.board.neighbors_by_road(target) if _is(g, n, side, Control.FRIENDLY))


def vulcan_targets(g: GameLike, side: Side) -> list[str]:
    """Enemy cities (E2): the cities the enemy holds alone."""
    return list(g.friendly_cities(side.enemy))


def has_target(g: GameLike, side: Side, event: str) -> bool:
    if event == "Jupiter":
        return bool(jupiter_targets(g, side))
    if event == "Vulcan":
        return bool(vulcan_targets(g, side))
    return False


def surprise_candidates(g: GameLike, side: Side) -> list[str]:
    c = g.state.command
    navis_only = c is not None and c.event == "Neptune"
    out = []
    for loc, contest in sorted(g.state.contests.items()):
        if contest.attacker is not side:
            continue
        if navis_only and not any(g.info(e.block).is_navis for e in contest.entries if e.side is side):
            continue
        out.append(loc)
    return out


def _stage(g: GameLike, side: Side, stage: CommandStage) -> str:
    c = g.state.command
    if c is None or c.side is not side or c.stage is not stage:
        raise IllegalChoiceError(f"{side} has no event choice to make now")
    return c.event or ""


def check_target(g: GameLike, d: Decision, ch: Choice) -> None:
    event = _stage(g, d.side, CommandStage.EVENT)
    if isinstance(ch, NoEvent):
        return
    if isinstance(ch, Jupiter):
        if event != "Jupiter":
            raise IllegalChoiceError(f"your event is {event}, not Jupiter")
        targets = jupiter_targets(g, d.side)
        if ch.target not in targets:
            raise IllegalChoiceError(
                f"{ch.target} is not an Enemy city next to one of your Friendly cities, nor a sea with enemy Navis next to a Friendly port",
                "E1",
                "you may name " + (", ".join(targets) or "nothing"),
            )
        if ch.cleopatra:
            cleo = g.state.blocks["Cleopatra"]
            if cleo.loc != ch.target or cleo.side is d.side:
                raise IllegalChoiceError(f"Cleopatra's blue block is not an enemy block in {ch.target}", "E1")
        if ch.to is not None:
            dests = jupiter_destinations(g, d.side, ch.target)
            if ch.to not in dests:
                raise IllegalChoiceError(
                    f"a defector from {ch.target} can only go to an adjacent Friendly city of yours",
                    "E1",
                    "that is " + (", ".join(dests) or "none"),
                )
        return
    if isinstance(ch, Vulcan):
        if event != "Vulcan":
            raise IllegalChoiceError(f"your event is {event}, not Vulcan")
        targets = vulcan_targets(g, d.side)
        if ch.target not in targets:
            raise IllegalChoiceError(
                f"{ch.target} is not an Enemy city", "E2", "you may name " + (", ".join(targets) or "nothing")
            )


def do_target(g: GameLike, d: Decision, ch: Choice) -> None:
    side = d.side
    if isinstance(ch, NoEvent):
        g.emit("event-void", Audience.ALL, f"{side} makes no use of the event", side=side.value)
    elif isinstance(ch, Jupiter):
        _jupiter(g, side, ch)
    elif isinstance(ch, Vulcan):
        _vulcan(g, side, ch)
    g.enter(Transition.FINISH_COMMAND)


def _jupiter(g: GameLike, side: Side, ch: Jupiter) -> None:
    enemy_blocks = g.blocks_at(ch.target, side.enemy)
    if ch.cleopatra:
        drawn = "Cleopatra"
        how = "names Cleopatra"
    else:
        drawn = g.state.rng.choice(enemy_blocks, "jupiter")
        how = f"draws one of {len(enemy_blocks)} block(s) at random"
    info = g.info(drawn)
    b = g.state.blocks[drawn]
    g.emit("jupiter", Audience.ALL, f"Jupiter: {side} names {ch.target} and {how}: {g.describe(drawn)}", side=side.value, loc=ch.target, block=drawn, strength=b.strength)
    if info.is_leader or info.is_navis:
        if not g.reduce(drawn, side, "Jupiter"):
            g.emit("step-lost", Audience.ALL, f"{g.label(drawn)} does not defect and loses a step (E1)", block=drawn)
        return
    dests = jupiter_destinations(g, side, ch.target)
    to = ch.to or (dests[0] if dests else None)
    g.set_side(drawn, side)
    if to is not None:
        g.place(drawn, to)
        g.state.moved.add(drawn)
    g.emit(
        "defection",
        Audience.ALL,
        f"{info.name} defects to {side} at strength {b.strength}" + (f" and moves to {to}" if to else ""),
        block=drawn,
        side=side.value,
        to=to,
    )
    _contest_if_mixed(g, side, ch.target)


def _vulcan(g: GameLike, side: Side, ch: Vulcan) -> None:
    targets = g.blocks_at(ch.target, side.enemy)
    g.emit("vulcan", Audience.ALL, f"Vulcan strikes {ch.target}: {len(targets)} block(s) lose a step (E2)", side=side.value, loc=ch.target)
    for bid in targets:
        g.reduce(bid, side, "Vulcan")
    _contest_if_mixed(g, side, ch.target)


def _contest_if_mixed(g: GameLike, side: Side, loc: str) -> None:
    """Cleopatra turned against her side in place leaves a Contested city: a battle, ``side`` attacking."""
    if g.control(loc, side) is Control.CONTESTED and loc not in g.state.contests:
        g.state.contests[loc] = Contest(attacker=side)
        g.emit("attack", Audience.ALL, f"{side} attacks {loc} (Cleopatra changed sides there)", side=side.value, loc=loc)


def check_surprise(g: GameLike, d: Decision, ch: Surprise) -> None:
    _stage(g, d.side, CommandStage.SURPRISE)
    if ch.location is None:
        return
    cands = surprise_candidates(g, d.side)
    if ch.location not in cands:
        raise IllegalChoiceError(
            f"{ch.location} is not a battle you started this turn",
            "E3, E4",
            "you may name " + (", ".join(cands) or "none"),
        )


def do_surprise(g: GameLike, d: Decision, ch: Surprise) -> None:
    g.state.surprise = ch.location
    if ch.location:
        g.emit("surprise", Audience.ALL, f"{d.side} makes {ch.location} a surprise battle", side=d.side.value, loc=ch.location)
    g.enter(Transition.FINISH_COMMAND)


def legal(g: GameLike, d: Decision) -> Iterator[Choice]:
    c = g.state.command
    if c is None or c.side is not d.side:
        return
    if d.kind is DecisionKind.SURPRISE:
        for loc in surprise_candidates(g, d.side):
            yield Surprise(loc)
        yield Surprise(None)
        return
    if c.event == "Jupiter":
        for t in jupiter_targets(g, d.side):
            yield Jupiter(t)
            cleo = g.state.blocks["Cleopatra"]
            if cleo.loc == t and cleo.side is not d.side:
                yield Jupiter(t, cleopatra=True)
    elif c.event == "Vulcan":
        for t in vulcan_targets(g, d.side):
            yield Vulcan(t)
    yield NoEvent()


HANDLERS = {
    DecisionKind.EVENT_TARGET: ((Jupiter, Vulcan, NoEvent), check_target, do_target),
    DecisionKind.SURPRISE: ((Surprise,), check_surprise, do_surprise),
}
