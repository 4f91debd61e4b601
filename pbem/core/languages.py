"""The languages of pbem's reports and replies, and the order line that changes a player's.

The catalogs are in :mod:`pbem.locale` (``<code>/LC_MESSAGES/pbem.po``). English is the messages
themselves; Spanish and Swedish use the official rulebooks' vocabulary. Light: no Babel, no Jinja.

A submission may carry one line ``language CODE`` (``idioma`` and ``språk`` work too; CODE is
``en``, ``es`` or ``sv``, or the language's name): it changes only that player's language, from
the reports and replies made after the submission is accepted. A game's order parser skips it
(:func:`language_line`), and the store applies it (:func:`requested_language`).
"""

from __future__ import annotations

__all__ = ["DEFAULT_LANGUAGE", "LANGUAGES", "language_code", "language_line", "requested_language"]

#: The languages of the reports and replies (the rulebooks this game ships in): code -> name.
LANGUAGES: dict[str, str] = {"en": "English", "es": "Español", "sv": "Svenska"}
DEFAULT_LANGUAGE = "en"
_NAMES = {**{c: c for c in LANGUAGES}, "english": "en", "spanish": "es", "español": "es", "espanol": "es",
          "castellano": "es", "swedish": "sv", "svenska": "sv"}


def language_code(text: str) -> str:
    """``"es"``, ``"Spanish"`` or ``"español"`` -> ``"es"``; ValueError naming the languages otherwise."""
    code = _NAMES.get(text.strip().lower())
    if code is None:
        choices = ", ".join(f"{c} ({n})" for c, n in LANGUAGES.items())
        raise ValueError(f"unknown language {text.strip()!r}; pbem speaks {choices}")
    return code


#: The first word of a language line, in each language (matched without case or accents).
KEYWORDS = ("language", "idioma", "språk", "sprak")


def language_line(line: str) -> str | None:
    """The code a ``language CODE`` order line asks for; None when ``line`` is another order. A language
    line naming no known language raises ValueError saying what would be right."""
    word, _, rest = line.strip().partition(" ")
    if word.lower().rstrip(":") not in KEYWORDS:
        return None
    if not rest.strip():
        raise ValueError("write 'language CODE', like 'language es' (en, es or sv)")
    return language_code(rest)


def requested_language(lines: list[tuple[int, str]]) -> str | None:
    """The language the last valid language line of ``lines`` (``order_lines`` of a submission) asks for."""
    out = None
    for _no, line in lines:
        try:
            code = language_line(line)
        except ValueError:
            continue
        if code is not None:
            out = code
    return out
