"""What a user who gets something wrong sees: one clear message naming what is wrong
and what would be right, no traceback (without --debug), exit 1 for what the user can
fix and 2 for misuse, and nothing half-changed. Also: one damaged game file does not
stop the commands that work on every game, and nothing hidden reaches a side through
an error message."""

from __future__ import annotations

import json
import logging
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from pbem import queries
from pbem import store as store_mod
from pbem.cli import main
from pbem.envelope import MAX_SUBMISSION_BYTES
from pbem.games.caesar.rules.board import Side
from pbem.games.caesar.steps.session import Session
from pbem.store import GameSetup, Home, PlayerSetup, StoreError
from pbem.transport.message import extract_body_from_email
from store_helpers import make_game, signed


def run(*args: str, input: str | bytes | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=input, catch_exceptions=True)


def fails(code: int, *args: str, input: str | bytes | None = None) -> str:
    """Run a command that must fail with ``code`` and a message, not a traceback."""
    r = run(*args, input=input)
    assert r.exit_code == code, (r.output, r.exception)
    assert "Traceback" not in r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    return r.output


def ok(*args: str, input: str | bytes | None = None) -> str:
    r = run(*args, input=input)
    assert r.exit_code == 0, (r.output, r.exception)
    return r.stdout


@pytest.fixture
def keys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    ok("keygen", "ann")
    ok("keygen", "bob")
    return tmp_path


def new_args(*extra: str) -> list[str]:
    return ["--home", "home", "new", "g", "--caesar-key", "ann.pub", "--pompey-key", "bob.pub", "--seed", "7", *extra]


def no_game_files(home: Path) -> bool:
    return not home.exists() or not any(home.iterdir())


# ---- pbem new ------------------------------------------------------------------------------------------


def test_a_key_file_that_is_not_a_public_key_is_named_with_its_option(keys: Path) -> None:
    Path("junk.pub").write_bytes(bytes(range(256)))
    out = fails(1, *new_args()[:-6], "--caesar-key", "junk.pub", "--pompey-key", "bob.pub")
    assert out == ("Error: --caesar-key junk.pub: this file is not a public key (not text); give the one-line "
                   ".pub file from `pbem keygen`\n")
    Path("bad.pub").write_text("garbage\n")
    out = fails(1, *new_args()[:-6], "--caesar-key", "ann.pub", "--pompey-key", "bad.pub")
    assert out.startswith("Error: --pompey-key bad.pub: the public key is 'garbage'; it must be one line")
    out = fails(1, *new_args()[:-6], "--caesar-key", "ann.key", "--pompey-key", "bob.pub")
    assert out.startswith("Error: --caesar-key ann.key: this is a private key; register the public key")
    assert no_game_files(keys / "home")


def test_both_sides_with_the_same_key_or_password_are_refused(keys: Path) -> None:
    out = fails(1, *new_args()[:-6], "--caesar-key", "ann.pub", "--pompey-key", "ann.pub")
    assert "Caesar and Pompey were given the same public key; each player needs his own key pair" in out
    out = fails(1, "--home", "home", "new", "g", "--caesar-password", "open sesame", "--pompey-password",
                "open sesame")
    assert "Caesar and Pompey were given the same password; each player needs his own" in out
    assert no_game_files(keys / "home")


def test_email_addresses_are_checked_and_cannot_smuggle_headers(keys: Path) -> None:
    out = fails(1, *new_args("--caesar-email", "not an email"))
    assert out == ("Error: the email address for Caesar is 'not an email'; write one address like ann@example.org "
                   "or Ann <ann@example.org> (or leave it out)\n")
    out = fails(1, *new_args("--pompey-email", "bob@example.org\nBcc: all@example.org"))
    assert "the email address for Pompey is 'bob@example.org\\nBcc: all@example.org'" in out
    fails(1, *new_args("--moderator-email", "mod@@example.org"))
    assert no_game_files(keys / "home")
    ok(*new_args("--caesar-email", "Ann <ann@example.org>", "--moderator-email", "mod@localhost"))


def test_an_address_is_one_plain_address_never_a_group_or_a_list(keys: Path) -> None:
    out = fails(1, *new_args("--pompey-email", "Bob: spy@evil.org <bob@good.org>"))
    assert "a group of addresses" in out and "mail would go to spy@evil.org" in out
    out = fails(1, *new_args("--caesar-email", "Ann <a@x.org>, spy@evil.org"))
    assert "2 addresses (a@x.org, spy@evil.org)" in out
    assert no_game_files(keys / "home")


def test_a_seed_out_of_range_is_misuse_and_leaves_no_file(keys: Path) -> None:
    out = fails(2, *new_args("--seed", str(2**64)))
    assert "Invalid value for '--seed'" in out
    # a scenario (or a library caller) can bring any seed: refused before any file is made
    home = Home(keys / "lib")
    players = tuple(PlayerSetup(s, public_key=Path(f"{n}.pub").read_text().strip())
                    for s, n in ((Side.CAESAR, "ann"), (Side.POMPEY, "bob")))
    with pytest.raises(StoreError, match="the seed .* is out of range; use a whole number from 0 to"):
        home.create(GameSetup("g", players, seed=2**70))
    assert no_game_files(keys / "lib")


def test_a_failed_creation_leaves_no_temporary_file(keys: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*_a: Any, **_k: Any) -> None:
        raise RuntimeError("power cut")

    monkeypatch.setattr(store_mod.Store, "_record_resolution", boom)
    r = run(*new_args())
    assert r.exit_code == 3 and "RuntimeError: power cut" in r.stderr  # a bug, reported as one
    assert no_game_files(keys / "home")  # neither g.db nor .g.db.<pid>.tmp


# ---- times, sides, reports -------------------------------------------------------------------------------


def test_an_empty_time_is_an_error_not_now(keys: Path) -> None:
    ok(*new_args())
    for cmd in ("tick", "status"):
        out = fails(1, "--home", "home", cmd, "--now", "")
        assert out == "Error: '' is not a time; write it like 2025-03-01T18:30:00Z\n"


def test_side_names_are_case_insensitive_on_the_command_line(keys: Path) -> None:
    ok(*new_args())
    assert ok("--home", "home", "report", "--game", "g", "--side", "pompey") == \
        ok("--home", "home", "report", "--game", "g", "--side", "Pompey")
    assert ok("--home", "home", "log", "--game", "g", "--side", "CAESAR").startswith("#1 step 0 [all] year:")
    signed_json = ok("sign", "--game", "g", "--side", "caesar", "--step", "1", "--key", "ann.key",
                     input="discard 2/1\n")
    assert json.loads(signed_json)["side"] == "Caesar"


def test_a_missing_report_step_says_which_steps_have_reports(keys: Path) -> None:
    ok(*new_args())
    out = fails(1, "--home", "home", "report", "--game", "g", "--side", "Caesar", "--step", "9")
    assert out == "Error: game g has no text report for Caesar for step 9; there are reports for step 1\n"


# ---- sign and submit -------------------------------------------------------------------------------------


def test_orders_that_are_not_utf8_are_named(keys: Path) -> None:
    Path("orders.txt").write_bytes(b"discard 2/1\nplay \xe9\n")
    out = fails(1, "sign", "--game", "g", "--side", "Caesar", "--step", "1", "--key", "ann.key",
                "--orders", "orders.txt")
    assert out == ("Error: --orders orders.txt: the orders are not UTF-8 text (byte 0xe9 at offset 17); "
                   "save them as UTF-8 text\n")
    out = fails(1, "sign", "--game", "g", "--side", "Caesar", "--step", "1", "--key", "ann.key",
                input=b"\xff\xfe")
    assert out.startswith("Error: --orders -: the orders are not UTF-8 text (byte 0xff at offset 0)")


def test_an_oversized_submission_is_refused_without_storing_it(keys: Path) -> None:
    ok(*new_args())
    huge = b"x" * (MAX_SUBMISSION_BYTES + 10)
    out = fails(1, "--home", "home", "submit", "--game", "g", "-", input=huge)
    assert out.startswith(f"Error: standard input is larger than {MAX_SUBMISSION_BYTES} bytes, the limit for a "
                          "submission; nothing was stored")
    with Home(keys / "home").open("g") as st:
        assert st.submissions() == []


def test_sign_refuses_orders_that_submit_would_refuse_as_too_large(keys: Path) -> None:
    lines = "move Genua -> Roma: Legio 8\n" * 40000
    out = fails(1, "sign", "--game", "g", "--side", "Caesar", "--step", "1", "--key", "ann.key", "--out", "o.json",
                input=lines)
    assert out.startswith("Error: the signed orders would be ")
    assert out.endswith(f"bytes, over the limit of {MAX_SUBMISSION_BYTES} for a submission; send fewer or shorter "
                        "order lines\n")
    assert not Path("o.json").exists()


def test_the_html_part_is_read_when_the_plain_part_lost_the_block(keys: Path) -> None:
    ok(*new_args())
    armor = ok("sign", "--game", "g", "--side", "Caesar", "--step", "1", "--key", "ann.key", "--armor",
               input="discard 2/1\nplay 3/2\n")
    html = "<html><body><p>My orders:</p><p>" + armor.replace("\n", "<br>\n") + "</p></body></html>"
    mail = ("From: ann@example.org\nSubject: orders\nMIME-Version: 1.0\n"
            'Content-Type: multipart/alternative; boundary="b"\n\n'
            "--b\nContent-Type: text/plain; charset=utf-8\n\nThis message is in HTML.\n"
            f"--b\nContent-Type: text/html; charset=utf-8\n\n{html}\n--b--\n")
    assert "-----BEGIN PBEM ORDERS-----" in extract_body_from_email(mail.encode())
    assert ok("--home", "home", "submit", "-", input=mail).startswith("accepted: submission #1")
    # a plain part that holds the block still wins over the HTML part
    plain_first = mail.replace("This message is in HTML.", armor)
    assert extract_body_from_email(plain_first.encode()).startswith(armor)


# ---- damaged, read-only and misnamed game files -------------------------------------------------------------


def damaged_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    make_game(home, "good")
    (home / "junk.db").write_bytes(b"\x00\x01 not a database " * 300)
    (home / "empty.db").write_bytes(b"")
    sqlite3.connect(home / "other.db").execute("CREATE TABLE t (x)").connection.commit()
    return home


@pytest.mark.parametrize("name,what", [
    ("junk", "file is not a database"),
    ("empty", "no such table: game"),
    ("other", "no such table: game"),
])
def test_a_damaged_game_file_gets_a_message_naming_it(tmp_path: Path, name: str, what: str) -> None:
    home = damaged_home(tmp_path)
    for args in (["status", "--game", name], ["log", "--game", name], ["verify", "--game", name],
                 ["report", "--game", name, "--side", "Caesar"]):
        out = fails(1, "--home", str(home), *args)
        assert out == (f"Error: {home / name}.db is not a readable pbem game file ({what}); restore it from a "
                       "backup, or move it out of the game folder\n"), args


def test_commands_over_every_game_skip_a_damaged_file_and_exit_1(tmp_path: Path) -> None:
    home = damaged_home(tmp_path)
    for cmd, good in (("games", "good  step 1, 705, turn 1"), ("status", "good: step 1, Year 705 starts"),
                      ("verify", "good: OK: 1 steps"), ("tick", "good: nothing to do")):
        r = run("--home", str(home), cmd)
        assert r.exit_code == 1, (cmd, r.output)
        assert good in r.stdout, cmd
        assert r.stderr.count("Error: game ") == 3, (cmd, r.stderr)
        assert f"Error: game junk skipped: {home / 'junk.db'} is not a readable pbem game file" in r.stderr
    r = run("--home", str(home), "--debug", "status")
    assert r.exception is not None and type(r.exception).__name__ == "StoreError"


def test_tick_applies_deadlines_in_the_good_games_despite_a_damaged_one(tmp_path: Path) -> None:
    home = damaged_home(tmp_path)
    make_game(home, "timed", deadline=store_mod.parse_duration("1h"))
    r = run("--home", str(home), "tick", "--now", "2100-01-01T00:00:00Z")
    assert r.exit_code == 1
    assert "timed: step 1 resolved at its deadline" in r.stdout


def test_a_copied_or_renamed_game_file_is_named_and_not_used(tmp_path: Path) -> None:
    home = tmp_path / "home"
    make_game(home, "g1")
    shutil.copy(home / "g1.db", home / "g1-backup.db")
    out = fails(1, "--home", str(home), "status", "--game", "g1-backup")
    assert out == (f"Error: {home / 'g1-backup.db'} holds game 'g1', not 'g1-backup'; a game file must be named "
                   "after its game: rename it to g1.db, or move a copy out of the game folder\n")


def test_a_read_only_game_file_says_so_and_stores_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    keys = make_game(home, "g")
    before = (home / "g.db").read_bytes()
    prepare = queries.prepare_connection

    def read_only(conn: Any) -> None:  # like a file the user may not write (root ignores modes): every
        prepare(conn)  # connection pbem opens to a game file, the store's and the sealed path's
        conn.execute("PRAGMA query_only = ON")

    monkeypatch.setattr(queries, "prepare_connection", read_only)
    out = fails(1, "--home", str(home), "submit", "-", input=signed(keys, Side.CAESAR, 1, "discard 2/1\nplay 3/2"))
    assert out == (f"Error: cannot write {home / 'g.db'}: attempt to write a readonly database; check the "
                   "permissions of the file and its folder\n")
    assert (home / "g.db").read_bytes() == before


def corrupt(db: Path, sql: str) -> None:
    con = sqlite3.connect(db)
    con.execute(sql)
    con.commit()
    con.close()


def test_damaged_rows_give_messages_and_verify_names_them(tmp_path: Path) -> None:
    home = tmp_path / "home"
    keys = make_game(home, "g")
    h = Home(home)
    with h.open("g") as st:
        st.receive(signed(keys, Side.CAESAR, 1, "discard Jupiter"))  # rejected: errors stored as JSON
        st.receive(signed(keys, Side.CAESAR, 1, "discard 2/1\nplay 3/2"))
        st.receive(signed(keys, Side.POMPEY, 1, "discard 2/2\nplay 3/2"))
    db = home / "g.db"
    pristine = db.read_bytes()

    corrupt(db, "UPDATE submission SET errors = '[' WHERE id = 1")
    out = fails(1, "--home", str(home), "verify", "--game", "g")
    assert "submission #1 (Caesar, for step 1) is stored as rejected" in out

    db.write_bytes(pristine)
    corrupt(db, "UPDATE event SET data = '{' WHERE seq = 2")
    out = fails(1, "--home", str(home), "log", "--game", "g")
    assert out.startswith("Error: event #2 in the game file is damaged (JSONDecodeError: ")
    assert "`pbem verify` shows what differs; restore the file from a backup" in out
    out = fails(1, "--home", str(home), "verify", "--game", "g")
    assert "step 0: event #2 has damaged data" in out

    db.write_bytes(pristine)
    corrupt(db, "UPDATE snapshot SET session = '{' WHERE step = 2")
    out = fails(1, "--home", str(home), "status", "--game", "g")
    assert out.startswith(f"Error: {db}: the stored state of step 2 is damaged (JSONDecodeError: ")
    out = fails(1, "--home", str(home), "verify", "--game", "g")
    assert "step 2: the snapshot's hash does not match its content" in out

    db.write_bytes(pristine)
    corrupt(db, "UPDATE game SET options = '{'")
    out = fails(1, "--home", str(home), "verify", "--game", "g")
    assert "the game file is damaged: the replay stopped at JSONDecodeError" in out

    db.write_bytes(pristine)
    corrupt(db, "UPDATE outbox SET body = NULL, step = 99 WHERE id = 1")
    out = fails(1, "--home", str(home), "status", "--game", "g")
    assert out.startswith(f"Error: {db} is damaged: report #1 is for step 99, which has no snapshot")


# ---- hidden information in replies ------------------------------------------------------------------------


def test_an_adjudicator_failure_tells_the_side_only_its_kind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            caplog: pytest.LogCaptureFixture) -> None:
    home = tmp_path / "home"
    keys = make_game(home, "g")
    secret = "Pompey:Legio 1 (IV) waits at Roma; Pompey's sealed play is Jupiter"

    def broken(self: Session, side: Side, text: str, entropy: str = "", checked: Any = None) -> Any:
        raise KeyError(secret)

    monkeypatch.setattr(Session, "submit", broken)
    with caplog.at_level(logging.ERROR, logger="pbem"):
        r = run("--home", str(home), "submit", "--json", "-",
                input=signed(keys, Side.CAESAR, 1, "discard 2/1\nplay 3/2"))
    receipt = json.loads(r.stdout)
    assert receipt["verdict"] == "rejected"
    assert receipt["reason"] == ("the adjudicator failed on these orders and changed nothing (a bug in pbem, not in "
                                 "your orders; the moderator has the details): KeyError")
    assert secret not in r.stdout
    assert secret in caplog.text  # the moderator's traceback
    with Home(home).open("g") as st:
        assert all(secret not in (row.reason or "") for row in st.submissions())


def test_a_rejected_revision_says_the_earlier_orders_still_stand(tmp_path: Path) -> None:
    home = tmp_path / "home"
    keys = make_game(home, "g")
    first = ok("--home", str(home), "submit", "-", input=signed(keys, Side.CAESAR, 1, "discard 2/1\nplay 3/2"))
    assert first.startswith("accepted: submission #1")
    r = run("--home", str(home), "submit", "--json", "-", input=signed(keys, Side.CAESAR, 1, "discard Jupiter"))
    assert r.exit_code == 1 and json.loads(r.stdout)["stands"] == 1
    out = fails(1, "--home", str(home), "submit", "-", input=signed(keys, Side.CAESAR, 1, "discard Mars"))
    assert out.endswith("your submission #1 for step 1 still stands; send corrected orders to replace it\n")
    # a submission that fails authentication learns nothing about the side's sealed orders
    forged = signed({Side.CAESAR: keys[Side.POMPEY]}, Side.CAESAR, 1, "discard Mars")
    out = fails(1, "--home", str(home), "submit", "-", input=forged)
    assert "still stands" not in out
    assert ok("--home", str(home), "status") == ("g: step 1, Year 705 starts: discard 1 card and play 1 card\n"
                                                 "  waits for Pompey (Caesar: orders in)\n")


def test_huge_deadlines_and_far_times_are_refused_with_a_message(keys: Path) -> None:
    for text in ("100000000d", "99999999999999999999d", "367d"):
        out = fails(1, *new_args("--deadline", text))
        assert out == f"Error: the deadline {text!r} is too long; a step may last at most 366d\n"
    assert no_game_files(keys / "home")
    ok(*new_args("--deadline", "72h"))
    before = (keys / "home" / "g.db").read_bytes()
    for when in ("9999-12-31T00:00:00Z", "0001-01-01T00:00:00+01:00"):
        for cmd in ("tick", "status"):
            out = fails(1, "--home", "home", cmd, "--now", when)
            assert out == (f"Error: {when!r} is out of range; give a time from the year 1970 to 9000, like "
                           "2025-03-01T18:30:00Z\n")
    assert (keys / "home" / "g.db").read_bytes() == before
    assert ok("--home", "home", "tick", "--now", "2100-01-01T00:00:00Z").startswith("g: step 1 resolved")


def test_keygen_with_a_key_file_name_writes_that_pair(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert ok("keygen", "ann.key").startswith("wrote ann.key (private: keep it secret) and ann.pub (public: ")
    assert ok("keygen", "bob.pub").startswith("wrote bob.key (private: keep it secret) and bob.pub (public: ")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ann.key", "ann.pub", "bob.key", "bob.pub"]
    assert fails(1, "keygen", "ann.pub").startswith("Error: ann.key already exists; refusing to overwrite")


def test_sign_armor_warns_about_lines_an_email_program_may_wrap(keys: Path) -> None:
    long_move = "move Genua -> Roma: Legio 8, Legio 12, Antonius, Legio 13, Legio 14, Legio 16, Legio 7"
    r = run("sign", "--game", "g", "--side", "Caesar", "--step", "1", "--key", "ann.key", "--armor",
            input=f"{long_move}\nlevy Legio 17\n")
    assert r.exit_code == 0 and "-----BEGIN PBEM ORDERS-----" in r.stdout
    assert r.stderr == ("warning: order line 1 is longer than 76 characters; some email programs wrap long lines, "
                        "which breaks the signature: use short names (L8, Eq1) or send the JSON file (pbem sign "
                        "without --armor) as an attachment\n")
    r = run("sign", "--game", "g", "--side", "Caesar", "--step", "1", "--key", "ann.key", input=long_move)
    assert r.exit_code == 0 and r.stderr == ""  # a JSON file is not wrapped


def test_a_game_created_meanwhile_by_another_process_is_never_overwritten(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    home = Home(tmp_path)
    players = tuple(PlayerSetup(s, password_hash=f"scrypt$placeholder{s.value}") for s in Side)
    target = home.file("g")
    record = store_mod.Store._record_resolution

    def other_process_wins(self: Any, *a: Any, **k: Any) -> None:
        record(self, *a, **k)
        if self.path != target and not target.exists():
            target.write_bytes(b"the other process's game")  # created after our check, before our rename

    monkeypatch.setattr(store_mod.Store, "_record_resolution", other_process_wins)
    exists = Path.exists
    monkeypatch.setattr(Path, "exists", lambda p: False if p == target else exists(p))  # our check came too early
    with pytest.raises(StoreError, match="was created meanwhile by someone else; choose another id"):
        home.create(GameSetup("g", players, seed=1))
    assert target.read_bytes() == b"the other process's game"
    assert [p.name for p in tmp_path.iterdir()] == ["g.db"]  # no temporary file left


def test_a_database_error_no_one_named_is_the_files_not_a_bug(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``sqlite3`` error that reaches the command line unnamed (the pipeline runs on ``sqlite3`` itself) is
    told as a problem of the game file, never as a bug in pbem."""
    make_game(tmp_path)

    def damaged(*_args: Any, **_kw: Any) -> Any:
        raise sqlite3.DatabaseError("database disk image is malformed")

    monkeypatch.setattr(store_mod.Store, "status", damaged)
    out = fails(1, "--home", str(tmp_path), "status", "--game", "g")
    assert out == ("Error: the game file cannot be used: database disk image is malformed; check the file's "
                   "permissions, or restore it from a backup if it is damaged\n"), out
