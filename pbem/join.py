"""Joining a tournament by mail: a signed "join" block, or a plain mail with a password.

Two forms (docs/envelope.md, "Joining a tournament by mail"):

* **signed** (key mode): the block ``pbem tournament join`` prints, signed with the player's own key,
  whose public key it carries::

      -----BEGIN PBEM JOIN-----
      Tournament: spring
      Player: Ann
      Email: ann@example.org
      Key: pbem-ed25519 <base64>
      Time: 2025-03-01T12:00:00Z
      -----BEGIN PBEM SIGNATURE-----
      <base64 Ed25519 signature>
      -----END PBEM JOIN-----

  The signature is over the canonical JSON (keys sorted, no spaces, UTF-8) of ``{"email", "key",
  "kind": "join", "pbem": 1, "player", "time", "tournament"}``; it must verify with the key the block
  carries (so the player holds that key's private half), and ``Email`` must be the mail's From
  address: the address registered is the one the join came from.

* **plain** (password mode): a mail whose own text starts with the line ``join TOURNAMENT``, with a
  line ``name: PLAYER`` and a line ``password: PASSWORD``; the address registered is the From address.

:func:`read_join` reads either from a whole message (None: it is no join); the tournament
(:meth:`pbem.tournament.Tournament.join_by_mail`) checks the rest and answers. Pure but for the
signature check: no files, no clock.
"""

from __future__ import annotations

import base64
import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parseaddr

from cryptography.exceptions import InvalidSignature

from pbem.credentials import load_private_key, load_public_key
from pbem.errors import EnvelopeError

__all__ = ["JOIN_BEGIN", "JoinError", "JoinRequest", "join_block", "looks_like_join", "read_join"]

JOIN_BEGIN = "-----BEGIN PBEM JOIN-----"
JOIN_SIGNATURE = "-----BEGIN PBEM SIGNATURE-----"
JOIN_END = "-----END PBEM JOIN-----"
_FIELDS = ("tournament", "player", "email", "key", "time")
_PLAIN_JOIN = re.compile(r"^\s*join\s+(\S+)\s*$", re.IGNORECASE)
_NAME_LINE = re.compile(r"^\s*name\s*:\s*(.*?)\s*$", re.IGNORECASE)
_PASSWORD_LINE = re.compile(r"^\s*password\s*:\s*(.*?)\s*$", re.IGNORECASE)


class JoinError(EnvelopeError):
    """A join that cannot be taken: the message says what is wrong and what would be right."""


@dataclass(frozen=True)
class JoinRequest:
    tournament: str
    player: str
    email: str  # the From address (a signed join: also the one it names)
    key: str | None = None  # signed: the public key it carries (verified)
    password: str | None = field(default=None, repr=False)  # plain: the password (never stored)


def _canonical(fields: dict[str, str]) -> bytes:
    obj = {**fields, "kind": "join", "pbem": 1}
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def join_block(tournament: str, player: str, email: str, private_pem: bytes, time: datetime | None = None) -> str:
    """The signed join block for ``player`` (whose key is ``private_pem``) to mail from ``email``."""
    from pbem.credentials import keypair_from_private_key

    pair = keypair_from_private_key(private_pem)
    when = (time or datetime.now(UTC)).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    fields = {"tournament": tournament, "player": player, "email": email, "key": pair.public_text, "time": when}
    for name, value in fields.items():
        if not value or value != value.strip() or any(not c.isprintable() for c in value):
            raise JoinError(f"the {name} {value!r} cannot go in a join: give it on one line, without "
                            "surrounding spaces")
    signature = base64.b64encode(load_private_key(private_pem).sign(_canonical(fields))).decode("ascii")
    head = [f"{n.capitalize()}: {fields[n]}" for n in _FIELDS]
    return "\n".join([JOIN_BEGIN, *head, JOIN_SIGNATURE, signature, JOIN_END]) + "\n"


def looks_like_join(raw: bytes) -> bool:
    """Cheap test before reading the message: a signed join block, or a plain join line."""
    return JOIN_BEGIN.encode() in raw or re.search(rb"(?im)^\s*join\s+\S+\s*$", raw) is not None


def _from_address(raw: bytes) -> str:
    from email import policy
    from email.parser import BytesParser

    if raw.startswith(b"From "):
        raw = raw.partition(b"\n")[2]
    msg = BytesParser(policy=policy.compat32).parsebytes(raw, headersonly=True)
    return parseaddr(str(msg.get("From", "") or ""))[1]


def read_join(raw: bytes) -> tuple[str, JoinRequest | JoinError, str] | None:
    """The tournament a message asks to join, the request (or what is wrong with it) and the From
    address (where the answer goes); None when the message is no join at all (then it is read as orders)."""
    from pbem.plainreply import _lines
    from pbem.transport.message import extract_body_from_email, split_lines

    if not looks_like_join(raw):
        return None
    try:
        body = extract_body_from_email(raw)
    except EnvelopeError:
        return None
    sender = _from_address(raw)
    if JOIN_BEGIN in body:
        lines = [x for x in split_lines(body) if not x.startswith(">")]
        name, got = _signed(lines, sender)
        return name, got, sender
    own = [x for x in _lines(body) if x.strip()]
    if not own or "-----BEGIN PBEM" in body:
        return None
    m = _PLAIN_JOIN.match(own[0])
    if m is None:
        return None
    name = m.group(1)
    names = [n.group(1) for x in own[1:] if (n := _NAME_LINE.match(x))]
    passwords = [p.group(1) for x in own[1:] if (p := _PASSWORD_LINE.match(x))]
    problems = []
    if len(names) != 1 or not names[0]:
        problems.append("one line `name: YOUR NAME` (the name the standings show)")
    if len(passwords) != 1 or not passwords[0]:
        problems.append("one line `password: YOUR PASSWORD` (your orders will carry it)")
    if not sender:
        problems.append("a From address (pairings and reports go there)")
    if problems:
        return name, JoinError("a join by mail needs " + " and ".join(problems) + f", after the line `join {name}`"), sender
    return name, JoinRequest(name, names[0], sender, password=passwords[0]), sender


def _signed(lines: list[str], sender: str) -> tuple[str, JoinRequest | JoinError]:
    stripped = [x.strip() for x in lines]
    start = stripped.index(JOIN_BEGIN)
    values: dict[str, str] = {}
    tournament = ""

    def fail(text: str) -> tuple[str, JoinError]:
        return tournament, JoinError(f"the join block {text}; mail the block `pbem tournament join` printed, "
                                     "unchanged, from the address it names")

    if JOIN_END not in stripped[start:]:
        return fail("has no end line " + JOIN_END)
    end = stripped.index(JOIN_END, start)
    block = stripped[start + 1:end]
    if JOIN_SIGNATURE not in block:
        return fail("has no signature")
    cut = block.index(JOIN_SIGNATURE)
    for line in block[:cut]:
        if not line:
            continue
        name, colon, value = line.partition(":")
        key = name.strip().lower()
        if not colon or key not in _FIELDS:
            return fail(f"has the line {line[:60]!r}; its lines are {', '.join(n.capitalize() for n in _FIELDS)}")
        if key in values:
            return fail(f"names {name.strip()} twice")
        values[key] = value.strip()
    tournament = values.get("tournament", "")
    missing = [n.capitalize() for n in _FIELDS if not values.get(n)]
    if missing:
        return fail(f"has no {', '.join(missing)}")
    try:
        signature = base64.b64decode("".join(block[cut + 1:]), validate=True)
        public = load_public_key(values["key"])
    except (ValueError, EnvelopeError) as exc:
        return fail(f"cannot be read ({exc})")
    try:
        public.verify(signature, _canonical(values))
    except InvalidSignature:
        return fail("is not signed by the key it carries (it was changed after signing, or signed with another key)")
    if parseaddr(values["email"])[1].lower() != sender.lower():
        return fail(f"names the address {values['email']} but came from {sender or 'no address'}: a player joins "
                    "from the address he registers")
    return tournament, JoinRequest(tournament, values["player"], parseaddr(values["email"])[1], key=values["key"])
