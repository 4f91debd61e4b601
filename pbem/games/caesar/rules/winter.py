"""Winter turn (8.0, RULINGS W1-W5), in the ruled order.

Cleopatra goes home; victory; Navis at sea go to a Friendly port on the same
sea (Caesar first) or are disbanded; winter supply (3 blocks plus the city's
value); voluntary disbands (Caesar, then Pompey); Year reset and a new deal.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from pbem.errors import IllegalChoiceError
from pbem.games.caesar.rules.board import SIDES, BlockType, Side
from pbem.games.caesar.rules.choices import Audience, Choice, Decision, DecisionKind, Disband, EndDisband, NavisToPort
from pbem.games.caesar.rules.state import (
    LAST_YEAR,
    BlockStatus,
    Control,
    Phase,
    Result,
    Transition,
    WinterStage,
    WinterState,
)

if TYPE_CHECKING:
    from pbem.games.caesar.rules.protocol import GameLike

VICTORY_VP = 10
ROME = "Roma"


def start(g: GameLike) -> None:
    st = g.state
    st.phase = Phase.WINTER
    g.emit("winter", Audience.ALL, f"Winter of {st.year}", year=st.year)
    _cleopatra_home(g)
    if _victory(g):
        return
    st.winter = WinterState(WinterStage.NAVIS)


def _cleopatra_home(g: GameLike) -> None:
    """W1 / 8.1."""
    cleo = g.state.blocks["Cleopatra"]
    home = "Alexandria"
    if cleo.status is not BlockStatus.MAP:
        return
    her = cleo.side
    holders = {g.state.blocks[b].side for b in g.blocks_at(home) if b != "Cleopatra"}
    if cleo.loc != home:
        g.place("Cleopatra", home)
        g.emit("cleopatra-home", Audience.ALL, f"Cleopatra goes home to {home}", loc=home)
    if her.enemy in holders:
        g.set_side("Cleopatra", her.enemy)
        g.emit("cleopatra", Audience.ALL, f"{home} is held by {her.enemy}: Cleopatra joins {her.enemy} (8.1)", side=her.enemy.value)


def _victory(g: GameLike) -> bool:
    """W2 / 1.2: 10 VP wins; after the last Year the higher VP wins. Returns True when the game ended."""
    st = g.state
    vp = {s: g.vp(s) for s in SIDES}
    g.emit("vp", Audience.ALL, f"Victory points: Caesar {vp[Side.CAESAR]}, Pompey {vp[Side.POMPEY]}", vp={s.value: vp[s] for s in SIDES})
    reaching = [s for s in SIDES if vp[s] >= VICTORY_VP]
    last = st.year >= LAST_YEAR
    if not reaching and not last:
        return False
    winner: Side | None
    if vp[Side.CAESAR] != vp[Side.POMPEY]:
        winner = max(Side, key=lambda s: vp[s])
        if vp[winner] >= VICTORY_VP:
            reason = f"{vp[winner]} VP, 10 or more, at the end of {st.year}" + (
                " (both reached 10: the higher wins)" if len(reaching) == 2 else "")
        else:
            reason = f"more VP after the last Year ({st.year})"
    else:
        rome = [s for s in SIDES if g.control(ROME, s) is Control.FRIENDLY]
        winner = rome[0] if rome else None
        reason = f"VP tied at {vp[Side.CAESAR]} after {st.year}, and " + (
            f"{winner} holds Roma" if winner else "nobody holds Roma")
    st.result = Result(winner, reason, vp)
    st.phase = Phase.OVER
    st.winter = None
    g.emit("game-over", Audience.ALL, f"Game over: {result_text(st.result)}", winner=winner.value if winner else None,
           vp={s.value: vp[s] for s in SIDES}, reason=reason)
    return True


def result_text(r: Result) -> str:
    """``"Pompey wins: 10 VP, 10 or more, at the end of 706; score Caesar 6 VP, Pompey 10 VP"``:
    the winner (or a draw), how, and the score, as the final report, the log and the CLI say it."""
    who = f"{r.winner} wins" if r.winner else "a draw"
    score = ", ".join(f"{s} {r.vp.get(s, 0)} VP" for s in SIDES)
    return f"{who}: {r.reason}; score {score}"


def navis_ports(g: GameLike, bid: str) -> list[str]:
    b = g.state.blocks[bid]
    assert b.loc is not None
    return [p for p in g.board.ports_of(b.loc) if g.control(p, b.side) is Control.FRIENDLY]


def _navis_at_sea(g: GameLike) -> list[str]:
    out = []
    seas, blocks = g.board._seas, g.state.blocks  # a block on the map stands on a known space
    for side in (Side.CAESAR, Side.POMPEY):
        for bid in g.on_map_sorted(side):
            loc = blocks[bid].loc
            if loc and loc in seas:
                out.append(bid)
    return out


def supply_limit(g: GameLike, city: str) -> int:
    return 3 + g.board.spaces[city].vp


def over_supply(g: GameLike, side: Side) -> list[tuple[str, int]]:
    out = []
    seas = g.board._seas
    for loc in sorted(g.held_by(side)):  # the places of side's blocks
        if loc in seas:  # is_sea (a block on the map stands on a known space)
            continue
        n = g.count(loc, side)
        limit = supply_limit(g, loc)
        if n > limit:
            out.append((loc, n - limit))
    return out


def _disbandable(g: GameLike, loc: str, side: Side) -> list[str]:
    return [b for b in g.blocks_at(loc, side) if g.info(b).type is not BlockType.CLEOPATRA]


def pending(g: GameLike) -> tuple[Decision, ...]:
    w = g.state.winter
    if w is None:
        return ()
    if w.stage is WinterStage.NAVIS:
        for bid in _navis_at_sea(g):
            ports = navis_ports(g, bid)
            if len(ports) > 1:
                side = g.state.blocks[bid].side
                return (Decision(side, DecisionKind.WINTER_NAVIS, g.state.blocks[bid].loc, bid, (("ports", tuple(ports)),)),)
        return ()
    if w.stage is WinterStage.SUPPLY:
        for side in SIDES:
            for loc, surplus in over_supply(g, side):
                return (Decision(side, DecisionKind.WINTER_SUPPLY, loc, info=(("surplus", surplus), ("limit", supply_limit(g, loc)))),)
        return ()
    return (Decision(w.side, DecisionKind.WINTER_DISBAND),)


def auto(g: GameLike) -> bool:
    st = g.state
    w = st.winter
    if w is None:
        return False
    if w.stage is WinterStage.NAVIS:
        for bid in _navis_at_sea(g):
            ports = navis_ports(g, bid)
            if len(ports) == 1:
                _to_port(g, bid, ports[0])
                return True
            if not ports:
                _disband(g, bid, "no Friendly port on that sea, 8.3", kind="navis-disbanded")
                return True
        if pending(g):
            return False
        w.stage = WinterStage.SUPPLY
        return True
    if w.stage is WinterStage.SUPPLY:
        for side in SIDES:
            for loc, surplus in over_supply(g, side):
                cands = _disbandable(g, loc, side)
                if len(cands) <= surplus:
                    for b in cands[:surplus]:
                        _disband(g, b, "winter supply")
                    return True
                return False
        w.stage = WinterStage.DISBAND
        w.side = Side.CAESAR
        return True
    return False


def _to_port(g: GameLike, bid: str, port: str) -> None:
    b = g.state.blocks[bid]
    sea = b.loc
    g.place(bid, port)
    g.emit_split(
        "navis-port",
        b.side,
        f"{g.label(bid)} winters in {port}",
        f"{b.side}: a Navis goes from {sea} to {port}",
        {"side": b.side.value, "block": bid, "path": [sea, port]},
        {"side": b.side.value, "path": [sea, port]},
    )


def _disband(g: GameLike, bid: str, why: str, kind: str = "disband") -> None:
    """Off the map to the levy pool; the owner sees which block, the enemy only where."""
    b = g.state.blocks[bid]
    side, loc = b.side, b.loc
    name = g.label(bid)
    g.take_off(bid, BlockStatus.ELIMINATED)
    g.emit_split(
        kind,
        side,
        f"{side} disbands {name} at {loc} ({why})",
        f"{side} disbands a block at {loc} ({why})",
        {"side": side.value, "block": bid, "loc": loc},
        {"side": side.value, "loc": loc},
    )


def _year_reset(g: GameLike) -> None:
    """W5 / 8.6."""
    st = g.state
    for bid, b in st.blocks.items():
        if b.status is BlockStatus.ELIMINATED:
            g.return_to_pool(bid)
    st.winter = None
    st.year += 1
    g.emit("year-reset", Audience.ALL, f"Eliminated blocks return to the levy pools for {st.year}")
    g.enter(Transition.START_YEAR)


def check_navis(g: GameLike, d: Decision, ch: NavisToPort) -> None:
    if ch.block != d.block:
        raise IllegalChoiceError(f"the Navis to place now is {g.label(d.block or '')} in {d.location}", "8.3")
    ports = navis_ports(g, ch.block)
    if ch.port not in ports:
        raise IllegalChoiceError(f"{ch.port} is not a Friendly port on {d.location}", "8.3", "choose " + ", ".join(ports))


def do_navis(g: GameLike, d: Decision, ch: NavisToPort) -> None:
    _to_port(g, ch.block, ch.port)


def check_supply(g: GameLike, d: Decision, ch: Disband) -> None:
    assert d.location is not None
    cands = _disbandable(g, d.location, d.side)
    if ch.block not in cands:
        raise IllegalChoiceError(
            f"the surplus must come from the blocks in {d.location} (Cleopatra cannot be disbanded)",
            "8.4",
            "choose from " + ", ".join(g.label(b) for b in cands),
        )


def do_supply(g: GameLike, d: Decision, ch: Disband) -> None:
    _disband(g, ch.block, f"winter supply: {d.location} supports {supply_limit(g, d.location or '')}")


def check_disband(g: GameLike, d: Decision, ch: Choice) -> None:
    if isinstance(ch, EndDisband):
        return
    assert isinstance(ch, Disband)
    b = g.state.blocks.get(ch.block)
    if b is None or b.side is not d.side or b.status is not BlockStatus.MAP:
        raise IllegalChoiceError(g.not_yours(ch.block, d.side), "8.5")
    if g.info(ch.block).type is BlockType.CLEOPATRA:
        raise IllegalChoiceError("Cleopatra cannot be disbanded", "8.5")


def do_disband(g: GameLike, d: Decision, ch: Choice) -> None:
    w = g.state.winter
    assert w is not None
    if isinstance(ch, Disband):
        _disband(g, ch.block, "voluntary")
        return
    if w.side is Side.CAESAR:
        w.side = Side.POMPEY
    else:
        _year_reset(g)


def legal(g: GameLike, d: Decision) -> Iterator[Choice]:
    if d.kind is DecisionKind.WINTER_NAVIS:
        assert d.block is not None
        for p in navis_ports(g, d.block):
            yield NavisToPort(d.block, p)
    elif d.kind is DecisionKind.WINTER_SUPPLY:
        assert d.location is not None
        for b in _disbandable(g, d.location, d.side):
            yield Disband(b)
    else:
        yield EndDisband()
        for b in g.on_map_sorted(d.side):
            if g.info(b).type is not BlockType.CLEOPATRA:
                yield Disband(b)


HANDLERS = {
    DecisionKind.WINTER_NAVIS: ((NavisToPort,), check_navis, do_navis),
    DecisionKind.WINTER_SUPPLY: ((Disband,), check_supply, do_supply),
    DecisionKind.WINTER_DISBAND: ((Disband, EndDisband), check_disband, do_disband),
}
