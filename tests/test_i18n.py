"""Reports in English, Spanish and Swedish: complete catalogs, every template in every language."""

from __future__ import annotations

import re
from importlib import resources

import pytest
from babel.messages.pofile import read_po
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import play_random
from pbem.core.rng import Rng
from pbem.games.caesar.rules.board import Side
from pbem.games.caesar.rules.game import new_game
from pbem.games.caesar.view.render import view_context
from pbem.games.caesar.view.views import NextStep, build_view
from pbem.locale.messages import LANGS, extract
from pbem.render import LANGUAGES, render

PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def _catalog(lang: str):  # type: ignore[no-untyped-def]
    po = resources.files("pbem") / "locale" / lang / "LC_MESSAGES" / "pbem.po"
    with po.open("rb") as f:
        return read_po(f, locale=lang)


@pytest.mark.parametrize("lang", LANGS)
def test_every_message_of_every_template_has_a_translation(lang: str) -> None:
    cat = _catalog(lang)
    messages = extract()
    assert len(messages) > 60
    for msg, where in messages:
        key = msg[0] if isinstance(msg, tuple) else msg
        entry = cat.get(key)
        assert entry is not None, f"{where}: {key!r} is not in the {lang} catalog (python -m pbem.locale.messages)"
        forms = list(entry.string) if isinstance(entry.string, tuple) else [entry.string]
        ids = list(msg) if isinstance(msg, tuple) else [msg]
        assert all(forms), f"{where}: {key!r} has no {lang} translation"
        for form in forms:  # the same placeholders, or the rendering would fail or lose a value
            assert set(PLACEHOLDER.findall(form)) == set(PLACEHOLDER.findall(ids[-1])), (lang, key, form)
    assert set(LANGUAGES) == {"en", *LANGS}


def _views():  # type: ignore[no-untyped-def]
    """Views that use every part of the templates: battles with dice, odds, since, last seen, next step."""
    out = []
    for seed in (3, 4):
        g = new_game(seed, rng=Rng(seed, practice=True))
        log = list(g.events)
        before, since = g.copy(), 0
        play_random(g, Rng(seed), log=log, until=lambda g, log: sum(e.kind == "battle-end" for e in log) >= 2)
        step = NextStep(4, "command", "2026-12-01 12:00 UTC", ("Caesar",), (("move", "Legio 8: Genua -> Roma"),))
        for viewer in (*Side, None):
            out.append(build_view(g, log, viewer, since=since, next_step=step, report_id="abc", previous=before))
        out.append(build_view(g, log, Side.POMPEY, since=len(log)))
    return out


@pytest.mark.parametrize("lang", sorted(LANGUAGES))
def test_every_template_renders_in_every_language(lang: str) -> None:
    english = _catalog("es")  # every msgid
    for view in _views():
        for fmt in ("text", "html"):
            out = render("caesar", view_context(view, fmt), language=lang)
            en = render("caesar", view_context(view, fmt))
            if lang == "en":
                assert out == en
                continue
            for entry in english:
                if not entry.id or isinstance(entry.id, tuple) or len(entry.id) < 12 or "%" in entry.id:
                    continue
                # the game's own event texts stay English (they may hold the same words): every use the
                # template makes of a message is translated, so the translation has fewer of them
                n = en.count(entry.id)
                assert n == 0 or out.count(entry.id) < n, f"{lang} {fmt}: untranslated {entry.id!r}"
    assert 'lang="' + lang + '"' in render("caesar", view_context(_views()[0], "html"), language=lang)


def test_spanish_and_swedish_reports_use_the_rulebooks_words() -> None:
    view = _views()[0]
    es = render("caesar", view_context(view, "text"), language="es")
    sv = render("caesar", view_context(view, "text"), language="sv")
    assert "\nCARTAS\n" in es and "turno de juego" in es and "QUÉ DEBES ENVIAR AHORA" in es
    assert "\nKORT\n" in sv and ", drag " in sv and "DETTA SKA DU SKICKA NU" in sv
    assert "Etapa 4" in es and "Etapp 4" in sv  # a pbem step: never paso / steg (strength steps)


def test_an_unknown_language_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="unknown language 'de'; pbem speaks en, es, sv"):
        render("caesar", view_context(_views()[0], "text"), language="de")


# ---- per player: pbem new --language, the order line `language xx`, old files ----------------------


def _cards(session, side: Side) -> str:  # type: ignore[no-untyped-def]
    hand = sorted(set(c for c in session.game.state.hands[side] if "/" in c))
    return f"discard {hand[0]}\nplay {hand[1]}\n"


def test_each_player_reads_his_own_language_and_changes_it_with_an_order_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from dataclasses import replace

    from pbem.envelope import generate_keypair
    from pbem.store import GameSetup, Home, PlayerSetup, Verdict
    from store_helpers import signed

    keys = {s: generate_keypair() for s in Side}
    players = tuple(replace(PlayerSetup(s, f"{s.value.lower()}@example.org", public_key=keys[s].public_text),
                            language="es" if s is Side.POMPEY else "en") for s in Side)
    Home(tmp_path).create(GameSetup("g", players, seed=7)).close()
    with Home(tmp_path).open("g") as st:
        assert "\nCARTAS\n" in (st.report("Pompey").body or "")
        assert "\nCARDS\n" in (st.report("Caesar").body or "") and "\nCARDS\n" in (st.report("moderator").body or "")
        s = st.adjudication().session
        bad = st.receive(signed(keys, Side.POMPEY, 1, "language de\n" + _cards(s, Side.POMPEY)))
        assert bad.verdict is Verdict.REJECTED
        assert [e["line"] for e in bad.errors] == [1] and "unknown language 'de'" in bad.errors[0]["message"]
        ok = st.receive(signed(keys, Side.POMPEY, 1, "# in Swedish from now on\nlanguage sv\n" + _cards(s, Side.POMPEY)))
        assert ok.verdict is Verdict.ACCEPTED
        assert st.receive(signed(keys, Side.CAESAR, 1, _cards(s, Side.CAESAR))).resolved
        assert {p.side: p.language for p in st.players()} == {"Caesar": "en", "Pompey": "sv"}
        assert "\nKORT\n" in (st.report("Pompey").body or "")  # step 2: after the change
        assert "\nCARTAS\n" in (st.report("Pompey", step=1).body or "")  # step 1 stays as it was sent
        assert "\nCARDS\n" in (st.report("Caesar").body or "")
        assert st.verify().ok  # every report re-rendered in the language it was sent in


def test_replies_to_a_mailed_submission_come_in_the_players_language(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from dataclasses import replace

    from pbem.envelope import generate_keypair
    from pbem.store import GameSetup, Home, PlayerSetup
    from store_helpers import signed

    keys = {s: generate_keypair() for s in Side}
    players = tuple(replace(PlayerSetup(s, f"{s.value.lower()}@example.org", public_key=keys[s].public_text),
                            language="es" if s is Side.POMPEY else "en") for s in Side)
    Home(tmp_path).create(GameSetup("g", players, seed=7)).close()
    with Home(tmp_path).open("g") as st:
        s = st.adjudication().session
        st.receive(signed(keys, Side.POMPEY, 1, "play Caesar\n"), "mbox:inbox#1")
        st.receive(signed(keys, Side.POMPEY, 1, "idioma sv\n" + _cards(s, Side.POMPEY)), "mbox:inbox#2")
        st.receive(signed(keys, Side.CAESAR, 1, "play Pompey\n"), "mbox:inbox#3")
        replies = st.outbox(kind="reply")
        by = {(r.recipient, r.submission_id): r for r in replies}
        es, sv, en = by[("Pompey", 1)], by[("Pompey", 2)], by[("Caesar", 3)]
        assert es.subject == "[g] etapa 1: tu envío n.º 1: rechazado"
        assert (es.body or "").startswith("Partida g, etapa 1, envío n.º 1: rechazado: ") and "  línea 1: " in (es.body or "")
        assert sv.subject == "[g] etapp 1: ditt inskick nr 2: godkänt"  # his language line counts at once
        assert "har tagits emot; de förblir förseglade" in (sv.body or "")
        assert en.subject == "[g] step 1: your submission #3: rejected" and "  line 1: " in (en.body or "")


def test_a_game_file_made_before_languages_opens_with_english_for_everyone(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import sqlite3

    from pbem.store import Home
    from store_helpers import make_game

    make_game(tmp_path)
    db = sqlite3.connect(tmp_path / "g.db")
    for table in ("player", "outbox"):
        db.execute(f"ALTER TABLE {table} DROP COLUMN language")
    db.commit()
    db.close()
    with Home(tmp_path).open("g") as st:
        assert {p.language for p in st.players()} == {"en"}
        assert st.verify().ok
        assert "\nCARDS\n" in (st.report("Pompey").body or "")


def test_pbem_new_language_option(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from click.testing import CliRunner

    from pbem.cli import main
    from pbem.envelope import generate_keypair
    from pbem.store import Home

    for s in ("c", "p"):
        (tmp_path / f"{s}.pub").write_text(generate_keypair().public_text + "\n")
    base = ["--home", str(tmp_path / "home"), "new", "g", "--seed", "3", "--player", "Caesar=c@example.org",
            "--key", f"Caesar={tmp_path / 'c.pub'}", "--player", "Pompey=p@example.org",
            "--key", f"Pompey={tmp_path / 'p.pub'}"]
    r = CliRunner().invoke(main, base + ["--language", "Pompey=de"])
    assert r.exit_code == 2 and "--language Pompey=de: unknown language 'de'" in r.output
    r = CliRunner().invoke(main, base + ["--language", "pompey=Svenska", "--language", "Caesar=es"])
    assert r.exit_code == 0, r.output
    with Home(tmp_path / "home").open("g") as st:
        assert {p.side: p.language for p in st.players()} == {"Caesar": "es", "Pompey": "sv"}
        assert "\nKORT\n" in (st.report("Pompey").body or "") and "\nCARTAS\n" in (st.report("Caesar").body or "")


# ---- the order language in Spanish and Swedish ------------------------------------------------------

RULEBOOK_EXAMPLES = [  # the examples of the terms list, as a Spanish and a Swedish player type them
    ("descartar Vulcano", "discard Vulcan"), ("kasta Vulcan", "discard Vulcan"),
    ("jugar 3/2", "play 3/2"), ("spela 3/2", "play 3/2"),
    ("mover Genua -> Roma: Legio 8, Antonius", "move Genua -> Roma: Legio 8, Antonius"),
    ("flytta Genua -> Roma: Legio 8, Antonius", "move Genua -> Roma: Legio 8, Antonius"),
    ("anfibio Ravenna -> Mare Hadriaticum -> Brundisium: Legio 13", "sea Ravenna -> Mare Hadriaticum -> Brundisium: Legio 13"),
    ("skeppa Ravenna -> Mare Hadriaticum -> Brundisium: Legio 13", "sea Ravenna -> Mare Hadriaticum -> Brundisium: Legio 13"),
    ("principal Roma desde Genua", "main Roma from Genua"), ("huvud Roma från Genua", "main Roma from Genua"),
    ("leva Auxilia 1 en Massilia", "levy Auxilia 1 at Massilia"), ("rekrytera Auxilia 1 vid Massilia", "levy Auxilia 1 at Massilia"),
    ("leva paso Legio 13", "levy step Legio 13"), ("rekrytera steg Legio 13", "levy step Legio 13"),
    ("júpiter Tarraco -> Narbo", "jupiter Tarraco -> Narbo"),
    ("ningún evento", "no event"), ("NINGUN evento", "no event"), ("ingen händelse", "no event"),
    ("batalla Roma: retirar ronda 3 cuando inferior todos -> naval Genua", "battle Roma: retreat round 3 when weaker all -> sea Genua"),
    ("strid Roma: retirera rond 3 om svagare alla -> hav Genua", "battle Roma: retreat round 3 when weaker all -> sea Genua"),
    ("invierno: disolver Legio 8", "winter: disband Legio 8"), ("vinter: upplös Legio 8", "winter: disband Legio 8"),
    ("desplegar Ravenna: Caesar, Legio 8, Navis 2", "deploy Ravenna: Caesar, Legio 8, Navis 2"),
    ("placera Ravenna: Caesar, Legio 8, Navis 2", "deploy Ravenna: Caesar, Legio 8, Navis 2"),
    ("slå Legio 8", "fire Legio 8"), ("disparar Legio 8", "fire Legio 8"), ("passa", "pass"), ("pasar", "pass"),
    ("batallas Roma, Genua", "battles Roma, Genua"), ("strider Roma, Genua", "battles Roma, Genua"),
    ("batalla Roma: impactos Legio 8", "battle Roma: hits Legio 8"), ("strid Roma: ordning Legio 8", "battle Roma: order Legio 8"),
    ("reagrupar Roma: Legio 8 -> Genua", "regroup Roma: Legio 8 -> Genua"), ("sorpresa Roma", "surprise Roma"),
]


@pytest.mark.parametrize(("localized", "english"), RULEBOOK_EXAMPLES)
def test_spanish_and_swedish_keywords_give_the_english_order(localized: str, english: str) -> None:
    from pbem.games.caesar.orders.language import parse_order

    assert parse_order(localized, Side.CAESAR) == parse_order(english, Side.CAESAR)
    assert parse_order(english.upper() if english.islower() else english, Side.CAESAR)  # English works as ever


def test_no_keyword_is_a_word_of_any_name() -> None:
    """A keyword replaced inside a place, block or card name would change the order: none is one."""
    from pbem.games.caesar.orders.language import _KEYWORDS, _PHRASES, _WORD, _plain
    from pbem.games.caesar.rules.board import block_aliases, default_board

    board = default_board()
    names = [n for sp in board.spaces.values() for n in (sp.name, *sp.aliases)]
    names += [n for info in board.blocks.values() for n in (info.name, *block_aliases(info))]
    names += [c.name for c in board.cards]
    words = {_plain(w) for n in names for w in _WORD.findall(n)}
    assert len(words) > 100
    keywords = set(_KEYWORDS) | {w for pair in _PHRASES for w in pair}
    assert not (keywords - {"jupiter"}) & words, (keywords - {"jupiter"}) & words  # the card is the order's own name


def test_the_html_report_escapes_the_shared_phrases() -> None:
    import dataclasses

    from pbem.games.caesar.view.viewmodel import Losses, Odds, Tally

    view = _views()[0]
    assert view.changes is not None
    odd = dataclasses.replace(view, changes=dataclasses.replace(view.changes, moves=(Tally("<b>X</b>", False, 2, "A & B"),)),
                              odds=(Odds("Roma", 200, 50, (Losses("<i>Y</i>", False, "1.0", "0.5"),), ()),))
    for lang in sorted(LANGUAGES):
        html = render("caesar", view_context(odd, "html"), language=lang)
        assert "<b>X</b>" not in html and "&lt;b&gt;X&lt;/b&gt; 2" in html and "A &amp; B" in html
        assert "<i>Y</i>" not in html and "&lt;i&gt;Y&lt;/i&gt;" in html


def _name_words() -> list[str]:
    from pbem.games.caesar.rules.board import block_aliases, default_board

    board = default_board()
    names = [n for sp in board.spaces.values() for n in (sp.name, *sp.aliases)]
    names += [n for info in board.blocks.values() for n in (info.name, *block_aliases(info))]
    return sorted(set(names + [c.name for c in board.cards]))


ENGLISH_WORDS = ["play", "discard", "deploy", "move", "sea", "main", "from", "levy", "at", "step", "jupiter",
                 "vulcan", "no event", "surprise", "none", "pass", "battles", "battle", "retreat", "round",
                 "when weaker", "all", "hits", "order", "regroup", "winter:", "navis", "disband", "fire", "hit"]


@given(st.lists(st.sampled_from(_name_words() + ENGLISH_WORDS + ["->", ":", ",", "3", "Legio 8"]), max_size=12))
@settings(max_examples=300, deadline=None)
def test_an_english_line_is_left_as_it_is(parts: list[str]) -> None:
    """Spanish and Swedish keywords never touch English keywords or any name: an English line is unchanged."""
    from pbem.games.caesar.orders.language import english_keywords

    line = " ".join(parts)
    assert english_keywords(line) == line


@given(st.text(max_size=40))
@settings(max_examples=300, deadline=None)
def test_keyword_translation_never_fails_and_is_stable(text: str) -> None:
    from pbem.games.caesar.orders.language import english_keywords

    once = english_keywords(text)
    assert english_keywords(once) == once


# ---- what the game writes itself: event lines, the phase, the result, the defaults -------------------


def _said(view) -> list[str]:  # type: ignore[no-untyped-def]
    """Every sentence of ``view`` the game wrote (not a template): what must be said in the reader's language."""
    out = [view.phase_text, *view.eliminated, *view.defaults]
    out += [view.result] if view.result else []
    out += [view.fairness] if view.fairness else []
    for e in view.happened:
        if e.battle is None:
            out.append(e.text)
            continue
        out += list(e.battle.opening) + [line.text for r in e.battle.rounds for line in r.lines]
        out += [line.text for line in e.battle.outcome]
    return out


def _game_views(seed: int, every: int = 25):  # type: ignore[no-untyped-def]
    """A random game played to its end, with every side's report (and the moderator's) every few decisions."""
    g = new_game(seed, rng=Rng(seed, practice=True))
    log = list(g.events)
    views, since = [], {s: 0 for s in (*Side, None)}

    def each(g, log, n):  # type: ignore[no-untyped-def]
        if n % every == 0 or g.is_over():
            for viewer in since:
                views.append(build_view(g, log, viewer, since=since[viewer]))
                since[viewer] = len(log)

    play_random(g, Rng(seed), log=log, each=each)
    for viewer in since:
        views.append(build_view(g, log, viewer, since=since[viewer]))
    return g, log, views


@pytest.mark.parametrize("seed", [1, 5, 11])
def test_every_line_the_game_writes_is_said_in_spanish_and_swedish(seed: int) -> None:
    """Event lines, battles, the phase, the result: each is a Phrase whose messages (and those of its
    parts: a cause, a reason, a side) are all in both catalogs, and its English is the event's text."""
    from pbem.core.phrase import Phrase, wordless
    from pbem.games.caesar.view.phrases import event_phrase

    g, log, views = _game_views(seed)
    assert g.is_over()
    catalogs = {lang: _catalog(lang) for lang in LANGS}
    for e in log:
        said = event_phrase(e)
        assert said == e.text  # English: byte for byte the event's own text
        for part in said.parts() if isinstance(said, Phrase) else ():  # no words read as a name
            assert not {"a block", "a Navis"} & set(map(str, part.args.values())), (e.text, part.msg)
    kinds = set()
    for view in views:
        for text in _said(view):
            assert isinstance(text, Phrase), f"left in English: {text!r}"
            for part in text.parts():
                kinds.add(part.msg)
                if wordless(part.msg):
                    continue
                for lang, cat in catalogs.items():
                    entry = cat.get(part.msg)
                    assert entry is not None and entry.string, f"{lang}: no translation of {part.msg!r}"
    assert len(kinds) > 40
    for lang in LANGS:  # and the report says them: no English sentence of the game is left
        text = "\n".join(render("caesar", view_context(v, "text"), language=lang) for v in views[-6:])
        for english in (" attacks ", " commands: ", " is Player 1 ", " wins", "Game over", "Victory points",
                        " levies ", " moves ", " fires", " passes", " retreats ", "Battle of ", "Winter of ",
                        "begins: six cards", "has finished its command", "PRACTICE GAME"):
            assert english not in text, (lang, english)
        assert not re.search(r"\ba (block|Navis)\b", text), (lang, re.search(r".*\ba (block|Navis)\b.*", text))


def test_every_event_kind_the_game_emits_has_its_messages() -> None:
    """An event kind the engine emits is either grouped into a line (moves, levies...) or has messages:
    a new kind without them would reach a Spanish report in English."""
    from pbem.core.phrase import Phrase
    from pbem.games.caesar.view.history import _GROUPED
    from pbem.games.caesar.view.phrases import event_phrase, known_kinds

    seen: dict[str, str] = {}
    for seed in (1, 2, 3, 5, 8, 13):
        g = new_game(seed, rng=Rng(seed, practice=True))
        for e in play_random(g, Rng(seed), log=list(g.events)):
            seen.setdefault(e.kind, e.text)
            if e.kind not in _GROUPED - {"disband"} | {"reveal", "battle"}:  # those two: built from their data
                assert isinstance(event_phrase(e), Phrase), (e.kind, e.text)
    assert set(seen) - set(known_kinds()) <= _GROUPED | {"reveal", "battle"}, sorted(set(seen) - known_kinds())
    assert {"move", "levy", "battle", "fire", "hit", "retreat", "battle-end", "command", "year", "winter"} <= set(seen)


def test_a_spanish_report_sent_before_the_game_spoke_spanish_is_kept_as_sent(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Spanish and Swedish reports now say the game's own sentences too: one rendered before (its event
    lines in English) cannot be made again, so verify keeps it as sent; English reports are compared as ever."""
    import sqlite3
    from dataclasses import replace

    from pbem.envelope import generate_keypair
    from pbem.store import GameSetup, Home, PlayerSetup

    keys = {s: generate_keypair() for s in Side}
    players = tuple(replace(PlayerSetup(s, f"{s.value.lower()}@example.org", public_key=keys[s].public_text),
                            language="es" if s is Side.POMPEY else "en") for s in Side)
    Home(tmp_path).create(GameSetup("g", players, seed=7)).close()
    with Home(tmp_path).open("g") as st:
        assert st.verify().ok
    db = sqlite3.connect(tmp_path / "g.db")
    renderers = dict(db.execute("SELECT recipient || ' ' || format, renderer FROM outbox WHERE kind = 'report'"))
    assert renderers["Pompey text"].endswith("; es 2") and not renderers["Caesar text"].endswith("2")
    old = renderers["Caesar text"]  # what an es report was stamped with before
    db.execute("UPDATE outbox SET renderer = ? WHERE recipient = 'Pompey' AND kind = 'report'", (old,))
    db.commit()
    db.close()
    with Home(tmp_path).open("g") as st:
        result = st.verify()
        assert result.ok and any("2 reports were rendered by an earlier version" in n for n in result.notes), result.notes


def _assert_said(text: str, catalogs) -> set[str]:  # type: ignore[no-untyped-def]
    """``text`` is a Phrase whose every message is in every catalog; returns its messages."""
    from pbem.core.phrase import Phrase, wordless

    assert isinstance(text, Phrase), f"left in English: {text!r}"
    out = set()
    for part in text.parts():
        out.add(part.msg)
        if not wordless(part.msg):
            for lang, cat in catalogs.items():
                entry = cat.get(part.msg)
                assert entry is not None and entry.string, f"{lang}: no translation of {part.msg!r}"
    return out


def test_the_step_and_what_to_send_next_are_said_in_spanish_and_swedish() -> None:
    """A step's title and the grouped "what to send next" (headings and hint lines; the example
    orders stay English, which every language accepts) in random positions of every kind of step."""
    from pbem.games.caesar.orders.nextstep import next_step_groups
    from pbem.games.caesar.rules.autoplay import random_orders
    from pbem.games.caesar.rules.state import Options
    from pbem.games.caesar.steps.session import Session, StepKind

    catalogs = {lang: _catalog(lang) for lang in LANGS}
    kinds, messages = set(), set()
    for seed in range(4):
        s = Session(new_game(seed, Options()))
        rng = Rng(seed + 1000)
        for _ in range(60):
            step = s.step()
            if step.kind is StepKind.OVER:
                break
            kinds.add(step.kind)
            messages |= _assert_said(step.title, catalogs)
            for side in step.awaiting:
                for label, body in next_step_groups(s, side):
                    messages |= _assert_said(label, catalogs)
                    if not label.startswith("example"):  # an example is an order line to copy
                        for line in (body.args.values() if hasattr(body, "args") else [body]):
                            if line != "pass":
                                messages |= _assert_said(line, catalogs)
                s.submit(side, random_orders(s, side, rng))
    assert {StepKind.YEAR_START, StepKind.CARD, StepKind.COMMAND, StepKind.BATTLES, StepKind.WINTER} <= kinds
    assert len(messages) > 20


def test_the_problems_of_a_rejected_submission_are_said_in_the_players_language(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The reply's reason and the most frequent problems (a name misspelt, an order for another step)
    in Spanish; the English reply of the same problems is as it always was."""
    from dataclasses import replace

    from pbem.envelope import generate_keypair
    from pbem.store import GameSetup, Home, PlayerSetup
    from store_helpers import signed

    keys = {s: generate_keypair() for s in Side}
    players = tuple(replace(PlayerSetup(s, f"{s.value.lower()}@example.org", public_key=keys[s].public_text),
                            language="es" if s is Side.POMPEY else "en") for s in Side)
    Home(tmp_path).create(GameSetup("g", players, seed=7)).close()
    bad = "discard Vulcanus\nplay 3/1\nmove Genua -> Roma: Legio 8\n"
    with Home(tmp_path).open("g") as st:
        st.receive(signed(keys, Side.POMPEY, 1, bad), "mbox:inbox#1")
        st.receive(signed(keys, Side.CAESAR, 1, bad), "mbox:inbox#2")
        by = {r.recipient: r.body or "" for r in st.outbox(kind="reply")}
    es, en = by["Pompey"], by["Caesar"]
    assert "rechazado: 2 errores; no se ha aplicado nada" in es, es
    assert "nombre desconocido (carta): 'Vulcanus'; ¿quisiste decir 'Vulcan'" in es, es
    assert "esta es la etapa 1, Comienza el Año 705" in es and "corresponde a tu etapa de mando" in es, es
    assert "errors; nothing was applied" in en and "unknown card 'Vulcanus'; did you mean 'Vulcan'" in en
    assert "this is step 1, Year 705 starts: discard 1 card and play 1 card; this order belongs to your command step" in en


# bad order lines of every kind: misspelt names, unknown places, orders for another step, too many moves,
# bad battle plans, cards not held, duplicate lines, and each order kind written wrong
BAD_SUBMISSIONS = (
    "discard Vulcanus", "play 3/1", "discard", "play", "discard Vulcan\ndiscard Vulcan", "play Mars\nplay Mars",
    "move Genua -> Roma: Legio 8", "move Genua -> Romaa: Legio 8", "move Genua Roma Legio 8", "move", "move -> : ",
    "move Genua -> Roma", "levy", "levy Legio 99 in Roma", "levy Legio 8 in Roma", "levy Navis 1 in Roma",
    "levy Pompey in Roma", "fight Roma", "battles", "battles Romaa", "battle", "battle Roma: charge",
    "battle Roma: retreat round 7 all -> Genua", "battle Roma: retreat round 1 all -> Genua", "retreat Caesar to Roma",
    "retreat", "regroup Caesar to Roma", "hit Caesar", "winter Caesar in Roma", "winter: navis", "deploy Caesar in Roma",
    "jupiter", "jupiter Roma", "vulcan Roma", "sea", "sea Roma -> Genua: Navis 1", "main", "frobnicate", "x",
    "move Roma -> Genua -> Massilia -> Narbo -> Tarraco: Pompey", "move Roma -> Neapolis: Legio 1, Legio 1",
    "move Roma -> Neapolis: Pompey\nmove Roma -> Neapolis: Pompey",
)


def _variants(line: str) -> tuple[str, ...]:
    """A legal order line written wrong: a letter too many, a space missing, cut short, sent twice."""
    return (line + "x", line.replace(" ", "", 1), line[:-2], f"{line}\n{line}", line.split(" ")[0])


def test_every_problem_of_an_order_line_is_said_in_spanish_and_swedish() -> None:
    """The problems of many bad submissions in random positions of every kind of step are Phrases
    whose every message has a translation, and no Spanish or Swedish text of them is the English."""
    from pbem.core.orders import SubmissionRejected
    from pbem.core.phrase import say
    from pbem.games.caesar.system import SYSTEM
    from pbem.locale import translations

    catalogs = {lang: _catalog(lang) for lang in LANGS}
    said = {lang: translations(lang) for lang in LANGS}
    seen: set[str] = set()
    for seed in range(2):
        adj, _ = SYSTEM.start(seed, {})
        for i in range(45):
            step = adj.step()
            if step.over:
                break
            for side in step.awaiting:
                good = SYSTEM.random_orders(adj, side, seed * 1000 + i)
                texts = BAD_SUBMISSIONS + tuple(v for ln in good.splitlines() for v in _variants(ln))
                for text in texts:
                    problems = list(adj.warnings(side, text))
                    try:
                        adj.check(side, text)
                    except SubmissionRejected as exc:
                        problems += exc.errors
                    for p in problems:
                        if p.message in seen:
                            continue
                        seen.add(p.message)
                        _assert_said(p.message, catalogs)
                        for lang in LANGS:
                            assert say(p.message, said[lang]) != p.message, f"{lang}: {p.message!r} left in English"
                adj.submit(side, good)
    assert len(seen) > 100


def test_the_club_lines_problems_are_said_in_spanish_and_swedish() -> None:
    """A control line that does not stand alone, an absence written wrong, a draw accepted that nobody
    offered, a control line after the game: said in the player's language; English as it always was."""
    from pbem.control import Control, apply_control, find_control
    from pbem.core.orders import SubmissionRejected
    from pbem.core.phrase import say
    from pbem.games.caesar.system import SYSTEM
    from pbem.locale import translations

    catalogs = {lang: _catalog(lang) for lang in LANGS}
    problems = []
    for lines in (["resign", "play Mars"], ["away until tomorrow"]):
        with pytest.raises(SubmissionRejected) as exc:
            find_control(lines)
        problems += exc.value.errors
    adj, _ = SYSTEM.start(1, {})
    with pytest.raises(SubmissionRejected) as exc:
        apply_control(adj, ("Caesar", "Pompey"), "Pompey", Control("accept draw", 1), {})
    problems += exc.value.errors
    assert problems[0].message == ("`resign` stands alone: send `resign` on its own (it is not an order of the game), "
                                   "and your orders in a submission of their own")
    assert problems[-1].message.startswith("no draw offer of Caesar stands")
    for p in problems:
        _assert_said(p.message, catalogs)
        for lang in LANGS:
            assert say(p.message, translations(lang)) != p.message
    assert "no hay ninguna oferta de tablas de César" in say(problems[-1].message, translations("es"))


def test_the_sides_inside_the_reserves_and_the_deadline_lists_are_said_in_prose() -> None:
    from pbem.core.phrase import Phrase, say
    from pbem.games.caesar.view.phrases import read
    from pbem.locale import translations

    reserves = read("reserves", "Reserves arrive at Roma: Caesar Legio 8 III, Pompey Navis 1 II")
    late = read("deadline", "Step 4: the deadline passed without orders from Caesar, Pompey; defaults apply")
    assert isinstance(reserves, Phrase) and isinstance(late, Phrase)
    assert reserves == "Reserves arrive at Roma: Caesar Legio 8 III, Pompey Navis 1 II"  # English unchanged
    es, sv = translations("es"), translations("sv")
    assert say(reserves, es).endswith(": César Legio 8 III, Pompeyo Navis 1 II")
    assert say(reserves, sv).endswith(": Caesar Legio 8 III, Pompejus Navis 1 II")
    assert "sin órdenes de César, Pompeyo;" in say(late, es)
    assert "utan order från Caesar, Pompejus;" in say(late, sv)


def test_a_submission_for_another_step_is_refused_in_the_players_language(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from dataclasses import replace

    from pbem.envelope import generate_keypair
    from pbem.store import GameSetup, Home, PlayerSetup
    from store_helpers import signed

    keys = {s: generate_keypair() for s in Side}
    players = tuple(replace(PlayerSetup(s, f"{s.value.lower()}@example.org", public_key=keys[s].public_text),
                            language={Side.POMPEY: "es", Side.CAESAR: "sv"}[s]) for s in Side)
    Home(tmp_path).create(GameSetup("g", players, seed=7)).close()
    with Home(tmp_path).open("g") as st:
        st.receive(signed(keys, Side.POMPEY, 3, "pass\n"), "mbox:inbox#1")
        st.receive(signed(keys, Side.CAESAR, 3, "pass\n"), "mbox:inbox#2")
        by = {r.recipient: r.body or "" for r in st.outbox(kind="reply")}
    assert ("esto responde a la etapa 3, pero la partida está en la etapa 1; la etapa 3 aún no está abierta"
            in by["Pompey"]), by["Pompey"]
    assert "detta svarar på etapp 3, men spelet är i etapp 1; etapp 3 är inte öppen än" in by["Caesar"], by["Caesar"]


def test_the_problems_of_a_free_deployment_are_said_in_spanish() -> None:
    """The rules' deployment check joins its problems by '; ' and names its rule at the end."""
    from pbem.core.phrase import Phrase, say
    from pbem.games.caesar.view.phrases import problem_phrase
    from pbem.locale import translations

    text = ("Roma is not one of Caesar's set-up cities (Genua, Ravenna); Genua must hold 3 blocks, not 2; "
            "left out: Legio 8 (rule 5.3)")
    p = problem_phrase(text)
    assert isinstance(p, Phrase) and p == text
    assert say(p, translations("es")) == ("Roma no es una de las ciudades de despliegue de César (Genua, Ravenna); "
                                          "Genua debe tener 3 bloques, no 2; omitidos: Legio 8 (regla 5.3)")


def test_a_submission_that_cannot_be_read_is_explained_in_spanish() -> None:
    from pbem.core.phrase import Phrase, say
    from pbem.envelope import parse_submission
    from pbem.errors import EnvelopeError
    from pbem.locale import translations

    with pytest.raises(EnvelopeError) as exc:
        parse_submission(b"move Genua -> Roma: Caesar\n")
    why = exc.value.args[0]
    assert isinstance(why, Phrase)
    assert str(exc.value) == "no '-----BEGIN PBEM ORDERS-----' line found; paste the whole block that `pbem sign` printed"
    assert say(why, translations("es")).startswith("no se encontró ninguna línea '-----BEGIN PBEM ORDERS-----'")


@pytest.mark.parametrize("text", [
    "Legio 8 is not in the battle of Roma; your blocks in the battle of Roma: none",
    "there is no battle at Roma; battles: none",
    "Roma is not an Enemy city (rule E2); you may name nothing",
    "Navis 1 can reach by sea Massilia, Genua",
    "Genua is not next to Roma; retreats go to Neapolis, Asculum",
    "Legio 8 cannot retreat to Genua by sea (rule 7.6-7.64); it has no retreat",
    "Legio 8 is not among the strongest blocks (rule 7.4, B2); the hit must go to Legio 9 or Legio 10",
    "the game is over; `resign` changes nothing now",
])
def test_problems_a_random_game_seldom_meets_are_said_in_both_languages(text: str) -> None:
    from pbem.core.phrase import Phrase, say
    from pbem.games.caesar.view.phrases import problem_phrase
    from pbem.locale import translations

    p = problem_phrase(text)
    if not isinstance(p, Phrase):  # a core problem (pbem.control) is a Phrase where it is made
        from pbem.control import Control, apply_control
        from pbem.core.orders import SubmissionRejected
        from pbem.games.caesar.system import SYSTEM

        adj, _ = SYSTEM.start(1, {})
        while not adj.step().over:
            adj.resolve(deadline=True)
        with pytest.raises(SubmissionRejected) as exc:
            apply_control(adj, ("Caesar", "Pompey"), "Pompey", Control("resign", 1))
        p = exc.value.errors[0].message
    assert isinstance(p, Phrase) and p == text
    for lang in LANGS:
        said = say(p, translations(lang))
        assert said != text and " is not " not in said and " rule " not in said, said
