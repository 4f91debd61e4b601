"""Kill `pbem` commands with SIGKILL at random moments and check that the rerun does the work
exactly once (shared by tests/test_crash.py and benchmarks/crash_bench.py).

A fork server (one Python process that imported pbem once) forks a child per command,
so a kill costs milliseconds, not an interpreter start; the parent kills the child with
SIGKILL after a given delay (polling every half millisecond), like a power cut for the
process: no cleanup, no atexit, no flush.

Each scenario prepares a template home, runs its command once uninterrupted for the
reference state and duration, then per trial: a fresh copy of the template, the command
killed after a seeded random delay in [0, 1.05 x duration], the same command again
uninterrupted, and the checks.
"""

from __future__ import annotations

import json
import mailbox
import os
import random
import re
import shutil
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from pbem.envelope import generate_keypair, new_envelope, sign_envelope
from pbem.games.caesar.rules.board import Side
from pbem.store import GameSetup, Home, PlayerSetup, parse_duration, parse_time
from store_helpers import cli_env, make_game, signed

C, P = Side.CAESAR, Side.POMPEY

SERVER = r"""
import json, os, select, signal, sys, time
import pbem.cli, pbem.transport.inbox, pbem.transport.outbox, pbem.store  # imported once; every child starts warm
from pbem.cli import main
marks = int(sys.argv[1])  # a pipe: one byte each time the mail server saw a MAIL FROM
os.set_blocking(marks, False)
base = os.getpriority(os.PRIO_PROCESS, 0)
try:  # the killer first: on a busy machine a kill that waits for a core comes late (where allowed)
    os.setpriority(os.PRIO_PROCESS, 0, base - 10)
except OSError:
    pass
for line in sys.stdin:
    req = json.loads(line)
    try:
        while os.read(marks, 4096):  # what earlier runs left
            pass
    except BlockingIOError:
        pass
    wait_marks = req.get("after_marks", 0)
    out = os.open(req["out"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        os.setpriority(os.PRIO_PROCESS, 0, base)  # the command itself runs as everything else
        os.dup2(out, 1)
        os.dup2(out, 2)
        code = 0
        try:
            main.main(args=req["args"], prog_name="pbem")
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except BaseException:
            code = 70
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    os.close(out)
    delay = req.get("kill_after")
    if delay is None:
        _, status = os.waitpid(pid, 0)
    else:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if wait_marks > 0:  # the delay counts from the wait_marks-th mark
                if select.select([marks], [], [], 0.0005)[0]:
                    wait_marks -= len(os.read(marks, wait_marks))
                    t0 = time.perf_counter()
                continue
            left = t0 + delay - time.perf_counter()
            if left <= 0:
                os.kill(pid, signal.SIGKILL)
                _, status = os.waitpid(pid, 0)
                break
            time.sleep(min(0.0005, left))
    killed = os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
    print(json.dumps({"killed": killed, "code": code, "elapsed": time.perf_counter() - t0}), flush=True)
"""


class ForkServer:
    """Runs pbem commands in forked children; ``mark()`` (one byte down a pipe) is what a kill
    ``after_marks`` counts: the kill comes ``kill_after`` seconds after the child's start, or after
    the ``after_marks``-th mark of this run."""

    def __init__(self) -> None:
        read, self.marks = os.pipe()
        self.proc = subprocess.Popen([sys.executable, "-c", SERVER, str(read)], env=cli_env(), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, pass_fds=(read,))
        os.close(read)

    def mark(self) -> None:
        os.write(self.marks, b"m")

    def run(self, args: list[str], out: Path, kill_after: float | None = None, after_marks: int = 0) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps({"args": args, "out": str(out), "kill_after": kill_after,
                                          "after_marks": after_marks}) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the fork server died")
        return dict(json.loads(line))

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=30)
        os.close(self.marks)


# ---- the state that must not depend on crashes -------------------------------------------------


def state(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Everything of a game file that must not depend on when or how often work ran."""
    con = sqlite3.connect(db)
    try:
        q = {
            "submission": "SELECT id, raw, side, step, digest, verdict, reason, errors, applied_step, orders, related "
                          "FROM submission ORDER BY id",
            "event": "SELECT seq, step, audience, kind, text, data, prev_hash, hash FROM event ORDER BY seq",
            "snapshot": "SELECT step, session, hash, last_event, cause, submission_id, deadline FROM snapshot "
                        "ORDER BY step",
            "outbox": "SELECT step, kind, recipient, format, submission_id, email, subject, body, since_event, "
                      "upto_event FROM outbox ORDER BY step, kind, recipient, format, submission_id",
            "message": "SELECT digest, message_id, submission_id FROM message ORDER BY digest",
        }
        return {name: con.execute(sql).fetchall() for name, sql in q.items()}
    finally:
        con.close()


def home_state(home: Path) -> dict[str, Any]:
    return {p.name: state(p) for p in sorted(home.glob("*.db"))}


# ---- scenarios ---------------------------------------------------------------------------------


@dataclass
class Tally:
    command: str
    trials: int = 0
    killed: int = 0  # the kill landed before the command ended
    during: int = 0  # send: the kill interrupted delivery (the rerun had to send something)
    duplicates: int = 0  # send: extra copies the server received
    refeeds: int = 0  # inbox/submit: submissions stored beyond the uninterrupted run
    resends: int = 0  # submit: the file submitted again after the killed run stored it (told: exact resend)
    problems: list[str] = field(default_factory=list)

    def line(self) -> str:
        text = f"{self.command}: {self.trials} trials, {self.killed} killed mid-run"
        if self.command.startswith("send"):
            rate = self.duplicates / self.during if self.during else 0.0
            text += (f", {self.during} during delivery, {self.duplicates} duplicate message(s) "
                     f"({rate:.1%} of the kills during delivery)")
        else:
            text += f", {self.refeeds} submission(s) stored twice"
            if self.command == "submit":
                text += f", {self.resends} rerun(s) told the file was an exact resend"
        return text + (f"; {len(self.problems)} problem(s)" if self.problems else "")


def _game_orders(home: Path, gid: str, side: Side) -> str:
    with Home(home).open(gid) as st:
        hand = sorted(c for c in st.adjudication().session.game.state.hands[side] if "/" in c)
    return f"discard {hand[0]}\nplay {hand[1]}\n"


def _mail(armor: str, n: int, sender: str) -> bytes:
    return (f"From: {sender}\nTo: pbem@club.example\nSubject: orders\nMessage-ID: <m{n}@example.org>\n"
            f"MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n\nMy orders:\n\n{armor}\n").encode()


class Scenario:
    command = ""

    def __init__(self, root: Path, server: ForkServer) -> None:
        self.root, self.server = root, server
        self.template = root / "template"
        self.setup()
        ref = self.copy("reference")
        run = self.server.run(self.args(ref), root / "reference.out")
        assert run["code"] == 0, (run, (root / "reference.out").read_text())
        self.duration = float(run["elapsed"])
        self.reference = home_state(ref)
        self.check_reference(ref)
        self.n = 0

    def setup(self) -> None:
        raise NotImplementedError

    def args(self, home: Path) -> list[str]:
        raise NotImplementedError

    def check_reference(self, home: Path) -> None:
        pass

    def copy(self, name: str) -> Path:
        target = self.root / name
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(self.template, target)
        return target

    def trial(self, rng: random.Random, tally: Tally) -> None:
        self.n += 1
        home = self.copy("trial")
        self.before_trial()
        delay, marks = self.kill_plan(rng)
        first = self.server.run(self.args(home), self.root / "killed.out", kill_after=delay, after_marks=marks)
        tally.trials += 1
        tally.killed += bool(first["killed"])
        self.between()
        again = self.server.run(self.args(home), self.root / "rerun.out")
        out = (self.root / "rerun.out").read_text()
        if again["code"] != 0:
            tally.problems.append(f"{self.command} trial {self.n}: the rerun failed ({again}): {out[-500:]}")
            return
        self.check(home, out, tally)

    def kill_plan(self, rng: random.Random) -> tuple[float, int]:
        """When to kill: (seconds, after how many marks of the run); here a moment drawn over the
        whole uninterrupted run."""
        return rng.uniform(0, 1.05 * self.duration), 0

    def before_trial(self) -> None:
        pass

    def between(self) -> None:
        pass

    def check(self, home: Path, out: str, tally: Tally) -> None:
        got = home_state(home)
        for db, ref in self.reference.items():
            mine = got.get(db)
            if mine is None:
                tally.problems.append(f"{self.command} trial {self.n}: {db} is missing")
                continue
            extra = len(mine["submission"]) - len(ref["submission"])
            tally.refeeds += max(extra, 0)
            if mine != ref:
                diff = [k for k in ref if mine[k] != ref[k]]
                tally.problems.append(f"{self.command} trial {self.n}: {db} differs from the uninterrupted run in "
                                      f"{diff}")


class SubmitScenario(Scenario):
    """`pbem submit` of the submission that resolves step 1 (six reports rendered)."""

    command = "submit"

    def setup(self) -> None:
        keys = make_game(self.template)
        self.pompey = self.root / "p.json"
        Home(self.template).receive(signed(keys, C, 1, _game_orders(self.template, "g", C)))
        self.pompey.write_bytes(signed(keys, P, 1, _game_orders(self.template, "g", P)))

    def args(self, home: Path) -> list[str]:
        return ["--home", str(home), "submit", str(self.pompey)]

    def check(self, home: Path, out: str, tally: Tally) -> None:
        # `pbem submit` of a file has no mailbox identity: a file submitted again after the killed run
        # had stored it is told it is an exact resend (a row of its own, verdict duplicate, no reply).
        got = state(home / "g.db")
        ref = self.reference["g.db"]
        resent = [r for r in got["submission"][len(ref["submission"]):]]
        if resent:
            if not (len(resent) == 1 and resent[0][5] == "duplicate" and resent[0][10] == ref["submission"][-1][0]
                    and "exact resend of submission #2" in out):
                tally.problems.append(f"submit trial {self.n}: after the rerun {resent!r}: {out}")
            got["submission"] = got["submission"][: len(ref["submission"])]
            tally.resends += 1
        if got != ref:
            tally.problems.append(f"submit trial {self.n}: the game differs in "
                                  f"{[k for k in ref if got[k] != ref[k]]}")


class InboxScenario(Scenario):
    """`pbem inbox` of seven messages for two games: two steps resolve, one message is junk, one
    forged, one resends orders in a new message; every delivered one queues a reply."""

    command = "inbox"

    def setup(self) -> None:
        keys = {}
        for n, gid in enumerate(("g", "h")):
            keys[gid] = {s: generate_keypair() for s in Side}
            players = tuple(PlayerSetup(s, f"{s.value.lower()}@{gid}.example", public_key=keys[gid][s].public_text)
                            for s in Side)
            Home(self.template).create(GameSetup(gid, players, seed=11 + n, moderator_email="mod@club.example")).close()

        def armor(gid: str, side: Side, orders: str, key: Side | None = None) -> str:
            env = new_envelope(gid, side.value, 1, orders, time="2025-03-01T12:00:00Z", nonce=f"{len(orders):032x}")
            return sign_envelope(env, keys[gid][key or side].private_pem).to_armor()

        g_c = armor("g", C, _game_orders(self.template, "g", C))
        msgs = [
            _mail(g_c, 1, "ann@g.example"),
            _mail(armor("h", C, _game_orders(self.template, "h", C)), 2, "cat@h.example"),
            b"From: spam@spam.example\nSubject: hello\nMessage-ID: <m3@spam.example>\n\nno orders here\n",
            _mail(armor("g", P, _game_orders(self.template, "g", P)), 4, "bob@g.example"),
            _mail(armor("h", P, _game_orders(self.template, "h", P), key=C), 5, "dan@h.example"),  # forged
            _mail(armor("h", P, _game_orders(self.template, "h", P)), 6, "dan@h.example"),
            _mail(g_c, 7, "ann@g.example"),  # the same orders in a new message: a duplicate
        ]
        self.mbox = self.root / "in.mbox"
        box = mailbox.mbox(str(self.mbox))
        for raw in msgs:
            box.add(raw)
        box.close()

    def args(self, home: Path) -> list[str]:
        return ["--home", str(home), "inbox", "--mbox", str(self.mbox)]

    def check_reference(self, home: Path) -> None:
        verdicts = {db: [r[5] for r in s["submission"]] for db, s in self.reference.items()}
        assert verdicts == {"g.db": ["accepted", "accepted", "duplicate"], "h.db": ["accepted", "rejected", "accepted"]}
        for s in self.reference.values():
            assert [r[4] for r in s["outbox"] if r[1] == "reply"] == [1, 2, 3]  # one reply per submission

    def check(self, home: Path, out: str, tally: Tally) -> None:
        super().check(home, out, tally)
        if "error" in out:
            tally.problems.append(f"inbox trial {self.n}: {out}")


class TickScenario(Scenario):
    """`pbem tick` past the deadline of three games: each step resolves with defaults."""

    command = "tick"

    def setup(self) -> None:
        start = parse_time("2025-03-01T12:00:00Z")
        for n, gid in enumerate(("a", "b", "c")):
            keys = make_game(self.template, game_id=gid, seed=20 + n, deadline=parse_duration("72h"),
                             clock=lambda: start)
            if gid == "b":
                env = new_envelope("b", "Caesar", 1, _game_orders(self.template, "b", C), nonce="0" * 32)
                Home(self.template).receive(sign_envelope(env, keys[C].private_pem).to_json().encode())
        self.now = (start + timedelta(hours=73)).strftime("%Y-%m-%dT%H:%M:%SZ")

    def args(self, home: Path) -> list[str]:
        return ["--home", str(home), "tick", "--now", self.now]


class SendScenario(Scenario):
    """`pbem send` of the inbox scenario's outbox (reports of two steps, replies) to a local
    aiosmtpd; the rerun sends what is left; the server counts every copy it accepted.

    A kill lands *during delivery* when it falls inside one message's SMTP transaction: from its
    MAIL FROM to its committed "sent" mark. The server tells which kills did, per run: the killed
    run began a transaction it did not complete (more MAIL FROM than accepted messages), or the last
    message it had accepted comes again in the rerun (a duplicate: the kill fell between the
    server's acceptance and the mark). A kill before the first MAIL FROM, or between one message's
    mark and the next MAIL FROM (building the next message), is not during delivery.

    ``chunking``: the server offers CHUNKING (RFC 3030 BDAT, as Postfix, Exim, Gmail and Exchange
    do); otherwise only DATA (plain aiosmtpd)."""

    command = "send"

    def __init__(self, root: Path, server: ForkServer, template: Path, *, chunking: bool = False,
                 games: tuple[str, ...] = ()) -> None:
        self.source = template
        self.games = games
        self.chunking = chunking
        self.command = "send+chunking" if chunking else "send"
        # ("mail", "", time) and ("accepted", Message-ID, time), in order
        self.events: list[tuple[str, str, float]] = []
        self.smtp = LocalSmtp(self.events, server.mark, chunking=chunking)
        self.port = self.smtp.port
        self.held: dict[str, int] = {}
        self.first: list[tuple[str, str, float]] = []
        super().__init__(root, server)
        self.expected = sorted(self.received())
        assert len(self.expected) == len(set(self.expected)) > 3
        # the server's time from each MAIL FROM to its acceptance in the uninterrupted run
        times = [t for what, _, t in self.events]
        self.spans = [b - a for a, b in zip(times[::2], times[1::2], strict=True)]
        self.reach = 2 * max(self.spans) + 0.010

    def received(self, events: list[tuple[str, str, float]] | None = None) -> list[str]:
        return [mid for what, mid, _ in (self.events if events is None else events) if what == "accepted"]

    def kill_plan(self, rng: random.Random) -> tuple[float, int]:
        """A moment drawn uniformly over the time mail is being delivered: one of the messages
        (each as likely), then up to ``reach`` after the server saw its MAIL FROM: twice the
        longest MAIL-FROM-to-acceptance of the uninterrupted run, plus 10 ms for the commit of the
        mark (the kills past a message's mark land while the next one is built: not during
        delivery). Drawing over the whole run instead would put nearly every kill into rendering
        the maps."""
        return rng.uniform(0, self.reach), rng.randint(1, len(self.spans))

    def setup(self) -> None:
        shutil.copytree(self.source, self.template)
        for db in self.template.glob("*.db"):
            if self.games and db.stem not in self.games:
                for path in (db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")):
                    path.unlink(missing_ok=True)

    def check_reference(self, home: Path) -> None:
        # the rows an uninterrupted send leaves unsent: reports held for a later mail (folding)
        self.held = {db.name: _unsent(db) for db in home.glob("*.db")}

    def args(self, home: Path) -> list[str]:
        return ["--home", str(home), "send", "--smtp", f"127.0.0.1:{self.port}", "--from", "pbem@club.example"]

    def before_trial(self) -> None:
        self.events.clear()

    def between(self) -> None:
        # The killed client's last bytes may still be in the server's socket buffers: let the server
        # finish with its connection (accept what it got whole, drop the rest) before the rerun.
        self.smtp.settle()
        self.first = list(self.events)

    def check(self, home: Path, out: str, tally: Tally) -> None:
        received = self.received()
        first = self.received(self.first)
        extra = len(received) - len(set(received))
        tally.duplicates += extra
        began = sum(what == "mail" for what, _, _ in self.first)
        if began > len(first) or extra:
            tally.during += 1
        if sorted(set(received)) != self.expected:
            tally.problems.append(f"send trial {self.n}: delivered {len(set(received))} of "
                                  f"{len(self.expected)} messages")
        if extra and not (extra == 1 and first and received.count(first[-1]) == 2):
            tally.problems.append(f"send trial {self.n}: duplicates other than the message in flight: {received}")
        for db in home.glob("*.db"):
            unsent = _unsent(db)
            if unsent != self.held.get(db.name, 0):  # held: reports folded into a later mail (pbem mailing)
                tally.problems.append(f"send trial {self.n}: {db.name} has {unsent} unsent rows after the rerun; "
                                      f"an uninterrupted run leaves {self.held.get(db.name, 0)}")

    def close(self) -> None:
        self.smtp.close()


class LocalSmtp:
    """A local aiosmtpd server (in a thread) that logs each MAIL FROM (and calls ``on_mail``) and
    each accepted message's Message-ID in ``events``, and counts its open connections. With ``chunking`` it also offers
    CHUNKING: BDAT (RFC 3030) as a real server implements it, each chunk read whole and answered,
    the message accepted (handed to the same DATA handler) at the last chunk."""

    def __init__(self, events: list[tuple[str, str, float]], on_mail: Callable[[], None], *, chunking: bool,
                 keep: bool = False) -> None:
        from aiosmtpd.controller import Controller
        from aiosmtpd.smtp import SMTP

        self.open = 0
        self.bdat = 0  # BDAT commands seen
        self.kept: list[bytes] = []  # with ``keep``: every accepted message
        self.answer = "250 Message accepted for delivery"  # the answer at the end of a message
        outer = self

        class Handler:
            async def handle_EHLO(self, server: Any, session: Any, envelope: Any, hostname: str,
                                  responses: list[str]) -> list[str]:
                session.host_name = hostname
                return responses[:-1] + ["250-CHUNKING"] + responses[-1:] if chunking else responses

            async def handle_MAIL(self, server: Any, session: Any, envelope: Any, address: str, options: Any) -> str:
                events.append(("mail", "", time.perf_counter()))
                on_mail()
                envelope.mail_from = address
                return "250 OK"

            async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
                # only the Message-ID: the server should answer as fast as a real one (RFC 1047)
                found = re.search(rb"^Message-ID: *(<[^>]*>)", envelope.content, re.M | re.I)
                if not outer.answer.startswith("250"):
                    return outer.answer
                events.append(("accepted", found.group(1).decode() if found else "-", time.perf_counter()))
                if keep:
                    outer.kept.append(bytes(envelope.content))
                return outer.answer

        class Server(SMTP):
            def connection_made(self, transport: Any) -> None:
                outer.open += 1
                super().connection_made(transport)

            def connection_lost(self, error: Exception | None) -> None:
                outer.open -= 1
                super().connection_lost(error)

            async def smtp_BDAT(self, arg: str | None) -> None:
                outer.bdat += 1
                size, _, last = (arg or "").partition(" ")
                if not chunking:
                    await self.push('500 Error: command "BDAT" not recognized')
                    return
                if not size.isdigit() or last.strip().upper() not in ("", "LAST"):
                    await self.push("501 Syntax: BDAT size [LAST]")
                    return
                chunk = await self._reader.readexactly(int(size))  # the octets follow the command line
                assert self.envelope is not None
                if not self.envelope.rcpt_tos:
                    await self.push("503 Error: need RCPT command")
                    return
                chunks: list[bytes] = self.envelope.__dict__.setdefault("chunks", [])
                chunks.append(chunk)
                if not last:
                    await self.push(f"250 {len(chunk)} octets received")
                    return
                self.envelope.content = self.envelope.original_content = b"".join(chunks)
                status = await self._call_handler_hook("DATA")
                self._set_post_data_state()
                await self.push(status)

        class Control(Controller):
            def factory(self) -> SMTP:
                return Server(self.handler, **self.SMTP_kwargs)

        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind(("127.0.0.1", 0))
            self.port = int(s.getsockname()[1])
        self.controller = Control(Handler(), hostname="127.0.0.1", port=self.port)
        self.controller.start()

    def settle(self) -> None:
        """Wait until no client is connected (and none for a moment: a dead client's connection
        may still wait in the listen queue)."""
        quiet = 0
        while quiet < 20:
            time.sleep(0.002)
            quiet = quiet + 1 if self.open == 0 else 0

    def close(self) -> None:
        self.controller.stop()


#: The commands run_all knows: ``send`` is `pbem send` to a server with DATA only (plain aiosmtpd),
#: ``send+chunking`` to one that also offers CHUNKING (BDAT).
COMMANDS = ("submit", "inbox", "tick", "send", "send+chunking")


def run_all(root: Path, kills: dict[str, int], seed: int, echo: Callable[[str], None] = lambda _: None,
            send_games: tuple[str, ...] = ()) -> list[Tally]:
    """Every scenario with ``kills[command]`` trials (see COMMANDS); returns one tally per command.
    ``send_games``: send only these games' mail (default both of the inbox scenario: 11 messages)."""
    rng = random.Random(seed)
    server = ForkServer()
    tallies = []
    sends: list[SendScenario] = []
    try:
        for command in COMMANDS:
            if not kills.get(command) and not (command == "inbox" and any(c.startswith("send") for c in kills)):
                continue
            folder = root / command
            folder.mkdir()
            scenario: Scenario
            if command.startswith("send"):
                scenario = SendScenario(folder, server, root / "inbox" / "reference", chunking="chunking" in command,
                                        games=send_games)
                sends.append(scenario)
            else:
                scenario = {"submit": SubmitScenario, "inbox": InboxScenario, "tick": TickScenario}[command](folder,
                                                                                                            server)
            if kills.get(command):
                tally = Tally(command)
                for _ in range(kills[command]):
                    scenario.trial(rng, tally)
                echo(tally.line())
                tallies.append(tally)
    finally:
        for send in sends:
            send.close()
        server.close()
    return tallies


def _unsent(db: Path) -> int:
    con = sqlite3.connect(db)
    try:
        return int(con.execute("SELECT COUNT(*) FROM outbox WHERE sent IS NULL AND email != ''").fetchone()[0])
    finally:
        con.close()
