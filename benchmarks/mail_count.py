"""How many mails a game sends each player (a script, not a test).

Example::

    python benchmarks/mail_count.py --games 3 --seed 5

Plays whole random games through the store (signed submissions, as players send them) and
runs ``pbem send`` (to a folder, marking each message sent) after every submission, as a
moderator running it from cron would. Each game is played twice with the same orders: with
the default (a player's reports of steps that ask nothing of him are folded into his next
mail that does) and with both players opted out (``pbem mailing --every-step``: a report
mail at every step). Prints, per game, the steps and the report mails each player got.
Replies to submissions (one per submission that came by mail) and reminders come on top.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

import pbem.transport.outbox  # noqa: E402
from pbem.core.rng import Rng  # noqa: E402
from pbem.envelope import generate_keypair, new_envelope, sign_envelope  # noqa: E402
from pbem.games.caesar.rules.autoplay import random_orders  # noqa: E402
from pbem.games.caesar.rules.board import Side  # noqa: E402
from pbem.games.caesar.steps.session import StepKind  # noqa: E402
from pbem.store import GameSetup, Home, PlayerSetup  # noqa: E402
from pbem.transport.outbox import DryRunTransport, send_outbox  # noqa: E402


def play(seed: int, fold: bool, max_steps: int) -> tuple[int, dict[str, int]]:
    """Steps played and report mails per player of one random game."""
    keys = {s: generate_keypair() for s in Side}
    players = tuple(PlayerSetup(s, f"{s.value.lower()}@example.org", public_key=keys[s].public_text) for s in Side)
    mails = {s.value: 0 for s in Side}
    with tempfile.TemporaryDirectory() as tmp:
        home = Home(Path(tmp) / "home")
        home.create(GameSetup("g", players, seed=seed)).close()
        if not fold:
            with home.open("g") as st:
                for s in Side:
                    st.set_folding(s.value, False)
        transport = DryRunTransport(Path(tmp) / "out")

        def send() -> None:
            results, failure = send_outbox(home, transport, "pbem@club.example", game="g")
            assert not failure, failure
            for r in results:
                if r.status == "sent" and r.kind == "report" and r.recipient in mails:
                    mails[r.recipient] += 1

        send()
        rng, n, step_no = Rng(seed + 1), 0, 1
        while step_no < max_steps:
            with home.open("g") as st:
                session = st.adjudication().session
                step = session.step()
                if step.kind is StepKind.OVER:
                    break
                status = st.status()
                side = Side(next(s for s in status.awaiting if s not in status.received))
                orders = random_orders(session, side, rng)
                nonce = hashlib.sha256(f"{step.number} {side.value} {n}".encode()).hexdigest()[:32]
                env = new_envelope("g", side.value, step.number, orders, nonce=nonce)
                st.receive(sign_envelope(env, keys[side].private_pem).to_json().encode("utf-8"), "bench")
                step_no = st.status().step
                n += 1
            send()
    return step_no, mails


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=3, help="random games to play")
    ap.add_argument("--seed", type=int, default=5, help="seed of the first game")
    ap.add_argument("--max-steps", type=int, default=400, help="stop a game after this many steps")
    args = ap.parse_args()
    # Counting only: the map's PNG (half a second a mail) is not drawn.
    pbem.transport.outbox.mail_map = lambda html, message_id: (html, None)  # type: ignore[assignment]
    every_all, fold_all = [], []
    for g in range(args.games):
        seed = args.seed + g
        steps, every = play(seed, False, args.max_steps)
        steps2, folded = play(seed, True, args.max_steps)
        assert steps == steps2
        every_all += list(every.values())
        fold_all += list(folded.values())
        print(f"game seed {seed}: {steps} steps; report mails per player: every step "
              f"{', '.join(f'{k} {v}' for k, v in every.items())}; folded "
              f"{', '.join(f'{k} {v}' for k, v in folded.items())}")
    print(f"median report mails per player and game: every step {statistics.median(every_all):.0f}, "
          f"folded {statistics.median(fold_all):.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
