"""Timing whole ``python`` processes of this checkout as an installed pbem runs them.

Not a benchmark itself (a leading underscore: not a script to run): ``inbox_bench.py``,
``pipeline_bench.py``, ``verify_bench.py`` and ``startup_bench.py`` time the commands people type
with it.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def installed_env(pycache: Path) -> dict[str, str]:
    """The environment of a child process that runs this checkout as installed: pip compiles an
    installed package's bytecode, so no command compiles Python sources. The children keep their
    bytecode in ``pycache`` (nothing is written into the checkout, even when PYTHONDONTWRITEBYTECODE
    is set); a warm-up run of each command, not timed, writes it."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONPYCACHEPREFIX=str(pycache))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def timed(args: list[str], env: dict[str, str]) -> tuple[float, float, subprocess.CompletedProcess[bytes]]:
    """Run ``python ARGS`` (this interpreter) to its end: its wall time, its CPU time (user + system,
    the processes it forked and waited for included) and what it did (its output captured)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, *args], env=env, capture_output=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done
