"""Benchmark: kill `pbem submit`, `inbox`, `tick` and `send` with SIGKILL a few hundred times
and print how often work was done twice (a script, not a test; tests/test_crash.py checks
the same with fewer kills).

Example::

    python benchmarks/crash_bench.py --kills 100 --seed 1
    nice -n 10 python benchmarks/crash_bench.py --kills 120 --commands send,send+chunking --send-games h

Each trial kills the command after a seeded random delay, runs it again, and compares every
game file with an uninterrupted run (tests/crashkit.py). `submit`, `inbox` and `tick` are
killed at a moment drawn over their uninterrupted run; `send` (to a local aiosmtpd with DATA
only) and `send+chunking` (one that also offers BDAT) at a moment drawn over the messages'
SMTP transactions (see crashkit.SendScenario for what counts as a kill during delivery).
Prints per command: kills that landed mid-run, submissions stored twice (inbox re-feeds:
must be 0), and for `send` the kills during delivery and the duplicate messages the server
received. Then pbem's own share of the send window (from the server's acceptance to the
committed "sent" mark) and, for both kinds of server, a few hundred report mails timed from
MAIL FROM to the mark and from the moment the whole message was handed to the kernel to the
mark: the room a kill has to make a duplicate.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the crash harness is shared with the test

from crashkit import COMMANDS, run_all  # noqa: E402
from pbem.store import Home  # noqa: E402
from store_helpers import cli_env, make_game  # noqa: E402


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


#: The client of _delivery_windows, in a process of its own (as pbem is, apart from the server):
#: pbem's own SMTP client and Store.sending, each message timed from its MAIL FROM to its mark.
CLIENT = r"""
import json, sys, time
from pbem.store import Home
from pbem.transport.outbox import ChunkingSMTP, build_message

port, home, repeat = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
class Timed(ChunkingSMTP):
    first, handed = None, 0.0

    def send(self, s):
        if self.first is None:
            self.first = time.perf_counter()  # MAIL FROM goes out
        super().send(s)
        self.handed = time.perf_counter()  # the last bytes so far are the kernel's
smtp = Timed("127.0.0.1", port)
smtp.ehlo()
out = []
with Home(home).open("g") as st:
    rows = [r for r in st.outbox(kind=None) if r.body]
    groups = {}
    for r in rows:
        groups.setdefault((r.step, r.kind, r.recipient), []).append(r)
    messages = [(build_message("g", g, "pbem@club.example", "x@example.org"), [r.id for r in g])
                for g in groups.values()]
    for i in range(repeat):
        msg, ids = messages[i % len(messages)]
        smtp.first = None
        with st.sending(ids):
            smtp.send_message(msg, from_addr="pbem@club.example", to_addrs=["x@example.org"])
        done = time.perf_counter()
        out.append((len(msg.as_bytes()), done - smtp.first, done - smtp.handed))
        with st._write() as db:  # unmark for the next round
            db.connection().exec_driver_sql(
                f"UPDATE outbox SET sent = NULL WHERE id IN ({','.join('?' * len(ids))})", tuple(ids))
smtp.quit()
print(json.dumps(out))
"""


def _delivery_windows(folder: Path, chunking: bool, repeat: int) -> list[tuple[int, float, float]]:
    """Per message (size, seconds from MAIL FROM to the committed mark, seconds from the moment the
    whole message was handed to the kernel to the mark): the second is the room a kill has to make
    a duplicate, an upper bound (a server that sees its client vanish before it read the final dot
    drops the message). The step-1 report mails of a new game to the crash test's local server."""
    from crashkit import LocalSmtp

    home = folder / ("chunking" if chunking else "data")
    make_game(home)
    server = LocalSmtp([], lambda: None, chunking=chunking)
    try:
        run = subprocess.run([sys.executable, "-c", CLIENT, str(server.port), str(home), str(repeat)],
                             capture_output=True, text=True, env=cli_env())
    finally:
        server.close()
    if run.returncode:
        raise RuntimeError(f"the timed client failed: {run.stderr}")
    return [tuple(x) for x in json.loads(run.stdout)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kills", type=int, default=100, help="kills per command")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--commands", default=",".join(COMMANDS),
                    help=f"which, comma-separated (default all: {','.join(COMMANDS)})")
    ap.add_argument("--send-games", default="g,h",
                    help="whose mail the send scenarios send: g,h (11 messages) or h (6, twice as many kills an hour)")
    ap.add_argument("--timed", type=int, default=300, help="messages timed per server for the delivery windows")
    args = ap.parse_args()
    t0 = time.perf_counter()
    kills = {c: args.kills for c in args.commands.split(",") if c}
    unknown = set(kills) - set(COMMANDS)
    if unknown:
        ap.error(f"unknown command(s) {', '.join(sorted(unknown))}; choose from {', '.join(COMMANDS)}")
    with tempfile.TemporaryDirectory() as tmp:
        tallies = run_all(Path(tmp), kills, args.seed, echo=print, send_games=tuple(args.send_games.split(",")))
        window = _mark_window(Path(tmp) / "window")
        timed = {chunking: _delivery_windows(Path(tmp), chunking, args.timed) for chunking in (False, True)}
    print(f"{sum(t.trials for t in tallies)} kills in {time.perf_counter() - t0:.0f} s")
    problems = [p for t in tallies for p in t.problems]
    for p in problems[:20]:
        print(f"PROBLEM: {p}")
    print(f"send: from the server's acceptance to the committed mark: median "
          f"{statistics.median(window) * 1e6:.0f} us, max {max(window) * 1e6:.0f} us (one WAL append, no fsync)")
    for chunking, rows in timed.items():
        spans, rooms = [r[1] for r in rows], [r[2] for r in rows]
        print(f"send, timed ({'BDAT' if chunking else 'DATA'}, {len(rows)} report mails of {rows[0][0] // 1000} KB): "
              f"MAIL FROM to mark median {statistics.median(spans) * 1e3:.2f} ms; whole message handed over to mark "
              f"median {statistics.median(rooms) * 1e3:.2f} ms, {sum(rooms) / sum(spans):.1%} of the time in "
              "transactions (an upper bound of the duplicate rate)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
