"""The order line by which a player chooses which steps he gets a report mail for.

By default the reports of the steps that ask nothing of a player are folded into his next mail that
asks something (``pbem mailing``). A submission may carry one line ``mailing every step`` (a mail at
every step) or ``mailing fold`` (back to the default), like the ``language`` line
(:mod:`pbem.core.languages`): it changes only that player's choice, from the mails made after the
submission is accepted, and is no order of the game. The words of the Spanish and Swedish players
work too (``correo cada etapa`` / ``correo agrupar``, ``utskick varje etapp`` / ``utskick samla``),
matched without case or accents.
"""

from __future__ import annotations

import unicodedata

__all__ = ["KEYWORDS", "mailing_line", "requested_folding"]

#: The first word of a mailing line, in each language.
KEYWORDS = ("mailing", "correo", "utskick")
_EVERY = ("every step", "each step", "cada etapa", "todas las etapas", "varje etapp", "alla etapper")
_FOLD = ("fold", "folded", "agrupar", "agrupado", "samla", "samlat")


def _plain(text: str) -> str:
    text = unicodedata.normalize("NFKD", text.lower())
    text = "".join(c for c in text if not unicodedata.combining(c)).replace("-", " ").replace("_", " ")
    return " ".join(text.split())


def mailing_line(line: str) -> bool | None:
    """Whether a ``mailing ...`` order line asks for folding (True) or a mail at every step (False);
    None when ``line`` is another order. A mailing line with another choice raises ValueError saying
    what would be right."""
    word, _, rest = line.strip().partition(" ")
    if _plain(word).rstrip(":") not in KEYWORDS:
        return None
    choice = _plain(rest).rstrip(".")
    if choice in _EVERY:
        return False
    if choice in _FOLD:
        return True
    said = f"{rest.strip()!r} is not a choice; " if rest.strip() else ""
    raise ValueError(f"{said}write 'mailing every step' (a report mail at every step) or 'mailing fold' "
                     "(only for the steps that ask something of you, the default)")


def requested_folding(lines: list[tuple[int, str]]) -> bool | None:
    """The choice the last valid mailing line of ``lines`` (``order_lines`` of a submission) asks for."""
    out = None
    for _no, line in lines:
        try:
            choice = mailing_line(line)
        except ValueError:
            continue
        if choice is not None:
            out = choice
    return out
