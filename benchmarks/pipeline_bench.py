"""Benchmark: signed submissions through the whole pipeline (a script, not a test).

Example::

    python benchmarks/pipeline_bench.py --steps 40 --seed 3

Creates a game in a temporary folder, then feeds it random legal submissions
(signed JSON, as players send them) until ``--steps`` steps have resolved:
parse, verify the signature, check the orders in the side's view, resolve,
append the hash-chained events, snapshot, render six reports. Prints
submissions/s, the mean time to resolve a step with its reports, and the time
of ``verify`` (the audit replays everything).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

from pbem.envelope import generate_keypair, new_envelope, sign_envelope  # noqa: E402
from pbem.games.caesar.rules.autoplay import random_orders  # noqa: E402
from pbem.games.caesar.rules.board import Side  # noqa: E402
from pbem.games.caesar.rules.rng import Rng  # noqa: E402
from pbem.games.caesar.steps.session import StepKind  # noqa: E402
from pbem.store import GameSetup, Home, PlayerSetup  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=40, help="steps to resolve")
    ap.add_argument("--seed", type=int, default=3, help="game seed (the orders use seed + 1)")
    args = ap.parse_args()

    keys = {s: generate_keypair() for s in Side}
    players = tuple(PlayerSetup(s, f"{s.value.lower()}@example.org", public_key=keys[s].public_text) for s in Side)
    with tempfile.TemporaryDirectory() as tmp:
        home = Home(Path(tmp))
        home.create(GameSetup("bench", players, seed=args.seed)).close()
        rng = Rng(args.seed + 1)
        sent = resolved = 0
        resolve_times: list[float] = []
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
                    t0 = time.perf_counter()
                    store.receive(raw, "bench")
                    dt = time.perf_counter() - t0
                    sent += 1
                    if store.adjudication().session.step().number != step.number:
                        resolve_times.append(dt)
                        resolved += 1
                        break
                    session = store.adjudication().session
            elapsed = time.perf_counter() - start
            t0 = time.perf_counter()
            report = store.verify()
            verify_time = time.perf_counter() - t0
    mean = sum(resolve_times) / len(resolve_times) if resolve_times else 0.0
    print(f"{sent} submissions, {resolved} steps resolved in {elapsed:.2f} s: {sent / elapsed:.1f} submissions/s")
    print(f"resolving a step with its 6 reports: mean {mean * 1000:.0f} ms, max {max(resolve_times, default=0) * 1000:.0f} ms")
    print(f"verify (replay and check everything): {verify_time:.2f} s, {'OK' if report.ok else 'FAILED'}")
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
