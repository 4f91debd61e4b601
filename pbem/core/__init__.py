"""The game-agnostic vocabulary of pbem: what a game system provides, events, order problems.

Nothing here knows a game by name: :mod:`pbem.games` finds game systems through a registry,
and the store, the audit, the mail transport, the rendering and the CLI talk to a game only
through :class:`~pbem.core.game.GameSystem` and its :class:`~pbem.core.game.Adjudication`.
This package imports nothing of pbem but :mod:`pbem.errors`.
"""
