"""Moderator actions on a game, stored and replayed as "moderator submissions" (``pbem forfeit``).

An action is stored as a submission of its own (table ``submission``): its ``raw`` is the canonical
JSON below, its ``source`` is ``moderator`` and its ``password_check`` (the column that says how a
submission was authenticated on arrival) is ``moderator``. Only :meth:`pbem.store.Store.moderator_action`
writes that value: a submission that arrives by file or mail gets ``matched``, ``wrong`` or nothing,
so nobody can pass his text off as the moderator's. :func:`pbem.decide.decide` decides it like any
submission, in the order received, so ``pbem verify`` replays it and fails if one is altered.

Format (``pbem-moderator 1``)::

    {"action": "forfeit", "format": "pbem-moderator 1", "game": "club-1", "side": "Caesar", "step": 7}

    {"action": "extend", "by": 172800, "format": "pbem-moderator 1", "game": "club-1", "side": "", "step": 7}

``forfeit``: the side loses at once, the other side wins (the game's ``conclude``). ``extend``: the open
step's deadline moves ``by`` seconds later (the step's snapshot keeps the deadline it opened with; the
accepted extensions of the step are added to it). ``pause``: no deadline runs until ``resume``, which
gives the open step a whole deadline from the moment it was stored. ``replace``: a substitute takes the
side over: ``key`` is his public key (null: a password, whose hash is stored only in the player table,
never here) and ``old_key`` the previous player's (null: he had a password), so the audit knows which
credential every earlier submission was checked against. ``away``: the player of ``side`` declared
``away until`` ``until`` in another game of the home (``origin``: ``GAME#SUBMISSION``), which
:func:`pbem.store.spread_absence` carries to his other running games: the deadlines wait as for his own
declaration, and both sides are told. ``step`` is the step open when the moderator acted (a stale action
is refused, as a stale submission is).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pbem.errors import PbemError

FORMAT = "pbem-moderator 1"
SOURCE = "moderator"  # the source of every moderator submission
CHECK = "moderator"  # its password_check value: how it was authenticated (by the moderator's own command)
ACTIONS = ("forfeit", "extend", "pause", "resume", "replace", "away")
REPLACED = "(replaced)"  # the audit's stand-in for a password hash it does not have (never a real one)


class ActionError(PbemError):
    """A moderator action that cannot be read (a damaged record)."""


@dataclass(frozen=True)
class Action:
    action: str
    game: str
    side: str
    step: int
    by: int | None = None  # extend: seconds
    key: str | None = None  # replace: the substitute's public key (None: a password)
    old_key: str | None = None  # replace: the previous player's public key (None: a password)
    until: str | None = None  # away: the end of the absence, 2025-03-10T00:00:00Z
    origin: str | None = None  # away: where the player declared it, GAME#SUBMISSION

    def to_bytes(self) -> bytes:
        data: dict[str, Any] = {"action": self.action, "format": FORMAT, "game": self.game, "side": self.side,
                                "step": self.step}
        if self.by is not None:
            data["by"] = self.by
        if self.action == "replace":
            data["key"], data["old_key"] = self.key, self.old_key
        if self.action == "away":
            data["until"], data["origin"] = self.until, self.origin
        return json.dumps(data, sort_keys=True, separators=(",", ":")).encode("utf-8")


def read_action(raw: bytes) -> Action:
    try:
        data: Any = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ActionError(f"the moderator action is not JSON: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ActionError(f"the moderator action is not of format {FORMAT!r}")
    action, game, side, step, by = (data.get(k) for k in ("action", "game", "side", "step", "by"))
    if (action not in ACTIONS or not isinstance(game, str) or not isinstance(side, str) or not isinstance(step, int)
            or (action == "extend") != (isinstance(by, int) and by > 0)):
        raise ActionError(f"the moderator action is damaged: {data!r}")
    key, old_key = data.get("key"), data.get("old_key")
    if not all(k is None or isinstance(k, str) for k in (key, old_key)):
        raise ActionError(f"the moderator action is damaged: {data!r}")
    until, origin = data.get("until"), data.get("origin")
    if action == "away" and not (isinstance(until, str) and isinstance(origin, str)):
        raise ActionError(f"the moderator action is damaged: {data!r}")
    return Action(action, game, side, step, by, key, old_key, until if action == "away" else None,
                  origin if action == "away" else None)


def credentials_over_time(players: Mapping[str, Any], subs: Sequence[Any]) -> tuple[dict[str, Any], dict[int, Any]]:
    """For the audit: the players as they were when the game began (the current ones with every accepted
    replacement undone, newest first), and for each accepted replacement's submission id the player
    record that takes effect once it is replayed. A password is stood in for by :data:`REPLACED`:
    the replay never checks a password (it replays the stored check), only which kind of credential."""
    from pbem.rows import PlayerRow

    def record(side: str, key: str | None, like: Any) -> Any:
        if like is not None and like.public_key == key and (key is not None or like.password_hash):
            return like
        return PlayerRow(side=side, email=getattr(like, "email", ""), public_key=key,
                            password_hash=None if key else REPLACED)

    now = dict(players)
    after: dict[int, Any] = {}
    for row in sorted(subs, key=lambda r: r.id or 0, reverse=True):
        if row.password_check != CHECK or row.verdict != "accepted":
            continue
        act = action_of(row.raw)
        if act is None or act.action != "replace":
            continue
        after[row.id or 0] = record(act.side, act.key, now.get(act.side))
        now[act.side] = record(act.side, act.old_key, None)
    return now, after


def action_of(raw: bytes) -> Action | None:
    """The action of a stored moderator submission (None: it cannot be read)."""
    try:
        return read_action(raw)
    except ActionError:
        return None


def extension_of(raw: bytes) -> int:
    """The seconds an accepted moderator submission adds to its step's deadline (0: not an extension)."""
    try:
        act = read_action(raw)
    except ActionError:
        return 0
    return act.by or 0 if act.action == "extend" else 0
