"""The pure part of the step pipeline: deciding a submission, rendering a report.

The live pipeline (:mod:`pbem.store`) and the audit (:mod:`pbem.audit`) call the
same functions here, so a replay reaches the same verdicts, events and reports as
the live game did, byte for byte:

* :func:`decide` judges one submission's raw bytes against the adjudication state:
  parse, authenticate, recognise a resend, check the addressing, check the orders,
  and apply them (the state changes in place only when they are accepted);
* :func:`render_report` renders one outbox row from a stored snapshot and the log
  (:func:`reminder_body` and :func:`report_subject` give the rest of the mail text);
* :func:`initial_adjudication` rebuilds the starting state from the stored set-up, and
  :func:`header_hash`, :func:`event_hash` and :func:`canonical_json` give the hash
  chain its bytes; :func:`format_time` and :func:`parse_duration` and their
  inverses are the stored formats of times and deadlines.

Also here, because both modules need them: the verdicts, the causes of a resolution
and :class:`StoreError`. :mod:`pbem.store` re-exports every name it defined before
this module was split off. No database, no clock, no files: the rows come in as
arguments (their table classes are in :mod:`pbem.store` and are imported here for
type checking only, which keeps the imports free of cycles).
"""

from __future__ import annotations

import bisect
import hashlib
import json
import re
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol

from pbem import moderator
from pbem.control import AWAY, OFFER_DRAW, apply_control, find_control
from pbem.core.events import ALL, MODERATOR, Event
from pbem.core.game import Adjudication, GameSystem
from pbem.core.orders import SubmissionRejected
from pbem.core.phrase import N_, Phrase
from pbem.core.rng import KeyedStream, RandomStream, Rng
from pbem.errors import CredentialError, EnvelopeError, PbemError
from pbem.games import find_game
from pbem.records import LEGACY_SCHEMAS, LEGACY_SYSTEM, Cause, Verdict

if TYPE_CHECKING:
    from pbem.rows import OutboxRow
    from pbem.tables import OutboxRecord

    QueuedReport = OutboxRecord | OutboxRow  # a report row, read through the ORM or plain

__all__ = [
    "MODERATOR",
    "Cause",
    "GameFacts",
    "Outcome",
    "PlayerFacts",
    "StoreError",
    "Verdict",
    "canonical_json",
    "decide",
    "event_hash",
    "events_json",
    "format_duration",
    "format_time",
    "game_options",
    "header_hash",
    "initial_adjudication",
    "known_state",
    "parse_duration",
    "parse_time",
    "reminder_body",
    "previous_report_step",
    "previous_report_steps",
    "render_report",
    "reminder_subject",
    "report_subject",
    "sha256_text",
    "system_of",
]

_DURATION_RE = re.compile(r"(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?")
_TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
_FIRST_YEAR, _LAST_YEAR = 1970, 9000  # times given on the command line (--now)
_MAX_DEADLINE_DAYS = 366


class StoreError(PbemError):
    """A problem with the game folder or a game file that the user can fix."""


# ---- canonical JSON, hashes, times ----------------------------------------------------------


def canonical_json(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def event_hash(seq: int, step: int, ev: dict[str, Any], prev_hash: str) -> str:
    return sha256_text(canonical_json({"seq": seq, "step": step, "event": ev, "prev": prev_hash}))


def format_time(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime(_TIME_FORMAT)


def parse_time(text: str) -> datetime:
    """``2025-03-01T18:30:00Z`` (or any ISO 8601 time; naive means UTC)."""
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise StoreError(f"{text!r} is not a time; write it like 2025-03-01T18:30:00Z") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    try:  # deadlines are computed from it: keep it far from datetime's limits
        in_range = _FIRST_YEAR <= moment.astimezone(UTC).year <= _LAST_YEAR
    except OverflowError:
        in_range = False
    if not in_range:
        raise StoreError(f"{text!r} is out of range; give a time from the year {_FIRST_YEAR} to {_LAST_YEAR}, "
                         "like 2025-03-01T18:30:00Z")
    return moment


def parse_duration(text: str) -> timedelta:
    """``"72h"``, ``"3d"``, ``"1d12h"``, ``"90m"`` -> a timedelta."""
    m = _DURATION_RE.fullmatch(text.strip())
    if not text.strip() or m is None or not any(m.groups()):
        raise StoreError(f"{text!r} is not a duration; write it like 72h, 3d, 1d12h or 90m")
    d, h, mins = (int(g) if g else 0 for g in m.groups())
    if d * 86400 + h * 3600 + mins * 60 > _MAX_DEADLINE_DAYS * 86400:
        raise StoreError(f"the deadline {text!r} is too long; a step may last at most {_MAX_DEADLINE_DAYS}d")
    delta = timedelta(days=d, hours=h, minutes=mins)
    if delta <= timedelta(0):
        raise StoreError(f"the deadline {text!r} must be longer than zero")
    return delta


def format_duration(seconds: int) -> str:
    d, rest = divmod(seconds, 86400)
    h, rest = divmod(rest, 3600)
    m = rest // 60
    return "".join(f"{v}{u}" for v, u in ((d, "d"), (h, "h"), (m, "m")) if v) or "0m"


class GameFacts(Protocol):
    """What the pure functions here read of a game's record (a :class:`pbem.tables.GameRecord`, or
    the plain columns :mod:`pbem.sealed` reads)."""

    @property
    def id(self) -> str: ...
    @property
    def schema_version(self) -> str: ...
    @property
    def system(self) -> str: ...
    @property
    def seed(self) -> int: ...
    @property
    def options(self) -> str: ...
    @property
    def settings(self) -> str: ...
    @property
    def scenario(self) -> str | None: ...
    @property
    def commitment(self) -> str | None: ...
    @property
    def secret(self) -> str | None: ...


class PlayerFacts(Protocol):
    """What :func:`decide` reads of a side's player (a :class:`pbem.tables.PlayerRecord`, or the plain
    columns :mod:`pbem.sealed` reads)."""

    @property
    def side(self) -> str: ...
    @property
    def public_key(self) -> str | None: ...
    @property
    def password_hash(self) -> str | None: ...


def game_secret(game: GameFacts) -> bytes | None:
    """The game's stored secret (None for a practice game, or when it is left out of an audit bundle)."""
    if not game.secret:
        return None
    try:
        return bytes.fromhex(game.secret)
    except ValueError:
        raise StoreError(f"game {game.id}: the stored secret is not hex; it does not match the commitment "
                         f"{game.commitment}") from None


def is_practice(game: GameFacts) -> bool:
    """A game file of this format whose draws follow its seed (``pbem new --seed``)."""
    return not game.commitment and game.schema_version not in LEGACY_SCHEMAS


def system_of(game: GameFacts) -> GameSystem:
    """The game system a game file holds (files written before the system column: Julius Caesar)."""
    return find_game(getattr(game, "system", None) or LEGACY_SYSTEM)


def game_options(game: GameFacts) -> dict[str, Any]:
    """The game's option values as stored (game files of format 2 keep the battle mode apart, as "settings")."""
    return {**json.loads(game.settings or "{}"), **json.loads(game.options or "{}")}


def game_stream(game: GameFacts) -> RandomStream:
    """The game's random stream: keyed by its secret (committed in the header), or a practice game's seed."""
    if game.commitment:
        stream = KeyedStream(game.id, game.commitment)
        stream.attach(game_secret(game))
        return stream
    return Rng(game.seed, practice=is_practice(game))


def load_adjudication(game: GameFacts, data: str | dict[str, Any]) -> Adjudication:
    """A stored adjudication state (a snapshot), with the game's secret attached to its stream."""
    adj = system_of(game).load(json.loads(data) if isinstance(data, str) else data)
    adj.attach_secret(game_secret(game))
    return adj


def initial_adjudication(game: GameFacts) -> tuple[Adjudication, list[Event]]:
    """The adjudication state at the start, rebuilt from the stored set-up, with the opening events."""
    position = json.loads(game.scenario) if game.scenario else None
    return system_of(game).start(game.seed, game_options(game), position, rng=game_stream(game))


def header_hash(game: GameFacts) -> str:
    head: dict[str, Any] = {
        "game": game.id, "schema": game.schema_version, "seed": game.seed, "options": json.loads(game.options),
        "settings": json.loads(game.settings), "scenario": json.loads(game.scenario) if game.scenario else None,
    }
    if game.schema_version not in LEGACY_SCHEMAS:  # format 2 had one game system, and no column naming it
        head["system"] = game.system
    if game.commitment:  # keyed draws: the commitment heads the hash chain (never the secret)
        head["commitment"] = game.commitment
    return sha256_text(canonical_json(head))


# ---- deciding one submission (pure: used live and by verify) ------------------------------


@dataclass
class Outcome:
    verdict: Verdict
    side: str | None = None
    step: int | None = None
    digest: str | None = None
    reason: str = ""
    errors: list[dict[str, Any]] = field(default_factory=list)
    orders: str | None = None
    related: int | None = None
    events: list[Event] = field(default_factory=list)
    adjudication: Adjudication | None = None  # accepted: the state after it (the one passed in is unchanged)
    resolved_step: int | None = None  # the step this acceptance resolved
    detail: str = ""  # for the moderator only (an adjudicator failure's traceback); never stored or sent
    unverified: bool = False  # the credential check failed: the sender may not be the side it names
    control: bool = False  # accepted, but not orders for the game (away until DATE, offer draw): supersedes nothing
    submitted: bool = False  # accepted as orders submitted to the game: the state after it is their replay


def decide(
    adj: Adjudication,
    game_id: str,
    players: Mapping[str, PlayerFacts],
    raw: bytes,
    accepted_digests: dict[str, int],
    password_check: str | None = None,
    offers: Mapping[str, int] | None = None,
) -> Outcome:
    """Decide a submission against ``adj``, which is never changed: the orders are tried on a copy,
    which the outcome carries (``adjudication``) when they are accepted. A password-mode submission
    is stored without its password: ``password_check`` says whether it matched. ``offers``: the draw
    offers standing now, side -> step (:func:`pbem.control.standing_offers`)."""
    if password_check == moderator.CHECK:  # written only by Store.moderator_action (pbem.moderator)
        return _decide_action(adj, game_id, players, raw)
    # (imported here: the envelope brings cryptography and the email package, which ``pbem verify`` needs
    # only in its replay, after its renderer has started)
    from pbem.envelope import (
        PASSWORD_MATCHED,
        authenticate,
        check_addressing,
        parse_password_removed,
        parse_submission,
        submission_digest,
    )

    try:
        sub = parse_password_removed(raw) if password_check else parse_submission(raw)
    except EnvelopeError as exc:
        return Outcome(Verdict.REJECTED, reason=Phrase(N_("cannot read the submission: %(why)s"), why=_said(exc)))
    env = sub.envelope
    out = Outcome(Verdict.REJECTED, side=env.side, step=env.step, digest=submission_digest(sub))
    player = players.get(env.side)
    try:
        if password_check:
            if password_check != PASSWORD_MATCHED or player is None or player.password_hash is None:
                raise CredentialError()
        else:
            authenticate(
                sub,
                public_key=player.public_key if player else None,
                password_hash=player.password_hash if player else None,
            )
    except EnvelopeError as exc:
        out.reason = str(exc)
        out.unverified = True
        return out
    assert player is not None
    earlier = accepted_digests.get(out.digest or "")
    if earlier is not None:
        out.verdict = Verdict.DUPLICATE
        out.related = earlier
        out.reason = Phrase(N_("an exact resend of submission #%(sid)s; nothing changed"), sid=earlier)
        return out
    try:
        check_addressing(sub, game=game_id, side=player.side, step=adj.step().number)
    except EnvelopeError as exc:
        out.reason = _said(exc)
        return out
    side = player.side
    text = "\n".join(env.orders)
    step = adj.step().number
    trial = adj.copy()
    try:
        control = find_control(env.orders)  # resign: read by the core, whatever the game (pbem.control)
        if control is not None:
            out.events = apply_control(trial, list(players), side, control, offers)
            warnings = []
            text = f"away until {control.until}" if control.until else control.word  # stored in one spelling
            # away, or an offer of a draw that stands: nothing changes in the game, no orders are superseded
            out.control = control.word == AWAY or (control.word == OFFER_DRAW and not trial.step().over)
        else:
            trial.check(side, text)
            warnings = trial.warnings(side, text)
            out.events = trial.submit(side, text, out.digest or "")
            out.submitted = True
    except SubmissionRejected as exc:
        out.reason = Phrase(N_("%(n)s error; nothing was applied") if len(exc.errors) == 1
                            else N_("%(n)s errors; nothing was applied"), n=len(exc.errors))
        out.errors = [{"line": e.lineno, "text": e.text, "message": e.message} for e in exc.errors]
        return out
    except Exception as exc:  # noqa: BLE001 - an engine bug must not stop the game's other work
        # The trial copy is dropped, so nothing changed. The reason goes back to the side that sent the orders: the exception's text could name
        # hidden blocks or the other side's sealed orders, so only its type is given; the whole
        # traceback is for the moderator (pbem.store logs it).
        out.reason = Phrase(N_("the adjudicator failed on these orders and changed nothing (a bug in pbem, not in "
                               "your orders; the moderator has the details): %(error)s"), error=type(exc).__name__)
        out.detail = traceback.format_exc()
        return out
    out.verdict = Verdict.ACCEPTED
    out.errors = [{"line": e.lineno, "text": e.text, "message": e.message, "warning": True} for e in warnings]
    out.orders = text
    out.adjudication = trial
    if trial.step().number != step:
        out.resolved_step = step
    return out


def _said(exc: Exception) -> str:
    """An error's text, as the Phrase it was raised with when it has one (said in the player's language)."""
    first = exc.args[0] if len(exc.args) == 1 else None
    return first if isinstance(first, Phrase) else str(exc)


def _decide_action(adj: Adjudication, game_id: str, players: Mapping[str, PlayerFacts], raw: bytes) -> Outcome:
    """A moderator action (pbem.moderator): ``forfeit`` ends the game, the other side wins."""
    digest = hashlib.sha256(raw).hexdigest()
    try:
        act = moderator.read_action(raw)
    except moderator.ActionError as exc:
        return Outcome(Verdict.REJECTED, side=MODERATOR, digest=digest, reason=str(exc))
    out = Outcome(Verdict.REJECTED, side=MODERATOR, step=act.step, digest=digest)
    step = adj.step()
    if act.game != game_id:
        out.reason = f"the action is for game {act.game}, not {game_id}"
    elif act.action in ("forfeit", "replace", "away") and act.side not in players:
        out.reason = f"{act.side!r} is not a side of this game; use {' or '.join(players)}"
    elif step.over:
        out.reason = "the game is over"
    elif act.step != step.number:
        out.reason = f"the action was for step {act.step}, but step {step.number} is open"
    if out.reason:
        return out
    trial = adj.copy()
    if act.action == "extend":  # the deadline is the store's: the step stays open, both sides are told
        dur = format_duration(act.by or 0)
        out.events = [Event("moderator", ALL, f"The moderator extends the deadline of step {step.number} by {dur}",
                            {"action": act.action, "step": step.number, "seconds": act.by})]
        out.verdict = Verdict.ACCEPTED
        out.orders = f"extend {dur}"
        out.adjudication = trial
        return out
    if act.action == "away":  # the player's absence, declared in another game of the home (pbem.store.spread_absence)
        origin = (act.origin or "").partition("#")[0]
        out.events = [Event("away", ALL, f"{act.side} is away until {act.until} (he said so in game {origin}): the "
                            "deadlines wait for him, within the club's limit",
                            {"side": act.side, "until": act.until, "origin": act.origin})]
        out.verdict = Verdict.ACCEPTED
        out.orders = f"away until {act.until}"
        out.adjudication = trial
        return out
    if act.action == "replace":  # the store changes the player's credentials in the same transaction
        out.events = [Event("moderator", ALL, f"The moderator gives {act.side} to a substitute player; the previous "
                            "player's credentials no longer work", {"action": act.action, "side": act.side})]
        out.verdict = Verdict.ACCEPTED
        out.orders = f"replace {act.side}"
        out.adjudication = trial
        return out
    if act.action in ("pause", "resume"):  # the store keeps the clock: the step stays open, both sides are told
        text = ("The moderator pauses the game: no deadline runs until he resumes it" if act.action == "pause"
                else "The moderator resumes the game: the open step has a whole deadline from now")
        out.events = [Event("moderator", ALL, text, {"action": act.action, "step": step.number})]
        out.verdict = Verdict.ACCEPTED
        out.orders = act.action
        out.adjudication = trial
        return out
    others = [s for s in players if s != act.side]
    winner = others[0] if len(others) == 1 else None
    out.events = [Event("moderator", ALL, f"The moderator rules that {act.side} forfeits the game",
                        {"action": act.action, "side": act.side}),
                  *trial.conclude(winner, f"{act.side} forfeited (the moderator's ruling)")]
    out.verdict = Verdict.ACCEPTED
    out.orders = f"{act.action} {act.side}"
    out.adjudication = trial
    out.resolved_step = step.number
    return out


def events_json(events: Sequence[Event]) -> list[dict[str, Any]]:
    return [json.loads(canonical_json(e.to_json())) for e in events]


# ---- rendering (pure) ----------------------------------------------------------------------


def report_id(chain: str) -> str:
    """A report's id: the first 16 hex digits of the hash chain at the last event it covers."""
    return chain[:16]


#: The core's part of how a report is rendered (pbem/render.py, templates/base.html.j2): bump it when
#: that changes the bytes of a report, as a game bumps its ``report_version``.
RENDER_VERSION = "1"


# a report in another language than English: 2 since the game's own sentences (event lines, the phase,
# the result) are said in it too, not only the templates' (English reports did not change)
TRANSLATION_VERSION = "2"


def renderer_of(system: GameSystem, language: str = "en") -> str:
    """The rendering a report body is made by: a stored body is compared byte for byte with a fresh
    rendering only when this is the same (an older pbem's reports are kept as they were sent)."""
    made = f"pbem-render {RENDER_VERSION}; {system.name} {getattr(system, 'report_version', '1')}"
    return made if language in ("", "en") else f"{made}; {language} {TRANSLATION_VERSION}"


class ReportRow(Protocol):
    """What :func:`render_report` reads of an outbox row (an :class:`OutboxRecord`, or the plain
    columns the store reads for the reports it renders)."""

    @property
    def recipient(self) -> str: ...
    @property
    def format(self) -> str: ...
    @property
    def since_event(self) -> int: ...
    @property
    def upto_event(self) -> int: ...
    @property
    def language(self) -> str: ...


def render_report(
    system: GameSystem, adj_json: str, events: Sequence[Event], row: ReportRow, deadline: str | None,
    chain: str = "", previous_json: str | None = None,
) -> str:
    """One outbox report, rendered from the stored state of its step and the log up to it. ``chain``
    is the hash of the last event it covers (the set-up's hash when none): the report may state its
    :func:`report_id`, so a player can prove what he was shown (``pbem audit check --report``).
    ``previous_json`` is the stored state of the recipient's last report (see :func:`previous_report_step`).

    The text and the HTML report of a recipient come from one state: the loaded state is kept
    for the next call (a game may build its view once for both, see CaesarSystem.report)."""
    from pbem.render import render

    adj = loaded_state(system, adj_json)
    viewer = None if row.recipient == MODERATOR else row.recipient
    previous = loaded_state(system, previous_json) if previous_json is not None else None
    ctx = system.report(adj, list(events[: row.upto_event]), viewer, since=row.since_event, deadline=deadline,
                        fmt=row.format, report_id=report_id(chain) if chain else "", previous=previous)
    return render(system.name, ctx, getattr(system, "template_folder", None), row.language or "en")


def previous_report_step(rows: Sequence[QueuedReport], row: QueuedReport) -> int | None:
    """The step of the report ``row``'s recipient was sent before it (same format), or None for his first."""
    steps = [r.step for r in rows if r.kind == "report" and r.recipient == row.recipient and r.format == row.format
             and r.step < row.step]
    return max(steps) if steps else None


def previous_report_steps(rows: Sequence[QueuedReport]) -> list[int | None]:
    """:func:`previous_report_step` of every row of ``rows`` at once (each row's attributes read once)."""
    facts = [(r.kind, r.recipient, r.format, r.step) for r in rows]
    steps: dict[tuple[str, str], list[int]] = {}
    for kind, recipient, fmt, step in facts:
        if kind == "report":
            steps.setdefault((recipient, fmt), []).append(step)
    for found in steps.values():
        found.sort()
    out: list[int | None] = []
    for _kind, recipient, fmt, step in facts:
        found = steps.get((recipient, fmt), [])
        i = bisect.bisect_left(found, step)  # found[:i] are the steps before this row's
        out.append(found[i - 1] if i else None)
    return out


_last_loaded: list[tuple[str, str, Adjudication]] = []  # (system, state JSON, state): the last few
_LOADED_KEPT = 8  # a game's pass of the inbox resolves a few steps, then renders their reports


def loaded_state(system: GameSystem, adj_json: str) -> Adjudication:
    """``adj_json`` loaded by ``system``; the last few are kept (and those :func:`known_state` was told),
    so the reports of a step and the receipt that names the next step load it once. Read it only: the
    same object is handed out again."""
    for name, text, adj in _last_loaded:
        if name == system.name and text == adj_json:
            return adj
    adj = system.load(json.loads(adj_json))
    known_state(system, adj_json, adj)
    return adj


def known_state(system: GameSystem, adj_json: str, adj: Adjudication) -> None:
    """Tell :func:`loaded_state` that ``adj_json`` loads as ``adj``: a state just stored as that text
    (``adj_json`` is ``canonical_json(adj.to_json())``), so its reports need not read it back. The game's
    position format promises the round trip (loading the text gives the same position, as
    :meth:`Adjudication.copy` does); ``pbem verify`` renders every report again from the stored text.
    ``adj`` is handed out as it is: nothing may change it afterwards."""
    _last_loaded.insert(0, (system.name, adj_json, adj))
    del _last_loaded[_LOADED_KEPT:]


def reminder_body(game_id: str, step: int, title: str, deadline: str, side: str, language: str = "en") -> str:
    """The reminder of a step that waits for ``side``, in his ``language``."""
    from pbem.core.phrase import say
    from pbem.locale import translations

    tr = translations(language)
    _ = tr.gettext
    return (
        _("Game %(game)s, step %(step)s: %(title)s.") % {"game": game_id, "step": step, "title": say(title, tr)} + "\n"
        + _("The step waits for your orders, %(side)s. The deadline is %(deadline)s;\n"
            "after it the published defaults are applied for every decision of this step\n"
            "you have not sent (for example no moves and no levies in a command step, the\n"
            "lowest-Moves card in a card step, your battle plans' defaults in a battle).\n"
            "Your last report lists what you can send.\n") % {"side": _(side), "deadline": deadline}
    )


def reminder_subject(game_id: str, step: int, due: str, language: str = "en") -> str:
    from pbem.locale import translations

    return translations(language).gettext("[%(game)s] reminder: step %(step)s is due %(due)s") % {
        "game": game_id, "step": step, "due": due}


def report_subject(game_id: str, step: int, title: str, language: str = "en") -> str:
    """``[g] step 5: <the step's title>`` in ``language`` (a reply to it names the game and the step:
    :mod:`pbem.plainreply` reads ``step``, ``etapa`` and ``etapp``)."""
    from pbem.core.phrase import say
    from pbem.locale import translations

    tr = translations(language)
    return tr.gettext("[%(game)s] step %(step)s: %(title)s") % {"game": game_id, "step": step, "title": say(title, tr)}
