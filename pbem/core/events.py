"""Events: the game log's entries, each with the audience that may see it.

An event's ``audience`` is ``"all"``, a side's name, or ``"moderator"`` (see
:data:`ALL` and :data:`MODERATOR`). The store keeps the log hash-chained; a side's
reports and log are built from the events :meth:`Event.visible_to` that side.
The word "event" means a log entry everywhere in the core; a game's own event cards
(Julius Caesar's Jupiter, Vulcan, ...) are called "event cards" in its package.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, NamedTuple

__all__ = ["ALL", "MODERATOR", "Event", "audiences_seen_by", "new_event", "visible_to"]

_tuple_new = tuple.__new__

ALL = "all"
MODERATOR = "moderator"


def audiences_seen_by(viewer: str | None) -> tuple[str, ...] | None:
    """The audiences whose events ``viewer`` (a side's name) may see; None for the moderator
    (``None`` or ``"moderator"``), who sees every event. The one rule of who sees what: a loop
    over a whole log tests ``event.audience in seen`` with it instead of calling
    :func:`visible_to` per event."""
    return None if viewer is None or viewer == MODERATOR else (ALL, viewer)


def visible_to(audience: str, viewer: str | None) -> bool:
    """Whether ``viewer`` (a side's name; ``None`` or ``"moderator"`` = the moderator) may see
    an event addressed to ``audience``."""
    seen = audiences_seen_by(viewer)
    return seen is None or audience in seen


class _Fields(NamedTuple):
    kind: str
    audience: str
    text: str
    data: dict[str, Any]


class Event(_Fields):
    """One entry of the game log. ``data`` is canonical-JSON-able.

    Immutable: a named tuple of its four fields (a game makes thousands of events, and a tuple is
    made in one step; :data:`new_event` makes one without this constructor's Python call). An event
    equals only an event with the same fields, and hashes as its kind, audience and text (as the
    frozen dataclass it was did)."""

    __slots__ = ()

    def __new__(cls, kind: str, audience: str, text: str, data: dict[str, Any] | None = None) -> Event:
        # a game may pass a str-valued Enum member: the log stores its plain value
        if type(audience) is not str:
            audience = str(getattr(audience, "value", audience))
        return _tuple_new(cls, (kind, audience, text, {} if data is None else data))

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self[:3])

    def __repr__(self) -> str:
        return f"Event(kind={self[0]!r}, audience={self[1]!r}, text={self[2]!r}, data={self[3]!r})"

    def visible_to(self, viewer: str | None) -> bool:
        return visible_to(self.audience, viewer)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "audience": self.audience, "text": self.text, "data": self.data}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Event:
        return cls(d["kind"], d["audience"], d["text"], dict(d.get("data", {})))


#: ``new_event((kind, audience, text, data))``: the :class:`Event` of four fields already in their stored
#: form (``audience`` a plain ``str``, ``data`` a dict), made without a Python call (what a game's engine
#: calls for each of its thousands of events)
new_event: Callable[[tuple[str, str, str, dict[str, Any]]], Event] = partial(_tuple_new, Event)
