"""The game's random streams, behind one small protocol (:class:`RandomStream`).

Two streams implement it:

* :class:`KeyedStream`, the stream of every game file made by ``pbem new``: each
  draw is an HMAC-SHA256 block keyed by the game's 256-bit secret, over the game id,
  the step, the purpose of the draw (``deal``, ``dice``, ``jupiter``), the hashes of
  the submissions that closed the step and a counter (docs/envelope.md, "Dice and
  deals", gives the exact bytes). Without the secret its draws cannot be foreseen; with
  it (revealed when the game ends) anyone recomputes them. Its JSON form carries the
  secret's SHA-256 commitment and the counters, never the secret, which the store
  attaches (:meth:`KeyedStream.attach`) each time it loads a position.
* :class:`Rng`, a counter-based SplitMix64 generator: fast and predictable from its
  seed. ``pbem simulate``, playouts and practice games (``pbem new --seed``) use it.

Every draw names its purpose; a stream that does not separate purposes ignores it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sys
from collections.abc import MutableSequence, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from pbem.errors import PbemError

_MASK = (1 << 64) - 1
_LITTLE_ENDIAN = sys.byteorder == "little"
_SPAN = 1 << 64
T = TypeVar("T")

KEYED_KIND = "hmac-sha256-v1"
DRAW_LABEL = "pbem draw v1"
SECRET_BYTES = 32


class RandomStream(Protocol):
    """What the engine draws from: uniform integers, dice, choices and shuffles."""

    def below(self, n: int, purpose: str = "draw") -> int: ...

    def die(self, purpose: str = "dice") -> int: ...

    def choice(self, items: Sequence[T], purpose: str = "draw") -> T: ...

    def shuffle(self, items: MutableSequence[Any], purpose: str = "deal") -> None: ...

    def to_json(self) -> dict[str, Any]: ...

    def clone(self) -> RandomStream: ...


class SecretError(PbemError):
    """The game's secret is missing, or does not match its commitment."""


#: ``_SPAN - _SPAN % n`` for ``n`` below 256: the rejection limit of a draw below ``n`` (read, not computed, in
#: the loops of :meth:`Rng.below` and :meth:`Rng.shuffle`, and by callers that draw from :meth:`Rng.ahead`'s words)
LIMITS = tuple(_SPAN - (_SPAN % n) if n else 0 for n in range(256))


_GAMMA, _MIX1, _MIX2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB

_LANES: dict[int, tuple[int, int, int]] = {}


def _lanes(k: int) -> tuple[int, int, int]:
    """For ``k`` lanes of 128 bits in one int: the mask of each lane's low 64 bits, a 1 in each
    lane, and ``i * _GAMMA`` in lane ``i`` (constants, made once per ``k``)."""
    hit = _LANES.get(k)
    if hit is None:
        hit = _LANES[k] = (
            int.from_bytes((b"\xff" * 8 + b"\x00" * 8) * k, "little"),
            int.from_bytes((b"\x01" + b"\x00" * 15) * k, "little"),
            sum((i * _GAMMA) << (128 * i) for i in range(k)),
        )
    return hit


def _words(seed: int, counter: int, k: int) -> list[int]:
    """The SplitMix64 words of counters ``counter + 1`` to ``counter + k`` (what ``k`` calls of
    :meth:`Rng.next64` return), computed together: lane ``i`` (128 bits) of one int holds the
    state of counter ``counter + 1 + i`` in its low 64 bits, so each step of the mix is one
    operation on that int for every word at once. No lane spills into the next one: a
    product of two 64-bit numbers fits in 128 bits, and the bits a shift brings down from the
    next lane land above bit 64, where the mask clears them. On a little-endian machine the
    words are read back as the int's bytes; elsewhere they are computed one at a time."""
    if not _LITTLE_ENDIAN:
        return [_mix(seed, counter + 1 + i) for i in range(k)]
    mask, ones, ramp = _lanes(k)
    z = (((seed + (counter + 1) * _GAMMA) & _MASK) * ones + ramp) & mask
    z = (((z ^ (z >> 30)) & mask) * _MIX1) & mask
    z = (((z ^ (z >> 27)) & mask) * _MIX2) & mask
    z ^= (z >> 31) & mask
    return memoryview(z.to_bytes(16 * k, "little")).cast("Q")[::2].tolist()


def _mix(seed: int, counter: int) -> int:
    """The SplitMix64 word of ``counter``, alone (what :func:`_words` computes many at a time)."""
    z = (seed + counter * _GAMMA) & _MASK
    z = ((z ^ (z >> 30)) * _MIX1) & _MASK
    z = ((z ^ (z >> 27)) * _MIX2) & _MASK
    return z ^ (z >> 31)


#: :class:`Rng`'s words come in blocks of this many (a power of two): block ``k`` of a seed holds the
#: words of counters ``k * _BLOCK + 1`` to ``(k + 1) * _BLOCK``
_BLOCK_BITS = 8
_BLOCK = 1 << _BLOCK_BITS
_IN_BLOCK = _BLOCK - 1
#: the blocks made lately, by (seed, block number), for every Rng (and its clones) of those seeds
_BLOCKS: dict[tuple[int, int], list[int]] = {}
#: how many blocks :data:`_BLOCKS` keeps (it starts again when full)
_BLOCKS_KEPT = 64
#: a seed's first block starts with this many words, and is made whole when a draw reads past them:
#: many streams draw only a few words (a battle of the odds draws 6 to 30), and a whole block costs
#: as much as some 50 words made one by one
_FIRST_WORDS = 32


def _block(seed: int, k: int) -> list[int]:
    """Block ``k`` of ``seed``'s words (see :data:`_BLOCK`), made with :func:`_words` and kept; the
    first block (``k`` 0) may hold only its first :data:`_FIRST_WORDS` words (see :func:`_whole`)."""
    got = _BLOCKS.get((seed, k))
    if got is None:
        if len(_BLOCKS) >= _BLOCKS_KEPT:
            _BLOCKS.clear()
        got = _BLOCKS[seed, k] = _words(seed, k << _BLOCK_BITS, _BLOCK if k else _FIRST_WORDS)
    return got


def _whole(seed: int, k: int) -> list[int]:
    """Block ``k`` of ``seed``'s words, all of them: a short first block is made whole in place (a
    draw that reads past its end meets an IndexError, and reads here)."""
    got = _block(seed, k)
    if len(got) < _BLOCK:
        got += _words(seed, (k << _BLOCK_BITS) + len(got), _BLOCK - len(got))
    return got


def limit(n: int) -> int:
    """The rejection limit of a draw below ``n``: :meth:`Rng.below` rejects a word at or above it
    (a chance below ``n / 2**64``) and draws the next one."""
    return LIMITS[n] if n < 256 else _SPAN - (_SPAN % n)


def kept_below(n: int) -> int:
    """For ``n`` up to 256, the lowest rejection limit of the draws below 2 to ``n``: a word under it is
    kept by every one of them (so a batch of such draws whose words are all under it reads one word
    each, as :meth:`Rng.shuffle` checks)."""
    return min(LIMITS[2:n + 1], default=_SPAN)


def _uniform(next64: Any, n: int) -> int:
    """A uniform integer in ``range(n)`` from 64-bit words (rejection sampling, no modulo bias)."""
    if n <= 0:
        raise ValueError("below() needs n >= 1")
    kept = limit(n)
    while True:
        x = next64()
        if x < kept:
            return x % n


@dataclass
class Rng:
    """SplitMix64: the whole state is two integers. ``practice`` marks a game file's
    stream made from ``--seed`` (its reports say that its dice are predictable).

    A draw reads the word of its counter from the seed's block of words (:func:`_block`): a block
    is computed all at once, 256 words for about the price of 50 made one by one, and is shared by
    every stream of the seed (a clone, a stream read back from its JSON); a seed's first block starts
    with 32 words and is made whole when a draw reads past them. The words, and so every draw, are the
    plain formula's (``tests/test_rng_batch.py``)."""

    seed: int
    counter: int = 0
    practice: bool = False

    def next64(self) -> int:
        c = self.counter
        self.counter = c + 1
        try:
            return (_BLOCKS.get((self.seed, c >> _BLOCK_BITS)) or _block(self.seed, c >> _BLOCK_BITS))[c & _IN_BLOCK]
        except IndexError:  # past a short first block
            return _whole(self.seed, c >> _BLOCK_BITS)[c & _IN_BLOCK]

    def below(self, n: int, purpose: str = "draw") -> int:
        """A uniform integer in ``range(n)`` (rejection sampling, no modulo bias): :func:`_uniform`
        over :meth:`next64`, written out (playouts draw about 300 times a game)."""
        if n <= 0:
            raise ValueError("below() needs n >= 1")
        kept = LIMITS[n] if n < 256 else _SPAN - (_SPAN % n)  # limit(n), written out
        seed, c = self.seed, self.counter
        while True:
            try:
                x = (_BLOCKS.get((seed, c >> _BLOCK_BITS)) or _block(seed, c >> _BLOCK_BITS))[c & _IN_BLOCK]
            except IndexError:  # past a short first block
                x = _whole(seed, c >> _BLOCK_BITS)[c & _IN_BLOCK]
            c += 1
            if x < kept:
                self.counter = c
                return x % n

    def die(self, purpose: str = "dice") -> int:
        return self.below(6) + 1

    def choice(self, items: Sequence[T], purpose: str = "draw") -> T:
        return items[self.below(len(items))]

    def shuffle(self, items: MutableSequence[Any], purpose: str = "deal") -> None:
        """Fisher-Yates, each ``j`` drawn as :meth:`below` draws it (written out: the random
        player shuffles its movable blocks for every move). The draw for ``i`` reads the word
        ``top - i`` after the counter, unless a word before it was rejected (a chance below 2**-56
        a word, looked for all at once): then the draws go on one by one."""
        top = len(items) - 1
        if top < 1:
            return
        words = self.ahead(top)
        if top < 256 and max(words) < min(LIMITS[2:top + 2]):  # no word rejected (kept_below(top + 1), written out)
            for i, x in zip(range(top, 0, -1), words):
                j = x % (i + 1)
                items[i], items[j] = items[j], items[i]
            self.counter += top
            return
        for i in range(top, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def skip_shuffle(self, n: int) -> None:
        """The draws of :meth:`shuffle` of ``n`` items, without the items (a caller that reads only
        the stream's place after them): the counter moves on as far."""
        top = n - 1
        if top < 1:
            return
        if top < 256 and max(self.ahead(top)) < kept_below(top + 1):  # no word rejected
            self.counter += top
            return
        for i in range(top, 0, -1):
            self.below(i + 1)

    def ahead(self, k: int) -> list[int]:
        """The next ``k`` words of the stream (what ``k`` calls of :meth:`next64` would return), the
        counter left where it is: for a caller that makes many draws at once and then moves the
        counter past the words it read (each draw below ``n`` reads one word, unless the word is
        rejected: ``word >= limit(n)``)."""
        seed, c = self.seed, self.counter
        b, at = c >> _BLOCK_BITS, c & _IN_BLOCK
        block = _BLOCKS.get((seed, b)) or _block(seed, b)
        if at + k > len(block):  # past the block's end, or past a short first block's
            block = _whole(seed, b)
        words = block[at:at + k]
        while len(words) < k:
            b += 1
            words += (_BLOCKS.get((seed, b)) or _block(seed, b))[:k - len(words)]
        return words

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seed": self.seed, "counter": self.counter}
        if self.practice:
            out["practice"] = True
        return out

    def clone(self) -> Rng:
        return Rng(self.seed, self.counter, self.practice)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Rng:
        return cls(int(data["seed"]), int(data["counter"]), bool(data.get("practice", False)))


def commitment_of(secret: bytes) -> str:
    """The published commitment to a game's secret: its SHA-256, hex."""
    return hashlib.sha256(secret).hexdigest()


def draw_message(game: str, step: int, purpose: str, entropy: Sequence[str], counter: int) -> bytes:
    """The bytes HMAC-SHA256 signs for one draw (docs/envelope.md, "Dice and deals")."""
    obj = {"label": DRAW_LABEL, "game": game, "step": step, "purpose": purpose, "entropy": list(entropy),
           "counter": counter}
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


@dataclass
class KeyedStream:
    """The keyed stream of one game's step: HMAC-SHA256(secret, draw message) per 64-bit word."""

    game: str
    commitment: str
    step: int = 0
    entropy: tuple[str, ...] = ()  # "Side:submission hash" of the submissions that closed the step
    counters: dict[str, int] = field(default_factory=dict)  # purpose -> draws made (64-bit words)
    secret: bytes | None = field(default=None, repr=False, compare=False)

    @classmethod
    def new(cls, secret: bytes, game: str) -> KeyedStream:
        """The stream of a new game at step 0 (its opening deal)."""
        return cls(game, commitment_of(secret), secret=secret)

    def attach(self, secret: bytes | None) -> None:
        """Give the stream its secret (after loading a position); refuse one that is not the committed one."""
        if secret is None:
            return
        if commitment_of(secret) != self.commitment:
            raise SecretError(f"the stored secret does not match the commitment {self.commitment} published in "
                              "the first reports: the secret was changed after the game started")
        self.secret = secret

    def for_step(self, step: int, entropy: Sequence[str]) -> KeyedStream:
        """A fresh stream for resolving ``step``, keyed by the submissions that closed it."""
        return KeyedStream(self.game, self.commitment, step, tuple(entropy), {}, self.secret)

    def next64(self, purpose: str) -> int:
        if self.secret is None:
            raise SecretError(f"game {self.game}: a draw needs the game's secret (committed as {self.commitment}), "
                              "and none was given")
        n = self.counters.get(purpose, 0) + 1
        self.counters[purpose] = n
        mac = hmac.new(self.secret, draw_message(self.game, self.step, purpose, self.entropy, n), hashlib.sha256)
        return int.from_bytes(mac.digest()[:8], "big")

    def below(self, n: int, purpose: str = "draw") -> int:
        return _uniform(lambda: self.next64(purpose), n)

    def die(self, purpose: str = "dice") -> int:
        return self.below(6, purpose) + 1

    def choice(self, items: Sequence[T], purpose: str = "draw") -> T:
        return items[self.below(len(items), purpose)]

    def shuffle(self, items: MutableSequence[Any], purpose: str = "deal") -> None:
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1, purpose)
            items[i], items[j] = items[j], items[i]

    def to_json(self) -> dict[str, Any]:
        return {"kind": KEYED_KIND, "game": self.game, "commitment": self.commitment, "step": self.step,
                "entropy": list(self.entropy), "counters": dict(sorted(self.counters.items()))}

    def clone(self) -> KeyedStream:
        return KeyedStream(self.game, self.commitment, self.step, self.entropy, dict(self.counters), self.secret)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> KeyedStream:
        return cls(str(data["game"]), str(data["commitment"]), int(data.get("step", 0)),
                   tuple(str(e) for e in data.get("entropy", [])),
                   {str(k): int(v) for k, v in dict(data.get("counters", {})).items()})


def stream_from_json(data: dict[str, Any]) -> RandomStream:
    """A position's stream: keyed (``"kind"``) or SplitMix (``"seed"``)."""
    if data.get("kind") == KEYED_KIND:
        return KeyedStream.from_json(data)
    if "kind" in data:
        raise PbemError(f"the position's random stream is of kind {data['kind']!r}; this pbem reads "
                        f"{KEYED_KIND!r} or a seed")
    return Rng.from_json(data)
