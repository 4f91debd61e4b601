"""Benchmark: ``pbem verify`` of a kept game, in process and as the whole command (a script, not a test).

Example::

    python benchmarks/pipeline_bench.py --steps 80 --keep /tmp/game80
    python benchmarks/verify_bench.py /tmp/game80 --runs 5

Prints the min and median wall and CPU time of ``Store.verify`` in this process,
rendering the reports in this process only and then with worker processes (one per
core; their CPU time is counted too; the first run pays for building the board's
map layers), and of the whole ``pbem verify`` command in a fresh process (start-up
included). The machine may be shared: run it several times and read the medians.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

from pipeline_bench import verify_commands  # noqa: E402

from pbem.store import Home  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("home", type=Path, help="a game folder (pipeline_bench.py --keep)")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    home = Home(args.home)
    ok = True
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    for game in home.games():
        for jobs in (1, None):
            wall: list[float] = []
            cpu: list[float] = []
            for _ in range(args.runs):
                with home.open(game) as store:
                    t0, c0, k0 = time.perf_counter(), time.process_time(), _children_cpu()
                    report = store.verify(jobs)
                    wall.append(time.perf_counter() - t0)
                    cpu.append(time.process_time() - c0 + _children_cpu() - k0)
                    ok = ok and report.ok
            if jobs == 1:
                size = home.file(game).stat().st_size
                print(f"{game}: {report.steps} steps, {report.reports} reports, {size / 1024:.0f} KB "
                      f"({size / 1024 / max(1, report.steps - 1):.1f} KB per step), {'OK' if report.ok else 'FAILED'}")
            what = "in one process" if jobs == 1 else f"with workers ({cores} cores)"
            print(f"  verify {what}: wall min {min(wall):.2f} / median {statistics.median(wall):.2f} s, "
                  f"cpu (workers included) min {min(cpu):.2f} / median {statistics.median(cpu):.2f} s "
                  f"(first run {wall[0]:.2f} s wall)")
    whole = verify_commands(args.home, args.runs)
    wall, wcpu = [w for w, _ in whole], [c for _, c in whole]
    print(f"`pbem verify`, whole process: wall min {min(wall):.2f} / median {statistics.median(wall):.2f} s, cpu min "
          f"{min(wcpu):.2f} / median {statistics.median(wcpu):.2f} s ({len(whole)} runs; the machine may be shared: "
          "cpu is the steadier figure)")
    return 0 if ok else 1


def _children_cpu() -> float:
    """CPU time (user + system) of the worker processes that ended so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


if __name__ == "__main__":
    sys.exit(main())
