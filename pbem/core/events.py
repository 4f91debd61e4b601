"""Events: the game log's entries, each with the audience that may see it.

An event's ``audience`` is ``"all"``, a side's name, or ``"moderator"`` (see
:data:`ALL` and :data:`MODERATOR`). The store keeps the log hash-chained; a side's
reports and log are built from the events :meth:`Event.visible_to` that side.
The word "event" means a log entry everywhere in the core; a game's own event cards
(Julius Caesar's Jupiter, Vulcan, ...) are called "event cards" in its package.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["ALL", "MODERATOR", "Event", "audiences_seen_by", "visible_to"]

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


@dataclass(frozen=True, init=False)
class Event:
    """One entry of the game log. ``data`` is canonical-JSON-able."""

    kind: str
    audience: str
    text: str
    data: dict[str, Any] = field(default_factory=dict, compare=True, hash=False)

    def __init__(self, kind: str, audience: str, text: str, data: dict[str, Any] | None = None) -> None:
        # a game may pass a str-valued Enum member: the log stores its plain value
        if type(audience) is not str:
            audience = str(getattr(audience, "value", audience))
        # what the frozen dataclass's own __init__ does, in one step (a game makes thousands of events)
        self.__dict__.update(kind=kind, audience=audience, text=text, data={} if data is None else data)

    def visible_to(self, viewer: str | None) -> bool:
        return visible_to(self.audience, viewer)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "audience": self.audience, "text": self.text, "data": self.data}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Event:
        return cls(d["kind"], d["audience"], d["text"], dict(d.get("data", {})))
