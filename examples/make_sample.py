"""Write the sample game that ``pbem demo`` plays: keys, signed submissions, golden reports.

Run from the repository root::

    python examples/make_sample.py

Everything is byte-stable: the two sample key pairs come from fixed seeds, every
nonce and time is fixed, and the orders come from a simple scripted strategy
(below) played on the engine with a fixed game seed. The strategy is
deliberately plain, the way a careful beginner plays: discard the weakest card
and play the strongest; move each army towards the nearest place worth taking,
attacking only with a clear advantage and never leaving a Victory city empty;
levy legions first; plan every battle with a retreat when weaker and a hit order;
send Navis home in winter.

The game runs until the first Year is over (the year-start step of the second
Year is open). Along the way the script adds what a real game sees: a revised
submission (the first is superseded), an exact resend (a duplicate), one
submission as a whole email with armored orders, a quote and a signature, and one
deliberately bad submission (rejected, every error listed) followed by the fix.

Finally it plays the game through the real pipeline (``pbem demo``) in a
temporary folder and copies the reports into ``examples/reports/`` (the golden
reports the test suite compares with).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from cryptography.hazmat.primitives import serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey  # noqa: E402

from pbem.envelope import keypair_from_private_key, new_envelope, sign_envelope  # noqa: E402
from pbem.errors import PbemError  # noqa: E402
from pbem.games.caesar.orders.language import block_display  # noqa: E402
from pbem.games.caesar.orders.translate import order_for  # noqa: E402
from pbem.games.caesar.rules.board import BlockType, Side  # noqa: E402
from pbem.games.caesar.rules.cards import APOLLO  # noqa: E402
from pbem.games.caesar.rules.choices import (  # noqa: E402
    DecisionKind,
    EndLevies,
    EndMoves,
    LevyStep,
    Move,
    NoEvent,
    Surprise,
)
from pbem.games.caesar.rules.game import Game, new_game  # noqa: E402
from pbem.games.caesar.rules.levy import new_block_options, step_options  # noqa: E402
from pbem.games.caesar.rules.movement import block_paths, movable_blocks  # noqa: E402
from pbem.games.caesar.rules.state import Options  # noqa: E402
from pbem.games.caesar.rules.winter import navis_ports, over_supply  # noqa: E402
from pbem.games.caesar.steps.session import Session, StepKind, order_templates  # noqa: E402

GAME = "caesar-demo"
SEED = 7
START = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
EMAILS = {"Caesar": "caesar@example.org", "Pompey": "pompey@example.org"}
EVENT_VALUE = {"Jupiter": 7, "Mars": 7, "Neptune": 6, "Mercury": 6, "Pluto": 6, "Vulcan": 5, APOLLO: 4}


# ---- keys ------------------------------------------------------------------------------


def sample_key(side: str) -> Ed25519PrivateKey:
    """A fixed sample key (public knowledge: never use it in a real game)."""
    return Ed25519PrivateKey.from_private_bytes(hashlib.sha256(f"pbem sample key {side}".encode()).digest())


def write_keys(out: Path) -> dict[str, bytes]:
    out.mkdir(parents=True, exist_ok=True)
    pems = {}
    for side in ("Caesar", "Pompey"):
        pem = sample_key(side).private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        kp = keypair_from_private_key(pem)
        (out / f"{side.lower()}.key").write_bytes(pem)
        (out / f"{side.lower()}.pub").write_text(kp.public_text + "\n", encoding="utf-8")
        pems[side] = pem
    return pems


# ---- the scripted strategy -------------------------------------------------------------------


def card_value(card: str) -> int:
    if "/" in card:
        m, lv = (int(x) for x in card.split("/"))
        return 2 * m + lv
    return EVENT_VALUE.get(card, 5)


def card_orders(g: Game, side: Side, *, discard: bool) -> list[str]:
    hand = sorted(g.state.hands[side], key=lambda c: (card_value(c), c))
    lines = []
    if discard:
        lines.append(f"discard {hand[0]}")
        hand = hand[1:]
    playable = [c for c in hand if not (c == APOLLO and (discard or g.state.turn == 1))]
    lines.append(f"play {playable[-1]}")
    return lines


def _strength(g: Game, loc: str, side: Side) -> int:
    return sum(g.state.blocks[b].strength for b in g.blocks_at(loc, side))


def _distance_to_enemy(g: Game, start: str, side: Side, limit: int = 6) -> int:
    seen, frontier = {start}, [start]
    for d in range(limit + 1):
        nxt = []
        for loc in frontier:
            if g.blocks_at(loc, side.enemy):
                return d
            for n, _ in g.board.neighbors_by_road(loc):
                if n not in seen:
                    seen.add(n)
                    nxt.append(n)
        frontier = nxt
    return limit + 1


def _feasible(g: Game, side: Side, group: list[str], path: tuple[str, ...]) -> list[str]:
    """The blocks of ``group`` (in order) that can really make the move together (road limits)."""
    trial = g.copy()
    out = []
    for b in group:
        try:
            trial.apply(side, Move(b, path))
        except PbemError:
            break
        out.append(b)
    return out


def best_group_move(g: Game, side: Side) -> list[Move] | None:
    """The most useful group move now, or None."""
    by_loc: dict[str, list[str]] = {}
    for bid in movable_blocks(g, side):
        by_loc.setdefault(g.state.blocks[bid].loc or "", []).append(bid)
    best: tuple[float, str, list[Move]] | None = None
    for origin, blocks in sorted(by_loc.items()):
        paths = {b: set(block_paths(g, side, b)) for b in blocks if not g.info(b).is_navis}
        if not paths:
            continue
        all_paths = sorted(set().union(*paths.values()))
        origin_vp = g.board.spaces[origin].vp
        staying = [b for b in g.blocks_at(origin, side) if b not in blocks]
        for path in all_paths:
            dest = path[-1]
            group = sorted((b for b in paths if path in paths[b]), key=lambda b: (g.info(b).is_leader, g.state.blocks[b].strength))
            if not group:
                continue
            if origin_vp and not staying and len(group) == len(g.blocks_at(origin, side)):
                if len(group) < 2:
                    continue
                group = group[1:]  # leave the weakest block to hold the city
            theirs = _strength(g, dest, side.enemy)
            if theirs and sum(g.state.blocks[b].strength for b in group) + _strength(g, dest, side) < 1.5 * theirs:
                continue
            group = _feasible(g, side, sorted(group, key=lambda b: -g.state.blocks[b].strength), path)
            if not group:
                continue
            ours = sum(g.state.blocks[b].strength for b in group) + _strength(g, dest, side)
            vp = g.board.spaces[dest].vp
            if theirs:
                if ours < 1.5 * theirs:
                    continue
                score = 10.0 + 4 * vp
            elif g.control(dest, side).value != "friendly" and not g.board.is_sea(dest):
                score = (8.0 + 3 * vp) if vp else 3.0 + (2 - _distance_to_enemy(g, dest, side)) * 0.5
            else:
                gain = _distance_to_enemy(g, origin, side) - _distance_to_enemy(g, dest, side)
                score = 1.0 + gain if gain > 0 else 0.0
            score -= 0.1 * (len(path) - 1)
            if score > 2 and (best is None or (score, origin) > (best[0], best[1])):
                best = (score, origin, [Move(b, path) for b in group])
    return best[2] if best else None


def patrol_move(g: Game, side: Side) -> list[Move] | None:
    """On the last game turn of a Year, put one Navis out to sea to guard the coast."""
    if g.state.turn != 5:
        return None
    for bid in movable_blocks(g, side):
        if g.info(bid).is_navis:
            for path in block_paths(g, side, bid):
                if len(path) == 2 and g.board.is_sea(path[-1]) and len(navis_ports(g, bid) or [1, 2]) >= 1:
                    return [Move(bid, path)]
    return None


def command_orders(g: Game, side: Side) -> list[str]:
    trial = g.copy()
    lines: list[str] = []

    def do(ch: object) -> bool:
        order = order_for(trial, side, ch)  # type: ignore[arg-type]
        line = str(order) if order else None
        try:
            trial.apply(side, ch)  # type: ignore[arg-type]
        except PbemError:
            return False
        if line:
            lines.append(line)
        return True

    for _ in range(60):
        pend = [d for d in trial.pending() if d.side is side]
        c = trial.state.command
        if not pend or c is None or c.side is not side:
            break
        d = pend[0]
        if d.kind is DecisionKind.EVENT_TARGET:
            opts = [ch for ch in trial.legal(d) if not isinstance(ch, NoEvent)]
            do(opts[0] if opts else NoEvent())
        elif d.kind is DecisionKind.MOVES:
            moves = patrol_move(trial, side) if not lines else None
            moves = moves or best_group_move(trial, side)
            if not moves or not all(do(m) for m in moves):
                do(EndMoves())
        elif d.kind is DecisionKind.SURPRISE:
            do(next(iter(trial.legal(d)), Surprise(None)))
        elif d.kind is DecisionKind.LEVIES:
            levies = sorted(new_block_options(trial, side),
                            key=lambda lv: (trial.info(lv.block).type is not BlockType.LEGION,
                                            len(trial.blocks_at(lv.city, side)), lv.block, lv.city))
            choice: object = levies[0] if levies else None
            if choice is None:
                steps: list[LevyStep] = step_options(trial, side)
                choice = steps[0] if steps else EndLevies()
            if not do(choice):
                do(EndLevies())
        else:
            break
    return _merge_moves(lines)


def _merge_moves(lines: list[str]) -> list[str]:
    """'move A -> B: X' and 'move A -> B: Y' become 'move A -> B: X, Y'."""
    out: list[str] = []
    for line in lines:
        if out and line.startswith("move ") and out[-1].startswith("move "):
            head, _, blocks = line.partition(": ")
            prev_head, _, prev_blocks = out[-1].partition(": ")
            if head == prev_head:
                out[-1] = f"{prev_head}: {prev_blocks}, {blocks}"
                continue
        out.append(line)
    return out


def winter_orders(g: Game, side: Side) -> list[str]:
    """Each Navis at sea to its first port; over the supply limit, disband the weakest blocks."""
    out = []
    for bid in sorted(g.state.on_map(side)):
        loc = g.state.blocks[bid].loc
        if loc and g.board.is_sea(loc):
            ports = navis_ports(g, bid)
            if ports:
                out.append(f"winter: navis {block_display(g.board, bid, side)} -> {ports[0]}")
    surplus = []
    for loc, n in over_supply(g, side):
        weakest = sorted((b for b in g.blocks_at(loc, side) if g.info(b).type is not BlockType.CLEOPATRA),
                         key=lambda b: (g.state.blocks[b].strength, b))
        surplus += weakest[:n]
    if surplus:
        out.append(f"winter: disband {', '.join(block_display(g.board, b, side) for b in surplus)}")
    return out


def step_orders(session: Session, side: Side) -> list[str]:
    step = session.step()
    g = session.game
    if step.kind is StepKind.YEAR_START:
        return card_orders(g, side, discard=True)
    if step.kind is StepKind.CARD:
        return card_orders(g, side, discard=False)
    if step.kind is StepKind.COMMAND:
        return command_orders(g, side) or ["pass"]
    if step.kind is StepKind.BATTLES:
        picked: list[str] = []
        for label, line in order_templates(session, side):
            if label.startswith(("order of battles", "retreat plan at", "hit order at")):
                picked.append(line)
        return picked or ["pass"]
    if step.kind is StepKind.WINTER:
        return winter_orders(g, side) or ["pass"]
    raise SystemExit(f"the sample strategy has no orders for a {step.kind.value} step")


# ---- writing the submissions -------------------------------------------------------------------


class Writer:
    def __init__(self, out: Path, pems: dict[str, bytes]) -> None:
        self.out = out
        self.pems = pems
        self.n = 0
        self.manifest: list[dict[str, str]] = []

    def envelope(self, side: str, step: int, lines: list[str]) -> object:
        self.n += 1
        nonce = hashlib.sha256(f"{GAME} sample nonce {self.n}".encode()).hexdigest()[:32]
        when = START + timedelta(hours=5 * self.n)
        env = new_envelope(GAME, side, step, "\n".join(lines), nonce=nonce, time=when)
        return sign_envelope(env, self.pems[side])

    def add(self, name: str, content: str, expect: str, note: str) -> None:
        (self.out / name).write_text(content, encoding="utf-8")
        self.manifest.append({"file": name, "expect": expect, "note": note})

    def signed(self, side: str, step: int, lines: list[str], expect: str, note: str, *, suffix: str = "") -> str:
        sub = self.envelope(side, step, lines)
        name = f"{len(self.manifest) + 1:03d}-step{step:02d}-{side}{suffix}.json"
        self.add(name, sub.to_json(), expect, note)  # type: ignore[attr-defined]
        return name

    def email(self, side: str, step: int, lines: list[str], note: str) -> str:
        sub = self.envelope(side, step, lines)
        when = START + timedelta(hours=5 * self.n)
        body = (
            f"From: {side} <{EMAILS[side]}>\n"
            f"To: Moderator <moderator@example.org>\n"
            f"Subject: Re: [{GAME}] step {step}\n"
            f"Date: {when.strftime('%a, %d %b %Y %H:%M:%S +0000')}\n"
            "MIME-Version: 1.0\n"
            "Content-Type: text/plain; charset=utf-8\n"
            "Content-Transfer-Encoding: 8bit\n"
            "\n"
            "Here are my orders for this step.\n"
            "\n"
            f"{sub.to_armor()}"  # type: ignore[attr-defined]
            "\n"
            "> On the last report you wrote:\n"
            "> step waits for Pompey\n"
            "\n"
            "-- \n"
            "Gnaeus Pompeius Magnus\n"
        )
        name = f"{len(self.manifest) + 1:03d}-step{step:02d}-{side}.eml"
        self.add(name, body, "accepted", note)
        return name

    def resend(self, name: str, note: str) -> None:
        self.manifest.append({"file": name, "expect": "duplicate", "note": note})


def play(writer: Writer) -> Session:
    session = Session(new_game(SEED, Options()))
    first_year = session.game.state.year
    revised = emailed = bad = False
    while session.game.state.year == first_year:
        step = session.step()
        if step.kind is StepKind.OVER:
            break
        for side in step.awaiting:
            lines = step_orders(session, side)
            s = side.value
            if step.kind is StepKind.YEAR_START and side is Side.CAESAR and not revised:
                hand = sorted(session.game.state.hands[side], key=lambda c: (card_value(c), c))
                first = [lines[0], f"play {hand[-2] if hand[-2] != lines[0].split()[-1] else hand[-3]}"]
                writer.signed(s, step.number, first, "accepted", "Caesar's year-start cards (he will revise them)")
                name = writer.signed(s, step.number, lines, "accepted",
                                     "Caesar revises his play before the step resolves: the first one is superseded")
                writer.resend(name, "the same file arrives again (a mail loop): recognized, nothing changes")
                revised = True
            elif step.kind is StepKind.COMMAND and side is Side.CAESAR and not bad and len(lines) >= 1:
                wrong = ["move Roma -> Brundisium -> Athenae: Legio 8", "levy Legio 99", *lines[1:]]
                writer.signed(s, step.number, wrong, "rejected",
                              "a bad submission: an illegal move and an unknown block; every error is listed")
                writer.signed(s, step.number, lines, "accepted", "the corrected command orders", suffix="-fixed")
                bad = True
            elif step.kind is StepKind.COMMAND and side is Side.POMPEY and not emailed:
                writer.email(s, step.number, lines, "Pompey's command orders as a whole email (armored block, quote, signature)")
                emailed = True
            else:
                writer.signed(s, step.number, lines, "accepted", f"{step.title}")
            session.submit(side, "\n".join(lines))
    return session


def main() -> None:
    subs = HERE / "submissions"
    reports = HERE / "reports"
    for d in (subs, reports):
        if d.exists():
            shutil.rmtree(d)
    subs.mkdir(parents=True)
    pems = write_keys(HERE / "keys")
    (HERE / "game.json").write_text(json.dumps({
        "game": GAME,
        "seed": SEED,
        "options": {"free_deployment": False, "tournament": False},
        "battles": "planned",
        "emails": EMAILS,
        "keys": {"Caesar": "keys/caesar.pub", "Pompey": "keys/pompey.pub"},
    }, indent=2) + "\n", encoding="utf-8")
    writer = Writer(subs, pems)
    session = play(writer)
    (subs / "manifest.json").write_text(json.dumps(writer.manifest, indent=2) + "\n", encoding="utf-8")
    print(f"{len(writer.manifest)} submissions up to step {session.step_no} ({session.step().title})")

    from pbem.demo import run_demo

    with tempfile.TemporaryDirectory() as tmp:
        result = run_demo(Path(tmp) / "home", examples=HERE, echo=print)
        made = Path(result["reports"])
        last = max(p.name for p in made.iterdir())
        for f in sorted(made.glob("*/*")):
            if f.suffix == ".txt" or f.parent.name == last:  # every text report; the HTML of the last step
                (reports / f.parent.name).mkdir(parents=True, exist_ok=True)
                shutil.copyfile(f, reports / f.parent.name / f.name)
    print(f"golden reports written to {reports} (every text report, the HTML reports of {last})")


if __name__ == "__main__":
    main()
