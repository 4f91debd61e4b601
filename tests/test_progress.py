"""A progress bar for `pbem run` and `pbem inbox`, on standard error when it is a terminal only: piped
or under cron their output stays exactly what it was (one summary line when there is nothing to do)."""

from __future__ import annotations

import io
import mailbox
from pathlib import Path

import pytest
from click.testing import CliRunner

import toygame
from pbem.cli import main
from pbem.cli.base import progress_bar
from pbem.club import run_once
from pbem.envelope import generate_keypair, new_envelope, sign_envelope
from pbem.games import register
from pbem.store import Home
from pbem.transport.inbox import read_inbox
from pbem.transport.outbox import DryRunTransport

register(toygame.SYSTEM)


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _club(tmp_path: Path, games: int = 3) -> tuple[Path, Path]:
    """A home with ``games`` toy games and a Maildir holding one signed bid for each."""
    home = tmp_path / "home"
    mail = tmp_path / "mail"
    box = mailbox.Maildir(mail)
    run = CliRunner()
    for i in range(games):
        keys = {s: generate_keypair() for s in ("North", "South")}
        args = ["--home", str(home), "new", f"t{i}", "--system", "toy", "--seed", str(i)]
        for s, k in keys.items():
            (tmp_path / f"{s}{i}.pub").write_text(k.public_text)
            args += ["--player", f"{s}={s.lower()}{i}@example.org", "--key", f"{s}={tmp_path / f'{s}{i}.pub'}"]
        assert run.invoke(main, args).exit_code == 0
        armor = sign_envelope(new_envelope(f"t{i}", "North", 1, "bid 1"), keys["North"].private_pem).to_armor()
        box.add(f"From: n{i}@example.org\nSubject: bid\nMessage-ID: <m{i}@x>\n\n{armor}".encode())
    return home, mail


def test_the_library_tells_each_stage_up_to_its_end(tmp_path: Path) -> None:
    home, mail = _club(tmp_path)
    seen: list[tuple[str, int, int]] = []
    result = run_once(Home(home), fetch=lambda h: read_inbox(h, maildir=mail, progress=lambda *a: seen.append(a)),
                      transport=DryRunTransport(tmp_path / "out"), sender="club@example.org",
                      progress=lambda *a: seen.append(a))
    assert result.inbox is not None and result.inbox.counts()["accepted"] == 3
    stages = [s for s, _, _ in seen]
    assert list(dict.fromkeys(stages)) == ["reading mail", "feeding the games", "deadlines", "sending"]
    for stage in set(stages):
        mine = [(d, t) for s, d, t in seen if s == stage]
        assert mine[-1] == (3, 3) and [d for d, _ in mine] == sorted(d for d, _ in mine)


def test_no_bar_when_standard_error_is_not_a_terminal() -> None:
    with progress_bar(stream=io.StringIO()) as bar:
        assert bar is None
    with progress_bar(enabled=False, stream=FakeTerminal()) as bar:
        assert bar is None


def test_piped_output_stays_one_summary_line(tmp_path: Path) -> None:
    home, mail = _club(tmp_path, games=2)
    run = CliRunner()
    args = ["--home", str(home), "run", "--from", "club@example.org", "--dry-run", str(tmp_path / "out")]
    r = run.invoke(main, args)
    assert r.exit_code == 0 and len(r.output.splitlines()) == 1 and r.output.startswith("run ")
    r = run.invoke(main, ["--home", str(home), "inbox", "--maildir", str(mail)])
    assert r.exit_code == 0
    assert r.output.splitlines()[:-1] == ["t0: North, step 1: accepted (submission #1)",
                                          "t1: North, step 1: accepted (submission #1)"]  # one line per message
    r = run.invoke(main, ["--home", str(home), "inbox", "--maildir", str(mail)])
    assert r.exit_code == 0 and len(r.output.splitlines()) == 1  # nothing new: the summary alone


def test_on_a_terminal_run_and_inbox_draw_a_bar_on_standard_error(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    home, mail = _club(tmp_path)
    term = FakeTerminal()
    monkeypatch.setattr("pbem.cli.base.error_stream", lambda: term)
    r = CliRunner().invoke(main, ["--home", str(home), "run", "--maildir", str(mail), "--from", "club@example.org",
                                  "--dry-run", str(tmp_path / "out")])
    assert r.exit_code == 0, r.output
    drawn = term.getvalue()
    for stage in ("reading mail", "feeding the games", "deadlines", "sending"):
        assert stage in drawn
    assert "3/3" in drawn
    assert "reading mail" not in r.output and r.output.splitlines()[-1].startswith("run ")  # stdout as before
    term.seek(0)
    term.truncate()
    r = CliRunner().invoke(main, ["--home", str(home), "inbox", "--maildir", str(mail), "--retry"])
    assert r.exit_code == 0 and "reading mail" in term.getvalue()
