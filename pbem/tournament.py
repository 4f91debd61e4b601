"""Club tournaments: players, rounds, pairings, games and results, in one SQLite file per tournament.

A tournament lives in ``<home>/tournaments/<name>.db`` (SQLModel), beside the game folder's game
files but not among them (the game listing reads only ``<home>/*.db``). It holds:

* ``tournament``: the format (swiss or round-robin), the number of rounds, the game system, its
  options, the deadline per step of every game, the seed its games' seeds come from;
* ``entrant``: each player's name, email and credential (a public key, or an scrypt password hash);
* ``tournament_round`` and ``pairing``: per round its tables, each a game between two players (the
  first player takes the game's first side) or a bye, and the game's result once it is over;
* ``tournament_mail``: the mails to the players (pairings, standings), sent by ``pbem send``.

Games are ordinary games of the home (:meth:`pbem.store.Home.create`), named
``<tournament>-r<round>-<table>``; their reports go out through their own outbox as usual.

**Pairing** (:func:`swiss_pairing`): players in standings order; the best unpaired player meets
the best-placed player he has not met, searching back when the rest cannot be paired; a rematch
only when no pairing without one exists. With an odd count the lowest-placed player who had the
fewest byes gets the bye (a win). **Round-robin** (:func:`round_robin`): the circle method, everyone
meets everyone once. **Sides** (:func:`assign_sides`): the player who had the first side less
often (first minus second) takes it; on equal counts, the one who had the second side last time.

**Results** flow in by themselves: :meth:`Tournament.record_results` reads each running game's
summary and stores the result the first time the game is over. **Standings**
(:meth:`Tournament.standings`): points (win 1, draw 1/2, bye 1), then the tie-breaks, in order:
Buchholz (the sum of the opponents' points) and the victory-point margin (points scored minus
conceded, from each game's score).
"""

from __future__ import annotations

import html
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from functools import cache
from pathlib import Path
from typing import Any

from sqlmodel import Field, SQLModel, create_engine, select
from sqlmodel import Session as DbSession

from pbem.core.game import option_values
from pbem.credentials import key_fingerprint
from pbem.decide import format_duration, format_time
from pbem.errors import PbemError
from pbem.games import find_game
from pbem.join import JoinError, JoinRequest
from pbem.settings import TOURNAMENTS_FOLDER, default_deadline
from pbem.sqlfile import SqlFile, explicit_begin
from pbem.store import GameSetup, Home, PlayerSetup, StoreError, _check_email

__all__ = [
    "FORMATS",
    "Standing",
    "Tournament",
    "TournamentError",
    "assign_sides",
    "round_robin",
    "swiss_pairing",
    "tournament_names",
]

FOLDER = TOURNAMENTS_FOLDER
FORMATS = ("swiss", "round-robin", "knockout")
SCHEMA = "pbem-tournament 1"
_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,59}")
_PLAYER_RE = re.compile(r"[^\x00-\x1f\x7f]{1,60}")


class TournamentError(PbemError):
    """A tournament command that cannot be done as asked (the message says what would be right)."""


# ---- tables --------------------------------------------------------------------------------------


class TournamentRecord(SQLModel, table=True):
    __tablename__ = "tournament"

    name: str = Field(primary_key=True)
    schema_version: str = SCHEMA
    format: str
    rounds: int | None = None  # round-robin: set at the first pairing unless given
    system: str
    options: str = "{}"  # JSON, by the game's option names
    deadline_seconds: int | None = None
    away_cap_seconds: int | None = None  # how far an absence may move a deadline of its games (None: the home's)
    seed: int | None = None  # None: every game's dice are keyed by its own secret; a number: practice games
    moderator_email: str = ""
    created: str


class EntrantRecord(SQLModel, table=True):
    __tablename__ = "entrant"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True)
    email: str
    public_key: str | None = None
    password_hash: str | None = None
    fingerprint: str | None = None
    joined: str


class RoundRecord(SQLModel, table=True):
    __tablename__ = "tournament_round"

    number: int = Field(primary_key=True)
    paired: str
    completed: str | None = None  # when every game of the round was first seen over (standings mailed)


class PairingRecord(SQLModel, table=True):
    __tablename__ = "pairing"

    id: int | None = Field(default=None, primary_key=True)
    round: int = Field(index=True)
    table: int
    first: str  # the player with the game's first side
    second: str | None = None  # None: ``first`` has a bye
    game: str | None = None
    created: bool = False  # the game file exists and the pairing mails are queued
    over: bool = False
    winner: str | None = None  # a player; None with over: a draw
    result: str = ""
    score_first: int = 0
    score_second: int = 0
    recorded: str | None = None


class MailRecord(SQLModel, table=True):
    __tablename__ = "tournament_mail"

    id: int | None = Field(default=None, primary_key=True)
    round: int
    kind: str  # pairing | bye | standings | join
    recipient: str  # a player (a refused join: the name it asked for)
    subject: str
    body: str
    created: str
    sent: str | None = None
    address: str | None = None  # a join's answer: the address it came from (the player may not be registered)


class JoinMessageRecord(SQLModel, table=True):
    """Each join mail taken (by the SHA-256 of its bytes): fed again, it is neither taken nor answered twice."""

    __tablename__ = "join_message"

    digest: str = Field(primary_key=True)
    player: str
    joined: bool
    answer: str
    received: str


_TABLES = (TournamentRecord, EntrantRecord, RoundRecord, PairingRecord, MailRecord, JoinMessageRecord)


# ---- pairing (pure) --------------------------------------------------------------------------------


def swiss_pairing(order: Sequence[str], played: set[frozenset[str]],
                  byes: Mapping[str, int] | None = None) -> tuple[list[tuple[str, str]], str | None]:
    """The next Swiss round for ``order`` (standings order, best first): pairs (higher-placed first)
    and the player with the bye (None for an even count). No pair in ``played`` while a pairing
    without a rematch exists; every player in exactly one pair or the bye."""
    byes = byes or {}
    players = tuple(order)
    if len(set(players)) != len(players):
        raise ValueError("a player is named twice")

    def search(allow_rematch: bool, pool: tuple[str, ...]) -> list[tuple[str, str]] | None:
        @cache
        def match(rest: tuple[str, ...]) -> tuple[tuple[str, str], ...] | None:
            if not rest:
                return ()
            a = rest[0]
            for j in range(1, len(rest)):
                b = rest[j]
                if not allow_rematch and frozenset((a, b)) in played:
                    continue
                sub = match(rest[1:j] + rest[j + 1:])
                if sub is not None:
                    return ((a, b), *sub)
            return None

        found = match(pool)
        return list(found) if found is not None else None

    for allow_rematch in (False, True):
        if len(players) % 2 == 0:
            pairs = search(allow_rematch, players)
            if pairs is not None:
                return pairs, None
            continue
        # the bye: the lowest-placed of those with the fewest byes, then the next one up, ...
        candidates = sorted(reversed(players), key=lambda p: byes.get(p, 0))
        for c in candidates:
            pairs = search(allow_rematch, tuple(p for p in players if p != c))
            if pairs is not None:
                return pairs, c
    raise AssertionError("unreachable: with rematches allowed every pool pairs")


def round_robin(players: Sequence[str]) -> list[list[tuple[str, str | None]]]:
    """Every round of a round-robin by the circle method: each player meets each other once;
    with an odd count each round one player meets None (a bye)."""
    pool: list[str | None] = list(players)
    if len(pool) % 2:
        pool.append(None)
    n = len(pool)
    rounds = []
    fixed, rest = pool[0], pool[1:]
    for r in range(n - 1):
        rot = rest[r:] + rest[:r]
        arr = [fixed, *rot]
        pairs: list[tuple[str, str | None]] = []
        for i in range(n // 2):
            a, b = arr[i], arr[n - 1 - i]
            if a is None:
                a, b = b, a
            assert a is not None
            pairs.append((a, b))
        rounds.append(pairs)
    return rounds


def bracket_order(size: int) -> list[int]:
    """Seed numbers in bracket order for ``size`` (a power of two): neighbours meet in round 1 and
    seeds 1 and 2 only in the final (8: 1 8 4 5 2 7 3 6)."""
    order = [1]
    while len(order) < size:
        n = len(order) * 2
        order = [x for seed in order for x in (seed, n + 1 - seed)]
    return order


def knockout_rounds(n: int) -> int:
    """Rounds of a knockout of ``n`` players (2 or more)."""
    return max(1, (n - 1).bit_length())


def advancer(pr: PairingRecord, seeds: Sequence[str]) -> str:
    """Who goes through from a finished knockout table: the bye, the winner, or on a draw the
    higher seed (the player who joined first)."""
    if pr.second is None:
        return pr.first
    if pr.winner is not None:
        return pr.winner
    return min(pr.first, pr.second, key=seeds.index)


def knockout_pairs(seeds: Sequence[str], previous: Sequence[PairingRecord] | None) -> list[tuple[str, str | None]]:
    """A knockout round in bracket order. Round 1 (``previous`` None): seed 1 meets the lowest seed,
    and so on, the top seeds get the byes up to the next power of two. Later rounds: the players
    going through from tables 1 and 2 meet, then 3 and 4, ..."""
    if previous is None:
        size = 2 ** knockout_rounds(len(seeds))
        order = bracket_order(size)
        return [(seeds[a - 1], seeds[b - 1] if b <= len(seeds) else None) for a, b in zip(order[::2], order[1::2])]
    through = [advancer(p, seeds) for p in sorted(previous, key=lambda p: p.table)]
    return [(a, b) for a, b in zip(through[::2], through[1::2])]


def assign_sides(a: str, b: str, history: Mapping[str, Sequence[int]], table: int) -> tuple[str, str]:
    """Who takes the first side: ``history[p]`` lists p's sides so far (0 first, 1 second), in order.
    The one who had the first side less often (first minus second) takes it; on equal counts the
    one who had the second side last time; otherwise alternately by table (``a`` on odd tables)."""
    def balance(p: str) -> int:
        h = history.get(p, ())
        return sum(1 if s == 0 else -1 for s in h)

    if balance(a) != balance(b):
        return (a, b) if balance(a) < balance(b) else (b, a)
    last_a = history[a][-1] if history.get(a) else None
    last_b = history[b][-1] if history.get(b) else None
    if last_a != last_b:  # the one who had the second side last time (or the other had the first) takes it
        return (a, b) if last_a == 1 or last_b == 0 else (b, a)
    return (a, b) if table % 2 == 1 else (b, a)


# ---- standings -------------------------------------------------------------------------------------


@dataclass
class Standing:
    rank: int
    player: str
    points: float = 0.0
    buchholz: float = 0.0
    margin: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    byes: int = 0
    running: int = 0
    opponents: list[str] = field(default_factory=list)
    through: int = 0  # knockout: the rounds the player went through (won, by a bye or as the higher seed)

    def to_json(self) -> dict[str, Any]:
        return {"rank": self.rank, "player": self.player, "points": self.points, "buchholz": self.buchholz,
                "margin": self.margin, "wins": self.wins, "draws": self.draws, "losses": self.losses,
                "byes": self.byes, "running": self.running, "opponents": list(self.opponents),
                "through": self.through}


TIE_BREAKS = ("Buchholz (the sum of the opponents' points)",
              "VP margin (victory points scored minus conceded, from each game's score)")
SCORING = "win 1, draw 1/2, bye 1 (a win), loss 0"
KNOCKOUT_RANK = ("the rounds each player went through (a win, a bye, or a drawn game as the higher seed, "
                 "who joined first)")


def compute_standings(players: Sequence[str], pairings: Sequence[PairingRecord], *,
                      knockout: bool = False) -> list[Standing]:
    """Standings from the pairings (finished games and byes count; running games do not).
    ``knockout``: ranked first by the rounds each player went through (``players`` in seed order)."""
    rows = {p: Standing(0, p) for p in players}
    if knockout:
        for pr in pairings:
            if pr.over and advancer(pr, players) in rows:
                rows[advancer(pr, players)].through += 1
    for pr in pairings:
        if pr.second is None:
            if pr.first in rows:
                rows[pr.first].byes += 1
                rows[pr.first].points += 1
            continue
        a, b = rows.get(pr.first), rows.get(pr.second)
        if a is None or b is None:
            continue
        if not pr.over:
            a.running += 1
            b.running += 1
            continue
        a.opponents.append(b.player)
        b.opponents.append(a.player)
        a.margin += pr.score_first - pr.score_second
        b.margin += pr.score_second - pr.score_first
        if pr.winner is None:
            a.draws += 1
            b.draws += 1
            a.points += 0.5
            b.points += 0.5
        else:
            win, lose = (a, b) if pr.winner == a.player else (b, a)
            win.wins += 1
            win.points += 1
            lose.losses += 1
    for r in rows.values():
        r.buchholz = sum(rows[o].points for o in r.opponents)
    order = sorted(rows.values(), key=lambda r: (-r.through, -r.points, -r.buchholz, -r.margin, r.player))
    for i, r in enumerate(order):
        prev = order[i - 1] if i else None
        same = prev is not None and ((prev.through, prev.points, prev.buchholz, prev.margin)
                                     == (r.through, r.points, r.buchholz, r.margin))
        r.rank = prev.rank if same and prev is not None else i + 1
    return order


def _points(x: float) -> str:
    return str(int(x)) if x == int(x) else f"{int(x)}½" if int(x) else "½"


# ---- the tournament file -----------------------------------------------------------------------------


def tournament_names(home: Home) -> list[str]:
    folder = home.path / FOLDER
    if not folder.is_dir():
        return []
    return sorted(p.stem for p in folder.glob("*.db") if p.is_file())


def _engine(path: Path, owner: Tournament) -> Any:
    engine = create_engine(f"sqlite:///{path}", connect_args={"timeout": 60.0})
    explicit_begin(engine, owner)
    return engine


class Tournament(SqlFile):
    """One tournament file of a home; :meth:`create` makes one, the constructor opens one."""

    def __init__(self, home: Home, name: str) -> None:
        self.home = home
        self.name = name
        self.path = home.path / FOLDER / f"{name}.db"
        if not _NAME_RE.fullmatch(name) or not self.path.is_file():
            known = ", ".join(tournament_names(home)) or "none"
            raise TournamentError(f"no tournament {name!r} in {home.path} (tournaments there: {known}); "
                                  "create it with `pbem tournament new`")
        self.engine = _engine(self.path, self)
        with self._tx(True) as db:  # files made before the away cap and the joins by mail get their columns
            conn = db.connection()
            for table, column, kind in (("tournament", "away_cap_seconds", "INTEGER"),
                                        ("tournament_mail", "address", "VARCHAR")):
                cols = {row[1] for row in conn.exec_driver_sql(f"PRAGMA table_info({table})")}
                if cols and column not in cols:
                    conn.exec_driver_sql(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
            JoinMessageRecord.__table__.create(conn, checkfirst=True)  # type: ignore[attr-defined]
        with self._tx(False) as db:
            rec = db.exec(select(TournamentRecord)).first()
        if rec is None or rec.schema_version != SCHEMA:
            raise TournamentError(f"{self.path} is not a tournament file of this pbem version")

    @classmethod
    def create(cls, home: Home, name: str, *, fmt: str, rounds: int | None, system: str,
               options: Mapping[str, Any] | None = None, deadline: timedelta | None = None, seed: int | None = None,
               moderator_email: str = "", away_cap: timedelta | None = None) -> Tournament:
        if not _NAME_RE.fullmatch(name):
            raise TournamentError(f"{name!r} is not a usable tournament name; use 1 to 60 letters, digits, '.', "
                                  "'_' or '-', starting with a letter or digit")
        if fmt not in FORMATS:
            raise TournamentError(f"unknown format {fmt!r}; use swiss, round-robin or knockout")
        if fmt == "swiss" and not rounds:
            raise TournamentError("a Swiss tournament needs its number of rounds: --rounds N")
        if rounds is not None and rounds < 1:
            raise TournamentError(f"--rounds {rounds}: a tournament has at least 1 round")
        game_system = find_game(system)
        if len(game_system.sides) != 2:
            raise TournamentError(f"{game_system.title} has {len(game_system.sides)} sides; tournaments pair two "
                                  "players per game")
        try:
            values = option_values(game_system.options, dict(options or {}))
        except ValueError as exc:
            raise TournamentError(str(exc)) from None
        if seed is not None and not 0 <= seed < 2**62:
            raise TournamentError(f"the seed {seed} is out of range; use 0 to {2**62 - 1}")
        _check_email("the moderator", moderator_email)
        path = home.path / FOLDER / f"{name}.db"
        if path.exists():
            raise TournamentError(f"tournament {name!r} already exists ({path}); choose another name")
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.unlink(missing_ok=True)
        engine = create_engine(f"sqlite:///{tmp}")
        try:
            SQLModel.metadata.create_all(engine, tables=[t.__table__ for t in _TABLES])  # type: ignore[union-attr]
            with DbSession(engine) as db:
                db.add(TournamentRecord(name=name, format=fmt, rounds=rounds, system=game_system.name,
                                        options=json.dumps(values, sort_keys=True),
                                        deadline_seconds=int(deadline.total_seconds()) if deadline else None,
                                        away_cap_seconds=int(away_cap.total_seconds()) if away_cap else None,
                                        seed=seed, moderator_email=moderator_email, created=format_time(home.clock())))
                db.commit()
        finally:
            engine.dispose()
        try:  # a hard link never replaces a file: two `tournament new` for one name cannot both win
            os.link(tmp, path)
        except FileExistsError:
            raise TournamentError(f"tournament {name!r} was created meanwhile by someone else; choose another "
                                  "name") from None
        finally:
            tmp.unlink(missing_ok=True)
        return cls(home, name)

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> Tournament:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _db_error(self, exc: BaseException) -> Exception:
        return TournamentError(f"the tournament file {self.path} cannot be used: {exc}; check its "
                               "permissions, or restore it from a backup")

    def _now(self) -> str:
        return format_time(self.home.clock())

    # -- reading
    def record(self) -> TournamentRecord:
        with self._tx(False) as db:
            return db.exec(select(TournamentRecord)).one()

    def entrants(self) -> list[EntrantRecord]:
        with self._tx(False) as db:
            return list(db.exec(select(EntrantRecord).order_by(EntrantRecord.id)).all())  # type: ignore[arg-type]

    def pairings(self, round_number: int | None = None) -> list[PairingRecord]:
        with self._tx(False) as db:
            q = select(PairingRecord)
            if round_number is not None:
                q = q.where(PairingRecord.round == round_number)
            return list(db.exec(q.order_by(PairingRecord.round, PairingRecord.table)).all())  # type: ignore[arg-type]

    def rounds(self) -> list[RoundRecord]:
        with self._tx(False) as db:
            return list(db.exec(select(RoundRecord).order_by(RoundRecord.number)).all())  # type: ignore[arg-type]

    def mail(self, *, unsent: bool = False) -> list[MailRecord]:
        with self._tx(False) as db:
            q = select(MailRecord)
            if unsent:
                q = q.where(MailRecord.sent == None)  # noqa: E711 - SQL NULL
            return list(db.exec(q.order_by(MailRecord.id)).all())  # type: ignore[arg-type]

    def mark_sent(self, ids: Sequence[int]) -> None:
        with self._tx(True) as db:
            for i in ids:
                row = db.get(MailRecord, i)
                if row is not None and row.sent is None:
                    row.sent = self._now()
                    db.add(row)

    # -- players
    def add_player(self, name: str, email: str, *, public_key: str | None = None,
                   password_hash: str | None = None) -> EntrantRecord:
        name = name.strip()
        if not _PLAYER_RE.fullmatch(name):
            raise TournamentError(f"{name!r} is not a usable player name; use 1 to 60 printable characters")
        if (public_key is None) == (password_hash is None):
            raise TournamentError(f"{name} needs exactly one credential: --key FILE.pub or --password PASSWORD")
        if not email:
            raise TournamentError(f"{name} needs an email address (--email): pairings and reports go there")
        try:
            _check_email(name, email)
        except StoreError as exc:
            raise TournamentError(str(exc)) from None
        fingerprint = key_fingerprint(public_key) if public_key is not None else None
        with self._tx(True) as db:
            if db.exec(select(RoundRecord)).first() is not None:
                raise TournamentError(f"tournament {self.name} has started (round 1 is paired); players join "
                                      "before the first pairing")
            for e in db.exec(select(EntrantRecord)).all():
                if e.name.lower() == name.lower():
                    raise TournamentError(f"{e.name} is already a player of {self.name}; choose another name")
                if fingerprint is not None and e.fingerprint == fingerprint:
                    raise TournamentError(f"{name}'s key is {e.name}'s key; each player needs his own key pair "
                                          "(`pbem keygen`)")
            row = EntrantRecord(name=name, email=email, public_key=public_key, password_hash=password_hash,
                                fingerprint=fingerprint, joined=self._now())
            db.add(row)
        return row

    def join_by_mail(self, request: JoinRequest | JoinError, digest: str, sender: str) -> tuple[bool, str]:
        """Take a join that came by mail (:func:`pbem.join.read_join`; ``digest``: the message's SHA-256)
        and queue the answer to the address it came from (``sender``): a confirmation naming the player, his address
        and credential, or a refusal naming what is wrong. Returns (joined, a line for the moderator).
        The same message fed again is neither taken nor answered again."""
        with self._tx(False) as db:
            seen = db.get(JoinMessageRecord, digest)
        if seen is not None:
            return seen.joined, f"{self.name}: a join received before ({seen.answer}); nothing taken or answered again"
        player = request.player if isinstance(request, JoinRequest) else ""
        address = request.email if isinstance(request, JoinRequest) else sender
        if isinstance(request, JoinError):
            joined, why = False, str(request)
        else:
            try:
                self._check_new_address(request.email)
                password_hash = None
                if request.password is not None:
                    from pbem.credentials import hash_password

                    password_hash = hash_password(request.password)
                self.add_player(request.player, request.email, public_key=request.key, password_hash=password_hash)
                joined, why = True, ""
            except (TournamentError, PbemError) as exc:
                joined, why = False, str(exc)
        now = self._now()
        if joined:
            how = "your key " + key_fingerprint(request.key) if isinstance(request, JoinRequest) and request.key \
                else "your password"
            subject = f"[{self.name}] you joined as {player}"
            body = (f"You joined tournament {self.name} as {player}, at {address}; your orders are checked "
                    f"with {how}.\nYour pairing, side and first report come by mail when round 1 is paired.\n")
            line = f"{self.name}: {player} joined by mail ({address}; {len(self.entrants())} players)"
        else:
            subject = f"[{self.name}] your join was refused"
            body = f"Your request to join tournament {self.name} was refused: {why}.\nNothing was registered.\n"
            line = f"{self.name}: join refused: {why}"
        with self._tx(True) as db:
            if db.get(JoinMessageRecord, digest) is None:
                db.add(JoinMessageRecord(digest=digest, player=player, joined=joined, answer=line, received=now))
                if address:  # no address to answer (an unreadable join): the moderator's line says why
                    db.add(MailRecord(round=0, kind="join", recipient=player or address, address=address,
                                      subject=subject, body=body, created=now))
        return joined, line

    def _check_new_address(self, email: str) -> None:
        for e in self.entrants():
            if e.email.lower() == email.lower():
                raise TournamentError(f"{email} already plays in {self.name} as {e.name}; a player joins once")

    # -- results and standings
    def record_results(self) -> list[str]:
        """Store the result of every game first seen over; returns what was recorded."""
        done: list[str] = []
        system = find_game(self.record().system)
        first_side, second_side = system.sides
        for pr in self.pairings():
            if pr.over or not pr.created or pr.game is None or pr.second is None:
                continue
            with self.home.open(pr.game) as st:
                status = st.status()
            if not status.over:
                continue
            s = status.summary
            winner = None if s.winner is None else pr.first if s.winner == first_side else pr.second
            with self._tx(True) as db:
                row = db.get(PairingRecord, pr.id)
                if row is None or row.over:
                    continue
                row.over, row.winner, row.result = True, winner, s.result
                row.score_first, row.score_second = int(s.score.get(first_side, 0)), int(s.score.get(second_side, 0))
                row.recorded = self._now()
                db.add(row)
            who = f"{winner} wins" if winner else "a draw"
            done.append(f"round {pr.round}, {pr.game}: {pr.first} ({first_side}) v {pr.second} ({second_side}): "
                        f"{who} ({s.result})")
        return done

    def standings(self) -> list[Standing]:
        self.record_results()
        return compute_standings([e.name for e in self.entrants()], self.pairings(),
                                 knockout=self.record().format == "knockout")

    def current_round(self) -> int:
        rounds = self.rounds()
        return rounds[-1].number if rounds else 0

    def total_rounds(self) -> int | None:
        rec = self.record()
        if rec.rounds is None:
            n = len(self.entrants())
            if n < 2:
                return None
            if rec.format == "knockout":
                return knockout_rounds(n)
            return n - 1 if n % 2 == 0 else n  # round-robin
        return rec.rounds

    def round_complete(self, number: int) -> bool:
        prs = self.pairings(number)
        return bool(prs) and all(p.over for p in prs)

    def finished(self) -> bool:
        total = self.total_rounds()
        cur = self.current_round()
        return total is not None and cur == total and self.round_complete(cur)

    # -- pairing
    def _history(self, pairings: Sequence[PairingRecord]) -> tuple[set[frozenset[str]], dict[str, int],
                                                                     dict[str, list[int]]]:
        played: set[frozenset[str]] = set()
        byes: dict[str, int] = {}
        sides: dict[str, list[int]] = {}
        for p in pairings:
            if p.second is None:
                byes[p.first] = byes.get(p.first, 0) + 1
                continue
            played.add(frozenset((p.first, p.second)))
            sides.setdefault(p.first, []).append(0)
            sides.setdefault(p.second, []).append(1)
        return played, byes, sides

    def pair(self) -> list[str]:
        """Pair the next round, create its games and queue each player's pairing mail.
        Finishes a pairing a crash interrupted instead, if there is one."""
        unfinished = [p for p in self.pairings() if not p.created]
        if unfinished:
            return self._create_games(unfinished)
        self.record_results()
        rec = self.record()
        entrants = self.entrants()
        names = [e.name for e in entrants]
        if len(names) < 2:
            raise TournamentError(f"tournament {self.name} has {len(names)} player(s); add at least 2 "
                                  f"(`pbem tournament add {self.name} --player NAME --email ADDRESS --key FILE`)")
        cur = self.current_round()
        total = self.total_rounds()
        if cur and not self.round_complete(cur):
            running = [p.game for p in self.pairings(cur) if not p.over and p.game]
            raise TournamentError(f"round {cur} is not complete: {len(running)} game(s) still running "
                                  f"({', '.join(str(g) for g in running)}); pair the next round when they are over")
        if total is not None and cur >= total:
            raise TournamentError(f"tournament {self.name} is over: all {total} rounds are played "
                                  f"(`pbem tournament standings {self.name}`)")
        done = self._complete_round(cur) if cur else []
        number = cur + 1
        past = self.pairings()
        played, byes, sides = self._history(past)
        if rec.format == "round-robin":
            schedule = round_robin(names)
            if rec.rounds is not None and rec.rounds != len(schedule):
                raise TournamentError(f"a round-robin of {len(names)} players has {len(schedule)} rounds, not "
                                      f"{rec.rounds}; add or remove players, or make a Swiss tournament")
            planned = list(schedule[number - 1])
        elif rec.format == "knockout":
            if rec.rounds is not None and rec.rounds != knockout_rounds(len(names)):
                raise TournamentError(f"a knockout of {len(names)} players has {knockout_rounds(len(names))} "
                                      f"rounds, not {rec.rounds}; add or remove players, or make a Swiss tournament")
            planned = knockout_pairs(names, self.pairings(cur) if cur else None)
        else:
            order = [s.player for s in compute_standings(names, past)]
            pairs, bye = swiss_pairing(order, played, byes)
            planned = [(a, b) for a, b in pairs] + ([(bye, None)] if bye is not None else [])
        tables: list[tuple[str, str | None]] = []
        for i, (a, b) in enumerate(planned, start=1):
            tables.append(assign_sides(a, b, sides, i) if b is not None else (a, None))
        if rec.format != "knockout":  # byes last; a knockout keeps its bracket order (table k feeds table k/2)
            tables.sort(key=lambda t: t[1] is None)
        games = [f"{self.name}-r{number}-{i}" for i in range(1, len(tables) + 1)]
        for gid, (_a, b) in zip(games, tables):
            if b is not None and self.home.file(gid).exists():
                raise TournamentError(f"a game {gid!r} already exists in {self.home.path}; move it away before "
                                      "pairing (tournament games are named <tournament>-r<round>-<table>)")
        now = self._now()
        with self._tx(True) as db:
            if db.get(RoundRecord, number) is not None:
                raise TournamentError(f"round {number} was paired meanwhile by another pbem; nothing done")
            db.add(RoundRecord(number=number, paired=now))
            for i, (gid, (a, b)) in enumerate(zip(games, tables), start=1):
                if b is None:
                    db.add(PairingRecord(round=number, table=i, first=a, created=True, over=True, result="bye",
                                         recorded=now))
                    db.add(self._mail_bye(number, a, total, now))
                else:
                    db.add(PairingRecord(round=number, table=i, first=a, second=b, game=gid))
        return done + [f"round {number} paired"] + self._create_games([p for p in self.pairings(number) if not p.created]) + \
            [f"{p.first} has the bye (a win)" for p in self.pairings(number) if p.second is None]

    def _create_games(self, pending: Sequence[PairingRecord]) -> list[str]:
        rec = self.record()
        system = find_game(rec.system)
        first_side, second_side = system.sides
        by_name = {e.name: e for e in self.entrants()}
        total = self.total_rounds()
        done = []
        for pr in pending:
            assert pr.game is not None and pr.second is not None
            a, b = by_name[pr.first], by_name[pr.second]
            if not self.home.file(pr.game).exists():
                setup = GameSetup(
                    game_id=pr.game,
                    players=(PlayerSetup(first_side, a.email, a.public_key, a.password_hash),
                             PlayerSetup(second_side, b.email, b.public_key, b.password_hash)),
                    # a real tournament's games draw from their own secrets; --seed makes practice games
                    seed=None if rec.seed is None else (rec.seed * 1_000_003 + pr.round * 1_009 + pr.table) % 2**62,
                    system=rec.system,
                    options=json.loads(rec.options),
                    # a tournament made without a deadline: the home's default (pbem config --deadline)
                    deadline=(timedelta(seconds=rec.deadline_seconds) if rec.deadline_seconds
                              else default_deadline(self.home.path)),
                    moderator_email=rec.moderator_email,
                )
                self.home.create(setup).close()
            else:  # made before a crash: it must be this pairing's game
                with self.home.open(pr.game) as st:
                    emails = {p.side: p.email for p in st.players()}
                if emails != {first_side: a.email, second_side: b.email}:
                    raise TournamentError(f"game {pr.game} exists but is not the game of {a.name} v {b.name}; "
                                          "move it out of the home folder and pair again")
            now = self._now()
            with self._tx(True) as db:
                row = db.get(PairingRecord, pr.id)
                if row is None or row.created:
                    continue
                row.created = True
                db.add(row)
                for me, side, other, other_side in ((a, first_side, b, second_side), (b, second_side, a, first_side)):
                    db.add(self._mail_pairing(pr, me.name, side, other.name, other_side, system.title, total, now))
            done.append(f"{pr.game}: {a.name} ({first_side}) v {b.name} ({second_side})")
        return done

    def _deadline_text(self) -> str:
        secs = self.record().deadline_seconds
        return f"Each step has a deadline of {format_duration(secs)}." if secs else "The steps have no deadline."

    def _mail_pairing(self, pr: PairingRecord, me: str, side: str, other: str, other_side: str, title: str,
                      total: int | None, now: str) -> MailRecord:
        of = f" of {total}" if total else ""
        body = (f"Tournament {self.name}, round {pr.round}{of}.\n\n"
                f"{me}, you play {side} against {other} ({other_side}) in game {pr.game} ({title}).\n"
                f"{self._deadline_text()} Your first report comes in its own mail; send your orders for game "
                f"{pr.game} as side {side}, as the report says.\n")
        return MailRecord(round=pr.round, kind="pairing", recipient=me, created=now, body=body,
                          subject=f"[{self.name}] round {pr.round}: you play {side} against {other} ({pr.game})")

    def _mail_bye(self, number: int, me: str, total: int | None, now: str) -> MailRecord:
        of = f" of {total}" if total else ""
        body = (f"Tournament {self.name}, round {number}{of}.\n\n{me}, you have the bye this round: it counts as a "
                "win (1 point). Your next pairing comes when the round is complete.\n")
        return MailRecord(round=number, kind="bye", recipient=me, created=now, body=body,
                          subject=f"[{self.name}] round {number}: you have the bye")

    # -- advancing
    def _complete_round(self, number: int) -> list[str]:
        """Once per round, when every game of it is over: queue the standings for every player."""
        with self._tx(False) as db:
            rnd = db.get(RoundRecord, number)
        if rnd is None or rnd.completed is not None or not self.round_complete(number):
            return []
        total = self.total_rounds()
        last = total is not None and number >= total
        text = self.standings_text()
        now = self._now()
        with self._tx(True) as db:
            row = db.get(RoundRecord, number)
            if row is None or row.completed is not None:
                return []
            row.completed = now
            db.add(row)
            what = "final standings" if last else f"standings after round {number}"
            for e in db.exec(select(EntrantRecord)).all():
                db.add(MailRecord(round=number, kind="standings", recipient=e.name, created=now, body=text,
                                  subject=f"[{self.name}] {what}"))
        return [f"round {number} complete; {'final ' if last else ''}standings queued for every player"]

    def advance(self) -> list[str]:
        """What `pbem run` does for a tournament: record results; when the current round is complete,
        mail the standings to every player (once) and pair the next round, if any. Round 1 is
        paired by the moderator (`pbem tournament pair`), when every player has joined."""
        done = self.record_results()
        cur = self.current_round()
        if any(not p.created for p in self.pairings()):
            done += self.pair()
        elif cur and self.round_complete(cur):
            done += self._complete_round(cur)
            if not self.finished():
                done += self.pair()
        return [f"{self.name}: {line}" for line in done]

    # -- showing
    def set_away_cap(self, cap: timedelta | None) -> None:
        """How far a player's ``away until DATE`` may move a deadline of this tournament's games (None: the
        home's cap, ``pbem config --away-cap``); it applies at once, to the running games too."""
        with self._tx(True) as db:
            rec = db.exec(select(TournamentRecord)).one()
            rec.away_cap_seconds = int(cap.total_seconds()) if cap else None
            db.add(rec)

    def summary_line(self) -> str:
        rec = self.record()
        total = self.total_rounds()
        cur = self.current_round()
        state = ("not paired yet" if cur == 0 else "over" if self.finished() else
                 f"round {cur}{f' of {total}' if total else ''}" + (" complete" if self.round_complete(cur)
                                                                     else " running"))
        return (f"Tournament {self.name} ({rec.format}, {find_game(rec.system).title}, "
                f"{total if total else '?'} rounds, {len(self.entrants())} players): {state}")

    def standings_text(self) -> str:
        rows = self.standings()
        lines = [self.summary_line(), ""]
        width = max([len(r.player) for r in rows] + [6])
        lines.append(f"{'#':>3}  {'player':<{width}}  {'points':>6}  {'Buchholz':>8}  {'VP margin':>9}  W-D-L  byes")
        for r in rows:
            lines.append(f"{r.rank:>3}  {r.player:<{width}}  {_points(r.points):>6}  {_points(r.buchholz):>8}  "
                         f"{r.margin:>+9d}  {r.wins}-{r.draws}-{r.losses}  {r.byes:>4}")
        lines += ["", f"Points: {SCORING}. Tie-breaks, in order: {'; then '.join(TIE_BREAKS)}."]
        if self.record().format == "knockout":
            lines.append(f"Knockout: ranked first by {KNOCKOUT_RANK}.")
        for p in self.pairings():
            if p.second is None:
                lines.append(f"round {p.round}: {p.first} had the bye")
            else:
                lines.append(f"round {p.round}, {p.game}: {p.first} v {p.second}: "
                             f"{(p.winner + ' wins' if p.winner else 'a draw') if p.over else 'running'}"
                             + (f" ({p.score_first}-{p.score_second})" if p.over else ""))
        return "\n".join(lines) + "\n"

    def standings_json(self) -> dict[str, Any]:
        rows = self.standings()
        rec = self.record()
        return {"tournament": self.name, "format": rec.format, "system": rec.system, "rounds": self.total_rounds(),
                "round": self.current_round(), "over": self.finished(), "scoring": SCORING,
                "tie_breaks": ["buchholz", "vp_margin"], "standings": [r.to_json() for r in rows],
                "pairings": [{"round": p.round, "table": p.table, "game": p.game, "first": p.first,
                              "second": p.second, "over": p.over, "winner": p.winner, "result": p.result,
                              "score": [p.score_first, p.score_second]} for p in self.pairings()]}

    def standings_html(self) -> str:
        rows = self.standings()
        e = html.escape
        body = "".join(
            f"<tr><td>{r.rank}</td><td>{e(r.player)}</td><td>{_points(r.points)}</td><td>{_points(r.buchholz)}</td>"
            f"<td>{r.margin:+d}</td><td>{r.wins}-{r.draws}-{r.losses}</td><td>{r.byes}</td></tr>\n" for r in rows)
        games = "".join(
            f"<li>round {p.round}: {e(p.first)} had the bye</li>\n" if p.second is None else
            f"<li>round {p.round}, {e(p.game or '')}: {e(p.first)} v {e(p.second)}: "
            f"{e((p.winner + ' wins' if p.winner else 'a draw') if p.over else 'running')}</li>\n"
            for p in self.pairings())
        return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                f"<title>{e(self.name)}: standings</title></head><body>\n<h1>{e(self.summary_line())}</h1>\n"
                "<table><thead><tr><th>#</th><th>player</th><th>points</th><th>Buchholz</th><th>VP margin</th>"
                f"<th>W-D-L</th><th>byes</th></tr></thead><tbody>\n{body}</tbody></table>\n"
                f"<p>Points: {e(SCORING)}. Tie-breaks, in order: {e('; then '.join(TIE_BREAKS))}.</p>\n"
                f"<ul>\n{games}</ul>\n</body></html>\n")


def advance_all(home: Home) -> tuple[list[str], dict[str, str]]:
    """:meth:`Tournament.advance` for every tournament of the home; a failing one is reported
    (name -> message) and the others are still done."""
    done: list[str] = []
    failed: dict[str, str] = {}
    for name in tournament_names(home):
        try:
            with Tournament(home, name) as t:
                done += t.advance()
        except PbemError as exc:
            failed[name] = str(exc)
    return done, failed
