"""The registry of game systems: :func:`find_game` by the name stored in a game file.

Julius Caesar ships with pbem. Other packages add games through the entry-point group
``pbem.games`` (each entry names a :class:`~pbem.core.game.GameSystem` object), and a
program or test may :func:`register` one directly. ``PBEM_GAMES`` (``module:attribute``,
comma-separated) loads systems from modules that are not installed packages, so that
a `pbem` process started by a script finds them too. Everything is loaded lazily: only
the system a command needs is imported.

Nothing outside this package imports a game by name; games import only the core.
"""

from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING, Any, cast

from pbem.errors import PbemError

if TYPE_CHECKING:
    from pbem.core.game import GameSystem

__all__ = ["DEFAULT_GAME", "UnknownGameError", "find_game", "game_names", "register"]

DEFAULT_GAME = "caesar"
ENTRY_POINT_GROUP = "pbem.games"
_BUILTIN = {"caesar": "pbem.games.caesar.system:SYSTEM"}
_registered: dict[str, GameSystem] = {}


class UnknownGameError(PbemError, ValueError):
    """A game system name that no installed game provides."""


def register(system: GameSystem) -> None:
    """Make ``system`` findable by its name (a later registration replaces an earlier one)."""
    _registered[system.name] = system


def _load(ref: str) -> GameSystem:
    module, _, attr = ref.partition(":")
    obj: Any = importlib.import_module(module)
    for part in attr.split(".") if attr else ():
        obj = getattr(obj, part)
    return cast("GameSystem", obj)


def _env_refs() -> list[str]:
    return [r.strip() for r in os.environ.get("PBEM_GAMES", "").split(",") if r.strip()]


def _entry_points() -> dict[str, str]:
    # imported here: importlib.metadata takes some 20 ms to import, and a game shipped with pbem
    # (every game file so far) is found without it
    from importlib.metadata import entry_points

    return {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)}


def find_game(name: str) -> GameSystem:
    """The game system called ``name`` (``"caesar"``); raises :class:`UnknownGameError`."""
    if name in _registered:
        return _registered[name]
    for ref in _env_refs():
        system = _load(ref)
        register(system)
    if name in _registered:
        return _registered[name]
    found = _BUILTIN.get(name) or _entry_points().get(name)
    if found is None:
        raise UnknownGameError(f"unknown game system {name!r}; the games here are: {', '.join(game_names())}")
    system = _load(found)
    register(system)
    return system


def game_names() -> list[str]:
    """The names of every game system that can be found (installed ones are not imported)."""
    for ref in _env_refs():  # named explicitly by the user: cheap to load, and their names are inside
        register(_load(ref))
    return sorted(set(_BUILTIN) | set(_registered) | set(_entry_points()))
