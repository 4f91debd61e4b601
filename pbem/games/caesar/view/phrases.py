"""The game's own sentences (its event texts, the phase, the result, the defaults) as Phrases, so a
Spanish or Swedish report says them in its language (:mod:`pbem.core.phrase`).

Each event kind has the messages its English text is made of (``rules/``, ``steps/``); a message is
also the pattern that reads the text back, so the Phrase of an event says exactly its text in
English (reports stay byte for byte what they were) and the events of games stored before this
module are said in every language too. The values that are themselves sentences (a cause, a
reason) have their own messages (``_CAUSES``, ``_REASONS`` ...); names of blocks, places and cards
stay as they are (terms: names are not translated), sides are said in prose (César, Pompejus).

Pure: no gettext here; :func:`pbem.core.phrase.say` translates when a template renders.
"""

from __future__ import annotations

from functools import cache

from pbem.core.events import Event
from pbem.core.phrase import N_, Patterns, Phrase

__all__ = ["SIDES", "event_phrase", "known_kinds", "problem_phrase", "read", "read_part", "side"]

SIDES = ("Caesar", "Pompey")
_SIDE_NAMES = frozenset({"side", "other", "victor", "winner", "enemy"})
_KINDS = {"n": r"\d+", "m": r"\d+", "year": r"\d+", "turn": r"\d+", "step": r"\d+", "moves": r"\d+",
          "levies": r"\d+", "combat": r"[A-D]\d", "origin": r"[^(),]+", "roman": r"[IV]+"}


def side(name: str) -> str:
    """A side's name as a Phrase (said in prose: César, Pompejus); any other name as it is."""
    return Phrase(name) if name in SIDES else name


def _patterns(messages: tuple[str, ...], **nested: object) -> Patterns:
    return Patterns(messages, kinds=_KINDS, sides=_SIDE_NAMES, side_names=SIDES,
                    nested={k: v for k, v in nested.items()})  # type: ignore[misc]


@cache
def _causes() -> Patterns:
    return _patterns((N_("hit by %(block)s"), N_("Vulcan"), N_("Jupiter"), N_("disruption"),
                      N_("no retreat in Round 4"), N_("still in battle after Round 4")))


@cache
def _why_player1() -> Patterns:
    return _patterns((N_("the higher Moves"), N_("equal Moves: %(side)s"), N_("the event player is Player 1"),
                      N_("tournament rule C5")))


@cache
def _roles() -> Patterns:
    return _patterns((N_("Player 1"), N_("Player 2")))


@cache
def _commands() -> Patterns:
    return _patterns((N_("%(moves)s Moves, %(levies)s Levies"), N_("the %(card)s event")))


@cache
def _forces() -> Patterns:
    return _patterns((N_("%(n)s block(s) from %(origin)s (main attack)"),
                      N_("%(first)s, %(n)s from %(origin)s (reserves)")), first=_forces)


@cache
def _disband_why() -> Patterns:
    return _patterns((N_("winter supply"), N_("winter supply: %(loc)s supports %(n)s"), N_("voluntary"),
                      N_("no Friendly port on that sea, 8.3")))


@cache
def _jupiter_how() -> Patterns:
    return _patterns((N_("draws one of %(n)s block(s) at random"), N_("names Cleopatra")))


@cache
def _how_won() -> Patterns:
    """How a game ended (``Result.reason``): the winter's victory check, a resignation, a forfeit."""
    return _patterns((
        N_("%(n)s VP, 10 or more, at the end of %(year)s"),
        N_("%(n)s VP, 10 or more, at the end of %(year)s (both reached 10: the higher wins)"),
        N_("more VP after the last Year (%(year)s)"),
        N_("VP tied at %(n)s after %(year)s, and %(side)s holds Roma"),
        N_("VP tied at %(n)s after %(year)s, and nobody holds Roma"),
        N_("%(side)s resigned"),
        N_("%(side)s forfeited (the moderator's ruling)"),
        N_("drawn by agreement"),
    ))


@cache
def result_patterns() -> Patterns:
    """A game's result as ``winter.result_text`` says it."""
    return _patterns((N_("%(winner)s wins: %(how)s; score %(side)s %(n)s VP, %(other)s %(m)s VP"),
                      N_("a draw: %(how)s; score %(side)s %(n)s VP, %(other)s %(m)s VP")), how=_how_won)


@cache
def _plan_why() -> Patterns:
    return _patterns((N_("it cannot retreat to %(to)s (it could retreat to %(where)s)"),
                      N_("it cannot regroup to %(to)s (it could regroup to %(where)s)")))


# the event kinds said line by line (moves, levies and the like are grouped by history.py)
_EVENTS: dict[str, tuple[str, ...]] = {
    "attack": (N_("%(side)s attacks %(loc)s"), N_("%(side)s attacks %(loc)s (Cleopatra changed sides there)")),
    "attack-summary": (N_("Forces of %(side)s's attack on %(loc)s: %(forces)s"),),
    "main-attack": (N_("%(side)s's main attack on %(loc)s comes from %(origin)s"),),
    "battle-end": (N_("Battle of %(loc)s: %(victor)s wins"),),
    "battle-order": (N_("%(side)s chooses to fight at %(loc)s next"),),
    "battle-phase": (N_("Battles to fight: %(locs)s"),),
    "cancelled": (N_("Both cards are events: both are cancelled and the game turn ends (C3)"),),
    "cleopatra-home": (N_("Cleopatra goes home to %(loc)s"),),
    "cleopatra": (N_("Cleopatra is eliminated (%(cause)s) and joins %(side)s at strength I in %(loc)s (7.52)"),
                  N_("%(loc)s is held by %(side)s: Cleopatra joins %(side)s (8.1)")),
    "command": (N_("%(side)s (%(role)s) commands: %(what)s"),),
    "command-end": (N_("%(side)s has finished its command"),),
    "deal": (N_("%(side)s is dealt: %(cards)s"),),
    "defection": (N_("%(block)s defects to %(side)s at strength %(n)s"),
                  N_("%(block)s defects to %(side)s at strength %(n)s and moves to %(to)s")),
    "deployed": (N_("%(side)s deploys (free deployment)"),),
    "deployment": (N_("Both sides have deployed (free deployment, 5.3)"),),
    "discard": (N_("%(side)s discards %(card)s"),),
    "discards": (N_("Both sides have discarded a card"),),
    "disband": (N_("%(side)s disbands a block at %(loc)s (%(why)s)"),  # the enemy's version first: "a block" is no name
                N_("%(side)s disbands %(block)s at %(loc)s (%(why)s)")),
    "eliminated": (N_("%(side)s's %(block)s is eliminated (%(cause)s) at %(loc)s"),),
    "killed": (N_("%(side)s's leader %(block)s is killed (%(cause)s) at %(loc)s: 1 VP for %(enemy)s (7.51)"),),
    "event-void": (N_("%(side)s makes no use of the event"), N_("%(card)s has no legal target: no effect (E1, E2)"),
                   N_("%(card)s: no battle to make a surprise battle (E3, E4)")),
    "fire": (N_("%(side)s %(block)s (%(combat)s) fires"),
             N_("%(side)s %(block)s (%(combat)s) fires: %(dice)s = %(n)s hit(s)")),
    "game-over": (N_("Game over: %(result)s"),),
    "hit": (N_("%(side)s %(block)s takes a hit: now %(roman)s"),),
    "jupiter": (N_("Jupiter: %(side)s names %(loc)s and %(how)s: %(block)s"),),
    "pass": (N_("%(side)s %(block)s passes"), N_("%(side)s: no target for %(n)s block(s); they pass")),
    "player1": (N_("%(side)s is Player 1 (%(why)s)"),),
    "retreat": (N_("%(side)s %(block)s retreats to %(to)s"), N_("%(side)s %(block)s retreats by sea to %(to)s")),
    "no-retreat": (N_("%(block)s must retreat and cannot (B4)"),),
    "reserves": (N_("Reserves arrive at %(loc)s: %(blocks)s"),),
    "disrupted": (N_("%(side)s's reserves at %(loc)s are disrupted: each loses a step (7.31)"),),
    "swap": (N_("%(side)s is now the attacker at %(loc)s and %(other)s the defender (7.31)"),),
    "round": (N_("%(loc)s, Round %(n)s"),),
    "regroup": (N_("%(side)s: a block regroups %(path)s"), N_("%(block)s regroups %(path)s")),  # after a battle
    "step-lost": (N_("%(block)s does not defect and loses a step (E1)"),),
    "surprise": (N_("%(side)s makes %(loc)s a surprise battle"),),
    "vp": (N_("Victory points: %(side)s %(n)s, %(other)s %(m)s"),),
    "vulcan": (N_("Vulcan strikes %(loc)s: %(n)s block(s) lose a step (E2)"),),
    "winter": (N_("Winter of %(year)s"),),
    "year": (N_("Year %(year)s begins: six cards dealt to each side"),),
    "year-reset": (N_("Eliminated blocks return to the levy pools for %(year)s"),),
    "default": (
        N_("historical deployment (default)"),
        N_("%(side)s discards %(card)s (default)"),
        N_("%(side)s plays %(card)s (default)"),
        N_("%(side)s: no orders by the deadline: no moves, no levies (default)"),
        N_("%(side)s makes no use of %(card)s (default)"),
        N_("%(loc)s: the plan line '%(plan)s' is not carried out for %(block)s: %(why)s"),
        N_("%(side)s fights %(loc)s next (default: alphabetical)"),
        N_("%(block)s must retreat from %(loc)s: to %(to)s (default)"),
        N_("%(block)s must retreat from %(loc)s: to %(to)s by sea (default)"),
        N_("the hit at %(loc)s goes to %(block)s (default among %(blocks)s)"),
        N_("%(block)s winters in %(loc)s (default)"),
        N_("%(loc)s is over its supply limit: %(block)s is disbanded (default: the weakest)"),
    ),
    # the steps' and the club's own events (pbem.games.caesar.steps, pbem.decide, pbem.control)
    "deadline": (N_("Step %(step)s: the deadline passed without orders from %(sides)s; defaults apply"),),
    "resign": (N_("%(side)s resigns"),),
    "away": (N_("%(side)s is away until %(until)s: the deadlines wait for him, within the club's limit"),
             N_("%(side)s is away until %(until)s (he said so in game %(game)s): the deadlines wait for him, within "
                "the club's limit")),
    "draw-offer": (N_("%(side)s offers a draw: %(other)s may accept it by sending `accept draw` alone in a submission "
                      "until step %(step)s is over (after that the offer lapses)"),),
    "draw-agreed": (N_("%(side)s accepts the draw %(other)s offered"),),
    "moderator": (N_("The moderator extends the deadline of step %(step)s by %(duration)s"),
                  N_("The moderator gives %(side)s to a substitute player; the previous player's credentials no "
                     "longer work"),
                  N_("The moderator pauses the game: no deadline runs until he resumes it"),
                  N_("The moderator resumes the game: the open step has a whole deadline from now"),
                  N_("The moderator rules that %(side)s forfeits the game")),
    "secret": (N_("The game is over, so its secret is revealed: %(secret)s. Its SHA-256 is the commitment "
                  "%(commitment)s shown in every report; with both sides' submissions it recomputes every die and "
                  "deal (`pbem audit check`)."),),
}
_EVENTS["navis-disbanded"] = _EVENTS["disband"]


@cache
def _event_patterns(kind: str) -> Patterns | None:
    messages = _EVENTS.get(kind)
    if messages is None:
        return None
    return _patterns(messages, cause=_causes, why=_why_player1 if kind == "player1" else (
        _plan_why if kind == "default" else _disband_why), role=_roles, what=_commands, forces=_forces,
        how=_jupiter_how, result=result_patterns)


def read(kind: str, text: str) -> str:
    """``text`` (an event of ``kind``, or a part of one) as a Phrase, or as it is when no message fits."""
    patterns = _event_patterns(kind)
    found = patterns.read(text) if patterns is not None else None
    return found if found is not None else text


_PARTS = {"disband-why": _disband_why, "result": result_patterns}


def read_part(part: str, text: str) -> str:
    """A part of a sentence (``disband-why``, ``result``) as a Phrase, or as it is when no message fits."""
    found = _PARTS[part]().read(text)
    return found if found is not None else text


def event_phrase(e: Event) -> str:
    """An event's text as a Phrase (English: its text exactly)."""
    return read(e.kind, e.text)


def known_kinds() -> frozenset[str]:
    """The event kinds this module can say in every language."""
    return frozenset(_EVENTS)


# ---- the problems of a submission (a reply's lines), read back from the game's English ---------------

_Q = r"'[^']*'"


@cache
def _kinds_of_name() -> Patterns:
    return _patterns((N_("location"), N_("card"), N_("side"), N_("Caesar block"), N_("Pompey block")))


@cache
def _suggestions() -> Patterns:
    return Patterns(("%(name)s", N_("%(first)s or %(next)s")), kinds={"name": _Q, "next": _Q},
                    nested={"first": _suggestions})


@cache
def problem_patterns() -> Patterns:
    """The problems players meet most: a name misspelt, a card not held, a road that is not there, no
    points left, a line written wrong; several problems of one line are joined by '; '."""
    return Patterns((
        N_("unknown %(kind)s %(name)s"),
        N_("unknown %(kind)s %(name)s; did you mean %(options)s?"),
        N_("%(card)s is not in your hand; you hold %(cards)s"),
        N_("%(card)s is not in your hand; you can play %(cards)s"),
        N_("%(card)s is not in your hand (it is the card you discard); you can play %(cards)s"),
        N_("discard exactly one card"),
        N_("play exactly one card"),
        N_("no 'discard CARD' line: discard one of %(cards)s"),
        N_("no 'play CARD' line: play one of %(cards)s"),
        N_("Apollo cannot be played on the first game turn of a Year: there is no card to copy (C2)"),
        N_("no road from %(a)s to %(b)s; from %(a)s you can reach %(near)s (4.3)"),
        N_("no Move Points left: an amphibious move costs 1 MP per block (6.3)"),
        N_("no Levy Points left (6.4)"),
        N_("%(block)s has already moved this turn (rule 6.1, M1)"),
        N_("%(block)s is in %(loc)s, not %(origin)s (rule 6.1)"),
        N_("a block moves at most %(n)s cities (6.1)"),
        N_("a block moves at most %(n)s cities with Mercury (E5)"),
        N_("%(block)s can reach %(places)s"),
        N_("%(block)s cannot move now"),
        N_("empty order"),
        N_("a block name is missing"),
        N_("a location is missing"),
        N_("%(names)s named twice"),
        N_("a path needs at least two locations joined by '->', like 'Genua -> Roma'"),
        N_("write 'move FROM -> TO: BLOCK, BLOCK' (a colon before the blocks)"),
        N_("incomplete order; write %(form)s"),
        N_("no Move Points left to activate %(loc)s: all %(n)s were used (%(places)s) (6.1)"),
        N_("%(loc)s is %(control)s: new blocks are raised only in Friendly cities (6.4)"),
        N_("it can be raised in %(places)s"),
        N_("new blocks you can raise now: %(blocks)s"),
        N_("you can raise no new block now"),
    ), kinds={**_KINDS, "name": _Q}, sides=_SIDE_NAMES, side_names=SIDES, default=r"[^;]+?",
        nested={"kind": _kinds_of_name, "options": _suggestions, "control": _control})


@cache
def _control() -> Patterns:
    return _patterns((N_("a sea"), N_("friendly"), N_("enemy"), N_("contested"), N_("vacant")))


def problem_phrase(message: str) -> str:
    """A problem of a submission as a Phrase (said in the player's language), or as it is when no
    message fits; problems joined by '; ' are read one by one."""
    if isinstance(message, Phrase):
        return message
    found = problem_patterns().read(message)
    if found is not None:
        return found
    parts = message.split("; ")
    for i in range(1, len(parts)):  # every way to cut it in two, the first that reads wholly
        left, right = problem_phrase("; ".join(parts[:i])), problem_phrase("; ".join(parts[i:]))
        if isinstance(left, Phrase) and isinstance(right, Phrase):
            return Phrase("%(first)s; %(next)s", first=left, next=right)
    return message
