"""Benchmark: kill `pbem submit`, `inbox`, `tick` and `send` with SIGKILL a few hundred times
and print how often work was done twice (a script, not a test; tests/test_crash.py checks
the same with fewer kills).

Example::

    python benchmarks/crash_bench.py --kills 100 --seed 1

Each trial kills the command after a seeded random delay (up to its uninterrupted duration),
runs it again, and compares every game file with an uninterrupted run (tests/crashkit.py).
Prints per command: kills that landed mid-run, submissions stored twice (inbox re-feeds:
must be 0), and for `send` the kills that interrupted delivery and the duplicate messages a
local aiosmtpd server received. Then pbem's own share of the send window: the time from the
server's acceptance (the end of the SMTP transaction) to the committed "sent" mark.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the crash harness is shared with the test

from crashkit import COMMANDS, run_all  # noqa: E402
from pbem.store import Home  # noqa: E402
from store_helpers import make_game  # noqa: E402


def _mark_window(folder: Path, runs: int = 200) -> list[float]:
    """Seconds from the end of a delivery to the committed mark (what Store.sending adds)."""
    make_game(folder)
    out = []
    with Home(folder).open("g") as st:
        ids = [r.id or 0 for r in st.outbox(kind=None)]
        for i in range(runs):
            row = ids[i % len(ids)]
            with st.sending([row]):
                t0 = time.perf_counter()  # the server has just answered 250
            out.append(time.perf_counter() - t0)
            with st._write() as db:  # noqa: SLF001 - unmark for the next round
                db.connection().exec_driver_sql("UPDATE outbox SET sent = NULL WHERE id = ?", (row,))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kills", type=int, default=100, help="kills per command")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--commands", default=",".join(COMMANDS),
                    help=f"which, comma-separated (default all: {','.join(COMMANDS)})")
    args = ap.parse_args()
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        kills = {c: args.kills for c in args.commands.split(",")}
        unknown = set(kills) - set(COMMANDS)
        if unknown:
            ap.error(f"unknown command(s) {', '.join(sorted(unknown))}; choose from {', '.join(COMMANDS)}")
        tallies = run_all(Path(tmp), kills, args.seed, echo=print)
        window = _mark_window(Path(tmp) / "window")
    print(f"{sum(t.trials for t in tallies)} kills in {time.perf_counter() - t0:.0f} s")
    problems = [p for t in tallies for p in t.problems]
    for p in problems[:20]:
        print(f"PROBLEM: {p}")
    print(f"send: from the server's acceptance to the committed mark: median "
          f"{statistics.median(window) * 1e6:.0f} us, max {max(window) * 1e6:.0f} us (one WAL append, no fsync)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
