"""pbem's gettext catalogs (``<code>/LC_MESSAGES/pbem.po``) and the table they are made from
(:mod:`pbem.locale.translations`); the languages themselves are :mod:`pbem.core.languages`."""

from pbem.core.languages import DEFAULT_LANGUAGE, LANGUAGES, language_code

__all__ = ["DEFAULT_LANGUAGE", "LANGUAGES", "language_code"]
