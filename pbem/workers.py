"""How many worker processes a parallel pass (``pbem inbox``, ``pbem verify``) uses by default."""

from __future__ import annotations

import os

__all__ = ["cores"]


def cores() -> int:
    """The cores this process may run on (its CPU affinity where the system tells it; at least 1)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1
