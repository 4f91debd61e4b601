"""Benchmark: ``pbem verify`` of a kept game, in process and as the whole command (a script, not a test).

Example::

    python benchmarks/pipeline_bench.py --steps 80 --keep /tmp/game80
    python benchmarks/verify_bench.py /tmp/game80 --runs 5

Prints the min and median wall time of ``Store.verify`` in this process (the
first run pays for building the board's map layers), and of the whole
``pbem verify`` command in a fresh process (start-up included). The machine may
be shared: run it several times and read the medians.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

from pipeline_bench import verify_command  # noqa: E402

from pbem.store import Home  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("home", type=Path, help="a game folder (pipeline_bench.py --keep)")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    home = Home(args.home)
    ok = True
    for game in home.games():
        inproc: list[float] = []
        cpu: list[float] = []
        for _ in range(args.runs):
            with home.open(game) as store:
                t0, c0 = time.perf_counter(), time.process_time()
                report = store.verify()
                inproc.append(time.perf_counter() - t0)
                cpu.append(time.process_time() - c0)
                ok = ok and report.ok
        size = home.file(game).stat().st_size
        print(f"{game}: {report.steps} steps, {report.reports} reports, {size / 1024:.0f} KB "
              f"({size / 1024 / max(1, report.steps - 1):.1f} KB per step), {'OK' if report.ok else 'FAILED'}")
        print(f"  verify in process: median {statistics.median(inproc):.2f} s wall, {statistics.median(cpu):.2f} s cpu "
              f"(first run {inproc[0]:.2f} s wall)")
    whole = [verify_command(args.home) for _ in range(args.runs)]
    wall, wcpu = [w for w, _ in whole], [c for _, c in whole]
    print(f"`pbem verify`, whole process: median {statistics.median(wall):.2f} s wall, {statistics.median(wcpu):.2f} s "
          f"cpu ({len(whole)} runs; the machine may be shared: cpu is the steadier figure)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
