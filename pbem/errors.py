"""Exception hierarchy shared by every layer of pbem.

All errors a user can cause are :class:`PbemError` subclasses, and the ones about
bad input are also :class:`ValueError` (in the spirit of python-chess), one class per cause:

* :class:`InvalidOrderError`: the text is not an order at all (syntax).
* :class:`IllegalOrderError`: a well-formed order the rules forbid here (the engine raises its
  subclass :class:`IllegalChoiceError`, which names the rule).
* :class:`AmbiguousOrderError`: a name that matches more than one thing; :class:`UnknownNameError`:
  a name that matches nothing.
* :class:`pbem.core.orders.SubmissionRejected`: a whole submission refused, with every problem.
* :class:`EnvelopeError` and its kinds: a submission that cannot be read or accepted (bad signature,
  wrong credentials, wrong game, side or step).
* :class:`pbem.store.StoreError`: a game folder or game file problem the user can fix;
  :class:`pbem.games.UnknownGameError`: a game system that is not installed.

A bug in pbem itself is an :class:`EngineError`: a ``RuntimeError``, never a ``PbemError``, so it
is never reported as if the user's input were wrong (the command line shows its traceback and
exits with status 3, where a user's error exits with 1 and misuse with 2).

This module is pure (no I/O) so the rules engine may import it.
"""

from __future__ import annotations


class PbemError(Exception):
    """Base class for every error pbem reports to a user."""


class EngineError(RuntimeError):
    """pbem itself went wrong (a bug): not the user's input. Reported with its traceback."""


class BoardDataError(PbemError, ValueError):
    """The board data file is inconsistent."""


class UnknownNameError(PbemError, ValueError):
    """A location, block or card name that matches nothing."""

    def __init__(self, kind: str, name: str, suggestions: tuple[str, ...] = ()) -> None:
        self.kind = kind
        self.name = name
        self.suggestions = suggestions
        msg = f"unknown {kind} {name!r}"
        if suggestions:
            msg += "; did you mean " + " or ".join(repr(s) for s in suggestions) + "?"
        super().__init__(msg)


class IllegalOrderError(PbemError, ValueError):
    """An order that parses but is not legal in the position."""


class IllegalChoiceError(IllegalOrderError):
    """A choice the rules do not allow in this position (the engine's kind of illegal order).

    ``rule`` names the rulebook section or ruling broken (for example ``"6.11"``);
    ``legal`` optionally describes what would have been legal.
    """

    def __init__(self, message: str, rule: str = "", legal: str = "") -> None:
        self.rule = rule
        self.legal = legal
        self.reason = message
        text = message
        if rule:
            text += f" (rule {rule})"
        if legal:
            text += f"; {legal}"
        super().__init__(text)


class WrongDecisionError(IllegalChoiceError):
    """A choice that answers a decision nobody is asking for right now."""


class InvalidOrderError(PbemError, ValueError):
    """An order line that cannot be parsed."""


class AmbiguousOrderError(PbemError, ValueError):
    """An order naming something that matches more than one thing."""


class PositionFormatError(PbemError, ValueError):
    """A position (saved game state) document that cannot be loaded."""


class EnvelopeError(PbemError, ValueError):
    """A submission (JSON file or armored email text) that cannot be read or accepted."""


class KeyFormatError(EnvelopeError):
    """A private or public key that cannot be loaded."""


class KeyFileError(EnvelopeError):
    """A key file that cannot be written."""


class KeyFileExistsError(KeyFileError):
    """Refusing to overwrite an existing key file."""


class SignatureError(EnvelopeError):
    """A signature that does not verify against the orders and the registered key."""


class CredentialError(EnvelopeError):
    """Unknown player or wrong credentials.

    The message is always the same, so a reply reveals nothing about which it was.
    """

    MESSAGE = "not accepted: unknown player or wrong credentials"

    def __init__(self) -> None:
        super().__init__(self.MESSAGE)


class WrongGameError(EnvelopeError):
    """A submission addressed to another game."""


class WrongSideError(EnvelopeError):
    """A submission for the other side."""


class WrongStepError(EnvelopeError):
    """A submission answering a step that is already resolved or not open yet."""
