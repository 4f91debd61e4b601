"""The ``pbem`` command line: every command opens the game folder, calls the library, prints.

The commands live by what they are for (``games``, ``orders``, ``read``, ``mail``, ``club``, ``play``), all on
the one group :data:`main` of :mod:`pbem.cli.base`. Importing this package is cheap: each command
imports the library it needs when it runs.
"""

from __future__ import annotations

from pbem.cli import club, games, mail, moderator, orders, play, read  # noqa: F401 - each module adds its commands to main
from pbem.cli.base import DEMO_GAME, main, run

__all__ = ["DEMO_GAME", "main", "run"]
