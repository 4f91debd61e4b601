"""Fair draws: a secret per game, keyed draws recomputed from the documented formula, the
commitment in every report, the secret revealed at the end, practice games marked."""

from __future__ import annotations

import hashlib
import hmac
import json
import sqlite3
from collections.abc import Iterator
from datetime import UTC
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as hs

from pbem.core.rng import Rng
from pbem.games.caesar.rules.autoplay import random_orders
from pbem.games.caesar.rules.board import Side, default_board
from pbem.games.caesar.rules.cards import card_sort_key
from pbem.games.caesar.steps.session import StepKind
from pbem.store import GameSetup, Home, PlayerSetup, StoreError, Verdict, _check_email
from store_helpers import make_game, play

BOARD = default_board()


# ---- the formula of docs/envelope.md ("Dice and deals"), written again from the document -----------


def words(secret: bytes, game: str, step: int, purpose: str, entropy: list[str]) -> Iterator[int]:
    counter = 0
    while True:
        counter += 1
        msg = json.dumps({"counter": counter, "entropy": entropy, "game": game, "label": "pbem draw v1",
                          "purpose": purpose, "step": step}, separators=(",", ":")).encode()
        yield int.from_bytes(hmac.new(secret, msg, hashlib.sha256).digest()[:8], "big")


def uniform(stream: Iterator[int], n: int) -> int:
    limit = 2**64 - 2**64 % n
    while True:
        x = next(stream)
        if x < limit:
            return x % n


def dealt_hands(stream: Iterator[int]) -> dict[str, list[str]]:
    deck = [c.name for c in BOARD.cards]
    for i in range(len(deck) - 1, 0, -1):
        j = uniform(stream, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    hands: dict[str, list[str]] = {"Caesar": [], "Pompey": []}
    for _ in range(6):
        for side in ("Caesar", "Pompey"):
            hands[side].append(deck.pop(0))
    return {s: sorted(h, key=card_sort_key) for s, h in hands.items()}


def db_rows(path: Path, sql: str) -> list[Any]:
    """Rows as stored; report bodies (stored compressed, see pbem.bodies) as their text."""
    from pbem.bodies import MAGIC, unpack

    con = sqlite3.connect(path)
    try:
        rows = con.execute(sql).fetchall()
    finally:
        con.close()
    return [tuple(unpack(v) if isinstance(v, bytes) and v.startswith(MAGIC) else v for v in row) for row in rows]


def report_bodies(home: Path, gid: str) -> list[tuple[str]]:
    """Every report's text: the stored ones, and those kept on demand (mailed to no one) as asked for."""
    with Home(home).open(gid) as st:
        return [(row.body or "",) for row in st.with_bodies(st.outbox())]


def keyed_game(home: Path, gid: str = "g") -> Any:
    return make_game(home, gid, seed=None)  # type: ignore[arg-type]


# ---- 1. keyed generator ------------------------------------------------------------------------


def test_the_secret_is_32_random_bytes_and_committed(tmp_path: Path) -> None:
    keyed_game(tmp_path, "a")
    keyed_game(tmp_path, "b")
    (sa, ca), = db_rows(tmp_path / "a.db", "SELECT secret, commitment FROM game")
    (sb, cb), = db_rows(tmp_path / "b.db", "SELECT secret, commitment FROM game")
    assert len(bytes.fromhex(sa)) == 32 and len(bytes.fromhex(sb)) == 32 and sa != sb
    assert ca == hashlib.sha256(bytes.fromhex(sa)).hexdigest() and cb == hashlib.sha256(bytes.fromhex(sb)).hexdigest()


def test_two_games_with_the_same_options_draw_differently(tmp_path: Path) -> None:
    keyed_game(tmp_path, "a")
    keyed_game(tmp_path, "b")
    decks = []
    for gid in ("a", "b"):
        with Home(tmp_path).open(gid) as st:
            state = st.adjudication().session.game.state
            decks.append((state.hands, state.deck))
    assert decks[0] != decks[1]


def test_the_opening_deal_follows_the_documented_formula(tmp_path: Path) -> None:
    keyed_game(tmp_path, "g")
    (secret,), = db_rows(tmp_path / "g.db", "SELECT secret FROM game")
    with Home(tmp_path).open("g") as st:
        hands = st.adjudication().session.game.state.hands
    expected = dealt_hands(words(bytes.fromhex(secret), "g", 0, "deal", []))
    assert {s.value: h for s, h in hands.items()} == expected


def fire_dice(home: Path, gid: str) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for step, data in db_rows(home / f"{gid}.db", "SELECT step, data FROM event WHERE kind = 'fire' ORDER BY seq"):
        out.setdefault(step, []).extend(json.loads(data)["dice"])
    return out


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A keyed game played past its first battle (a fixed secret, so the same game every run)."""
    import pbem.store as store_mod

    home = tmp_path_factory.mktemp("played")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(store_mod.secrets, "token_bytes", lambda n: bytes(range(7, 7 + n)))
        keys = keyed_game(home, "g")
    play(home, "g", keys, lambda st: bool(fire_dice(home, "g")), limit=200)
    assert fire_dice(home, "g"), "the random game reached no battle"
    return home


def test_dice_follow_the_documented_formula_keyed_by_the_closing_submissions(played: Path) -> None:
    tmp_path = played
    dice = fire_dice(tmp_path, "g")
    assert dice, "the random game reached no battle"
    (secret,), = db_rows(tmp_path / "g.db", "SELECT secret FROM game")
    for step, rolled in dice.items():
        closing = db_rows(tmp_path / "g.db", "SELECT side, digest FROM submission WHERE verdict = 'accepted' "
                          f"AND applied_step = {step} ORDER BY side")
        entropy = [f"{side}:{digest}" for side, digest in closing]
        assert entropy, f"step {step} was closed by submissions"
        stream = words(bytes.fromhex(secret), "g", step, "dice", entropy)
        assert rolled == [uniform(stream, 6) + 1 for _ in rolled]
        changed = entropy[-1][:-1] + ("1" if entropy[-1].endswith("0") else "0")  # one hex digit of one hash
        other = words(bytes.fromhex(secret), "g", step, "dice", entropy[:-1] + [changed])
        assert rolled != [uniform(other, 6) + 1 for _ in rolled] or len(rolled) < 4


def test_the_same_game_replayed_gives_the_same_draws(played: Path) -> None:
    with Home(played).open("g") as st:
        report = st.verify()
    assert report.ok, report.problems
    assert report.steps > 2


def test_the_snapshot_and_state_never_hold_the_secret(tmp_path: Path) -> None:
    keyed_game(tmp_path, "g")
    (secret,), = db_rows(tmp_path / "g.db", "SELECT secret FROM game")
    snapshots = db_rows(tmp_path / "g.db", "SELECT session FROM snapshot")
    reports = db_rows(tmp_path / "g.db", "SELECT body FROM outbox WHERE body IS NOT NULL") + report_bodies(tmp_path, "g")
    assert snapshots and reports
    assert all(secret not in text for (text,) in snapshots + reports)
    with Home(tmp_path).open("g") as st:
        assert secret not in json.dumps(st.adjudication().session.to_json())


# ---- 2. commitment -----------------------------------------------------------------------------


def test_every_report_shows_the_commitment(tmp_path: Path) -> None:
    keys = keyed_game(tmp_path, "g")
    play(tmp_path, "g", keys, lambda st: len(st.outbox()) >= 18)
    (commitment,), = db_rows(tmp_path / "g.db", "SELECT commitment FROM game")
    bodies = report_bodies(tmp_path, "g")
    assert len(bodies) >= 18
    assert all(commitment in body for (body,) in bodies)


def test_a_changed_secret_is_named_by_verify(tmp_path: Path) -> None:
    keys = keyed_game(tmp_path, "g")
    play(tmp_path, "g", keys, lambda st: st.status().step >= 3)
    (commitment,), = db_rows(tmp_path / "g.db", "SELECT commitment FROM game")
    con = sqlite3.connect(tmp_path / "g.db")
    con.execute("UPDATE game SET secret = ?", ("11" * 32,))
    con.commit()
    con.close()
    with Home(tmp_path).open("g", recover=False) as st:
        report = st.verify()
    assert not report.ok
    assert any(commitment in p and "secret" in p for p in report.problems), report.problems


def test_the_secret_is_revealed_when_the_game_ends() -> None:
    from pbem.core.rng import KeyedStream
    from pbem.games.caesar.rules.choices import Audience
    from pbem.games.caesar.rules.game import new_game
    from pbem.games.caesar.steps.session import Session
    from pbem.games.caesar.view.views import build_view
    from report_helpers import render_text

    secret = bytes(range(32))
    s = Session(new_game(0, rng=KeyedStream.new(secret, "g")))
    s.attach_secret(secret)
    rng, log = Rng(3), list(s.game.events)
    for _ in range(3000):
        step = s.step()
        if step.kind is StepKind.OVER:
            break
        for side in step.awaiting:
            log += s.submit(side, random_orders(s, side, rng), f"{step.number}{side.value}")
            if s.step().number != step.number:
                break
    assert s.step().kind is StepKind.OVER
    last = log[-1]
    assert last.kind == "secret" and last.audience == Audience.ALL and last.data["secret"] == secret.hex()
    assert sum(e.kind == "secret" for e in log) == 1
    for side in Side:
        assert secret.hex() in render_text(build_view(s.game, log, side))


# ---- 4. practice games -------------------------------------------------------------------------


def test_a_seeded_game_says_in_every_report_that_it_is_a_practice_game(tmp_path: Path) -> None:
    keys = make_game(tmp_path, "g", seed=7)
    play(tmp_path, "g", keys, lambda st: st.status().step >= 3)
    bodies = report_bodies(tmp_path, "g")
    assert bodies and all("PRACTICE GAME" in body for (body,) in bodies)
    (commitment, secret), = db_rows(tmp_path / "g.db", "SELECT commitment, secret FROM game")
    assert commitment is None and secret is None


def test_a_game_without_a_seed_is_no_practice_game(tmp_path: Path) -> None:
    players = tuple(PlayerSetup(s, password_hash="x") for s in Side)
    setup = GameSetup("g", players)
    assert setup.seed is None
    keyed_game(tmp_path, "k")
    bodies = report_bodies(tmp_path, "k")
    assert bodies and not any("PRACTICE" in body for (body,) in bodies)


@pytest.mark.parametrize("gid", ["g"])
def test_keyed_draws_need_the_secret(tmp_path: Path, gid: str) -> None:
    from pbem.core.rng import KeyedStream, SecretError

    stream = KeyedStream.from_json(KeyedStream.new(b"\x01" * 32, gid).to_json())
    with pytest.raises(SecretError, match="needs the game's secret"):
        stream.die()
    with pytest.raises(SecretError, match="does not match the commitment"):
        stream.attach(b"\x02" * 32)
    stream.attach(b"\x01" * 32)
    assert 1 <= stream.die() <= 6


# ---- 7. addresses ------------------------------------------------------------------------------



_LOCAL = hs.from_regex(r"[a-z][a-z0-9]{0,8}(\.[a-z0-9]{1,5})?", fullmatch=True)
_ADDR = hs.builds(lambda a, b: f"{a}@{b}.org", _LOCAL, _LOCAL)
_NAME = hs.from_regex(r"[A-Z][a-z]{0,8}( [A-Z][a-z]{0,8})?", fullmatch=True)


@given(_NAME, _ADDR, _ADDR)
def test_two_addresses_or_a_group_are_refused(name: str, a: str, b: str) -> None:
    for text in (f"{name} <{a}>, {b}", f"{a}, {b}", f"{name}: {b} <{a}>", f"{name}: {a};", f"{a}; {b}"):
        with pytest.raises(StoreError, match="email address"):
            _check_email("Pompey", text)


@given(hs.one_of(_ADDR, hs.builds(lambda n, a: f"{n} <{a}>", _NAME, _ADDR)))
def test_one_plain_address_is_accepted(text: str) -> None:
    _check_email("Caesar", text)


@given(hs.text(max_size=40))
@example(":;0")  # an empty group: the standard library's parser fails with an AttributeError
def test_whatever_is_accepted_is_exactly_one_address(text: str) -> None:
    from email.headerregistry import HeaderRegistry
    from email.utils import getaddresses

    try:
        _check_email("Caesar", text)
    except StoreError:
        return
    if not text:
        return
    assert len(getaddresses([text])) == 1
    header = HeaderRegistry()("To", text)
    assert len(header.addresses) == 1 and all(g.display_name is None for g in header.groups)


# ---- 5. passwords never stored -----------------------------------------------------------------

PASSWORDS = {Side.CAESAR: "correct horse battery", Side.POMPEY: "staple gun of Pompey"}
WRONG = "Tr0ub4dor&3-guess"


def file_bytes(home: Path, gid: str) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(home.glob(f"{gid}.db*")))


def password_game(home: Path, gid: str = "p") -> None:
    from pbem.envelope import hash_password

    players = tuple(PlayerSetup(s, f"{s.value.lower()}@example.org", password_hash=hash_password(PASSWORDS[s]))
                    for s in Side)
    Home(home).create(GameSetup(gid, players, seed=3)).close()


def password_raw(gid: str, side: Side, step: int, orders: str, password: str, armor: bool, n: int = 0) -> bytes:
    from pbem.envelope import new_envelope, password_submission

    env = new_envelope(gid, side.value, step, orders, nonce=f"{n:032x}", time="2025-03-01T12:00:00Z")
    sub = password_submission(env, password)
    return (sub.to_armor() if armor else sub.to_json()).encode("utf-8")


def test_passwords_right_and_wrong_never_reach_the_game_file(tmp_path: Path) -> None:
    password_game(tmp_path)
    rng = Rng(5)
    with Home(tmp_path).open("p") as st:
        for n in range(6):
            session = st.adjudication().session
            step = session.step()
            for k, side in enumerate(step.awaiting):
                orders = random_orders(st.adjudication().session, side, rng)
                wrong = st.receive(password_raw("p", side, step.number, orders, WRONG, armor=bool(k), n=100 + n))
                assert wrong.verdict is Verdict.REJECTED and "wrong credentials" in wrong.reason
                right = st.receive(password_raw("p", side, step.number, orders, PASSWORDS[side], armor=bool(n % 2),
                                                n=n * 2 + k))
                assert right.verdict is Verdict.ACCEPTED, right
        assert st.status().step == 7
        assert st.verify().ok, st.verify().problems
        checks = {r.password_check for r in st.submissions()}
    assert checks == {"matched", "wrong"}
    data = file_bytes(tmp_path, "p")
    for secret in (*PASSWORDS.values(), WRONG):
        assert secret.encode() not in data


def test_an_old_game_file_has_its_passwords_removed_when_opened(tmp_path: Path) -> None:
    password_game(tmp_path)
    good = password_raw("p", Side.CAESAR, 1, "discard Apollo\nplay 3/2", PASSWORDS[Side.CAESAR], armor=True)
    bad = password_raw("p", Side.POMPEY, 1, "play 3/2", WRONG, armor=False)
    con = sqlite3.connect(tmp_path / "p.db")  # as an earlier pbem stored them: the bytes as received
    con.executemany("INSERT INTO submission (raw, received, source, verdict) VALUES (?, ?, '', 'received')",
                    [(good, "2025-03-01T12:00:00Z"), (bad, "2025-03-01T12:00:01Z")])
    con.execute("UPDATE game SET schema_version = 'pbem-store 2'")
    con.commit()
    con.close()
    assert WRONG.encode() in file_bytes(tmp_path, "p")
    with Home(tmp_path).open("p") as st:
        verdicts = [(r.password_check, r.verdict) for r in st.submissions()]
    assert verdicts[0][0] == "matched" and verdicts[1] == ("wrong", "rejected")
    data = file_bytes(tmp_path, "p")
    for secret in (*PASSWORDS.values(), WRONG):
        assert secret.encode() not in data


# ---- 6. throttling -----------------------------------------------------------------------------


def test_wrong_passwords_make_the_side_wait_longer_and_longer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from datetime import datetime, timedelta

    import pbem.store as store_mod

    password_game(tmp_path)
    now = [datetime(2025, 3, 1, 12, 0, tzinfo=UTC)]
    scrypt_runs = [0]
    real = store_mod.check_password_of

    def counted(*a: Any) -> str:
        scrypt_runs[0] += 1
        return real(*a)

    monkeypatch.setattr(store_mod, "check_password_of", counted)
    home = Home(tmp_path, clock=lambda: now[0])
    orders = "discard Apollo\nplay 3/2"

    def send(password: str, n: int) -> Any:
        with home.open("p") as st:
            return st.receive(password_raw("p", Side.POMPEY, 1, orders, password, armor=False, n=n))

    for n in range(3):
        assert send(WRONG, n).verdict is Verdict.REJECTED
    assert scrypt_runs[0] == 3
    with home.open("p") as st:
        rows, outbox = len(st.submissions()), len(st.outbox(kind=None))
    with pytest.raises(StoreError, match=r"3 wrong passwords in a row for Pompey: .* refused until 2025-03-01T12:01:00Z"):
        send(PASSWORDS[Side.POMPEY], 10)  # even the right one waits: nothing is checked
    assert scrypt_runs[0] == 3
    with home.open("p") as st:
        assert (len(st.submissions()), len(st.outbox(kind=None))) == (rows, outbox)
    now[0] += timedelta(minutes=1)
    assert send(WRONG, 11).verdict is Verdict.REJECTED  # the wait is over: checked, wrong again
    with pytest.raises(StoreError, match="4 wrong passwords in a row .* until 2025-03-01T12:03:00Z"):
        send(WRONG, 12)
    now[0] += timedelta(minutes=2)
    with home.open("p") as st:  # Caesar is not held up by Pompey's wrong guesses
        assert st.receive(password_raw("p", Side.CAESAR, 1, orders, PASSWORDS[Side.CAESAR], armor=True)).verdict \
            is Verdict.ACCEPTED
    assert send(PASSWORDS[Side.POMPEY], 13).verdict in (Verdict.ACCEPTED, Verdict.REJECTED)
    with home.open("p") as st:
        assert st.submissions()[-1].password_check == "matched"
    assert send(WRONG, 14).verdict is Verdict.REJECTED  # a right password starts the count again


# ---- 8. audit bundles --------------------------------------------------------------------------


def bundle_text(home: Path, include_secret: bool | None = True) -> str:
    from pbem.decide import canonical_json

    with Home(home).open("g") as st:
        return canonical_json(st.audit_bundle(include_secret=include_secret))


def audit_check(text: str, report: str | None = None) -> tuple[int, str]:
    import tempfile

    from click.testing import CliRunner

    from pbem.cli import main

    with tempfile.TemporaryDirectory() as d:  # (click 8.5 deprecates CliRunner.isolated_filesystem)
        args = ["audit", "check", str(Path(d, "b.json"))]
        Path(d, "b.json").write_text(text, encoding="utf-8")
        if report is not None:
            Path(d, "r.txt").write_text(report, encoding="utf-8")
            args += ["--report", str(Path(d, "r.txt"))]
        r = CliRunner().invoke(main, args)
    return r.exit_code, r.output


def test_a_bundle_checks_out_and_a_saved_report_is_genuine(played: Path) -> None:
    text = bundle_text(played)
    code, out = audit_check(text)
    assert code == 0 and out.startswith("g: OK: ") and "(not the draws)" not in out, out
    with Home(played).open("g") as st:
        body = st.report("Pompey", step=2).body or ""
    assert "Report id: " in body
    code, out = audit_check(text, body)
    assert code == 0 and "this report is genuine, step 2 (text report for Pompey)" in out
    forged = body.replace("Victory points: ", "Victory points:  ", 1)
    code, out = audit_check(text, forged)
    line = next(i for i, ln in enumerate(body.splitlines()) if ln.startswith("Victory points")) + 1
    assert code == 1 and "differs from the text report for Pompey of step 2" in out and f"at line {line}:" in out


def mutate(text: str, where: str, change: Any) -> str:
    data = json.loads(text)
    change(data)
    return json.dumps(data)


def test_one_changed_byte_anywhere_is_named(played: Path) -> None:
    import base64

    text = bundle_text(played)

    def flip_submission(d: dict[str, Any]) -> None:
        s = next(s for s in d["submissions"] if s["verdict"] == "accepted")
        raw = bytearray(base64.b64decode(s["raw"]))
        i = raw.index(b"play") + 1
        raw[i] ^= 0x01
        s["raw"] = base64.b64encode(bytes(raw)).decode()

    def change_die(d: dict[str, Any]) -> None:
        e = next(e for e in d["events"] if e["kind"] == "fire")
        data = json.loads(e["data"])
        data["dice"][0] = data["dice"][0] % 6 + 1
        e["data"] = json.dumps(data, sort_keys=True, separators=(",", ":"))

    def change_report(d: dict[str, Any]) -> None:
        r = next(r for r in reversed(d["reports"]) if r["body"] and "Victory" in r["body"])  # a stored report
        r["body"] = r["body"].replace("Victory", "Victorx", 1)

    for change, named in [(flip_submission, "submission #"), (change_die, "event #"),
                          (change_report, "report for")]:
        code, out = audit_check(mutate(text, "", change))
        assert code == 1 and "FAILED" in out and named in out, (change.__name__, out)


def test_a_changed_secret_fails_verify_and_the_bundle_check_naming_the_commitment(played: Path) -> None:
    text = bundle_text(played)
    commitment = json.loads(text)["game"]["commitment"]
    code, out = audit_check(mutate(text, "", lambda d: d["game"].update(secret="22" * 32)))
    assert code == 1 and commitment in out and "secret" in out


def test_a_running_game_bundle_leaves_the_secret_out(played: Path, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from pbem.cli import main

    out_file = tmp_path / "b.json"
    r = CliRunner().invoke(main, ["--home", str(played), "audit", "export", "g", "-o", str(out_file)])
    assert r.exit_code == 0 and "BOTH sides' orders" in r.output and "still running" in r.output
    (secret,), = db_rows(played / "g.db", "SELECT secret FROM game")
    text = out_file.read_text()
    assert secret not in text and json.loads(text)["game"]["secret"] is None
    code, out = audit_check(text)
    assert code == 0 and "(not the draws)" in out
    code, out = audit_check(mutate(text, "", lambda d: d["events"][3].update(text="forged")))
    assert code == 1 and "event #4" in out


# ---- old game files ----------------------------------------------------------------------------


def test_a_game_file_of_the_previous_format_keeps_working(tmp_path: Path) -> None:
    """tests/data/legacy-store2.db.gz was written by pbem before secrets (format 'pbem-store 2'): a
    practice-less seeded game, Pompey in password mode with a wrong guess and his right password."""
    import gzip

    raw = gzip.decompress((Path(__file__).parent / "data" / "legacy-store2.db.gz").read_bytes())
    assert b"legacy sesame" in raw and b"wrong guess zz" in raw
    (tmp_path / "old.db").write_bytes(raw)
    with Home(tmp_path).open("old") as st:
        report = st.verify()
        assert report.ok, report.problems
        assert st.status().step == 2 and st.game().schema_version == "pbem-store 2"
        body = st.report("Caesar").body or ""
        assert "PRACTICE" not in body and "Report id" not in body and "Dice and deals" not in body
        assert {r.password_check for r in st.submissions()} == {"matched", "wrong", None}
    data = file_bytes(tmp_path, "old")
    assert b"legacy sesame" not in data and b"wrong guess zz" not in data
