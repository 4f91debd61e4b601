"""Replies to submissions that came by email: one short text per decided submission.

:meth:`pbem.store.Store.receive` calls :func:`queue_reply` inside the transaction that
records the verdict, so a reply exists exactly when its verdict does. A reply is
queued only when the submission came through ``pbem inbox`` (its source starts with
``mbox:`` or ``maildir:``; a file given to ``pbem submit`` gets its answer on the
terminal) and its envelope could be read and names a registered side with an email
address. It goes to that REGISTERED address, never to the message's From header, so a
forger receives nothing and the player learns that someone tried:

* accepted, sealed: received, sealed until the step resolves, may be revised;
* accepted, resolving the step: one line (the reports follow as usual);
* duplicate: an exact resend of submission #k, nothing changed;
* rejected for the addressing or the orders: every reason, as the side itself sees it
  with ``pbem submit`` (they are built from that side's view only);
* rejected for the credential (bad signature, wrong password, unknown key): one fixed
  sentence, :func:`forged_text`, that says nothing about why.

The rows are outbox rows of kind ``reply`` (text only) with the submission's id; ``pbem
send`` sends each as its own email. They are not part of ``pbem verify`` (it checks the
reports), and they are derived from the verdicts the replay checks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pbem import bodies
from pbem.control import OFFER_DRAW, OFFER_STEPS
from pbem.core.phrase import say
from pbem.decide import Outcome, Verdict
from pbem.locale import translations

if TYPE_CHECKING:  # pbem.store imports this module
    from sqlmodel import Session as DbSession

    from pbem.rows import SubmissionRow
    from pbem.sqlfile import PlainSession

__all__ = ["MAIL_SOURCES", "NOTICE", "REPLY", "forged_text", "other_game_text", "queue_mail", "queue_reply", "reply_subject",
           "reply_text"]

REPLY = "reply"
#: An outbox row that tells a player of something the other side did at once (an offer of a draw).
NOTICE = "notice"
#: Sources of submissions that came by email (``pbem inbox``): only these get a reply.
MAIL_SOURCES = ("mbox:", "maildir:", "imap:", "imaps:")


def forged_text(game: str, language: str = "en") -> str:
    """The whole reply to a submission whose credential check failed: it reveals nothing."""
    _ = translations(language).gettext
    return _("A message claiming to be your orders for game %(game)s failed verification and was ignored; "
             "if it was you, sign again with your key.") % {"game": game} + "\n"


def other_game_text(game: str, step: int, sid: int, side: str, signer_game: str) -> str:
    """The reply to a submission for ``game`` signed with the key its sender plays ``side`` of
    ``signer_game`` with; it goes to him, at his address in that game, and says nothing of either
    game that he did not write himself."""
    return (f"Game {game}, step {step}, submission #{sid}: rejected: signed by you as {side} of {signer_game}; "
            f"this was sent for {game}. Nothing was applied in either game.\n"
            f"If these orders are for {signer_game}, sign them again for game {signer_game}; if they are for "
            f"{game}, sign them with the key you play {game} with.\n")


def reply_text(game: str, step: int, sid: int, out: Outcome, *, replaces: int | None = None,
               stands: int | None = None, language: str = "en") -> str:
    """The body of the reply to submission ``sid``, decided as ``out`` while ``step`` was open
    (``replaces``: the side's earlier orders it superseded; ``stands``: rejected, the side's
    accepted orders for the step that still count), with its fixed sentences in ``language``
    (the reasons and the order problems the game can say in another language are said in it: Phrases)."""
    if out.unverified:
        return forged_text(game, language)
    tr = translations(language)
    _ = tr.gettext
    head = _("Game %(game)s, step %(step)s, submission #%(sid)s: ") % {"game": game, "step": step, "sid": sid}
    line = _("line %(number)s")
    if out.verdict is Verdict.ACCEPTED:
        if out.control and out.orders == OFFER_DRAW:  # the game goes on; the other side was told at once
            return head + _("your offer of a draw was received; the other side is told at once and may accept it "
                            "until step %(step)s is over. Your orders stand as they were.") % {
                "step": step + OFFER_STEPS} + "\n"
        if out.resolved_step is not None:
            text = head + _("your orders were accepted and resolved step %(step)s; your report follows.") % {
                "step": step} + "\n"
        elif replaces:
            text = head + _("your orders for step %(step)s were received (they replace submission #%(sid)s); they "
                            "stay sealed until the step resolves; you may revise them until then.") % {
                "step": step, "sid": replaces} + "\n"
        else:
            text = head + _("your orders for step %(step)s were received; they stay sealed until the step "
                            "resolves; you may revise them until then.") % {"step": step} + "\n"
        return text + "".join(f"  {line % {'number': e['line']}}: {e['text']}\n    {say(e['message'], tr)}\n"
                              for e in out.errors)
    if out.verdict is Verdict.DUPLICATE:
        return head + f"{say(out.reason, tr)}.\n"
    lines = [head + _("rejected: %(reason)s") % {"reason": say(out.reason, tr)}]
    for e in out.errors:  # as `pbem submit` prints them (pbem.receipts.describe_receipt)
        if e["line"]:
            lines += [f"  {line % {'number': e['line']}}: {e['text']}", f"    {say(e['message'], tr)}"]
        else:
            lines.append(f"  - {say(e['message'], tr)}")
    if stands:
        lines.append(_("your submission #%(sid)s for step %(step)s still stands; send corrected orders to replace it")
                     % {"sid": stands, "step": step})
    return "\n".join(lines) + "\n"


def reply_subject(game: str, step: int, sid: int, verdict: Verdict, language: str = "en") -> str:
    _ = translations(language).gettext
    words = {Verdict.ACCEPTED: _("accepted"), Verdict.REJECTED: _("rejected"), Verdict.DUPLICATE: _("duplicate")}
    return _("[%(game)s] step %(step)s: your submission #%(sid)s: %(verdict)s") % {
        "game": game, "step": step, "sid": sid, "verdict": words.get(verdict, verdict.value)}


def queue_reply(db: DbSession | PlainSession, game: str, row: SubmissionRow, out: Outcome, step: int, now: str,
                signer: Callable[[bytes], tuple[str, str, str] | None] | None = None) -> None:
    """Add the reply to ``row`` (just decided as ``out`` while ``step`` was open) to the
    outbox, in the caller's transaction, when the submission came by email and names a
    registered side with an address; otherwise do nothing.

    A signature that fails here but was made with a key registered in another game of the same
    ``home`` is answered to that signer (recipient ``SIDE@GAME``: ``pbem send`` looks up his
    registered address in that game) instead of to this game's player."""
    from pbem.sqlfile import own_connection  # (the storage layer: not loaded by a sealed submit's plain path)

    if not (row.source or "").startswith(MAIL_SOURCES) or out.side is None or row.id is None:
        return
    for_step = out.step if out.step is not None and out.step > 0 else step
    if out.unverified and signer is not None:
        elsewhere = signer(row.raw)
        if elsewhere is not None:
            other, side, email = elsewhere
            queue_mail(db, step, f"{side}@{other}", email,
                       f"[{game}] step {for_step}: your submission #{row.id}: {out.verdict.value}",
                       other_game_text(game, for_step, row.id, side, other), now, row.id, "en")
            return
    run = own_connection(db).execute
    player = run("SELECT side, email, language FROM player WHERE side = ?", (out.side,)).fetchone()
    if player is None or not player[1]:  # no registered side or no address: nobody to answer
        return
    side, email, language = player[0], player[1], player[2] or "en"  # a language line of this very submission counts
    # The reply names the step the submission was for (a resend or a late one: an earlier step);
    # it is queued under the step open now, when it is sent.
    stands = None
    if out.verdict is Verdict.REJECTED and not out.unverified and for_step == step:  # his earlier orders still count
        found = run("SELECT id FROM submission WHERE verdict = ? AND side = ? AND applied_step = ? AND id < ? LIMIT 1",
                    (Verdict.ACCEPTED.value, out.side, step, row.id)).fetchone()
        stands = found[0] if found else None
    queue_mail(db, step, side, email, reply_subject(game, for_step, row.id, out.verdict, language),
               reply_text(game, for_step, row.id, out, replaces=row.related, stands=stands, language=language),
               now, row.id, language)


def queue_mail(db: DbSession | PlainSession, step: int, recipient: str, email: str, subject: str, body: str, now: str, sid: int | None,
               language: str, *, kind: str = REPLY) -> None:
    """One mail in the outbox that is not a report (a reply, a notice, a reminder; ``sid``: the submission
    it answers, if any), in the caller's transaction (a session of :mod:`pbem.sqlfile`): plain SQL on
    its own connection, the body stored as the ORM stores it (pbem.bodies)."""
    from pbem.sqlfile import own_connection  # (the storage layer: not loaded by a sealed submit's plain path)

    own_connection(db).execute(
        "INSERT INTO outbox (step, kind, recipient, email, format, subject, body, since_event, upto_event, created, "
        "sent, submission_id, renderer, language) VALUES (?, ?, ?, ?, 'text', ?, ?, 0, 0, ?, NULL, ?, NULL, ?)",
        (step, kind, recipient, email, subject, bodies.pack(body), now, sid, language))
