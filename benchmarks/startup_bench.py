"""Benchmark: the start-up of the ``pbem`` command, ``pbem --help`` and ``pbem --version`` (a script, not a test).

Example::

    python benchmarks/startup_bench.py --runs 15

Runs each command ``--runs`` times as a whole process (``python -m pbem``, the same as the ``pbem``
script, on this checkout) and prints the min and median wall time and CPU time (user + system) of
each. The processes run as an installed pbem does: with their bytecode compiled (kept in a folder of
the run, written by an untimed warm-up run). Also prints how many modules ``pbem --version`` loads and
whether the storage stack (SQLModel, SQLAlchemy, pydantic) is among them: a command that only parses
its arguments never loads it. The machine may be shared: run it several times and read the medians.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _wholeprocess import installed_env, timed

HEAVY = ("sqlmodel", "sqlalchemy", "pydantic")
COMMANDS = (("--help",), ("--version",))


def run(args: tuple[str, ...], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU time (user + system) of ``python -m pbem ARGS`` in a fresh process."""
    wall, cpu, done = timed(["-m", "pbem", *args], env)
    if done.returncode != 0:
        raise SystemExit(f"pbem {' '.join(args)} failed: {done.stderr.decode()[-500:]}")
    return wall, cpu


def loaded_modules(env: dict[str, str]) -> list[str]:
    """The modules loaded once ``pbem --version`` has run (in a process that then prints them)."""
    code = ("import sys\nfrom pbem.cli import main\ntry:\n    main(['--version'], standalone_mode=False)\n"
            "finally:\n    print('\\n'.join(sorted(sys.modules)), file=sys.stderr)")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return r.stderr.split()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=15, help="runs of each command (default: %(default)s)")
    args = ap.parse_args(argv)
    if args.runs < 1:
        ap.error("--runs: give 1 or more")
    with tempfile.TemporaryDirectory() as tmp:
        env = installed_env(Path(tmp) / "pycache")
        for command in COMMANDS:
            run(command, env)  # untimed: writes the bytecode, as an install does
            times = [run(command, env) for _ in range(args.runs)]
            wall, cpu = [w for w, _ in times], [c for _, c in times]
            print(f"pbem {' '.join(command)}: wall min {min(wall) * 1000:.0f} / median {statistics.median(wall) * 1000:.0f} ms, "
                  f"cpu min {min(cpu) * 1000:.0f} / median {statistics.median(cpu) * 1000:.0f} ms ({args.runs} runs)")
        modules = loaded_modules(env)
        heavy = sorted({m.split(".")[0] for m in modules if m.split(".")[0] in HEAVY})
        print(f"modules loaded by `pbem --version`: {len(modules)}, of pbem {sum(1 for m in modules if m.split('.')[0] == 'pbem')}; "
              f"the storage stack: {', '.join(heavy) if heavy else 'not loaded'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
