"""Exactly once through SIGKILL: `pbem submit`, `inbox`, `tick` and `send` killed at seeded random
moments (a fork server makes each kill cheap), each followed by the same command run again.
After every rerun the game files equal those of an uninterrupted run (every submission stored
once, every reply and report queued once); `send` delivered every message, and the duplicates
(a kill after the server accepted a message, before it was marked sent) are counted and printed.
`send` runs against a server with DATA only and one that offers CHUNKING (BDAT), each kill drawn
inside or just after one message's SMTP transaction (see crashkit.SendScenario).
benchmarks/crash_bench.py runs the same with a few hundred kills."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from crashkit import run_all

KILLS = int(os.environ.get("PBEM_CRASH_KILLS", "20"))
SEND_KILLS = max(4, KILLS // 4)  # a send trial draws every map again (about a second each): fewer of them


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the fork server needs os.fork")
def test_killed_at_random_moments_the_rerun_does_the_work_exactly_once(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    tallies = run_all(tmp_path, {"submit": KILLS, "inbox": KILLS, "tick": KILLS, "send": SEND_KILLS,
                                 "send+chunking": SEND_KILLS}, seed=16, send_games=("h",))
    with capsys.disabled():
        print()
        for t in tallies:
            print(f"  {t.line()}")
    by = {t.command: t for t in tallies}
    for t in tallies:
        assert not t.problems, t.problems[:5]
        # enough kills landed while the command ran for the check to mean something (how many depends
        # on how steady the machine is: the delays are drawn from a duration measured beforehand)
        assert t.killed >= max(3, t.trials // 5), t.line()
    assert by["inbox"].refeeds == 0 and by["tick"].refeeds == 0
    for send in (by["send"], by["send+chunking"]):
        assert send.duplicates <= send.during  # at most the message in flight, per kill
