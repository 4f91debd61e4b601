"""Benchmark: `pbem inbox` and `pbem submit` as people run them, whole processes (a script, not a test).

Example::

    python benchmarks/inbox_bench.py --games 50 --runs 5

Prints:

* ``pbem inbox`` over an mbox of ``--games`` games x 4 submissions (3 of the 4 resolve a
  step: 150 of 200 with 50 games), messages interleaved game by game as they arrive:
  the wall time of the whole process and submissions/s, in one process (``--jobs 1``) and as
  people run it (its default: one worker process per core), or with ``--jobs N`` when given;
* ``pbem submit`` of a sealed submission (it waits for the other side), whole process:
  min / median wall time over ``--runs`` runs, each on a fresh copy of the game file;
* ``pbem submit`` of a submission that resolves the step, whole process: min / median;
* the fsync and fdatasync calls of that resolving ``pbem submit`` (counted with strace,
  when it is installed).

Every game has the same seed and keys, so one scratch game finds legal orders for all.

The processes run as an installed pbem does: with their bytecode compiled (kept in a folder
of the run, written by an untimed warm-up run of each command). Also printed: the time of
``python -c "import pbem.store"``, what every command that opens a game file imports (the
pipeline's modules; not the ORM, which only the commands that list or edit rows load), the floor
under ``pbem submit``.
"""

from __future__ import annotations

import argparse
import hashlib
import mailbox
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from email.message import EmailMessage
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a checkout without installing

from _wholeprocess import installed_env, timed  # noqa: E402  (benchmarks/, the script's own folder)

from pbem.core.rng import Rng  # noqa: E402
from pbem.envelope import generate_keypair, new_envelope, sign_envelope  # noqa: E402
from pbem.games.caesar.rules.autoplay import random_orders  # noqa: E402
from pbem.games.caesar.rules.board import Side  # noqa: E402
from pbem.store import GameSetup, Home, PlayerSetup  # noqa: E402

SEED = 5
PER_GAME = 4


_CPU: list[float] = []  # the CPU time (user + system) of each _pbem process, children included, in order
_ENV: dict[str, str] = {}  # the child processes' environment (see main)


def _python(*args: str) -> tuple[float, subprocess.CompletedProcess[bytes]]:
    wall, cpu, done = timed(list(args), _ENV)
    _CPU.append(cpu)
    return wall, done


def _pbem(home: Path, *args: str) -> tuple[float, subprocess.CompletedProcess[bytes]]:
    return _python("-m", "pbem", "--home", str(home), *args)


def _orders(keys: dict[Side, object], scratch: Path) -> list[tuple[Side, int, str]]:
    """The first PER_GAME submissions of a game with seed SEED: (side, step, order text)."""
    home = Home(scratch)
    players = tuple(PlayerSetup(s, f"{s.value.lower()}@example.org", public_key=keys[s].public_text)  # type: ignore[attr-defined]
                    for s in Side)
    home.create(GameSetup("scratch", players, seed=SEED)).close()
    rng = Rng(SEED + 1)
    out: list[tuple[Side, int, str]] = []
    with home.open("scratch") as st:
        while len(out) < PER_GAME:
            session = st.adjudication().session
            step = session.step()
            side = [s for s in step.awaiting if s not in session.sealed][0]
            text = random_orders(session, side, rng)
            out.append((side, step.number, text))
            env = new_envelope("scratch", side.value, step.number, text, nonce="0" * 32)
            st.receive(sign_envelope(env, keys[side].private_pem).to_json().encode())  # type: ignore[attr-defined]
    return out


def _message(gid: str, side: Side, step: int, armor: str, n: int) -> bytes:
    msg = EmailMessage()
    msg["From"] = f"{side.value.lower()}@example.org"
    msg["To"] = "pbem@club.example"
    msg["Subject"] = f"[{gid}] step {step}"
    msg["Message-ID"] = f"<{n}.{hashlib.sha256(armor.encode()).hexdigest()[:16]}@example.org>"
    msg.set_content(f"My orders:\n\n{armor}\n")
    return msg.as_bytes()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=50, help="games in the mailbox (4 submissions each)")
    ap.add_argument("--runs", type=int, default=5, help="runs of each `pbem submit` measurement")
    ap.add_argument("--jobs", type=int, default=0, help="time `pbem inbox --jobs N` besides --jobs 1 (0: as "
                    "people run it, with its default: one worker per core)")
    ap.add_argument("--every-report", action="store_true",
                    help="every game's moderator has an address and its players do not fold: every report of a "
                         "resolving step is rendered (by default the moderator has none and the players fold, as a "
                         "new game does, so the reports that go to no one are kept on demand)")
    args = ap.parse_args()
    keys = {s: generate_keypair() for s in Side}
    players = tuple(PlayerSetup(s, f"{s.value.lower()}@example.org", public_key=keys[s].public_text) for s in Side)
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        _ENV.update(installed_env(t / "pycache"))  # as installed; a warm-up run of each command writes the bytecode
        orders = _orders(keys, t / "scratch")
        resolving = sum(1 for i in range(PER_GAME) if i > 0)  # the first waits, every later one resolves
        home = t / "home"
        t0 = time.perf_counter()
        ids = [f"club-{i:03d}" for i in range(args.games)]
        moderator = "moderator@example.org" if args.every_report else ""
        for gid in ids:
            with Home(home).create(GameSetup(gid, players, seed=SEED, moderator_email=moderator)) as st:
                for side in Side if args.every_report else ():
                    st.set_folding(side.value, False)
        setup = time.perf_counter() - t0
        fresh = t / "fresh"
        shutil.copytree(home, fresh)
        box = mailbox.mbox(str(t / "in.mbox"))
        n = 0
        for side, step, text in orders:  # round by round: every game's first message, then every second ...
            for gid in ids:
                env = new_envelope(gid, side.value, step, text, nonce=hashlib.sha256(f"{gid}{n}".encode()).hexdigest()[:32])
                box.add(_message(gid, side, step, sign_envelope(env, keys[side].private_pem).to_armor(), n))
                n += 1
        box.close()
        warm = t / "warm"  # the warm-up of `pbem inbox`: one game's messages, not timed
        warm.mkdir()
        shutil.copyfile(fresh / f"{ids[0]}.db", warm / f"{ids[0]}.db")
        _pbem(warm, "inbox", "--mbox", str(t / "in.mbox"))
        # with worker processes: as people run it (one per core this process may use), or --jobs N
        shutil.copytree(fresh, t / "parallel")
        given = ("--jobs", str(args.jobs)) if args.jobs else ()
        wall, done = _pbem(t / "parallel", "inbox", "--mbox", str(t / "in.mbox"), *given)
        name = " ".join(given) or f"(one worker per core: {len(os.sched_getaffinity(0))})"
        print(f"pbem inbox {name}: {n} messages in {wall:.2f} s: {n / wall:.1f} submissions/s "
              f"(cpu {_CPU[-1]:.2f} s, all processes)"
              + ("" if done.returncode == 0 else f" (FAILED: {done.stderr.decode()[-300:]})"))
        wall, done = _pbem(home, "inbox", "--mbox", str(t / "in.mbox"), "--jobs", "1")  # one process
        if done.returncode != 0:
            print(done.stdout.decode()[-2000:], done.stderr.decode()[-2000:])
            return 1
        summary = done.stdout.decode().strip().splitlines()[-1]
        accepted = int(re.search(r"(\d+) accepted", summary).group(1))  # type: ignore[union-attr]
        with Home(home).open(ids[0]) as st:
            queued = st.outbox()
        print(f"created {args.games} games in {setup:.1f} s; each game's {len(queued)} reports: "
              f"{sum(1 for r in queued if r.body is not None)} rendered, the rest go to no one (kept on demand)")
        print(f"pbem inbox --jobs 1: {n} messages ({args.games * resolving} resolving) in {wall:.2f} s: "
              f"{n / wall:.1f} submissions/s ({accepted} accepted); cpu {_CPU[-1]:.2f} s: {n / _CPU[-1]:.1f} "
              "submissions per cpu-second")

        # pbem submit, whole process, on fresh copies of one game file
        first, second = orders[0], orders[1]
        files = {}
        for name, (side, step, text) in (("sealed", first), ("resolving", second)):
            env = new_envelope(ids[0], side.value, step, text, nonce="1" * 32)
            files[name] = t / f"{name}.json"
            files[name].write_bytes(sign_envelope(env, keys[side].private_pem).to_json().encode())
        times: dict[str, list[float]] = {"sealed": [], "resolving": []}
        cpus: dict[str, list[float]] = {"sealed": [], "resolving": []}
        for run in range(args.runs + 1):  # run 0 is the warm-up of `pbem submit`: not counted
            h = t / f"run{run}"
            h.mkdir()
            shutil.copyfile(fresh / f"{ids[0]}.db", h / f"{ids[0]}.db")
            for name in ("sealed", "resolving"):
                wall, done = _pbem(h, "submit", str(files[name]))
                assert done.returncode == 0, done.stderr.decode()
                said = b"sealed until" if name == "sealed" else b"resolved"
                assert said in done.stdout, done.stdout.decode()
                if run:
                    times[name].append(wall)
                    cpus[name].append(_CPU[-1])
        floor: list[float] = []
        floor_cpu: list[float] = []
        for _run in range(args.runs):
            wall, _done = _python("-c", "import pbem.store")
            floor.append(wall)
            floor_cpu.append(_CPU[-1])
        print(f"python -c 'import pbem.store' (every command that opens a game file; no ORM"
              f"): min {min(floor) * 1000:.0f} ms, median {statistics.median(floor) * 1000:.0f} ms wall; "
              f"cpu min {min(floor_cpu) * 1000:.0f} ms, median {statistics.median(floor_cpu) * 1000:.0f} ms")
        for name, ts in times.items():
            print(f"pbem submit ({name}), whole process: min {min(ts) * 1000:.0f} ms, "
                  f"median {statistics.median(ts) * 1000:.0f} ms wall; cpu min {min(cpus[name]) * 1000:.0f} ms, "
                  f"median {statistics.median(cpus[name]) * 1000:.0f} ms over {len(ts)} runs")
        if shutil.which("strace"):
            h = t / "strace"
            h.mkdir()
            shutil.copyfile(fresh / f"{ids[0]}.db", h / f"{ids[0]}.db")
            _pbem(h, "submit", str(files["sealed"]))
            log = t / "strace.log"
            subprocess.run(["strace", "-f", "-e", "trace=fsync,fdatasync", "-o", str(log), sys.executable, "-m",
                            "pbem", "--home", str(h), "submit", str(files["resolving"])], env=_ENV,
                           capture_output=True, check=True)
            calls = [ln for ln in log.read_text().splitlines() if re.search(r"\b(fsync|fdatasync)\(", ln)]
            print(f"pbem submit (resolving): {len(calls)} fsync/fdatasync calls in the whole process")
    return 0


if __name__ == "__main__":
    sys.exit(main())
