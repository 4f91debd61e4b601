"""Audit bundles: one self-contained JSON file that lets anyone check a whole game offline.

:func:`export_bundle` writes every row the audit needs (the set-up with its commitment,
the secret once the game is over, both players' public credentials, every submission as
stored, the events, the snapshots and every report as sent; one mailed to no one, kept on
demand, without a text). :func:`check_bundle` replays
the game from it with :func:`pbem.audit.verify` (no game folder, no database) and names
every difference; :func:`check_saved_report` tells whether a report a player kept is one
the game sent. The format is documented in docs/envelope.md ("Audit bundles").
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from pbem.audit import VerifyReport, verify
from pbem.decide import StoreError, event_hash, header_hash
from pbem.envelope import authenticate, parse_password_removed, parse_submission
from pbem.errors import EnvelopeError
from pbem.moderator import CHECK as MODERATOR_CHECK
from pbem.moderator import credentials_over_time
from pbem.records import LEGACY_SYSTEM
from pbem.rows import EventRow, GameRow, GameRows, OutboxRow, PlayerRow, SnapshotRow, SubmissionRow

BUNDLE_FORMAT = "pbem-audit-bundle 1"
NOTE = ("This bundle holds BOTH sides' orders of every step, as received. Give it to a player only "
        "when the game is over, or keep it for the moderators.")
_PASSWORD_HASH_LEFT_OUT = "(a scrypt hash, left out of the bundle)"

_GAME_FIELDS = ("id", "schema_version", "system", "seed", "options", "settings", "scenario", "deadline_seconds",
                "created", "header_hash", "commitment", "secret")
_SUB_FIELDS = ("id", "received", "source", "side", "step", "digest", "verdict", "reason", "errors",
               "applied_step", "orders", "related", "processed", "password_check")
_EVENT_FIELDS = ("seq", "step", "audience", "kind", "text", "data", "prev_hash", "hash")
_SNAP_FIELDS = ("step", "session", "hash", "last_event", "cause", "submission_id", "after_submission", "deadline",
                "created")
_REPORT_FIELDS = ("id", "step", "recipient", "format", "subject", "body", "since_event", "upto_event", "created",
                  "renderer")
_DEFAULTS = {"system": LEGACY_SYSTEM, "renderer": None}  # fields a bundle may lack: its game is Julius Caesar


def export_bundle(game: GameRow, players: list[PlayerRow], subs: list[SubmissionRow],
                  events: list[EventRow], snaps: list[SnapshotRow], reports: list[OutboxRow],
                  over: bool) -> dict[str, Any]:
    """The bundle of one game (rows as :meth:`pbem.store.Store.verify` reads them). The secret is
    in it only when ``over``: a running game's bundle checks everything but the draws."""
    g = {k: getattr(game, k) for k in _GAME_FIELDS}
    if not over:
        g["secret"] = None
    return {
        "format": BUNDLE_FORMAT,
        "note": NOTE,
        "complete": over or not game.commitment,
        "game": g,
        "players": [{"side": p.side, "public_key": p.public_key, "fingerprint": p.fingerprint,
                     "password_hash": _PASSWORD_HASH_LEFT_OUT if p.password_hash else None} for p in players],
        "submissions": [{**{k: getattr(s, k) for k in _SUB_FIELDS}, "raw": base64.b64encode(s.raw).decode("ascii")}
                        for s in subs],
        "events": [{k: getattr(e, k) for k in _EVENT_FIELDS} for e in events],
        "snapshots": [{k: getattr(s, k) for k in _SNAP_FIELDS} for s in snaps],
        "reports": [{**{k: getattr(r, k) for k in _REPORT_FIELDS}, "language": r.language} for r in reports],
    }


def read_bundle(text: str) -> GameRows:
    """The rows of a bundle; a :class:`StoreError` names what is wrong with the file."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise StoreError(f"the bundle is not JSON ({exc}); give the file `pbem audit export` wrote") from None
    if not isinstance(data, dict) or data.get("format") != BUNDLE_FORMAT:
        raise StoreError(f"this is not a pbem audit bundle (no \"format\": \"{BUNDLE_FORMAT}\")")
    try:
        return GameRows(
            GameRow(**{"system": _DEFAULTS["system"], **data["game"]}),
            {p["side"]: PlayerRow(side=p["side"], public_key=p["public_key"], fingerprint=p["fingerprint"],
                                     password_hash=p["password_hash"]) for p in data["players"]},
            [SubmissionRow(**{**{k: s[k] for k in _SUB_FIELDS}, "raw": base64.b64decode(s["raw"], validate=True)})
             for s in data["submissions"]],
            [EventRow(**{k: e[k] for k in _EVENT_FIELDS}) for e in data["events"]],
            {s["step"]: SnapshotRow(**{k: s[k] for k in _SNAP_FIELDS}) for s in data["snapshots"]},
            [OutboxRow(**{k: r.get(k, _DEFAULTS.get(k)) if k in _DEFAULTS else r[k] for k in _REPORT_FIELDS},
                          kind="report", language=r.get("language", "en")) for r in data["reports"]],
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise StoreError(f"the bundle is damaged: {type(exc).__name__}: {str(exc)[:200]}") from None


@dataclass
class BundleCheck:
    report: VerifyReport
    draws_checked: bool
    notes: list[str] = field(default_factory=list)


def check_bundle(text: str) -> BundleCheck:
    """Replay the game of a bundle and compare everything; without the secret (a running game),
    check the commitment's place in the chain, the chain, the snapshots' hashes and every signature."""
    rows = read_bundle(text)
    game = rows.game
    if game.secret or not game.commitment:
        try:
            rep = verify(game, rows.players, rows.subs, rows.events, rows.snaps, rows.reports)
        except Exception as exc:  # noqa: BLE001 - a damaged bundle: say where the replay stopped
            rep = VerifyReport(game.id, problems=[f"the replay stopped at {type(exc).__name__}: {str(exc)[:200]}"])
        return BundleCheck(rep, True)
    rep = VerifyReport(game.id, steps=len(rows.snaps), submissions=len(rows.subs), events=len(rows.events),
                       reports=len(rows.reports))
    if header_hash(game) != game.header_hash:
        rep.problems.append("the game's set-up (seed, options, commitment) does not match its stored hash")
    prev = game.header_hash
    for r in rows.events:
        ev = {"kind": r.kind, "audience": r.audience, "text": r.text, "data": json.loads(r.data)}
        if r.prev_hash != prev or event_hash(r.seq, r.step, ev, r.prev_hash) != r.hash:
            rep.problems.append(f"step {r.step}: event #{r.seq} ({r.kind}) does not match the hash chain")
        prev = r.hash
    for snap in rows.snaps.values():
        if hashlib.sha256(snap.session.encode("utf-8")).hexdigest() != snap.hash:
            rep.problems.append(f"step {snap.step}: the snapshot's hash does not match its content")
    players, replaced = credentials_over_time(rows.players, rows.subs)  # pbem replace: who held each side when
    for s in sorted(rows.subs, key=lambda r: r.id or 0):
        if s.id in replaced:
            players = {**players, replaced[s.id].side: replaced[s.id]}
        if s.verdict not in ("accepted", "superseded", "duplicate") or s.password_check == MODERATOR_CHECK:
            continue  # a moderator action (pbem.moderator) has no signature: the replay checks it
        try:
            sub = parse_password_removed(s.raw) if s.password_check else parse_submission(s.raw)
            player = players.get(sub.envelope.side)
            if sub.signature is not None:
                authenticate(sub, public_key=player.public_key if player else None)
        except EnvelopeError as exc:
            rep.problems.append(f"submission #{s.id} ({s.side}, step {s.step}) is stored as {s.verdict} but: {exc}")
    return BundleCheck(rep, False, ["the game is still running, so the bundle has no secret: the draws, the "
                                    "verdicts and the reports were not replayed"])


def check_saved_report(text: str, saved: str) -> str:
    """Whether ``saved`` (a text report a player kept) is one of the game's reports: "this report is
    genuine, step N (...)", or what differs from the report the game sent."""
    rows = read_bundle(text)
    saved_norm = saved.replace("\r\n", "\n")
    for r in rows.reports:
        if r.body == saved_norm:
            return f"this report is genuine, step {r.step} ({r.format} report for {r.recipient})"
    rid = next((ln.split(":", 1)[1].strip() for ln in saved_norm.splitlines() if ln.startswith("Report id:")), "")
    head = saved_norm.splitlines()[0] if saved_norm else ""
    candidates = [r for r in rows.reports if r.body and rid and f"Report id: {rid}" in r.body
                  and r.body.splitlines()[0] == head]
    if not candidates:
        return (f"this report is not one the game sent: no report has the id {rid!r} and this heading"
                if rid else "this report is not one the game sent (it states no report id)")
    r = candidates[0]
    a, b = saved_norm.splitlines(), (r.body or "").splitlines()
    line = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    sent = b[line] if line < len(b) else "(the end of the report)"
    got = a[line] if line < len(a) else "(the end of the report)"
    return (f"this report differs from the {r.format} report for {r.recipient} of step {r.step} (report id {rid}) "
            f"at line {line + 1}: the game sent {sent!r}, this one says {got!r}")
