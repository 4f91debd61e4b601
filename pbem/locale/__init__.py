"""pbem's gettext catalogs (``<code>/LC_MESSAGES/pbem.po``) and the table they are made from
(:mod:`pbem.locale.messages`); the languages themselves are :mod:`pbem.core.languages`."""

from __future__ import annotations

import gettext
import io
from functools import cache
from importlib import resources

from pbem.core.languages import DEFAULT_LANGUAGE, LANGUAGES, language_code

__all__ = ["DEFAULT_LANGUAGE", "LANGUAGES", "language_code", "translations"]


@cache
def translations(language: str) -> gettext.NullTranslations:
    """The gettext catalog of ``language`` (English: none), from its ``.po`` file through Babel."""
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}; pbem speaks {', '.join(LANGUAGES)}")
    if language == DEFAULT_LANGUAGE:
        return gettext.NullTranslations()
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po
    from babel.support import Translations

    po = resources.files("pbem") / "locale" / language / "LC_MESSAGES" / "pbem.po"
    with po.open("rb") as f:
        catalog = read_po(f, locale=language)
    buf = io.BytesIO()
    write_mo(buf, catalog)
    buf.seek(0)
    return Translations(buf)
