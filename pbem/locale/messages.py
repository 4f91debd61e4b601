"""The Spanish and Swedish messages of pbem's reports and replies, and how their ``.po`` catalogs are made.

The words are the official rulebooks' own vocabulary (Spanish rules v1.01, Swedish rules; see
``pbem/locale/README.md``): *turno de juego* / *drag* for a game turn, *etapa* / *etapp* for a
pbem step (never *paso* / *steg*, which are strength steps), *bloque* / *pjäs* for a block.

Run ``python -m pbem.locale.messages`` after changing a template or this table: it extracts
every message of ``templates/`` and ``pbem/replies.py`` with Babel and writes
``pbem/locale/<lang>/LC_MESSAGES/pbem.po``; a test checks the catalogs are complete and current.
"""

from __future__ import annotations

from datetime import UTC

# msgid -> (Spanish, Swedish); a plural message: (singular, plural) -> ((es, es pl), (sv, sv pl))
MESSAGES: dict[str, tuple[str, str]] = {
    "moderator": ("moderador", "spelledare"),
    # the sides in prose (a block, an order and a label keep "Caesar" and "Pompey")
    "Caesar": ("César", "Caesar"),
    "Pompey": ("Pompeyo", "Pompejus"),
    "%(year)s turn %(turn)s": ("%(year)s turno %(turn)s", "%(year)s drag %(turn)s"),
    "moderator's report": ("informe del moderador", "spelledarens rapport"),
    "report for %(side)s": ("informe para %(side)s", "rapport till %(side)s"),
    "Year <b>%(year)s</b>, game turn <b>%(turn)s</b>": ("Año <b>%(year)s</b>, turno de juego <b>%(turn)s</b>",
                                                        "År <b>%(year)s</b>, drag <b>%(turn)s</b>"),
    "Year %(year)s, game turn %(turn)s": ("Año %(year)s, turno de juego %(turn)s", "År %(year)s, drag %(turn)s"),
    "Player 1": ("Jugador 1", "Spelare 1"),
    "Victory points": ("Puntos de victoria", "Segerpoäng"),
    "Report id": ("Id del informe", "Rapport-id"),
    "Game over": ("Fin de la partida", "Spelet är slut"),
    "GAME OVER": ("FIN DE LA PARTIDA", "SPELET ÄR SLUT"),
    "Since your last report": ("Desde tu último informe", "Sedan din förra rapport"),
    "SINCE YOUR LAST REPORT": ("DESDE TU ÚLTIMO INFORME", "SEDAN DIN FÖRRA RAPPORT"),
    "Battle odds": ("Probabilidades de la batalla", "Stridens odds"),
    "Estimated from what you know: your blocks as they are, the enemy's as they could be after all you have "
    "seen; both sides firing at every turn.": (
        "Estimadas con lo que sabes: tus bloques tal como son, los del enemigo como podrían ser tras todo lo "
        "que has visto; ambos bandos disparan en cada turno.",
        "Uppskattade utifrån det du vet: dina pjäser som de är, fiendens som de kan vara efter allt du har "
        "sett; båda sidor slår i varje tur."),
    "BATTLE ODDS (estimated from what you know: your blocks as they are, the enemy's\nas they could be after all "
    "you have seen; both sides firing at every turn)": (
        "PROBABILIDADES DE LA BATALLA (estimadas con lo que sabes: tus bloques tal como son, los del\nenemigo "
        "como podrían ser tras todo lo que has visto; ambos bandos disparan en cada turno)",
        "STRIDENS ODDS (uppskattade utifrån det du vet: dina pjäser som de är, fiendens som de\nkan vara "
        "efter allt du har sett; båda sidor slår i varje tur)"),
    "you win <b>%(percent)s%%</b> (%(samples)s simulated battles)": (
        "ganas <b>%(percent)s%%</b> (%(samples)s batallas simuladas)",
        "du vinner <b>%(percent)s%%</b> (%(samples)s simulerade strider)"),
    "%(place)s: you win %(percent)s%% (%(samples)s simulated battles)": (
        "%(place)s: ganas %(percent)s%% (%(samples)s batallas simuladas)",
        "%(place)s: du vinner %(percent)s%% (%(samples)s simulerade strider)"),
    "Cards": ("Cartas", "Kort"),
    "CARDS": ("CARTAS", "KORT"),
    "Your hand": ("Tu mano", "Din hand"),
    "%(side)s's hand": ("Mano de %(side)s", "%(side)ss hand"),
    "no cards": ("ninguna carta", "inga kort"),
    "Played on game turn %(turn)s of %(year)s": ("Jugadas en el turno de juego %(turn)s del %(year)s",
                                                 "Spelade i drag %(turn)s år %(year)s"),
    "copying %(card)s": ("copiando %(card)s", "kopierar %(card)s"),
    "What happened": ("Lo que ha ocurrido", "Det här har hänt"),
    "WHAT HAPPENED": ("LO QUE HA OCURRIDO", "DET HÄR HAR HÄNT"),
    "Battle of %(place)s": ("Batalla de %(place)s", "Striden vid %(place)s"),
    "surprise battle": ("batalla sorpresa", "överraskningsanfall"),
    "continued": ("continuación", "fortsättning"),
    "Round %(number)s": ("Ronda %(number)s", "Rond %(number)s"),
    "Round (continued)": ("Ronda (continuación)", "Rond (fortsättning)"),
    "dice": ("dados", "tärningar"),
    "Nothing new since the last report.": ("Nada nuevo desde el último informe.", "Inget nytt sedan förra rapporten."),
    "Eliminated since the last report": ("Eliminados desde el último informe", "Eliminerade sedan förra rapporten"),
    "ELIMINATED SINCE THE LAST REPORT": ("ELIMINADOS DESDE EL ÚLTIMO INFORME", "ELIMINERADE SEDAN FÖRRA RAPPORTEN"),
    "Defaults applied": ("Opciones por defecto aplicadas", "Standardval som tillämpats"),
    "DEFAULTS APPLIED": ("OPCIONES POR DEFECTO APLICADAS", "STANDARDVAL SOM TILLÄMPATS"),
    "Map": ("Mapa", "Karta"),
    "MAP (everything)": ("MAPA (todo)", "KARTA (allt)"),
    "MAP (what %(side)s sees)": ("MAPA (lo que ve %(side)s)", "KARTA (det %(side)s ser)"),
    "Scroll sideways on a small screen.": ("En una pantalla pequeña, desplázate hacia los lados.",
                                           "Rulla i sidled på en liten skärm."),
    "Blank blocks are enemy blocks you cannot identify.": (
        "Los bloques en blanco son bloques enemigos que no puedes identificar.",
        "Tomma pjäser är fiendepjäser som du inte kan identifiera."),
    "Location": ("Lugar", "Plats"),
    "you": ("tú", "du"),
    "sea": ("mar", "hav"),
    "%(vp)s VP": ("%(vp)s PV", "%(vp)s SP"),
    "contested": ("disputada", "omstridd"),
    "held by %(side)s": ("en poder de %(side)s", "hålls av %(side)s"),
    "%(side)s holds": ("en poder de %(side)s", "hålls av %(side)s"),
    "vacant": ("vacante", "tom"),
    "Vacant cities with VP": ("Ciudades vacantes con PV", "Tomma städer med segerpoäng"),
    "Last seen": ("Vistos por última vez", "Senast sedda"),
    "LAST SEEN (enemy blocks revealed to you)": (
        "VISTOS POR ÚLTIMA VEZ (bloques enemigos que se te han revelado)",
        "SENAST SEDDA (fiendepjäser som avslöjats för dig)"),
    "Enemy block": ("Bloque enemigo", "Fiendepjäs"),
    "Seen": ("Visto", "Sedd"),
    "Where, when": ("Dónde, cuándo", "Var, när"),
    "killed": ("muerto", "dödad"),
    "eliminated": ("eliminado", "eliminerad"),
    "at %(place)s, %(year)s turn %(turn)s": ("en %(place)s, %(year)s turno %(turn)s", "i %(place)s, %(year)s drag %(turn)s"),
    "No enemy block has been revealed to you.": ("No se te ha revelado ningún bloque enemigo.",
                                                 "Ingen fiendepjäs har avslöjats för dig."),
    "What to send next": ("Qué debes enviar ahora", "Detta ska du skicka nu"),
    "WHAT TO SEND NEXT": ("QUÉ DEBES ENVIAR AHORA", "DETTA SKA DU SKICKA NU"),
    "Step %(number)s": ("Etapa %(number)s", "Etapp %(number)s"),
    "Deadline": ("Fecha límite", "Tidsfrist"),
    "Waiting for": ("A la espera de", "Väntar på"),
    "Nothing from you in this step.": ("No tienes que enviar nada en esta etapa.",
                                       "Du behöver inte skicka något i den här etappen."),
    "Nothing: the game is over.": ("Nada: la partida ha terminado.", "Inget: spelet är slut."),
    "at %(places)s": ("en %(places)s", "vid %(places)s"),
    "to %(places)s": ("a %(places)s", "till %(places)s"),
    "Game turn %(turn)s of %(year)s": ("Turno de juego %(turn)s del %(year)s", "Drag %(turn)s år %(year)s"),
    "%(side)s plays %(card)s": ("%(side)s juega %(card)s", "%(side)s spelar %(card)s"),
    "Moves seen": ("Movimientos vistos", "Förflyttningar som setts"),
    "Levies seen": ("Levas vistas", "Rekryteringar som setts"),
    "Battles": ("Batallas", "Strider"),
    "won by %(side)s": ("la gana %(side)s", "%(side)s vann"),
    "under way": ("en curso", "pågår"),
    "Cards revealed": ("Cartas reveladas", "Kort som visats"),
    "No moves, battles or cards seen.": ("No se han visto movimientos, batallas ni cartas.",
                                         "Inga förflyttningar, strider eller kort har setts."),
    "no change": ("sin cambios", "oförändrat"),
    "Your losses: %(steps)s steps, %(blocks)s blocks eliminated on average": (
        "Tus pérdidas: %(steps)s pasos, %(blocks)s bloques eliminados de media",
        "Dina förluster: %(steps)s steg, %(blocks)s pjäser eliminerade i genomsnitt"),
    "%(side)s's losses: %(steps)s steps, %(blocks)s blocks eliminated on average": (
        "Pérdidas de %(side)s: %(steps)s pasos, %(blocks)s bloques eliminados de media",
        "%(side)ss förluster: %(steps)s steg, %(blocks)s pjäser eliminerade i genomsnitt"),
    "%(leader)s killed: %(percent)s%%": ("%(leader)s muerto: %(percent)s%%", "%(leader)s dödad: %(percent)s%%"),
    # replies to a submission (terms 6e)
    "A message claiming to be your orders for game %(game)s failed verification and was ignored; if it was you, "
    "sign again with your key.": (
        "Un mensaje que decía ser tus órdenes para la partida %(game)s no superó la verificación y se ha ignorado; "
        "si eras tú, vuelve a firmarlo con tu clave.",
        "Ett meddelande som påstod sig vara dina order för partiet %(game)s klarade inte kontrollen och har "
        "ignorerats; om det var du, signera igen med din nyckel."),
    "Game %(game)s, step %(step)s, submission #%(sid)s: ": ("Partida %(game)s, etapa %(step)s, envío n.º %(sid)s: ",
                                                            "Parti %(game)s, etapp %(step)s, inskick nr %(sid)s: "),
    "line %(number)s": ("línea %(number)s", "rad %(number)s"),
    "your orders were accepted and resolved step %(step)s; your report follows.": (
        "tus órdenes se han aceptado y han resuelto la etapa %(step)s; a continuación va tu informe.",
        "dina order har godkänts och avgjorde etapp %(step)s; din rapport följer."),
    "your orders for step %(step)s were received (they replace submission #%(sid)s); they stay sealed until the "
    "step resolves; you may revise them until then.": (
        "se han recibido tus órdenes para la etapa %(step)s (sustituyen al envío n.º %(sid)s); quedan selladas hasta "
        "que se resuelva la etapa; puedes corregirlas hasta entonces.",
        "dina order för etapp %(step)s har tagits emot (de ersätter inskick nr %(sid)s); de förblir förseglade tills "
        "etappen avgörs; du kan ändra dem fram till dess."),
    "your orders for step %(step)s were received; they stay sealed until the step resolves; you may revise them "
    "until then.": (
        "se han recibido tus órdenes para la etapa %(step)s; quedan selladas hasta que se resuelva la etapa; puedes "
        "corregirlas hasta entonces.",
        "dina order för etapp %(step)s har tagits emot; de förblir förseglade tills etappen avgörs; du kan ändra dem "
        "fram till dess."),
    "rejected: %(reason)s": ("rechazado: %(reason)s", "avvisat: %(reason)s"),
    "your submission #%(sid)s for step %(step)s still stands; send corrected orders to replace it": (
        "tu envío n.º %(sid)s para la etapa %(step)s sigue vigente; envía órdenes corregidas para sustituirlo",
        "ditt inskick nr %(sid)s för etapp %(step)s gäller fortfarande; skicka rättade order för att ersätta det"),
    "accepted": ("aceptado", "godkänt"),
    "rejected": ("rechazado", "avvisat"),
    "duplicate": ("duplicado", "dubblett"),
    "[%(game)s] step %(step)s: your submission #%(sid)s: %(verdict)s": (
        "[%(game)s] etapa %(step)s: tu envío n.º %(sid)s: %(verdict)s",
        "[%(game)s] etapp %(step)s: ditt inskick nr %(sid)s: %(verdict)s"),
    "Nothing yet: the moderator will send the next step.": (
        "Nada por ahora: el moderador enviará la siguiente etapa.", "Inget ännu: spelledaren skickar nästa etapp."),
}

PLURALS: dict[tuple[str, str], tuple[tuple[str, str], tuple[str, str]]] = {
    ("%(num)s hit", "%(num)s hits"): (("%(num)s impacto", "%(num)s impactos"), ("%(num)s träff", "%(num)s träffar")),
    ("%(num)s block", "%(num)s blocks"): (("%(num)s bloque", "%(num)s bloques"), ("%(num)s pjäs", "%(num)s pjäser")),
    ("%(side)s holds %(num)s card.", "%(side)s holds %(num)s cards."): (
        ("%(side)s tiene %(num)s carta.", "%(side)s tiene %(num)s cartas."),
        ("%(side)s har %(num)s kort.", "%(side)s har %(num)s kort.")),
}

LANGS = ("es", "sv")


def extract() -> list[tuple[str | tuple[str, ...], str]]:
    """Every message of the templates and the replies: (msgid or (singular, plural), where)."""
    from pathlib import Path

    from babel.messages.extract import extract_from_file

    package = Path(__file__).resolve().parents[1]  # pbem/
    # a checkout has templates/ beside pbem/; an installed wheel has them inside it (pbem/templates)
    templates = package.parent / "templates"
    if not templates.is_dir():
        templates = package / "templates"
    out: list[tuple[str | tuple[str, ...], str]] = []
    options = {"extensions": "jinja2.ext.i18n", "trim_blocks": "True", "lstrip_blocks": "True"}
    for path in sorted(templates.rglob("*.j2")):
        for _line, msg, _comments, _ctx in extract_from_file("jinja2", str(path), options=options):
            out.append((msg, str(path.relative_to(templates.parent))))
    for path in (package / "replies.py",):
        for _line, msg, _comments, _ctx in extract_from_file("python", str(path)):
            out.append((msg, str(path.relative_to(package.parent))))
    return out


def write_catalogs() -> None:
    from datetime import datetime
    from pathlib import Path

    from babel.messages.catalog import Catalog
    from babel.messages.pofile import write_po

    here = Path(__file__).resolve().parent
    messages = extract()
    for i, lang in enumerate(LANGS):
        fixed = datetime(2026, 11, 23, tzinfo=UTC)  # the files stay byte-stable when regenerated
        cat = Catalog(locale=lang, project="pbem", version="1", charset="utf-8", fuzzy=False, creation_date=fixed,
                      revision_date=fixed, last_translator="pbem", language_team=f"{lang} (from the rulebooks' terms)",
                      header_comment=f"# {lang}: pbem's reports and replies. Made by python -m pbem.locale.messages.")
        for msg, _where in messages:
            if isinstance(msg, tuple):
                key = (msg[0], msg[1])
                cat.add(key, PLURALS[key][i] if key in PLURALS else ("", ""))
            else:
                cat.add(msg, MESSAGES[msg][i] if msg in MESSAGES else "")
        folder = here / lang / "LC_MESSAGES"
        folder.mkdir(parents=True, exist_ok=True)
        with (folder / "pbem.po").open("wb") as f:
            write_po(f, cat, omit_header=False, no_location=True, sort_output=True, width=100)


if __name__ == "__main__":
    write_catalogs()
