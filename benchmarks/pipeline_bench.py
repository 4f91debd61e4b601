"""Benchmark: signed submissions through the whole pipeline (a script, not a test).

Example::

    python benchmarks/pipeline_bench.py --steps 40 --seed 3

Creates a game in a temporary folder, then feeds it random legal submissions
(signed JSON, as players send them) until ``--steps`` steps have resolved:
parse, verify the signature, check the orders in the side's view, resolve,
append the hash-chained events, snapshot, queue six reports and render those
that go to someone (the moderator has no address, and a player gets no mail for
a step that asks nothing of him: those are kept on demand; ``--every-report``
gives the moderator an address and makes both players opt out of folding, so
all six are rendered at every step; ``--languages es,sv`` has the players read their
reports in Spanish and Swedish; ``-o battles=interactive`` sets a game option). Prints
submissions/s, the mean time to resolve a step with its reports, the size of
the game file per step, and the time of ``verify`` (the audit replays
everything), in process and as the whole ``pbem verify`` command (median of
``--runs`` runs; the machine may be shared, so expect noise).

``--keep DIR`` leaves the game (``DIR/bench.db``) for other benchmarks, for
example ``python benchmarks/verify_bench.py DIR``.
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

from _wholeprocess import installed_env, timed  # noqa: E402  (benchmarks/, the script's own folder)

from pbem.core.rng import Rng  # noqa: E402
from pbem.envelope import generate_keypair, new_envelope, sign_envelope  # noqa: E402
from pbem.errors import PbemError  # noqa: E402
from pbem.games.caesar.rules.autoplay import random_orders  # noqa: E402
from pbem.games.caesar.rules.board import Side  # noqa: E402
from pbem.games.caesar.steps.session import StepKind  # noqa: E402
from pbem.store import GameSetup, Home, PlayerSetup  # noqa: E402


def verify_commands(home: Path, runs: int) -> list[tuple[float, float]]:
    """Wall and CPU time (user + system, its workers included) of ``runs`` runs of ``pbem verify`` on
    ``home``, each a fresh process, start-up included, run as installed (after a run not timed, which
    writes the bytecode: :func:`_wholeprocess.installed_env`)."""
    with tempfile.TemporaryDirectory() as pycache:
        env = installed_env(Path(pycache))
        out = []
        for run in range(runs + 1):
            wall, cpu, done = timed(["-m", "pbem", "--home", str(home), "verify"], env)
            if done.returncode != 0:
                raise SystemExit(f"pbem verify failed: {done.stdout.decode()[-500:]}{done.stderr.decode()[-500:]}")
            if run:
                out.append((wall, cpu))
        return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=40, help="steps to resolve")
    ap.add_argument("--seed", type=int, default=3, help="game seed (the orders use seed + 1)")
    ap.add_argument("--runs", type=int, default=3, help="runs of the whole `pbem verify` command")
    ap.add_argument("--keep", type=Path, help="copy the game folder here when done")
    ap.add_argument("--every-report", action="store_true",
                    help="a moderator with an address and players who do not fold: every report is rendered")
    ap.add_argument("--languages", default="en,en", metavar="A,B",
                    help="the languages of the two players' reports, in the order of the sides (default: %(default)s)")
    ap.add_argument("-o", "--option", action="append", default=[], metavar="NAME=VALUE",
                    help="a game option, as `pbem new -o` takes it (repeat for more), like -o battles=interactive")
    args = ap.parse_args()
    options = dict(o.split("=", 1) for o in args.option if "=" in o)
    if len(options) != len(args.option):
        ap.error("--option: write NAME=VALUE, like -o battles=interactive")
    languages = args.languages.split(",")
    if len(languages) != len(Side):
        ap.error(f"--languages: give {len(Side)} language codes separated by a comma, as es,sv")

    keys = {s: generate_keypair() for s in Side}
    players = tuple(PlayerSetup(s, f"{s.value.lower()}@example.org", public_key=keys[s].public_text, language=lang)
                    for s, lang in zip(Side, languages))
    with tempfile.TemporaryDirectory() as tmp:
        home = Home(Path(tmp))
        moderator = "moderator@example.org" if args.every_report else ""
        try:
            created = home.create(GameSetup("bench", players, seed=args.seed, options=options, moderator_email=moderator))
        except (PbemError, ValueError) as exc:  # an unknown option or value, a language pbem does not speak
            ap.error(str(exc))
        with created as store:
            for side in Side if args.every_report else ():
                store.set_folding(side.value, False)
        rng = Rng(args.seed + 1)
        sent = resolved = 0
        resolve_times: list[float] = []
        resolve_cpu: list[float] = []
        start = time.perf_counter()
        with home.open("bench") as store:
            while resolved < args.steps:
                session = store.adjudication().session
                step = session.step()
                if step.kind is StepKind.OVER:
                    break
                for side in step.awaiting:
                    orders = random_orders(session, side, rng)
                    nonce = hashlib.sha256(f"{step.number} {side.value} {sent}".encode()).hexdigest()[:32]
                    env = new_envelope("bench", side.value, step.number, orders, nonce=nonce)
                    raw = sign_envelope(env, keys[side].private_pem).to_json().encode("utf-8")
                    t0, c0 = time.perf_counter(), time.process_time()
                    store.receive(raw, "bench")
                    dt, dc = time.perf_counter() - t0, time.process_time() - c0
                    sent += 1
                    if store.adjudication().session.step().number != step.number:
                        resolve_times.append(dt)
                        resolve_cpu.append(dc)
                        resolved += 1
                        break
                    session = store.adjudication().session
            elapsed = time.perf_counter() - start
            queued = store.outbox()
            rendered = sum(1 for r in queued if r.body is not None) / max(1, len({r.step for r in queued}))
            t0 = time.perf_counter()
            report = store.verify()
            verify_time = time.perf_counter() - t0
        size = home.file("bench").stat().st_size
        whole = verify_commands(Path(tmp), args.runs)
        if args.keep:
            shutil.copytree(tmp, args.keep, dirs_exist_ok=True)
    mean = sum(resolve_times) / len(resolve_times) if resolve_times else 0.0
    print(f"{sent} submissions, {resolved} steps resolved in {elapsed:.2f} s: {sent / elapsed:.1f} submissions/s")
    print(f"resolving a step with its reports ({rendered:.1f} of 6 rendered per step, the rest go to no one): mean {mean * 1000:.0f} ms wall, max "
          f"{max(resolve_times, default=0) * 1000:.0f} ms; median {statistics.median(resolve_cpu or [0]) * 1000:.0f} ms cpu "
          "(writes to disk wait outside the cpu figure)")
    print(f"game file: {size / 1024:.0f} KB, {size / 1024 / max(1, resolved):.1f} KB per step")
    print(f"verify (replay and check everything), in process: {verify_time:.2f} s, {'OK' if report.ok else 'FAILED'}")
    if whole:
        wall, cpu = [w for w, _ in whole], [c for _, c in whole]
        print(f"`pbem verify`, whole process: median {statistics.median(wall):.2f} s wall, "
              f"{statistics.median(cpu):.2f} s cpu (min {min(wall):.2f} / {min(cpu):.2f}; {len(whole)} runs)")
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
