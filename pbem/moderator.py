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
gives the open step a whole deadline from the moment it was stored. ``step`` is the step open when the
moderator acted (a stale action is refused, as a stale submission is).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pbem.errors import PbemError

FORMAT = "pbem-moderator 1"
SOURCE = "moderator"  # the source of every moderator submission
CHECK = "moderator"  # its password_check value: how it was authenticated (by the moderator's own command)
ACTIONS = ("forfeit", "extend", "pause", "resume")


class ActionError(PbemError):
    """A moderator action that cannot be read (a damaged record)."""


@dataclass(frozen=True)
class Action:
    action: str
    game: str
    side: str
    step: int
    by: int | None = None  # extend: seconds

    def to_bytes(self) -> bytes:
        data: dict[str, Any] = {"action": self.action, "format": FORMAT, "game": self.game, "side": self.side,
                                "step": self.step}
        if self.by is not None:
            data["by"] = self.by
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
    return Action(action, game, side, step, by)


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
