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

from functools import cache, lru_cache

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
def _side_blocks() -> Patterns:
    """A list of blocks each after its side (the reserves arriving: ``Caesar Legio 8 III, Pompey Navis 1 II``),
    the sides said in prose."""
    return Patterns(("%(side)s %(block)s", "%(first)s, %(next)s"), kinds={"block": r"[^,]+"}, sides=("side",),
                    side_names=SIDES, nested={"first": _side_block, "next": _side_blocks})


@cache
def _side_block() -> Patterns:
    return Patterns(("%(side)s %(block)s",), kinds={"block": r"[^,]+"}, sides=("side",), side_names=SIDES)


@cache
def _side_list() -> Patterns:
    """A list of sides (``Caesar, Pompey``), each said in prose."""
    return Patterns(("%(side)s", "%(side)s, %(next)s"), sides=("side",), side_names=SIDES,
                    nested={"next": _side_list})


@cache
def _event_patterns(kind: str) -> Patterns | None:
    messages = _EVENTS.get(kind)
    if messages is None:
        return None
    lists = {"reserves": {"blocks": _side_blocks}, "deadline": {"sides": _side_list}}.get(kind, {})
    return _patterns(messages, cause=_causes, why=_why_player1 if kind == "player1" else (
        _plan_why if kind == "default" else _disband_why), role=_roles, what=_commands, forces=_forces,
        how=_jupiter_how, result=result_patterns, **lists)


@lru_cache(maxsize=8192)
def read(kind: str, text: str) -> str:
    """``text`` (an event of ``kind``, or a part of one) as a Phrase, or as it is when no message fits.

    Remembered (a few thousand): each recipient's report reads the same events, and the log repeats its
    texts. A Phrase is never changed once made, so the same one can be handed out again."""
    patterns = _event_patterns(kind)
    found = patterns.read(text) if patterns is not None else None
    return found if found is not None else text


_PARTS = {"disband-why": _disband_why, "result": result_patterns}


@lru_cache(maxsize=1024)
def read_part(part: str, text: str) -> str:
    """A part of a sentence (``disband-why``, ``result``) as a Phrase, or as it is when no message fits
    (remembered, as :func:`read`)."""
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


# the rest of the problems an order line meets (the parser's, the rules' own checks, a whole submission's)
_MORE_PROBLEMS = (
    N_("unknown order %(word)s Orders start with one of: %(orders)s"),
    N_("unknown order %(word)s; did you mean %(options)s? Orders start with one of: %(orders)s"),
    N_("no blocks named after ':' ; write %(form)s"),
    N_("write %(syntax)s"),
    N_("write %(syntax)s or %(other)s"),
    N_("write %(syntax)s, %(other)s or %(third)s"),
    N_("write %(syntax)s (the road of the Main Attack)"),
    N_("write %(syntax)s in the order you want them fought"),
    N_("an amphibious move goes port -> sea [-> sea] -> port"),
    N_("after 'jupiter CITY:' only 'Cleopatra' may be named; the block is drawn at random"),
    N_("did you mean 'no event'?"),
    N_("a battle is named twice"),
    N_("unknown battle plan %(word)s; use retreat, hits or order"),
    N_("round %(word)s must be 2, 3 or 4"),
    N_("round %(n)s: retreats are possible in rounds 2, 3 and 4 (7.6)"),
    N_("location %(name)s is ambiguous: it could be %(places)s"),
    N_("%(card)s is not in %(side)s's hand (rule 2.1); you hold %(cards)s"),
    N_("Apollo cannot be played on the first game turn of a Year: there is no card to copy (rule C2)"),
    N_("%(block)s is a %(owner)s block, not one of yours"),
    N_("%(block)s is a %(owner)s block, not one of yours (rule %(rule)s)"),
    N_("%(block)s defected to %(side)s: it is not yours now"),
    N_("%(block)s defected to %(side)s: it is not yours now (rule %(rule)s)"),
    N_("Cleopatra fights for %(side)s now, not for you"),
    N_("Cleopatra fights for %(side)s now, not for you (rule %(rule)s)"),
    N_("there is no block %(name)s"),
    N_("there is no block %(name)s (rule %(rule)s)"),
    N_("%(block)s is dead, not on the map (rule %(rule)s)"),
    N_("%(block)s is dead, not on the map"),
    N_("%(block)s is in your levy pool, not on the map"),
    N_("%(block)s is in your levy pool, not on the map (rule %(rule)s)"),
    N_("%(block)s was eliminated, not on the map"),
    N_("Cleopatra is never levied: she changes sides instead (7.52)"),
    N_("%(block)s is already on the map; to strengthen it write a step levy (6.4)"),
    N_("%(block)s was killed: leaders are eliminated for good (7.51)"),
    N_("%(block)s was eliminated this Year and cannot be levied before the next (5.2, 7.5)"),
    N_("%(block)s can be levied only after one of %(side)s's leaders has been killed (7.51, M8)"),
    N_("unknown city %(name)s"),
    N_("%(loc)s is not a major port: Navis are built in Friendly major ports (3.26, 6.4)"),
    N_("%(block)s is raised only in %(loc)s (6.4)"),
    N_("%(block)s is at full strength (%(roman)s) (3.11)"),
    N_("%(block)s is at sea: steps are added to Navis only in port (6.4)"),
    N_("%(loc)s is %(control)s: steps are added only in Friendly cities (6.4)"),
    N_("%(side)s is not levying now (rule 6.4)"),
    N_("%(side)s is not moving now (rule 6.0)"),
    N_("%(block)s is in %(loc)s, not %(origin)s (rule 6.3)"),
    N_("%(card)s allows one group move and it was made from %(loc)s (E3-E6)"),
    N_("%(card)s allows one group move (E3-E6)"),
    N_("Neptune moves Navis only (E4)"),
    N_("%(card)s allows one group move; amphibious moves need a command card (6.3)"),
    N_("%(block)s has no amphibious move now"),
    N_("%(block)s can reach by sea %(places)s"),
    N_("you have not attacked %(loc)s this turn (rule 7.3); you attacked %(places)s"),
    N_("you have not attacked %(loc)s this turn (rule 7.3); you have attacked nothing yet"),
    N_("none of your blocks entered %(loc)s from %(origin)s (rule 7.3); they came from %(places)s"),
    N_("%(side)s has no event choice to make now"),
    N_("your event is %(card)s, not %(other_card)s"),
    N_("%(loc)s is not an Enemy city next to one of your Friendly cities, nor a sea with enemy Navis next to "
       "a Friendly port (rule E1); you may name %(places)s"),
    N_("Cleopatra's blue block is not an enemy block in %(loc)s (rule E1)"),
    N_("a defector from %(loc)s can only go to an adjacent Friendly city of yours (rule E1); that is %(places)s"),
    N_("%(loc)s is not an Enemy city (rule E2); you may name %(places)s"),
    N_("%(loc)s is not a battle you started this turn (rule E3, E4); you may name %(places)s"),
    N_("no battle is being fought now (rule 7.1)"),
    N_("the battle of %(loc)s is not over yet (rule 7.1)"),
    N_("there is no battle to fight at %(loc)s (rule 7.1); battles left: %(places)s"),
    N_("it is not %(block)s's battle turn (rule 7.2); the turn belongs to %(blocks)s"),
    N_("attacking blocks must retreat in Round 4 and cannot fire (rule 7.2, B4)"),
    N_("attacking blocks must retreat in Round 4 (rule 7.2, B4)"),
    N_("no retreats in Round 1 (rule 7.6)"),
    N_("no hit to assign now (rule 7.4)"),
    N_("no regroup now (rule 7.7)"),
    N_("the Navis to place now is %(block)s in %(loc)s (rule 8.3)"),
    N_("%(loc)s is not a Friendly port on %(sea)s (rule 8.3); choose %(places)s"),
    N_("Cleopatra cannot be disbanded (rule 8.5)"),
    N_("the surplus must come from the blocks in %(loc)s (Cleopatra cannot be disbanded) (rule 8.4); choose "
       "from %(blocks)s"),
    N_("%(loc)s is deployed twice (lines %(n)s and %(m)s): one line per city"),
    N_("no Levy Points left: %(card)s gives %(n)s and they are all used (6.4)"),
    N_("answer with 'regroup %(loc)s: BLOCK -> DESTINATION' lines, or 'pass'"),
    N_("battle plans are sent in the battles step; this is step %(step)s, %(title)s"),
    N_("there is no battle at %(loc)s; battles: %(places)s"),
    N_("%(block)s is not in the battle of %(loc)s"),
    N_("your blocks in the battle of %(loc)s: %(blocks)s"),
    N_("%(to)s is not a port on a sea next to %(loc)s; by sea you could reach %(places)s"),
    N_("%(to)s is not next to %(loc)s; retreats go to %(places)s"),
    N_("%(to)s is not next to %(loc)s; regroups go to %(places)s"),
    N_("unknown block %(block)s"),
    N_("%(block)s is not a Navis"),
    N_("%(loc)s is not a port"),
    N_("one event order only"),
    N_("%(card)s is your whole command this turn: no moves or levies (E1, E2)"),
    N_("%(word)s is the order of the %(event)s event; your card is %(card)s: one group move (E3-E6)"),
    N_("%(word)s is the order of the %(event)s event; your card is %(card)s (%(n)s Moves, %(m)s Levies): "
       "send moves and levies"),
    N_("'no event' is for an event card; your card is %(card)s (%(n)s Moves, %(m)s Levies): send moves and levies"),
    N_("an event card gives no levies (%(card)s)"),
    N_("%(loc)s is not one of %(side)s's set-up cities (%(places)s) (rule 5.3)"),
    N_("%(loc)s is not one of %(side)s's set-up cities (%(places)s)"),
    N_("%(block)s is a Navis and %(loc)s is not a port (4.1) (rule 5.3)"),
    N_("%(block)s is a Navis and %(loc)s is not a port (4.1)"),
    N_("%(loc)s must hold %(n)s blocks, not %(m)s (rule 5.3)"),
    N_("%(loc)s must hold %(n)s blocks, not %(m)s"),
    N_("not in the historical set-up (or placed twice): %(blocks)s (rule 5.3)"),
    N_("not in the historical set-up (or placed twice): %(blocks)s"),
    N_("left out: %(blocks)s (rule 5.3)"),
    N_("left out: %(blocks)s"),
    N_("send exactly one answer to: %(what)s"),
    N_("this does not answer: %(what)s"),
    N_("%(block)s cannot retreat to %(to)s (rule 7.6-7.64)"),
    N_("%(block)s cannot retreat to %(to)s by sea (rule 7.6-7.64)"),
    N_("it can retreat to %(places)s"),
    N_("it has no retreat"),
    N_("%(block)s cannot regroup to %(to)s (rule 7.7, 7.83, B6)"),
    N_("it can regroup to %(places)s"),
    N_("it cannot regroup"),
    N_("%(block)s is not among the strongest blocks (rule 7.4, B2)"),
    N_("the hit must go to %(blocks)s"),
    N_("only a retreat has a destination; to %(action)s, name no place (rule 7.2)"),
)


@cache
def problem_patterns() -> Patterns:
    """The problems players meet most: a name misspelt, a card not held, a road that is not there, no
    points left, a line written wrong; several problems of one line are joined by '; '."""
    return Patterns(_MORE_PROBLEMS + (
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
    ), kinds={**_KINDS, "name": _Q, "word": _Q, "syntax": _Q, "other": _Q, "third": _Q},
        sides=_SIDE_NAMES | {"owner"}, side_names=SIDES, default=r"[^;]+?",
        nested={"kind": _kinds_of_name, "options": _suggestions, "control": _control, "places": _names,
                "blocks": _names})


@cache
def _names() -> Patterns:
    """A list of places or blocks in a problem (said as it is), or the word a list has when it is empty."""
    return Patterns((N_("nothing"), N_("none"), "%(names)s"))


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
