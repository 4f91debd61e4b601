"""The store keeps the parsed event log between renderings; it must never render from a stale one.

Two processes (here: two Store objects) write to one game file in turn, and a kept log that no
longer matches the file (as after a rolled-back write) is read again: every report is still
byte for byte what ``pbem verify`` renders afresh.
"""

from __future__ import annotations

from pathlib import Path

from pbem.core.rng import Rng
from pbem.games.caesar.rules.autoplay import random_orders
from pbem.store import Home
from store_helpers import make_game, signed


def _submit_one(store, keys, rng: Rng, n: int) -> None:  # type: ignore[no-untyped-def]
    session = store.adjudication().session
    step = session.step()
    side = [s for s in step.awaiting if s not in session.sealed][0]
    store.receive(signed(keys, side, step.number, random_orders(session, side, rng), n=n))


def test_two_stores_on_one_file_and_a_stale_log_render_what_verify_renders(home: Path) -> None:
    keys = make_game(home, "g", seed=11)
    rng = Rng(12)
    h = Home(home)
    with h.open("g") as a, h.open("g") as b:
        n = 0
        for _ in range(4):  # a and b take turns: each one's kept log falls behind the other's writes
            for store in (a, b):
                _submit_one(store, keys, rng, n)
                n += 1
        assert a._log and len(a._log) == len(a._log_hashes)
        fresh = [ev for _seq, _step, ev in a.events()]
        # as if the events it read had been rolled back and others written in their place
        a._log = [e._replace(text="forged") for e in a._log]
        a._log_hashes = a._log_hashes[:-1] + ["0" * 64]
        with a._plain_read() as db:
            log, chain = a._log_upto(db, len(fresh))
        assert log == fresh and len(chain) == len(fresh)
        for _ in range(3):
            _submit_one(a, keys, rng, n)
            n += 1
        report = a.verify()
        assert report.ok, report.problems
        assert report.reports >= 6 * 3
