"""Phrases: English text that knows how to be said in another language.

A :class:`Phrase` *is* its English text (a ``str``: whatever prints, compares, joins or stores
it sees the English, byte for byte) and also carries its gettext message and named values, so a
template can say it in the reader's language (:func:`say`, the ``say`` filter of
:mod:`pbem.render`). A value may itself be a Phrase (a side's name, a cause): it is said in the
same language.

A game's log holds English event texts (they are in every game file, hash-chained). :class:`Patterns`
turns such a text back into a Phrase: each message (``"%(side)s attacks %(loc)s"``) is also the
pattern its English text fits, so the Phrase found says the text exactly in English, and works for
the events of games stored before pbem spoke other languages. A text no pattern fits stays a
plain ``str`` (English), which the translation tests catch.

Messages are marked for extraction (``python -m pbem.locale.messages``) by :func:`N_`,
:class:`Phrase` with a literal first argument; a message with no words of its own (``joined``)
needs no translation (:func:`wordless`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Protocol

__all__ = ["N_", "Patterns", "Phrase", "joined", "say", "wordless"]

_PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def N_(msg: str) -> str:  # noqa: N802 - the gettext convention for "mark, translate later"
    """Mark ``msg`` as a message (for the extractor); returns it unchanged."""
    return msg


class Phrase(str):
    """English text (the ``str`` value) with its message and values, to be said in any language."""

    msg: str
    args: Mapping[str, Any]

    def __new__(cls, msg: str, /, **args: Any) -> Phrase:
        self = super().__new__(cls, msg % args)
        self.msg, self.args = msg, dict(args)
        return self

    def __reduce__(self) -> tuple[Any, ...]:  # copy and pickle keep the message and values
        return (_remake, (self.msg, self.args))

    def parts(self) -> Iterator[Phrase]:
        """This Phrase and every Phrase among its values, at any depth."""
        yield self
        for v in self.args.values():
            if isinstance(v, Phrase):
                yield from v.parts()


def _remake(msg: str, args: Mapping[str, Any]) -> Phrase:
    return Phrase(msg, **args)


def wordless(msg: str) -> bool:
    """Whether ``msg`` has no words of its own (only placeholders and punctuation): said as it is."""
    return not re.search(r"[^\W\d_]", _PLACEHOLDER.sub("", msg))


def joined(items: Sequence[str], sep: str = ", ") -> str:
    """``items`` joined by ``sep`` (no words of its own): a Phrase whose items are said each in the
    reader's language."""
    if not any(isinstance(i, Phrase) for i in items):
        return sep.join(items)
    msg = sep.replace("%", "%%").join(f"%(i{k})s" for k in range(len(items)))
    return Phrase(msg, **{f"i{k}": item for k, item in enumerate(items)})


class _Catalog(Protocol):
    def gettext(self, message: str) -> str: ...


def say(value: Any, catalog: _Catalog) -> str:
    """``value`` in the language of ``catalog``: a Phrase translated (its values too), anything else
    as it is (a name, a number, an English text no pattern knew)."""
    if not isinstance(value, Phrase):
        return value if isinstance(value, str) else str(value)
    args = {k: say(v, catalog) if isinstance(v, str) else v for k, v in value.args.items()}
    return catalog.gettext(value.msg) % args


def _regex(msg: str, kinds: Mapping[str, str], default: str = ".+?") -> re.Pattern[str]:
    out, pos, seen = [], 0, set()
    for m in _PLACEHOLDER.finditer(msg):
        out.append(re.escape(msg[pos:m.start()].replace("%%", "%")))
        name = m.group(1)
        out.append(f"(?P={name})" if name in seen else f"(?P<{name}>{kinds.get(name, default)})")
        seen.add(name)
        pos = m.end()
    out.append(re.escape(msg[pos:].replace("%%", "%")))
    return re.compile("".join(out), re.S)


class Patterns:
    """Messages whose English texts can be read back into Phrases.

    ``kinds`` gives a placeholder's regular expression by name (``default``: any text); ``sides`` names
    the placeholders that hold a side (said as the side's name in prose); ``nested`` maps a
    placeholder to the Patterns its text must fit (a cause, a reason), so that a text fits only when
    every part of it can be said in another language.
    """

    def __init__(self, messages: Iterable[str], *, kinds: Mapping[str, str] | None = None,
                 sides: Iterable[str] = (), side_names: Iterable[str] = (),
                 nested: Mapping[str, Callable[[], Patterns]] | None = None, default: str = ".+?") -> None:
        self.sides = frozenset(sides)
        self.side_names = tuple(side_names)
        side_re = "|".join(re.escape(s) for s in self.side_names) or ".+?"
        self.kinds = {**{s: side_re for s in self.sides}, **(kinds or {})}
        self.nested = dict(nested or {})
        self.messages = tuple(messages)
        self._compiled = [(m, _regex(m, self.kinds, default)) for m in self.messages]

    def side(self, name: str) -> str:
        """A side's name as a Phrase (translated in prose), anything else as it is."""
        return Phrase(name) if name in self.side_names else name

    def read(self, text: str) -> Phrase | None:
        """The Phrase of ``text`` (its English is ``text`` exactly), or None when no message fits."""
        for msg, rx in self._compiled:
            m = rx.fullmatch(text)
            if m is None:
                continue
            args: dict[str, Any] = {}
            for name, value in m.groupdict().items():
                if name in self.sides:
                    args[name] = self.side(value)
                elif name in self.nested:
                    inner = self.nested[name]().read(value)
                    if inner is None:
                        break
                    args[name] = inner
                else:
                    args[name] = value
            else:
                p = Phrase(msg, **args)
                if p == text:
                    return p
        return None
