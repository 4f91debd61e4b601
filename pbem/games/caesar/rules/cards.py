"""Card phase (2.1, RULINGS C1-C5) and free deployment (5.3).

Year start: shuffle the 27 cards, deal six each, each side discards one unseen.
Each game turn both sides play one card sealed; Apollo copies the opponent's
card of the previous game turn; two events cancel each other; the event player,
else the higher Moves, else Caesar, is Player 1.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from functools import lru_cache
from typing import TYPE_CHECKING

from pbem.errors import IllegalChoiceError
from pbem.games.caesar.rules.board import SIDES, Side
from pbem.games.caesar.rules.choices import Audience, Choice, Decision, DecisionKind, Deploy, Discard, Play
from pbem.games.caesar.rules.state import Phase, Transition

if TYPE_CHECKING:
    from pbem.games.caesar.rules.protocol import GameLike

APOLLO = "Apollo"


def start_year(g: GameLike) -> None:
    st = g.state
    deck = [c.name for c in g.board.cards]
    g.state.rng.shuffle(deck, "deal")
    st.hands = {Side.CAESAR: [], Side.POMPEY: []}
    for _ in range(6):
        for side in SIDES:
            st.hands[side].append(deck.pop(0))
    for side in SIDES:
        st.hands[side].sort(key=card_sort_key)
    st.deck = deck
    st.turn = 1
    st.phase = Phase.DISCARD
    st.sealed = {}
    st.played = {}
    st.effective = {}
    st.prev_effective = {}
    g.emit("year", Audience.ALL, f"Year {st.year} begins: six cards dealt to each side", year=st.year)
    for side in SIDES:
        g.emit(
            "deal",
            Audience.of(side),
            f"{side} is dealt: {', '.join(st.hands[side])}",
            side=side.value,
            cards=list(st.hands[side]),
        )


@lru_cache(maxsize=256)
def card_sort_key(name: str) -> tuple[int, str]:
    """Events first, then command cards by Moves then Levies, highest first (kept per name: a
    pure function of a card's name, asked for every hand)."""
    if "/" in name:
        m, lv = name.split("/")
        return (1, f"{9 - int(m)}{9 - int(lv)}")
    return (0, name)


def pending_kind(g: GameLike) -> DecisionKind:
    return {Phase.DEPLOY: DecisionKind.DEPLOY, Phase.DISCARD: DecisionKind.DISCARD}.get(g.state.phase, DecisionKind.PLAY)


# ---- legal choices -----------------------------------------------------------


def legal(g: GameLike, d: Decision) -> Iterator[Choice]:
    if d.kind is DecisionKind.DISCARD:
        for c in legal_cards(g, d):
            yield Discard(c)
    elif d.kind is DecisionKind.PLAY:
        for c in legal_cards(g, d):
            yield Play(c)
    elif d.kind is DecisionKind.DEPLOY:
        yield historical_deployment(g, d.side)


def legal_cards(g: GameLike, d: Decision) -> list[str]:
    """The cards of :func:`legal`'s choices for a discard or play decision, in its order: each card
    of the hand once, sorted (no Apollo to play on a Year's first game turn, C2)."""
    cards = sorted(set(g.state.hands[d.side]), key=card_sort_key)
    if d.kind is DecisionKind.PLAY and g.state.turn == 1 and APOLLO in cards:
        cards.remove(APOLLO)
    return cards


def historical_deployment(g: GameLike, side: Side) -> Deploy:
    placement = []
    for loc, names in sorted(g.board.setup_map[side].items()):
        ids = tuple(sorted(g.resolve_own_block(side, n) for n in names))
        placement.append((loc, ids))
    return Deploy(tuple(placement))


# ---- checks and effects ------------------------------------------------------


def _check_card(g: GameLike, side: Side, card: str, verb: str) -> None:
    hand = g.state.hands[side]
    if card not in hand:
        raise IllegalChoiceError(
            f"{card!r} is not in {side}'s hand", "2.1", f"you hold {', '.join(sorted(hand, key=card_sort_key))}"
        )


def check_discard(g: GameLike, d: Decision, ch: Discard) -> None:
    _check_card(g, d.side, ch.card, "discard")


def check_play(g: GameLike, d: Decision, ch: Play) -> None:
    _check_card(g, d.side, ch.card, "play")
    if ch.card == APOLLO and g.state.turn == 1:
        raise IllegalChoiceError(
            "Apollo cannot be played on the first game turn of a Year: there is no card to copy", "C2"
        )


def check_deploy(g: GameLike, d: Decision, ch: Deploy) -> None:
    side = d.side
    hist = historical_deployment(g, side)
    want = {loc: len(ids) for loc, ids in hist.placement}
    got: dict[str, int] = {}
    seen: list[str] = []
    errors: list[str] = []
    for loc, ids in ch.placement:
        if loc not in want:
            errors.append(f"{loc} is not one of {side}'s set-up cities ({', '.join(sorted(want))})")
            continue
        got[loc] = got.get(loc, 0) + len(ids)
        for bid in ids:
            seen.append(bid)
            if g.info(bid).is_navis and not g.board.spaces[loc].is_port:
                errors.append(f"{g.label(bid)} is a Navis and {loc} is not a port (4.1)")
    for loc, n in sorted(want.items()):
        if got.get(loc, 0) != n:
            errors.append(f"{loc} must hold {n} blocks, not {got.get(loc, 0)}")
    pool = sorted(b for _, ids in hist.placement for b in ids)
    if sorted(seen) != pool:
        extra = sorted(Counter(seen) - Counter(pool))
        missing = sorted(Counter(pool) - Counter(seen))
        if extra:
            errors.append("not in the historical set-up (or placed twice): " + ", ".join(g.label(b) for b in extra))
        if missing:
            errors.append("left out: " + ", ".join(g.label(b) for b in missing))
    if errors:
        raise IllegalChoiceError("; ".join(errors), "5.3")


def do_sealed(g: GameLike, d: Decision, ch: Choice) -> None:
    g.state.sealed[d.side] = _sealed_value(ch)


def _sealed_value(ch: Choice) -> object:
    if isinstance(ch, Deploy):
        return {loc: list(ids) for loc, ids in ch.placement}
    if isinstance(ch, (Discard, Play)):
        return ch.card
    raise TypeError(ch)


def resolve_sealed(g: GameLike) -> None:
    st = g.state
    sealed, st.sealed = st.sealed, {}
    if st.phase is Phase.DEPLOY:
        for side in SIDES:
            for loc, ids in sorted(sealed[side].items()):
                for bid in ids:
                    g.place(bid, loc)
            g.emit("deployed", Audience.of(side), f"{side} deploys (free deployment)", placement=sealed[side])
        g.emit("deployment", Audience.ALL, "Both sides have deployed (free deployment, 5.3)")
        start_year(g)
        return
    if st.phase is Phase.DISCARD:
        for side in SIDES:
            st.hands[side].remove(sealed[side])
            g.emit("discard", Audience.of(side), f"{side} discards {sealed[side]}", side=side.value, card=sealed[side])
        g.emit("discards", Audience.ALL, "Both sides have discarded a card")
        st.phase = Phase.CARD
        return
    reveal(g, {s: sealed[s] for s in SIDES})


def reveal(g: GameLike, played: dict[Side, str]) -> None:
    """Both cards are in: reveal, resolve Apollo, cancel events, find Player 1 (C2-C5)."""
    st = g.state
    for side in SIDES:
        st.hands[side].remove(played[side])
    st.played = dict(played)
    eff: dict[Side, str] = {}
    for side in SIDES:
        card = played[side]
        eff[side] = st.prev_effective[side.enemy] if card == APOLLO else card
    st.effective = eff
    text = ", ".join(
        f"{s} plays {played[s]}" + (f" (copying {eff[s]})" if played[s] == APOLLO else "") for s in SIDES
    )
    g.emit(
        "reveal",
        Audience.ALL,
        f"Game turn {st.turn} of {st.year}: {text}",
        played={s._value_: played[s] for s in SIDES},  # _value_: what Enum's value property reads, directly
        effective={s._value_: eff[s] for s in SIDES},
        turn=st.turn,
        year=st.year,
    )
    card_info = g.board.card
    if all(card_info(played[s]).event for s in SIDES):
        g.emit("cancelled", Audience.ALL, "Both cards are events: both are cancelled and the game turn ends (C3)")
        st.player1 = None
        g.enter(Transition.END_TURN)
        return
    eff_event = {s: card_info(eff[s]).event for s in SIDES}
    if st.options.tournament and st.year == g.board.setup_year and st.turn == 1:
        p1 = Side.CAESAR
        why = "tournament rule C5"
    elif eff_event[Side.CAESAR] != eff_event[Side.POMPEY]:
        p1 = Side.CAESAR if eff_event[Side.CAESAR] else Side.POMPEY
        why = "the event player is Player 1"
    else:
        mv = {s: card_info(eff[s]).moves for s in SIDES}
        if mv[Side.CAESAR] == mv[Side.POMPEY]:
            p1, why = Side.CAESAR, "equal Moves: Caesar"
        else:
            p1 = max(SIDES, key=lambda s: mv[s])
            why = "the higher Moves"
    st.player1 = p1
    g.emit("player1", Audience.ALL, f"{p1} is Player 1 ({why})", side=p1._value_)
    g.enter(Transition.START_COMMAND, p1)


HANDLERS = {
    DecisionKind.DEPLOY: ((Deploy,), check_deploy, do_sealed),
    DecisionKind.DISCARD: ((Discard,), check_discard, do_sealed),
    DecisionKind.PLAY: ((Play,), check_play, do_sealed),
}
