"""What happened, as one viewer may see it: grouped events, battles round by round, "last seen".

Everything here is built from the events whose audience the viewer may see
(:meth:`~pbem.games.caesar.rules.choices.Audience.sees`), never from the position.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pbem.core.events import Event, audiences_seen_by
from pbem.core.phrase import N_, Phrase, joined
from pbem.games.caesar.rules.board import Board, Side, short_name
from pbem.games.caesar.rules.choices import Audience
from pbem.games.caesar.view.phrases import event_phrase, read, read_part, side
from pbem.games.caesar.view.viewmodel import (
    BattleView,
    Entry,
    Line,
    RoundView,
    Sighting,
    block_order,
    name_for,
    roman,
)

# ---- events ----------------------------------------------------------------------


def visible_events(log: Sequence[Event], viewer: Side | None) -> list[tuple[int, Event]]:
    """The events ``viewer`` may see, with their index in the log.

    The moderator sees every event; of an owner's version and the opponent's
    redacted copy (``Game.emit_split``) he is shown the owner's only.
    """
    seen = audiences_seen_by(viewer.value if viewer is not None else None)  # Event.visible_to, for a whole log
    if seen is None:
        return [(i, e) for i, e in enumerate(log) if not _is_redacted_copy(e)]
    return [(i, e) for i, e in enumerate(log) if e.audience in seen]


_SIDE_AUDIENCES = (Audience.CAESAR.value, Audience.POMPEY.value)


def _is_redacted_copy(e: Event) -> bool:
    side = e.data.get("side")
    return e.audience in _SIDE_AUDIENCES and isinstance(side, str) and side != e.audience


_BATTLE_KINDS = frozenset(
    {"round", "fire", "hit", "pass", "retreat", "no-retreat", "eliminated", "killed", "cleopatra",
     "reserves", "disrupted", "swap", "battle-end", "regroup"}
)
_GROUPED = frozenset({"move", "sea-move", "navis-port", "regroup", "levy", "levy-step", "disband"})
ELIMINATIONS = frozenset({"eliminated", "killed", "navis-disbanded"})
# progress notices that say nothing a report does not show better
_SKIPPED = frozenset({"sealed", "default"})


class _Clock:
    """Year and game turn as the log goes by (from public events)."""

    def __init__(self, year: int) -> None:
        self.year = year
        self.turn = 1

    def see(self, e: Event) -> None:
        if e.kind == "year":
            self.year, self.turn = int(e.data.get("year", self.year)), 1
        elif e.kind == "reveal":
            self.year = int(e.data.get("year", self.year))
            self.turn = int(e.data.get("turn", self.turn))


def _suffix(text: str) -> str:
    """A trailing ``(why)`` of an event text: ``"(winter supply: Genua supports 3)"``."""
    m = re.search(r"\(([^()]*)\)$", text)
    return m.group(0) if m else ""


def _group_key(e: Event) -> tuple[Any, ...]:
    d = e.data
    where = tuple(d.get("path") or ()) or (d.get("loc"),)
    return (e.kind, d.get("side"), where, "block" in d, bool(d.get("navis")), _suffix(e.text))


def _grouped_text(board: Board, run: Sequence[Event], tag_side: bool) -> str:
    """One line for a run of like events: ``Pompey: 3 blocks move Genua -> Roma`` (a Phrase).

    ``tag_side`` names the side before an owner's version (the moderator sees
    both sides' own versions).
    """
    first = run[0]
    d = first.data
    side_ = str(d.get("side", ""))
    sd = side(side_)
    n = len(run)
    one = n == 1
    path_list = [str(p) for p in d.get("path") or ()]
    path = " -> ".join(path_list)
    start, end = (path_list[0], path_list[-1]) if path_list else ("", "")
    loc = str(d.get("loc", ""))
    why = _suffix(first.text)
    said_why = read_part("disband-why", why[1:-1]) if why else ""
    kind = first.kind
    if "block" in d:
        owner = Side(side_) if side_ in (s.value for s in Side) else None
        names = []
        for e in run:
            bid = str(e.data["block"])
            nm = name_for(board, bid, owner) if owner is not None and bid in board.blocks else bid
            if "strength" in e.data:
                r = roman(int(e.data["strength"]))
                nm = Phrase(N_("%(block)s (now %(roman)s)"), block=nm, roman=r) if kind == "levy-step" else f"{nm} ({r})"
            names.append(nm)
        what = joined(names)
        own: str | None = None
        if kind == "move":
            own = Phrase(N_("%(what)s: %(path)s"), what=what, path=path)
        elif kind == "sea-move":
            own = Phrase(N_("%(what)s by sea: %(path)s"), what=what, path=path)
        elif kind == "navis-port":
            own = Phrase(N_("%(what)s winters in %(end)s (from %(start)s)") if one
                         else N_("%(what)s winter in %(end)s (from %(start)s)"), what=what, end=end, start=start)
        elif kind == "regroup":
            own = Phrase(N_("%(what)s regroups %(path)s") if one else N_("%(what)s regroup %(path)s"), what=what, path=path)
        if own is not None:
            return Phrase(N_("%(side)s %(line)s"), side=sd, line=own) if tag_side else own
        if kind == "levy":
            return Phrase(N_("%(side)s levies %(what)s at %(loc)s"), side=sd, what=what, loc=loc)
        if kind == "levy-step":
            return Phrase(N_("%(side)s adds a step at %(loc)s: %(what)s") if one
                          else N_("%(side)s adds steps at %(loc)s: %(what)s"), side=sd, what=what, loc=loc)
        if kind == "disband" and said_why:
            return Phrase(N_("%(side)s disbands %(what)s at %(loc)s (%(why)s)"), side=sd, what=what, loc=loc, why=said_why)
        if kind == "disband":
            return Phrase(N_("%(side)s disbands %(what)s at %(loc)s"), side=sd, what=what, loc=loc)
        return "; ".join(e.text for e in run)
    navis = bool(d.get("navis")) or kind == "navis-port"
    if kind in ("move", "sea-move", "regroup"):
        msg = {
            ("move", True, True): N_("%(side)s: a Navis moves %(path)s"),
            ("move", True, False): N_("%(side)s: %(n)s Navis move %(path)s"),
            ("move", False, True): N_("%(side)s: a block moves %(path)s"),
            ("move", False, False): N_("%(side)s: %(n)s blocks move %(path)s"),
            ("sea-move", True, True): N_("%(side)s: a Navis moves by sea %(path)s"),
            ("sea-move", True, False): N_("%(side)s: %(n)s Navis move by sea %(path)s"),
            ("sea-move", False, True): N_("%(side)s: a block moves by sea %(path)s"),
            ("sea-move", False, False): N_("%(side)s: %(n)s blocks move by sea %(path)s"),
            ("regroup", True, True): N_("%(side)s: a Navis regroups %(path)s"),
            ("regroup", True, False): N_("%(side)s: %(n)s Navis regroup %(path)s"),
            ("regroup", False, True): N_("%(side)s: a block regroups %(path)s"),
            ("regroup", False, False): N_("%(side)s: %(n)s blocks regroup %(path)s"),
        }[(kind, navis, one)]
        return Phrase(msg, side=sd, n=n, path=path)
    if kind == "navis-port":
        return Phrase(N_("%(side)s: a Navis goes from %(start)s to %(end)s") if one
                      else N_("%(side)s: %(n)s Navis go from %(start)s to %(end)s"), side=sd, n=n, start=start, end=end)
    if kind == "levy":
        return Phrase(N_("%(side)s levies a new block at %(loc)s") if one
                      else N_("%(side)s levies %(n)s new blocks at %(loc)s"), side=sd, n=n, loc=loc)
    if kind == "levy-step":
        return Phrase(N_("%(side)s adds a step to a block at %(loc)s") if one
                      else N_("%(side)s adds %(n)s steps to blocks at %(loc)s"), side=sd, n=n, loc=loc)
    if kind == "disband":
        unit = Phrase({(True, True): N_("a Navis"), (True, False): N_("%(n)s Navis"), (False, True): N_("a block"),
                       (False, False): N_("%(n)s blocks")}[(navis, one)], n=n)
        if said_why:
            return Phrase(N_("%(side)s disbands %(what)s at %(loc)s (%(why)s)"), side=sd, what=unit, loc=loc, why=said_why)
        return Phrase(N_("%(side)s disbands %(what)s at %(loc)s"), side=sd, what=unit, loc=loc)
    return "; ".join(e.text for e in run)


def _line(e: Event) -> Line:
    if e.kind == "fire" and e.data.get("dice"):
        combat = str(e.data.get("combat", ""))
        fire = int(combat[1:]) if combat[1:].isdigit() else 0
        text = e.text.split(": ")[0] if " fires: " in e.text else e.text
        return Line("fire", read(e.kind, text), tuple(int(x) for x in e.data["dice"]), int(e.data.get("hits", 0)), fire)
    return Line(e.kind, event_phrase(e))


def _opening(e: Event) -> tuple[str, ...]:
    attacker = str(e.data.get("attacker", ""))
    reserves = e.data.get("reserves", {}) or {}
    sides = [attacker] + [s.value for s in Side if s.value != attacker]
    out: list[str] = []
    for s in sides:
        shown = [f"{r['name']} {roman(int(r['strength']))}" for r in e.data.get("revealed", ()) if r.get("side") == s]
        n_res = int(reserves.get(s, 0))
        blocks = ", ".join(shown) if shown else Phrase(N_("none"))
        text = Phrase(N_("%(side)s (attacking): %(blocks)s") if s == attacker else N_("%(side)s (defending): %(blocks)s"),
                      side=side(s), blocks=blocks)
        if n_res:
            text = Phrase(N_("%(line)s; %(n)s in reserve"), line=text, n=n_res)
        out.append(text)
    return tuple(out)


class _BattleBuilder:
    def __init__(self, loc: str, attacker: str, surprise: bool, continued: bool, opening: tuple[str, ...], rnd: int) -> None:
        self.loc, self.attacker, self.surprise, self.continued, self.opening = loc, attacker, surprise, continued, opening
        self.rounds: list[tuple[int, list[Line]]] = []
        self.outcome: list[Line] = []
        self.ended = False
        if continued:
            self.rounds.append((rnd, []))

    def add(self, e: Event) -> None:
        if e.kind == "round":
            self.rounds.append((int(e.data.get("round", 0)), []))
        elif e.kind == "battle-end":
            self.ended = True
            self.outcome.append(_line(e))
        elif self.ended:
            self.outcome.append(_line(e))
        else:
            if not self.rounds:
                self.rounds.append((0, []))
            self.rounds[-1][1].append(_line(e))

    def build(self) -> BattleView:
        rounds = tuple(RoundView(n, tuple(lines)) for n, lines in self.rounds)
        return BattleView(self.loc, self.attacker, self.surprise, self.continued, self.opening, rounds, tuple(self.outcome))


def _belongs(b: _BattleBuilder, e: Event) -> bool:
    if e.kind not in _BATTLE_KINDS:
        return False
    if e.kind == "regroup":
        return b.ended and tuple(e.data.get("path") or ("",))[0] == b.loc
    loc = e.data.get("loc")
    return loc is None or loc == b.loc


def _battle_context(visible: Sequence[tuple[int, Event]], since: int, loc: str) -> tuple[str, bool, int]:
    """Attacker, surprise and round of a battle already under way before ``since``."""
    attacker, surprise, rnd = "", False, 0
    for i, e in visible:
        if i >= since:
            break
        if e.data.get("loc") != loc:
            continue
        if e.kind == "battle":
            attacker, surprise, rnd = str(e.data.get("attacker", "")), bool(e.data.get("surprise")), 1
        elif e.kind == "round":
            rnd = int(e.data.get("round", rnd))
        elif e.kind == "swap":
            attacker = ""
    return attacker, surprise, rnd


def _revealed(e: Event) -> str:
    """``Caesar plays Apollo (copying 3/1), Pompey plays 2/2``: the cards of a game turn."""
    text = e.text.split(": ", 1)[-1]
    played, eff = e.data.get("played", {}), e.data.get("effective", {})
    parts = [Phrase(N_("%(side)s plays %(card)s (copying %(effective)s)"), side=side(s), card=played[s], effective=eff[s])
             if played[s] == "Apollo" else Phrase(N_("%(side)s plays %(card)s"), side=side(s), card=played[s])
             for s in (x.value for x in Side) if s in played and s in eff]
    said = joined(parts)
    return said if said == text else text


def happened(board: Board, visible: Sequence[tuple[int, Event]], since: int, tag_side: bool) -> tuple[Entry, ...]:
    out: list[Entry] = []
    battle: _BattleBuilder | None = None
    run: list[Event] = []
    held: list[Entry] = []  # "X attacks Y" said by the first move of a run: told after the run's line

    def flush_run() -> None:
        if run:
            out.append(Entry("line", _grouped_text(board, run, tag_side)))
            run.clear()
        out.extend(held)
        held.clear()

    def flush_battle() -> None:
        nonlocal battle
        if battle is not None:
            out.append(Entry("battle", battle=battle.build()))
            battle = None

    for i, e in visible:
        if i < since or e.kind in _SKIPPED:
            continue
        if battle is not None and _belongs(battle, e):
            battle.add(e)
            continue
        if battle is None and e.kind in _BATTLE_KINDS - {"eliminated", "killed", "cleopatra", "regroup"} and e.data.get("loc"):
            flush_run()
            loc = str(e.data["loc"])
            attacker, surprise, rnd = _battle_context(visible, since, loc)
            battle = _BattleBuilder(loc, attacker, surprise, True, (), rnd if e.kind != "round" else 0)
            if e.kind == "round":
                battle.rounds.clear()
            battle.add(e)
            continue
        flush_battle()
        if e.kind == "attack" and run:
            held.append(Entry("line", event_phrase(e)))
            continue
        if e.kind in _GROUPED:
            if run and _group_key(run[-1]) != _group_key(e):
                flush_run()
            run.append(e)
            continue
        flush_run()
        if e.kind == "battle":
            battle = _BattleBuilder(
                str(e.data.get("loc", "")), str(e.data.get("attacker", "")), bool(e.data.get("surprise")), False,
                _opening(e), 1,
            )
        elif e.kind == "reveal":
            out.append(Entry("heading", Phrase(N_("Game turn %(turn)s of %(year)s"), turn=e.data.get("turn"),
                                               year=e.data.get("year"))))
            out.append(Entry("line", _revealed(e)))
        elif e.kind == "year":
            out.append(Entry("heading", Phrase(N_("Year %(year)s"), year=e.data.get("year"))))
            out.append(Entry("line", event_phrase(e)))
        elif e.kind == "winter":
            out.append(Entry("heading", event_phrase(e)))
        elif e.kind == "battle-phase":
            out.append(Entry("heading", Phrase(N_("Battles"))))
            out.append(Entry("line", event_phrase(e)))
        else:
            out.append(Entry("line", event_phrase(e)))
    flush_battle()
    flush_run()
    return tuple(out)


# ---- "last seen" memory ----------------------------------------------------------


@dataclass
class _Seen:
    side: str
    name: str
    strength: int
    location: str
    year: int
    turn: int
    status: str


#: the kinds of event that move :class:`_Clock`, and those :func:`sightings` reads a block from (none of both)
_CLOCK_KINDS = frozenset({"year", "reveal"})
_SIGHTING_KINDS = frozenset({"battle", "reserves", "disrupted", "fire", "hit", "pass", "no-retreat", "retreat", "jupiter",
                             "step-lost", "defection", "eliminated", "navis-disbanded", "killed", "cleopatra"})


def sightings(board: Board, visible: Sequence[tuple[int, Event]], viewer: Side | None) -> tuple[Sighting, ...]:
    """The latest strength and place of every enemy block the viewer saw revealed."""
    if viewer is None:
        return ()
    seen: dict[str, _Seen] = {}
    clock = _Clock(board.setup_year)
    last_reserves: list[str] = []

    def note(bid: str, *, side: str | None = None, name: str | None = None, strength: int | None = None,
             loc: str | None = None, status: str = "seen") -> None:
        if bid not in board.blocks:
            return
        info = board.blocks[bid]
        prev = seen.get(bid)
        s = _Seen(
            side=side or (prev.side if prev else info.side.value),
            name=name or (prev.name if prev else info.name),
            strength=strength if strength is not None else (prev.strength if prev else 0),
            location=loc or (prev.location if prev else ""),
            year=clock.year,
            turn=clock.turn,
            status=status,
        )
        seen[bid] = s

    for _, e in visible:
        if e.kind not in _SIGHTING_KINDS:  # most events: only the clock may move
            if e.kind in _CLOCK_KINDS:
                clock.see(e)
            continue
        d = e.data
        bid = str(d.get("block", ""))
        loc = d.get("loc")
        if e.kind in ("battle", "reserves"):
            if e.kind == "reserves":
                last_reserves = [str(r["block"]) for r in d.get("revealed", ())]
            for r in d.get("revealed", ()):
                note(str(r["block"]), side=str(r["side"]), name=str(r["name"]), strength=int(r["strength"]), loc=loc)
        elif e.kind == "disrupted":
            for b in last_reserves:
                p = seen.get(b)
                if p is not None and p.side == d.get("side") and p.status == "seen" and b in board.blocks:
                    note(b, strength=board.blocks[b].step_down(p.strength) or p.strength)
        elif e.kind == "fire" and bid:
            note(bid, side=str(d.get("side") or "") or None, strength=len(d.get("dice", ())) or None, loc=loc)
        elif e.kind == "hit" and bid:
            note(bid, strength=int(d["strength"]), loc=loc)
        elif e.kind in ("pass", "no-retreat") and bid:
            note(bid, loc=loc)
        elif e.kind == "retreat" and bid:
            note(bid, loc=str(d.get("to") or loc or ""))
        elif e.kind == "jupiter" and bid:
            note(bid, strength=int(d["strength"]), loc=loc)
        elif e.kind == "step-lost" and bid:
            p = seen.get(bid)
            if p is not None and bid in board.blocks:
                note(bid, strength=board.blocks[bid].step_down(p.strength) or p.strength)
        elif e.kind == "defection" and bid:
            note(bid, side=str(d.get("side")), loc=str(d.get("to") or "") or None)
        elif e.kind in ("eliminated", "navis-disbanded") and bid:
            note(bid, side=str(d.get("side") or "") or None, loc=loc, status="eliminated")
        elif e.kind == "killed" and bid:
            note(bid, side=str(d.get("side") or "") or None, loc=loc, status="killed")
        elif e.kind == "cleopatra" and "Cleopatra" in seen:
            seen["Cleopatra"].side = str(d.get("side"))
    out = []
    for bid in sorted(seen, key=lambda b: block_order(board.blocks[b])):
        s = seen[bid]
        if s.side == viewer.value:
            continue  # a block that is (now) the viewer's own
        info = board.blocks[bid]
        out.append(Sighting(s.side, s.name, short_name(info) if s.name == info.name else s.name, s.strength,
                            roman(s.strength), s.location, s.year, s.turn, s.status))
    return tuple(out)
