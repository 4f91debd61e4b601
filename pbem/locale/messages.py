"""The Spanish and Swedish messages of pbem's reports and replies, and how their ``.po`` catalogs are made.

The words are the official rulebooks' own vocabulary (Spanish rules v1.01, Swedish rules; see
``pbem/locale/README.md``): *turno de juego* / *drag* for a game turn, *etapa* / *etapp* for a
pbem step (never *paso* / *steg*, which are strength steps), *bloque* / *pjäs* for a block.

Run ``python -m pbem.locale.messages`` after changing a template or this table: it extracts
every message of ``templates/``, ``pbem/replies.py`` and a game's view (its event texts, marked
``N_("...")``, see :mod:`pbem.core.phrase`) with Babel and writes
``pbem/locale/<lang>/LC_MESSAGES/pbem.po``; a test checks the catalogs are complete and current.
"""

from __future__ import annotations

from datetime import UTC

from pbem.core.phrase import wordless

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

# what the game writes itself (pbem.games.caesar.view: its event texts, the phase, the result, the defaults)
ENGINE: dict[str, tuple[str, str]] = {
    # grouped moves, levies, regroups, disbands (history.py)
    "%(block)s (now %(roman)s)": ("%(block)s (ahora %(roman)s)", "%(block)s (nu %(roman)s)"),
    "%(what)s by sea: %(path)s": ("%(what)s por mar: %(path)s", "%(what)s via hav: %(path)s"),
    "%(what)s winters in %(end)s (from %(start)s)": ("%(what)s inverna en %(end)s (desde %(start)s)",
                                                      "%(what)s övervintrar i %(end)s (från %(start)s)"),
    "%(what)s winter in %(end)s (from %(start)s)": ("%(what)s invernan en %(end)s (desde %(start)s)",
                                                     "%(what)s övervintrar i %(end)s (från %(start)s)"),
    "%(what)s regroups %(path)s": ("%(what)s se reagrupa %(path)s", "%(what)s omgrupperar %(path)s"),
    "%(block)s regroups %(path)s": ("%(block)s se reagrupa %(path)s", "%(block)s omgrupperar %(path)s"),
    "%(what)s regroup %(path)s": ("%(what)s se reagrupan %(path)s", "%(what)s omgrupperar %(path)s"),
    "%(side)s levies %(what)s at %(loc)s": ("%(side)s leva %(what)s en %(loc)s", "%(side)s rekryterar %(what)s i %(loc)s"),
    "%(side)s adds a step at %(loc)s: %(what)s": ("%(side)s añade un paso en %(loc)s: %(what)s",
                                                  "%(side)s lägger till ett steg i %(loc)s: %(what)s"),
    "%(side)s adds steps at %(loc)s: %(what)s": ("%(side)s añade pasos en %(loc)s: %(what)s",
                                                 "%(side)s lägger till steg i %(loc)s: %(what)s"),
    "%(side)s disbands %(what)s at %(loc)s (%(why)s)": ("%(side)s disuelve %(what)s en %(loc)s (%(why)s)",
                                                        "%(side)s upplöser %(what)s i %(loc)s (%(why)s)"),
    "%(side)s disbands %(what)s at %(loc)s": ("%(side)s disuelve %(what)s en %(loc)s", "%(side)s upplöser %(what)s i %(loc)s"),
    "%(side)s: a Navis moves %(path)s": ("%(side)s: una Navis se mueve %(path)s", "%(side)s: en navis flyttar %(path)s"),
    "%(side)s: %(n)s Navis move %(path)s": ("%(side)s: %(n)s Navis se mueven %(path)s", "%(side)s: %(n)s navis flyttar %(path)s"),
    "%(side)s: a block moves %(path)s": ("%(side)s: un bloque se mueve %(path)s", "%(side)s: en pjäs marscherar %(path)s"),
    "%(side)s: %(n)s blocks move %(path)s": ("%(side)s: %(n)s bloques se mueven %(path)s",
                                             "%(side)s: %(n)s pjäser marscherar %(path)s"),
    "%(side)s: a Navis moves by sea %(path)s": ("%(side)s: una Navis se mueve por mar %(path)s",
                                                "%(side)s: en navis flyttar via hav %(path)s"),
    "%(side)s: %(n)s Navis move by sea %(path)s": ("%(side)s: %(n)s Navis se mueven por mar %(path)s",
                                                   "%(side)s: %(n)s navis flyttar via hav %(path)s"),
    "%(side)s: a block moves by sea %(path)s": ("%(side)s: un bloque se mueve por mar %(path)s",
                                                "%(side)s: en pjäs skeppas %(path)s"),
    "%(side)s: %(n)s blocks move by sea %(path)s": ("%(side)s: %(n)s bloques se mueven por mar %(path)s",
                                                    "%(side)s: %(n)s pjäser skeppas %(path)s"),
    "%(side)s: a Navis regroups %(path)s": ("%(side)s: una Navis se reagrupa %(path)s", "%(side)s: en navis omgrupperar %(path)s"),
    "%(side)s: %(n)s Navis regroup %(path)s": ("%(side)s: %(n)s Navis se reagrupan %(path)s",
                                               "%(side)s: %(n)s navis omgrupperar %(path)s"),
    "%(side)s: a block regroups %(path)s": ("%(side)s: un bloque se reagrupa %(path)s", "%(side)s: en pjäs omgrupperar %(path)s"),
    "%(side)s: %(n)s blocks regroup %(path)s": ("%(side)s: %(n)s bloques se reagrupan %(path)s",
                                                "%(side)s: %(n)s pjäser omgrupperar %(path)s"),
    "%(side)s: a Navis goes from %(start)s to %(end)s": ("%(side)s: una Navis va de %(start)s a %(end)s",
                                                         "%(side)s: en navis går från %(start)s till %(end)s"),
    "%(side)s: %(n)s Navis go from %(start)s to %(end)s": ("%(side)s: %(n)s Navis van de %(start)s a %(end)s",
                                                           "%(side)s: %(n)s navis går från %(start)s till %(end)s"),
    "%(side)s levies a new block at %(loc)s": ("%(side)s leva un bloque nuevo en %(loc)s",
                                               "%(side)s rekryterar en ny pjäs i %(loc)s"),
    "%(side)s levies %(n)s new blocks at %(loc)s": ("%(side)s leva %(n)s bloques nuevos en %(loc)s",
                                                    "%(side)s rekryterar %(n)s nya pjäser i %(loc)s"),
    "%(side)s adds a step to a block at %(loc)s": ("%(side)s añade un paso a un bloque en %(loc)s",
                                                   "%(side)s lägger till ett steg på en pjäs i %(loc)s"),
    "%(side)s adds %(n)s steps to blocks at %(loc)s": ("%(side)s añade %(n)s pasos a bloques en %(loc)s",
                                                       "%(side)s lägger till %(n)s steg på pjäser i %(loc)s"),
    "a Navis": ("una Navis", "en navis"),
    "%(n)s Navis": ("%(n)s Navis", "%(n)s navis"),
    "a block": ("un bloque", "en pjäs"),
    "%(n)s blocks": ("%(n)s bloques", "%(n)s pjäser"),
    # battles
    "none": ("ninguno", "inga"),
    "%(side)s (attacking): %(blocks)s": ("%(side)s (atacante): %(blocks)s", "%(side)s (anfaller): %(blocks)s"),
    "%(side)s (defending): %(blocks)s": ("%(side)s (defensor): %(blocks)s", "%(side)s (försvarar): %(blocks)s"),
    "%(line)s; %(n)s in reserve": ("%(line)s; %(n)s en reserva", "%(line)s; %(n)s i reserv"),
    "%(side)s plays %(card)s (copying %(effective)s)": ("%(side)s juega %(card)s (copiando %(effective)s)",
                                                        "%(side)s spelar %(card)s (kopierar %(effective)s)"),
    "Year %(year)s": ("Año %(year)s", "År %(year)s"),
    "hit by %(block)s": ("impacto de %(block)s", "träff av %(block)s"),
    "Vulcan": ("Vulcano (Vulcan)", "Vulcan"),
    "Jupiter": ("Júpiter (Jupiter)", "Jupiter"),
    "disruption": ("desorganización", "oordning"),
    "no retreat in Round 4": ("sin retirada en la Ronda 4", "ingen reträtt i rond 4"),
    "still in battle after Round 4": ("aún en batalla tras la Ronda 4", "kvar i striden efter rond 4"),
    "the higher Moves": ("más Movimientos", "flest marscher"),
    "equal Moves: %(side)s": ("empate a Movimientos: %(side)s", "lika många marscher: %(side)s"),
    "the event player is Player 1": ("quien juega un evento es el Jugador 1", "den som spelar en händelse är spelare 1"),
    "tournament rule C5": ("regla de torneo C5", "turneringsregel C5"),
    "Player 2": ("Jugador 2", "Spelare 2"),
    "%(moves)s Moves, %(levies)s Levies": ("%(moves)s Movimientos, %(levies)s Levas", "%(moves)s marscher, %(levies)s rekryteringar"),
    "the %(card)s event": ("el evento %(card)s", "händelsen %(card)s"),
    "%(n)s block(s) from %(origin)s (main attack)": ("%(n)s bloque(s) desde %(origin)s (ataque principal)",
                                                    "%(n)s pjäs(er) från %(origin)s (huvudstyrka)"),
    "%(first)s, %(n)s from %(origin)s (reserves)": ("%(first)s, %(n)s desde %(origin)s (reservas)",
                                                    "%(first)s, %(n)s från %(origin)s (reserver)"),
    "winter supply": ("suministro de invierno", "vinterkvarter"),
    "winter supply: %(loc)s supports %(n)s": ("suministro de invierno: %(loc)s abastece a %(n)s",
                                              "vinterkvarter: %(loc)s försörjer %(n)s"),
    "voluntary": ("voluntaria", "frivilligt"),
    "no Friendly port on that sea, 8.3": ("ningún puerto Amigo en ese mar, 8.3", "ingen egen hamn vid det havet, 8.3"),
    "draws one of %(n)s block(s) at random": ("saca al azar uno de %(n)s bloque(s)", "drar slumpvis en av %(n)s pjäs(er)"),
    "names Cleopatra": ("nombra a Cleopatra", "väljer Cleopatra"),
    # the end of a game
    "%(n)s VP, 10 or more, at the end of %(year)s": ("%(n)s PV, 10 o más, al final del %(year)s",
                                                     "%(n)s segerpoäng, 10 eller fler, i slutet av %(year)s"),
    "%(n)s VP, 10 or more, at the end of %(year)s (both reached 10: the higher wins)": (
        "%(n)s PV, 10 o más, al final del %(year)s (ambos llegaron a 10: gana el mayor)",
        "%(n)s segerpoäng, 10 eller fler, i slutet av %(year)s (båda nådde 10: den högre vinner)"),
    "more VP after the last Year (%(year)s)": ("más PV tras el último Año (%(year)s)",
                                               "flest segerpoäng efter det sista året (%(year)s)"),
    "VP tied at %(n)s after %(year)s, and %(side)s holds Roma": (
        "empate a %(n)s PV tras el %(year)s, y %(side)s tiene Roma",
        "lika, %(n)s segerpoäng, efter %(year)s, och %(side)s håller Roma"),
    "VP tied at %(n)s after %(year)s, and nobody holds Roma": (
        "empate a %(n)s PV tras el %(year)s, y nadie tiene Roma",
        "lika, %(n)s segerpoäng, efter %(year)s, och ingen håller Roma"),
    "%(side)s resigned": ("%(side)s se rindió", "%(side)s gav upp"),
    "drawn by agreement": ("tablas por acuerdo", "remi efter överenskommelse"),
    "your offer of a draw was received; the other side is told at once and may accept it until step %(step)s is "
    "over. Your orders stand as they were.": (
        "tu oferta de tablas se ha recibido; el otro bando lo sabe enseguida y puede aceptarla hasta que termine la "
        "etapa %(step)s. Tus órdenes siguen como estaban.",
        "ditt erbjudande om remi har tagits emot; den andra sidan får veta det genast och kan anta det tills etapp "
        "%(step)s är slut. Dina order står kvar som de var."),
    "%(side)s forfeited (the moderator's ruling)": ("%(side)s perdió por decisión del moderador",
                                                    "%(side)s förlorade genom spelledarens beslut"),
    "%(winner)s wins: %(how)s; score %(side)s %(n)s VP, %(other)s %(m)s VP": (
        "gana %(winner)s: %(how)s; resultado %(side)s %(n)s PV, %(other)s %(m)s PV",
        "%(winner)s vinner: %(how)s; ställning %(side)s %(n)s segerpoäng, %(other)s %(m)s segerpoäng"),
    "a draw: %(how)s; score %(side)s %(n)s VP, %(other)s %(m)s VP": (
        "empate: %(how)s; resultado %(side)s %(n)s PV, %(other)s %(m)s PV",
        "oavgjort: %(how)s; ställning %(side)s %(n)s segerpoäng, %(other)s %(m)s segerpoäng"),
    "it cannot retreat to %(to)s (it could retreat to %(where)s)": (
        "no puede retirarse a %(to)s (podría retirarse a %(where)s)",
        "den kan inte retirera till %(to)s (den kunde retirera till %(where)s)"),
    "it cannot regroup to %(to)s (it could regroup to %(where)s)": (
        "no puede reagruparse en %(to)s (podría reagruparse en %(where)s)",
        "den kan inte omgruppera till %(to)s (den kunde omgruppera till %(where)s)"),
    # one event, one line
    "%(side)s attacks %(loc)s": ("%(side)s ataca %(loc)s", "%(side)s anfaller %(loc)s"),
    "%(side)s attacks %(loc)s (Cleopatra changed sides there)": ("%(side)s ataca %(loc)s (allí Cleopatra cambió de bando)",
                                                                "%(side)s anfaller %(loc)s (Cleopatra bytte sida där)"),
    "Forces of %(side)s's attack on %(loc)s: %(forces)s": ("Fuerzas del ataque de %(side)s contra %(loc)s: %(forces)s",
                                                          "Styrkorna i anfallet av %(side)s mot %(loc)s: %(forces)s"),
    "%(side)s's main attack on %(loc)s comes from %(origin)s": (
        "el ataque principal de %(side)s contra %(loc)s viene desde %(origin)s",
        "huvudstyrkan i anfallet av %(side)s mot %(loc)s kommer från %(origin)s"),
    "Battle of %(loc)s: %(victor)s wins": ("Batalla de %(loc)s: gana %(victor)s", "Striden vid %(loc)s: %(victor)s vinner"),
    "%(side)s chooses to fight at %(loc)s next": ("%(side)s elige librar la siguiente batalla en %(loc)s",
                                                  "%(side)s väljer att strida vid %(loc)s härnäst"),
    "Battles to fight: %(locs)s": ("Batallas por librar: %(locs)s", "Strider som återstår: %(locs)s"),
    "Both cards are events: both are cancelled and the game turn ends (C3)": (
        "Las dos cartas son eventos: se anulan ambas y termina el turno de juego (C3)",
        "Båda korten är händelser: båda ställs in och draget slutar (C3)"),
    "Cleopatra goes home to %(loc)s": ("Cleopatra regresa a %(loc)s", "Cleopatra reser hem till %(loc)s"),
    "Cleopatra is eliminated (%(cause)s) and joins %(side)s at strength I in %(loc)s (7.52)": (
        "Cleopatra es eliminada (%(cause)s) y se une a %(side)s con fuerza I en %(loc)s (7.52)",
        "Cleopatra elimineras (%(cause)s) och går över till %(side)s med styrka I i %(loc)s (7.52)"),
    "%(loc)s is held by %(side)s: Cleopatra joins %(side)s (8.1)": (
        "%(loc)s está en poder de %(side)s: Cleopatra se une a %(side)s (8.1)",
        "%(loc)s hålls av %(side)s: Cleopatra går över till %(side)s (8.1)"),
    "%(side)s (%(role)s) commands: %(what)s": ("%(side)s (%(role)s) manda: %(what)s", "%(side)s (%(role)s) har befälet: %(what)s"),
    "%(side)s has finished its command": ("%(side)s ha terminado su fase de mando", "%(side)s har avslutat sitt befäl"),
    "%(side)s is dealt: %(cards)s": ("%(side)s recibe: %(cards)s", "%(side)s får: %(cards)s"),
    "%(block)s defects to %(side)s at strength %(n)s": ("%(block)s deserta a %(side)s con fuerza %(n)s",
                                                        "%(block)s byter sida till %(side)s med styrka %(n)s"),
    "%(block)s defects to %(side)s at strength %(n)s and moves to %(to)s": (
        "%(block)s deserta a %(side)s con fuerza %(n)s y va a %(to)s",
        "%(block)s byter sida till %(side)s med styrka %(n)s och flyttar till %(to)s"),
    "%(side)s deploys (free deployment)": ("%(side)s despliega (despliegue libre)", "%(side)s ställer upp (fri uppställning)"),
    "Both sides have deployed (free deployment, 5.3)": ("Ambos bandos han desplegado (despliegue libre, 5.3)",
                                                        "Båda sidor har ställt upp (fri uppställning, 5.3)"),
    "%(side)s discards %(card)s": ("%(side)s descarta %(card)s", "%(side)s kastar %(card)s"),
    "Both sides have discarded a card": ("Ambos bandos han descartado una carta", "Båda sidor har kastat ett kort"),
    "%(side)s disbands %(block)s at %(loc)s (%(why)s)": ("%(side)s disuelve %(block)s en %(loc)s (%(why)s)",
                                                         "%(side)s upplöser %(block)s i %(loc)s (%(why)s)"),
    "%(side)s disbands a block at %(loc)s (%(why)s)": ("%(side)s disuelve un bloque en %(loc)s (%(why)s)",
                                                       "%(side)s upplöser en pjäs i %(loc)s (%(why)s)"),
    "%(side)s's %(block)s is eliminated (%(cause)s) at %(loc)s": (
        "%(block)s de %(side)s queda eliminado (%(cause)s) en %(loc)s",
        "%(side)s: %(block)s elimineras (%(cause)s) i %(loc)s"),
    "%(side)s's leader %(block)s is killed (%(cause)s) at %(loc)s: 1 VP for %(enemy)s (7.51)": (
        "el líder %(block)s de %(side)s muere (%(cause)s) en %(loc)s: 1 PV para %(enemy)s (7.51)",
        "%(side)s: ledaren %(block)s dödas (%(cause)s) i %(loc)s: 1 segerpoäng till %(enemy)s (7.51)"),
    "%(side)s makes no use of the event": ("%(side)s no usa el evento", "%(side)s använder inte händelsen"),
    "%(card)s has no legal target: no effect (E1, E2)": ("%(card)s no tiene objetivo legal: sin efecto (E1, E2)",
                                                          "%(card)s har inget tillåtet mål: ingen effekt (E1, E2)"),
    "%(card)s: no battle to make a surprise battle (E3, E4)": (
        "%(card)s: no hay batalla que convertir en batalla sorpresa (E3, E4)",
        "%(card)s: ingen strid att göra till överraskningsanfall (E3, E4)"),
    "%(side)s %(block)s (%(combat)s) fires": ("%(side)s %(block)s (%(combat)s) dispara", "%(side)s %(block)s (%(combat)s) slår"),
    "%(side)s %(block)s (%(combat)s) fires: %(dice)s = %(n)s hit(s)": (
        "%(side)s %(block)s (%(combat)s) dispara: %(dice)s = %(n)s impacto(s)",
        "%(side)s %(block)s (%(combat)s) slår: %(dice)s = %(n)s träff(ar)"),
    "Game over: %(result)s": ("Fin de la partida: %(result)s", "Spelet är slut: %(result)s"),
    "%(side)s %(block)s takes a hit: now %(roman)s": ("%(side)s %(block)s recibe un impacto: ahora %(roman)s",
                                                      "%(side)s %(block)s tar en träff: nu %(roman)s"),
    "Jupiter: %(side)s names %(loc)s and %(how)s: %(block)s": ("Júpiter: %(side)s nombra %(loc)s y %(how)s: %(block)s",
                                                              "Jupiter: %(side)s väljer %(loc)s och %(how)s: %(block)s"),
    "%(side)s %(block)s passes": ("%(side)s %(block)s pasa", "%(side)s %(block)s passar"),
    "%(side)s: no target for %(n)s block(s); they pass": ("%(side)s: ningún objetivo para %(n)s bloque(s); pasan",
                                                          "%(side)s: inget mål för %(n)s pjäs(er); de passar"),
    "%(side)s is Player 1 (%(why)s)": ("%(side)s es el Jugador 1 (%(why)s)", "%(side)s är spelare 1 (%(why)s)"),
    "%(side)s %(block)s retreats to %(to)s": ("%(side)s %(block)s se retira a %(to)s", "%(side)s %(block)s retirerar till %(to)s"),
    "%(side)s %(block)s retreats by sea to %(to)s": ("%(side)s %(block)s se retira por mar a %(to)s",
                                                     "%(side)s %(block)s retirerar via hav till %(to)s"),
    "%(block)s must retreat and cannot (B4)": ("%(block)s debe retirarse y no puede (B4)",
                                               "%(block)s måste retirera och kan inte (B4)"),
    "Reserves arrive at %(loc)s: %(blocks)s": ("Llegan las reservas a %(loc)s: %(blocks)s",
                                               "Reserverna anländer till %(loc)s: %(blocks)s"),
    "%(side)s's reserves at %(loc)s are disrupted: each loses a step (7.31)": (
        "las reservas de %(side)s en %(loc)s quedan desorganizadas: cada una pierde un paso (7.31)",
        "reserverna av %(side)s i %(loc)s är i oordning: var och en förlorar ett steg (7.31)"),
    "%(side)s is now the attacker at %(loc)s and %(other)s the defender (7.31)": (
        "%(side)s es ahora el atacante en %(loc)s y %(other)s el defensor (7.31)",
        "%(side)s är nu anfallare i %(loc)s och %(other)s försvarare (7.31)"),
    "%(loc)s, Round %(n)s": ("%(loc)s, Ronda %(n)s", "%(loc)s, rond %(n)s"),
    "%(block)s does not defect and loses a step (E1)": ("%(block)s no deserta y pierde un paso (E1)",
                                                        "%(block)s byter inte sida och förlorar ett steg (E1)"),
    "%(side)s makes %(loc)s a surprise battle": ("%(side)s convierte %(loc)s en batalla sorpresa",
                                                 "%(side)s gör %(loc)s till ett överraskningsanfall"),
    "Victory points: %(side)s %(n)s, %(other)s %(m)s": ("Puntos de victoria: %(side)s %(n)s, %(other)s %(m)s",
                                                        "Segerpoäng: %(side)s %(n)s, %(other)s %(m)s"),
    "Vulcan strikes %(loc)s: %(n)s block(s) lose a step (E2)": (
        "Vulcano golpea %(loc)s: %(n)s bloque(s) pierde(n) un paso (E2)",
        "Vulcan slår till mot %(loc)s: %(n)s pjäs(er) förlorar ett steg (E2)"),
    "Winter of %(year)s": ("Invierno del %(year)s", "Vintern år %(year)s"),
    "Year %(year)s begins: six cards dealt to each side": ("Comienza el Año %(year)s: seis cartas para cada bando",
                                                           "År %(year)s börjar: sex kort delas ut till varje sida"),
    "Eliminated blocks return to the levy pools for %(year)s": (
        "Los bloques eliminados vuelven a la Reserva de Levas para el %(year)s",
        "Eliminerade pjäser återgår till rekryteringspoolen inför %(year)s"),
    # defaults applied (steps/adjudicate.py)
    "historical deployment (default)": ("despliegue histórico (por defecto)", "historisk uppställning (standardval)"),
    "%(side)s discards %(card)s (default)": ("%(side)s descarta %(card)s (por defecto)", "%(side)s kastar %(card)s (standardval)"),
    "%(side)s plays %(card)s (default)": ("%(side)s juega %(card)s (por defecto)", "%(side)s spelar %(card)s (standardval)"),
    "%(side)s: no orders by the deadline: no moves, no levies (default)": (
        "%(side)s: sin órdenes en la fecha límite: sin movimientos ni levas (por defecto)",
        "%(side)s: inga order inom tidsfristen: ingen marsch, ingen rekrytering (standardval)"),
    "%(side)s makes no use of %(card)s (default)": ("%(side)s no usa %(card)s (por defecto)",
                                                    "%(side)s använder inte %(card)s (standardval)"),
    "%(loc)s: the plan line '%(plan)s' is not carried out for %(block)s: %(why)s": (
        "%(loc)s: la línea del plan '%(plan)s' no se cumple para %(block)s: %(why)s",
        "%(loc)s: planraden '%(plan)s' genomförs inte för %(block)s: %(why)s"),
    "%(side)s fights %(loc)s next (default: alphabetical)": (
        "%(side)s libra la siguiente batalla en %(loc)s (por defecto: orden alfabético)",
        "%(side)s strider vid %(loc)s härnäst (standardval: alfabetisk ordning)"),
    "%(block)s must retreat from %(loc)s: to %(to)s (default)": ("%(block)s debe retirarse de %(loc)s: a %(to)s (por defecto)",
                                                                 "%(block)s måste retirera från %(loc)s: till %(to)s (standardval)"),
    "%(block)s must retreat from %(loc)s: to %(to)s by sea (default)": (
        "%(block)s debe retirarse de %(loc)s: a %(to)s por mar (por defecto)",
        "%(block)s måste retirera från %(loc)s: till %(to)s via hav (standardval)"),
    "the hit at %(loc)s goes to %(block)s (default among %(blocks)s)": (
        "el impacto en %(loc)s se asigna a %(block)s (por defecto entre %(blocks)s)",
        "träffen i %(loc)s tas av %(block)s (standardval bland %(blocks)s)"),
    "%(block)s winters in %(loc)s (default)": ("%(block)s inverna en %(loc)s (por defecto)",
                                               "%(block)s övervintrar i %(loc)s (standardval)"),
    "%(loc)s is over its supply limit: %(block)s is disbanded (default: the weakest)": (
        "%(loc)s excede su límite de suministro: %(block)s queda disuelto (por defecto: el más débil)",
        "%(loc)s är över sin försörjningsgräns: %(block)s upplöses (standardval: den svagaste)"),
    # the steps' and the club's events
    "Step %(step)s: the deadline passed without orders from %(sides)s; defaults apply": (
        "Etapa %(step)s: pasó la fecha límite sin órdenes de %(sides)s; se aplican las opciones por defecto",
        "Etapp %(step)s: tidsfristen gick ut utan order från %(sides)s; standardvalen tillämpas"),
    "%(side)s resigns": ("%(side)s se rinde", "%(side)s ger upp"),
    "%(side)s is away until %(until)s (he said so in game %(game)s): the deadlines wait for him, within the "
    "club's limit": (
        "%(side)s está ausente hasta el %(until)s (lo dijo en la partida %(game)s): las fechas límite lo esperan, "
        "dentro del límite del club",
        "%(side)s är borta till %(until)s (han sa det i partiet %(game)s): tidsfristerna väntar på honom, inom "
        "klubbens gräns"),
    "%(side)s offers a draw: %(other)s may accept it by sending `accept draw` alone in a submission until step "
    "%(step)s is over (after that the offer lapses)": (
        "%(side)s ofrece tablas: %(other)s puede aceptarlas enviando `accept draw` solo en un envío hasta que "
        "termine la etapa %(step)s (después la oferta caduca)",
        "%(side)s erbjuder remi: %(other)s kan anta den genom att skicka `accept draw` ensamt i en inlämning tills "
        "etapp %(step)s är slut (därefter förfaller erbjudandet)"),
    "%(side)s accepts the draw %(other)s offered": ("%(side)s acepta las tablas que ofreció %(other)s",
                                                   "%(side)s antar remin som %(other)s erbjöd"),
    "%(side)s is away until %(until)s: the deadlines wait for him, within the club's limit": (
        "%(side)s está ausente hasta el %(until)s: las fechas límite lo esperan, dentro del límite del club",
        "%(side)s är borta till %(until)s: tidsfristerna väntar på honom, inom klubbens gräns"),
    "The moderator extends the deadline of step %(step)s by %(duration)s": (
        "El moderador amplía la fecha límite de la etapa %(step)s en %(duration)s",
        "Spelledaren förlänger tidsfristen för etapp %(step)s med %(duration)s"),
    "The moderator gives %(side)s to a substitute player; the previous player's credentials no longer work": (
        "El moderador da %(side)s a un jugador sustituto; las credenciales del jugador anterior ya no valen",
        "Spelledaren ger %(side)s till en ersättare; den tidigare spelarens inloggning gäller inte längre"),
    "The moderator pauses the game: no deadline runs until he resumes it": (
        "El moderador pausa la partida: no corre ninguna fecha límite hasta que la reanude",
        "Spelledaren pausar partiet: ingen tidsfrist löper förrän han återupptar det"),
    "The moderator resumes the game: the open step has a whole deadline from now": (
        "El moderador reanuda la partida: la etapa abierta tiene una fecha límite completa desde ahora",
        "Spelledaren återupptar partiet: den öppna etappen får en hel tidsfrist från nu"),
    "The moderator rules that %(side)s forfeits the game": ("El moderador decide que %(side)s pierde la partida",
                                                            "Spelledaren beslutar att %(side)s förlorar partiet"),
    "The game is over, so its secret is revealed: %(secret)s. Its SHA-256 is the commitment %(commitment)s shown in "
    "every report; with both sides' submissions it recomputes every die and deal (`pbem audit check`).": (
        "La partida ha terminado, así que se revela su secreto: %(secret)s. Su SHA-256 es el compromiso "
        "%(commitment)s que muestra cada informe; con los envíos de ambos bandos recalcula cada dado y cada reparto "
        "(`pbem audit check`).",
        "Spelet är slut, så dess hemlighet avslöjas: %(secret)s. Dess SHA-256 är åtagandet %(commitment)s som "
        "visas i varje rapport; med båda sidornas inskick räknar den om varje tärning och varje utdelning "
        "(`pbem audit check`)."),
    # the phase (views.py)
    "Free deployment (5.3)": ("Despliegue libre (5.3)", "Fri uppställning (5.3)"),
    "Start of the Year: each side discards one card and plays one": (
        "Comienzo del Año: cada bando descarta una carta y juega otra",
        "Årets början: varje sida kastar ett kort och spelar ett"),
    "Card play: each side plays one card": ("Fase de cartas: cada bando juega una carta", "Kort: varje sida spelar ett kort"),
    "Command: %(side)s (%(role)s) with %(card)s": ("Mando: %(side)s (%(role)s) con %(card)s",
                                                   "Befäl: %(side)s (%(role)s) med %(card)s"),
    "Battle of %(loc)s: won by %(side)s, who may regroup": ("Batalla de %(loc)s: la gana %(side)s, que puede reagruparse",
                                                            "Striden vid %(loc)s: %(side)s vann och får omgruppera"),
    "Battle of %(loc)s, Round %(n)s": ("Batalla de %(loc)s, Ronda %(n)s", "Striden vid %(loc)s, rond %(n)s"),
    "Battles: %(locs)s to fight": ("Batallas: quedan por librar %(locs)s", "Strider: %(locs)s återstår"),
    "Dice and deals: drawn from this game's secret, committed before play as SHA-256 %(commitment)s; the secret is "
    "revealed when the game ends.": (
        "Dados y repartos: salen del secreto de esta partida, comprometido antes de jugar como SHA-256 "
        "%(commitment)s; el secreto se revela al terminar la partida.",
        "Tärningar och utdelningar: dras ur partiets hemlighet, som före spelet låstes som SHA-256 %(commitment)s; "
        "hemligheten avslöjas när spelet är slut."),
    "PRACTICE GAME: its dice and deals follow a fixed seed and can be foreseen; do not play it for a result.": (
        "PARTIDA DE PRÁCTICA: sus dados y repartos siguen una semilla fija y pueden preverse; no la juegues por un "
        "resultado.",
        "ÖVNINGSPARTI: tärningar och utdelningar följer ett fast frö och kan förutses; spela det inte om ett resultat."),
}
MESSAGES.update(ENGINE)

# what to send next (orders/nextstep.py): the order words in a line are the reader's keywords (terms 5)
NEXT_STEP: dict[str, tuple[str, str]] = {
    "%(what)s (%(n)s possible)": ("%(what)s (%(n)s posibles)", "%(what)s (%(n)s möjliga)"),
    "example to copy (%(more)s)": ("ejemplo para copiar (%(more)s)", "exempel att kopiera (%(more)s)"),
    "deploy": ("desplegar", "placera"),  # the label of a deployment line: the reader's keyword (terms 5)
    "example to copy": ("ejemplo para copiar", "exempel att kopiera"),
    "%(first)s or %(next)s": ("%(first)s o %(next)s", "%(first)s eller %(next)s"),
    "cards": ("cartas", "kort"),
    "discard one of: %(cards)s": ("descartar una de: %(cards)s", "kasta ett av: %(cards)s"),
    "play one of: %(cards)s": ("jugar una de: %(cards)s", "spela ett av: %(cards)s"),
    "the card you discard cannot also be played": ("la carta que descartas no puede jugarse también",
                                                   "kortet du kastar kan inte också spelas"),
    "takes the hit: %(options)s": ("recibe el impacto: %(options)s", "tar träffen: %(options)s"),
    "%(block)s regroups to: %(options)s": ("%(block)s se reagrupa en: %(options)s", "%(block)s omgrupperar till: %(options)s"),
    "one of: %(options)s": ("una de: %(options)s", "ett av: %(options)s"),
    "or no regroup: pass": ("o no reagruparse: pasar", "eller ingen omgruppering: passa"),
    "answers": ("respuestas", "svar"),
    "%(block)s (%(loc)s) to port: %(ports)s": ("%(block)s (%(loc)s) a puerto: %(ports)s",
                                               "%(block)s (%(loc)s) till hamn: %(ports)s"),
    "%(loc)s is %(n)s over supply: disband %(n)s of %(blocks)s": (
        "%(loc)s excede en %(n)s su suministro: disolver %(n)s de %(blocks)s",
        "%(loc)s är %(n)s över försörjningsgränsen: upplös %(n)s av %(blocks)s"),
    "winter orders": ("órdenes de invierno", "vinterorder"),
    "%(card)s target one of: %(targets)s": ("%(card)s, objetivo uno de: %(targets)s", "%(card)s, mål ett av: %(targets)s"),
    "or decline: no event": ("o renunciar: ningún evento", "eller avstå: ingen händelse"),
    "%(card)s targets": ("objetivos de %(card)s", "mål för %(card)s"),
    "moves, %(n)s MP": ("movimientos, %(n)s MP", "marscher, %(n)s MP"),
    "moves, %(card)s: one group move": ("movimientos, %(card)s: un movimiento de grupo", "marscher, %(card)s: en gruppmarsch"),
    "new block: %(options)s": ("bloque nuevo: %(options)s", "ny pjäs: %(options)s"),
    "%(blocks)s at %(cities)s": ("%(blocks)s en %(cities)s", "%(blocks)s vid %(cities)s"),
    "step to one of: %(blocks)s": ("paso a uno de: %(blocks)s", "steg till en av: %(blocks)s"),
    "levies, %(n)s LP": ("levas, %(n)s LP", "rekryteringar, %(n)s RP"),
    "nothing to order": ("nada que ordenar", "inget att beordra"),
    "one order per line; list several blocks after ':'": ("una orden por línea; varios bloques tras ':'",
                                                          "en order per rad; flera pjäser efter ':'"),
    "via %(place)s: %(places)s": ("por %(place)s: %(places)s", "via %(place)s: %(places)s"),
    "sea: %(places)s": ("mar: %(places)s", "hav: %(places)s"),
    "order of battles: any order of %(locs)s": ("orden de las batallas: cualquier orden de %(locs)s",
                                                "stridernas ordning: valfri ordning av %(locs)s"),
    "nowhere": ("ningún sitio", "ingenstans"),
    "Navis retreat to %(where)s": ("las Navis se retiran a %(where)s", "navis retirerar till %(where)s"),
    "retreat to %(where)s": ("retirada a %(where)s", "reträtt till %(where)s"),
    "regroup to %(places)s": ("reagruparse en %(places)s", "omgruppera till %(places)s"),
    "battle plans for %(n)s battle (all optional)": ("planes para %(n)s batalla (todos opcionales)",
                                                     "planer för %(n)s strid (alla frivilliga)"),
    "battle plans for %(n)s battles (all optional)": ("planes para %(n)s batallas (todos opcionales)",
                                                      "planer för %(n)s strider (alla frivilliga)"),
    "also: battle L: hits B, B / battle L: order B, B / regroup L: B -> L": (
        "también: batalla L: impactos B, B / batalla L: orden B, B / reagrupar L: B -> L",
        "även: strid L: träffar B, B / strid L: ordning B, B / omgruppera L: B -> L"),
    "Moderator's view: %(year)s, game turn %(turn)s": ("Vista del moderador: %(year)s, turno de juego %(turn)s",
                                                       "Spelledarens vy: %(year)s, drag %(turn)s"),
    "%(side)s's view: %(year)s, game turn %(turn)s": ("Vista de %(side)s: %(year)s, turno de juego %(turn)s",
                                                      "Vyn för %(side)s: %(year)s, drag %(turn)s"),
    # a step's title (steps/session.py, steps/stepdefs.py)
    "%(year)s, turn %(turn)s": ("%(year)s, turno %(turn)s", "%(year)s, drag %(turn)s"),
    "the game is over: %(result)s": ("la partida ha terminado: %(result)s", "spelet är slut: %(result)s"),
    "the game is over": ("la partida ha terminado", "spelet är slut"),
    "free deployment (5.3)": ("despliegue libre (5.3)", "fri uppställning (5.3)"),
    "Year %(year)s starts: discard 1 card and play 1 card": ("Comienza el Año %(year)s: descarta 1 carta y juega 1 carta",
                                                             "År %(year)s börjar: kasta 1 kort och spela 1 kort"),
    "%(when)s: play 1 card": ("%(when)s: juega 1 carta", "%(when)s: spela 1 kort"),
    "%(moves)s Moves, then %(levies)s Levies": ("%(moves)s Movimientos, luego %(levies)s Levas",
                                                "%(moves)s marscher, sedan %(levies)s rekryteringar"),
    "%(when)s: command of %(side)s (%(role)s): %(what)s": ("%(when)s: mando de %(side)s (%(role)s): %(what)s",
                                                           "%(when)s: befäl för %(side)s (%(role)s): %(what)s"),
    "%(when)s: battle plans for %(locs)s": ("%(when)s: planes de batalla para %(locs)s", "%(when)s: stridsplaner för %(locs)s"),
    "winter of %(year)s: Navis to port, supply, disbands": (
        "invierno del %(year)s: Navis a puerto, suministro, disoluciones",
        "vintern år %(year)s: navis till hamn, vinterkvarter, upplösningar"),
    "winter is being resolved": ("se está resolviendo el invierno", "vintern avgörs"),
    "%(side)s chooses the next battle among %(locs)s": ("%(side)s elige la siguiente batalla entre %(locs)s",
                                                        "%(side)s väljer nästa strid bland %(locs)s"),
    "battle of %(loc)s, round %(n)s: turn of %(blocks)s: fire, retreat or pass": (
        "batalla de %(loc)s, ronda %(n)s: turno de %(blocks)s: disparar, retirarse o pasar",
        "striden vid %(loc)s, rond %(n)s: tur för %(blocks)s: slå, retirera eller passa"),
    "battle of %(loc)s: a hit must go to %(blocks)s": ("batalla de %(loc)s: el impacto debe asignarse a %(blocks)s",
                                                       "striden vid %(loc)s: träffen måste tas av %(blocks)s"),
    "battle of %(loc)s won: regroup": ("batalla de %(loc)s ganada: reagrupar", "striden vid %(loc)s vunnen: omgruppera"),
}
MESSAGES.update(NEXT_STEP)

# the mail around a report: its subject, how to answer it, the reminder (decide.py, transport/outbox.py)
MAIL: dict[str, tuple[str, str]] = {
    "[%(game)s] step %(step)s: %(title)s": ("[%(game)s] etapa %(step)s: %(title)s", "[%(game)s] etapp %(step)s: %(title)s"),
    "[%(game)s] reminder: step %(step)s is due %(due)s": (
        "[%(game)s] recordatorio: la etapa %(step)s vence el %(due)s",
        "[%(game)s] påminnelse: etapp %(step)s ska vara klar %(due)s"),
    "Game %(game)s, step %(step)s: %(title)s.": ("Partida %(game)s, etapa %(step)s: %(title)s.",
                                                 "Parti %(game)s, etapp %(step)s: %(title)s."),
    "The step waits for your orders, %(side)s. The deadline is %(deadline)s;\nafter it the published defaults are "
    "applied for every decision of this step\nyou have not sent (for example no moves and no levies in a command step, "
    "the\nlowest-Moves card in a card step, your battle plans' defaults in a battle).\nYour last report lists what you "
    "can send.\n": (
        "Esta etapa espera tus órdenes, %(side)s. La fecha límite es %(deadline)s;\npasada la fecha límite se aplican "
        "las opciones por defecto publicadas a cada decisión de esta etapa\nque no hayas enviado (por ejemplo, ni "
        "movimientos ni levas en una etapa de mando, la carta\nde menos Movimientos en una etapa de cartas, lo que "
        "digan tus planes de batalla en una batalla).\nTu último informe indica lo que puedes enviar.\n",
        "Etappen väntar på dina order, %(side)s. Tidsfristen är %(deadline)s;\nefter tidsfristen tillämpas de "
        "publicerade standardvalen för varje beslut i den här etappen\nsom du inte har skickat (till exempel ingen "
        "marsch och ingen rekrytering i en befälsetapp,\nkortet med minst marscher i en kortetapp, dina stridsplaners "
        "standardval i en strid).\nDin senaste rapport visar vad du kan skicka.\n"),
    "To answer: reply to this mail and keep its subject ([%(game)s] step %(step)s).\nWrite your orders, one per line, "
    "and one line: password: YOUR PASSWORD\nQuoted text and your signature are left out; a reply tells you what was "
    "accepted.\n": (
        "Para responder: contesta a este correo y conserva su asunto ([%(game)s] etapa %(step)s).\nEscribe tus "
        "órdenes, una por línea, y una línea: password: TU CONTRASEÑA\nEl texto citado y tu firma no se leen; una "
        "respuesta te dirá qué se ha aceptado.\n",
        "Så svarar du: svara på det här mejlet och behåll ämnesraden ([%(game)s] etapp %(step)s).\nSkriv dina order, "
        "en per rad, och en rad: password: DITT LÖSENORD\nCiterad text och din signatur läses inte; ett svar "
        "berättar vad som godkändes.\n"),
    "To answer: put your orders, one per line, in orders.txt and run\n  pbem sign --game %(game)s --side %(side)s "
    "--step %(step)s --key YOUR.key --armor < orders.txt\nthen paste the block it prints into a reply to this mail "
    "(or attach what --out writes).\n": (
        "Para responder: pon tus órdenes, una por línea, en orders.txt y ejecuta\n  pbem sign --game %(game)s "
        "--side %(side)s --step %(step)s --key TU.key --armor < orders.txt\ny pega el bloque que imprime en una "
        "respuesta a este correo (o adjunta lo que escribe --out).\n",
        "Så svarar du: skriv dina order, en per rad, i orders.txt och kör\n  pbem sign --game %(game)s --side "
        "%(side)s --step %(step)s --key DIN.key --armor < orders.txt\nklistra sedan in blocket den skriver ut i ett "
        "svar på det här mejlet (eller bifoga det --out skriver).\n"),
}
MESSAGES.update(MAIL)

# the problems of a submission (view/phrases.py problem_patterns): the most frequent first
PROBLEMS: dict[str, tuple[str, str]] = {
    "location": ("lugar", "plats"),
    "card": ("carta", "kort"),
    "side": ("bando", "sida"),
    "Caesar block": ("bloque de César", "pjäs för Caesar"),
    "Pompey block": ("bloque de Pompeyo", "pjäs för Pompejus"),
    "unknown %(kind)s %(name)s": ("nombre desconocido (%(kind)s): %(name)s", "okänt namn (%(kind)s): %(name)s"),
    "unknown %(kind)s %(name)s; did you mean %(options)s?": (
        "nombre desconocido (%(kind)s): %(name)s; ¿quisiste decir %(options)s?",
        "okänt namn (%(kind)s): %(name)s; menade du %(options)s?"),
    "%(card)s is not in your hand; you hold %(cards)s": ("%(card)s no está en tu mano; tienes %(cards)s",
                                                         "%(card)s finns inte på din hand; du har %(cards)s"),
    "%(card)s is not in your hand; you can play %(cards)s": ("%(card)s no está en tu mano; puedes jugar %(cards)s",
                                                             "%(card)s finns inte på din hand; du kan spela %(cards)s"),
    "%(card)s is not in your hand (it is the card you discard); you can play %(cards)s": (
        "%(card)s no está en tu mano (es la carta que descartas); puedes jugar %(cards)s",
        "%(card)s finns inte på din hand (det är kortet du kastar); du kan spela %(cards)s"),
    "discard exactly one card": ("descarta exactamente una carta", "kasta exakt ett kort"),
    "play exactly one card": ("juega exactamente una carta", "spela exakt ett kort"),
    "no 'discard CARD' line: discard one of %(cards)s": ("falta una línea 'descartar CARTA': descarta una de %(cards)s",
                                                         "ingen rad 'kasta KORT': kasta ett av %(cards)s"),
    "no 'play CARD' line: play one of %(cards)s": ("falta una línea 'jugar CARTA': juega una de %(cards)s",
                                                   "ingen rad 'spela KORT': spela ett av %(cards)s"),
    "Apollo cannot be played on the first game turn of a Year: there is no card to copy (C2)": (
        "Apollo no puede jugarse en el primer turno de juego de un Año: no hay carta que copiar (C2)",
        "Apollo kan inte spelas i årets första drag: det finns inget kort att kopiera (C2)"),
    "no road from %(a)s to %(b)s; from %(a)s you can reach %(near)s (4.3)": (
        "no hay carretera de %(a)s a %(b)s; desde %(a)s puedes llegar a %(near)s (4.3)",
        "ingen väg från %(a)s till %(b)s; från %(a)s kan du nå %(near)s (4.3)"),
    "no Move Points left: an amphibious move costs 1 MP per block (6.3)": (
        "no quedan Puntos de Movimiento: un movimiento anfibio cuesta 1 MP por bloque (6.3)",
        "inga marschpoäng kvar: en skeppning kostar 1 MP per pjäs (6.3)"),
    "no Levy Points left (6.4)": ("no quedan Puntos de Leva (6.4)", "inga rekryteringspoäng kvar (6.4)"),
    "%(block)s has already moved this turn (rule 6.1, M1)": ("%(block)s ya se ha movido este turno (regla 6.1, M1)",
                                                             "%(block)s har redan flyttat i detta drag (regel 6.1, M1)"),
    "%(block)s is in %(loc)s, not %(origin)s (rule 6.1)": ("%(block)s está en %(loc)s, no en %(origin)s (regla 6.1)",
                                                           "%(block)s står i %(loc)s, inte i %(origin)s (regel 6.1)"),
    "a block moves at most %(n)s cities (6.1)": ("un bloque se mueve como máximo %(n)s ciudades (6.1)",
                                                 "en pjäs marscherar högst %(n)s städer (6.1)"),
    "a block moves at most %(n)s cities with Mercury (E5)": ("un bloque se mueve como máximo %(n)s ciudades con Mercurio (E5)",
                                                             "en pjäs marscherar högst %(n)s städer med Mercury (E5)"),
    "%(block)s can reach %(places)s": ("%(block)s puede llegar a %(places)s", "%(block)s kan nå %(places)s"),
    "%(block)s cannot move now": ("%(block)s no puede moverse ahora", "%(block)s kan inte flytta nu"),
    "empty order": ("orden vacía", "tom order"),
    "a block name is missing": ("falta el nombre de un bloque", "ett pjäsnamn saknas"),
    "a location is missing": ("falta un lugar", "en plats saknas"),
    "%(names)s named twice": ("%(names)s nombrado dos veces", "%(names)s nämnd två gånger"),
    "a path needs at least two locations joined by '->', like 'Genua -> Roma'": (
        "un camino necesita al menos dos lugares unidos por '->', como 'Genua -> Roma'",
        "en väg behöver minst två platser förenade med '->', som 'Genua -> Roma'"),
    "write 'move FROM -> TO: BLOCK, BLOCK' (a colon before the blocks)": (
        "escribe 'mover DESDE -> HASTA: BLOQUE, BLOQUE' (dos puntos antes de los bloques)",
        "skriv 'flytta FRÅN -> TILL: PJÄS, PJÄS' (kolon före pjäserna)"),
    "incomplete order; write %(form)s": ("orden incompleta; escribe %(form)s", "ofullständig order; skriv %(form)s"),
    "no Move Points left to activate %(loc)s: all %(n)s were used (%(places)s) (6.1)": (
        "no quedan Puntos de Movimiento para activar %(loc)s: se usaron los %(n)s (%(places)s) (6.1)",
        "inga marschpoäng kvar för att aktivera %(loc)s: alla %(n)s har använts (%(places)s) (6.1)"),
    "%(loc)s is %(control)s: new blocks are raised only in Friendly cities (6.4)": (
        "%(loc)s es %(control)s: los bloques nuevos solo se levan en ciudades Amigas (6.4)",
        "%(loc)s är %(control)s: nya pjäser rekryteras bara i egna städer (6.4)"),
    "it can be raised in %(places)s": ("puede levarse en %(places)s", "den kan rekryteras i %(places)s"),
    "new blocks you can raise now: %(blocks)s": ("bloques nuevos que puedes levar ahora: %(blocks)s",
                                                 "nya pjäser du kan rekrytera nu: %(blocks)s"),
    "you can raise no new block now": ("ahora no puedes levar ningún bloque nuevo", "du kan inte rekrytera någon ny pjäs nu"),
    "a sea": ("un mar", "ett hav"),
    "friendly": ("amiga", "egen"),
    "enemy": ("enemiga", "fientlig"),
    "the card step (or the year start)": ("la etapa de cartas (o el comienzo del año)", "kortetappen (eller årets början)"),
    "the year-start step": ("la etapa de comienzo del año", "etappen vid årets början"),
    "the free-deployment step": ("la etapa de despliegue libre", "etappen för fri uppställning"),
    "your command step": ("tu etapa de mando", "din befälsetapp"),
    "your command step with Jupiter": ("tu etapa de mando con Júpiter", "din befälsetapp med Jupiter"),
    "your command step with Vulcan": ("tu etapa de mando con Vulcano", "din befälsetapp med Vulcan"),
    "your command step with an event": ("tu etapa de mando con un evento", "din befälsetapp med en händelse"),
    "your command step with Mars or Neptune": ("tu etapa de mando con Marte o Neptuno", "din befälsetapp med Mars eller Neptune"),
    "an interactive battle step": ("una etapa de batalla interactiva", "en interaktiv stridsetapp"),
    "another step": ("otra etapa", "en annan etapp"),
    "this is step %(step)s, %(title)s; this order belongs to %(where)s": (
        "esta es la etapa %(step)s, %(title)s; esta orden corresponde a %(where)s",
        "detta är etapp %(step)s, %(title)s; den här ordern hör till %(where)s"),
    "warning: %(to)s is held by %(enemy)s, so this retreat can never be carried out (%(rule)s); from %(loc)s you "
    "could retreat to %(places)s": (
        "aviso: %(to)s está en poder de %(enemy)s, así que esta retirada nunca podrá hacerse (%(rule)s); desde "
        "%(loc)s podrías retirarte a %(places)s",
        "varning: %(to)s hålls av %(enemy)s, så den här reträtten kan aldrig genomföras (%(rule)s); från %(loc)s "
        "kunde du retirera till %(places)s"),
    "warning: %(to)s is held by %(enemy)s, so this retreat can never be carried out (%(rule)s); from %(loc)s there "
    "is nowhere to retreat now": (
        "aviso: %(to)s está en poder de %(enemy)s, así que esta retirada nunca podrá hacerse (%(rule)s); desde "
        "%(loc)s no hay ahora adónde retirarse",
        "varning: %(to)s hålls av %(enemy)s, så den här reträtten kan aldrig genomföras (%(rule)s); från %(loc)s "
        "finns det ingenstans att retirera nu"),
    "warning: %(to)s is held by %(enemy)s, so this regroup can never be carried out (%(rule)s); from %(loc)s you "
    "could regroup to %(places)s": (
        "aviso: %(to)s está en poder de %(enemy)s, así que este reagrupamiento nunca podrá hacerse (%(rule)s); desde "
        "%(loc)s podrías reagruparte en %(places)s",
        "varning: %(to)s hålls av %(enemy)s, så den här omgrupperingen kan aldrig genomföras (%(rule)s); från %(loc)s "
        "kunde du omgruppera till %(places)s"),
    "warning: %(to)s is held by %(enemy)s, so this regroup can never be carried out (%(rule)s); from %(loc)s there "
    "is nowhere to regroup now": (
        "aviso: %(to)s está en poder de %(enemy)s, así que este reagrupamiento nunca podrá hacerse (%(rule)s); desde "
        "%(loc)s no hay ahora dónde reagruparse",
        "varning: %(to)s hålls av %(enemy)s, så den här omgrupperingen kan aldrig genomföras (%(rule)s); från %(loc)s "
        "finns det ingenstans att omgruppera nu"),
    # the verdicts' reasons (pbem.decide)
    "%(n)s error; nothing was applied": ("%(n)s error; no se ha aplicado nada", "%(n)s fel; ingenting har genomförts"),
    "%(n)s errors; nothing was applied": ("%(n)s errores; no se ha aplicado nada", "%(n)s fel; ingenting har genomförts"),
    "an exact resend of submission #%(sid)s; nothing changed": (
        "un reenvío exacto del envío n.º %(sid)s; no cambia nada", "en exakt kopia av inskick nr %(sid)s; ingenting ändrat"),
    "step %(step)s (%(title)s) waits for %(who)s, not %(side)s": ("la etapa %(step)s (%(title)s) espera a %(who)s, no a %(side)s",
                                                                  "etapp %(step)s (%(title)s) väntar på %(who)s, inte på %(side)s"),
}
MESSAGES.update(PROBLEMS)

# the rest of the problems of an order line (view/phrases.py _MORE_PROBLEMS)
MORE_PROBLEMS: dict[str, tuple[str, str]] = {
    "unknown order %(word)s Orders start with one of: %(orders)s": (
        "orden desconocida %(word)s. Las órdenes empiezan por una de: %(orders)s",
        "okänd order %(word)s. Order börjar med något av: %(orders)s"),
    "unknown order %(word)s; did you mean %(options)s? Orders start with one of: %(orders)s": (
        "orden desconocida %(word)s; ¿quisiste decir %(options)s? Las órdenes empiezan por una de: %(orders)s",
        "okänd order %(word)s; menade du %(options)s? Order börjar med något av: %(orders)s"),
    "no blocks named after ':' ; write %(form)s": (
        "ningún bloque nombrado tras ':'; escribe %(form)s",
        "inga pjäser nämnda efter ':'; skriv %(form)s"),
    "write %(syntax)s": (
        "escribe %(syntax)s",
        "skriv %(syntax)s"),
    "write %(syntax)s or %(other)s": (
        "escribe %(syntax)s o %(other)s",
        "skriv %(syntax)s eller %(other)s"),
    "write %(syntax)s, %(other)s or %(third)s": (
        "escribe %(syntax)s, %(other)s o %(third)s",
        "skriv %(syntax)s, %(other)s eller %(third)s"),
    "write %(syntax)s (the road of the Main Attack)": (
        "escribe %(syntax)s (la carretera del Ataque Principal)",
        "skriv %(syntax)s (vägen för huvudanfallet)"),
    "write %(syntax)s in the order you want them fought": (
        "escribe %(syntax)s en el orden en que quieres librarlas",
        "skriv %(syntax)s i den ordning du vill utkämpa dem"),
    "an amphibious move goes port -> sea [-> sea] -> port": (
        "un movimiento anfibio va puerto -> mar [-> mar] -> puerto",
        "en skeppning går hamn -> hav [-> hav] -> hamn"),
    "after 'jupiter CITY:' only 'Cleopatra' may be named; the block is drawn at random": (
        "tras 'jupiter CIUDAD:' solo puede nombrarse 'Cleopatra'; el bloque se saca al azar",
        "efter 'jupiter STAD:' får bara 'Cleopatra' nämnas; pjäsen dras slumpvis"),
    "did you mean 'no event'?": (
        "¿quisiste decir 'no event'?",
        "menade du 'no event'?"),
    "a battle is named twice": (
        "una batalla está nombrada dos veces",
        "en strid är nämnd två gånger"),
    "unknown battle plan %(word)s; use retreat, hits or order": (
        "plan de batalla desconocido %(word)s; usa retreat, hits u order",
        "okänd stridsplan %(word)s; använd retreat, hits eller order"),
    "round %(word)s must be 2, 3 or 4": (
        "la ronda %(word)s debe ser 2, 3 o 4",
        "rond %(word)s måste vara 2, 3 eller 4"),
    "round %(n)s: retreats are possible in rounds 2, 3 and 4 (7.6)": (
        "ronda %(n)s: las retiradas son posibles en las rondas 2, 3 y 4 (7.6)",
        "rond %(n)s: reträtter är möjliga i rond 2, 3 och 4 (7.6)"),
    "location %(name)s is ambiguous: it could be %(places)s": (
        "el lugar %(name)s es ambiguo: podría ser %(places)s",
        "platsen %(name)s är tvetydig: det kan vara %(places)s"),
    "%(card)s is not in %(side)s's hand (rule 2.1); you hold %(cards)s": (
        "%(card)s no está en la mano de %(side)s (regla 2.1); tienes %(cards)s",
        "%(card)s finns inte på %(side)ss hand (regel 2.1); du har %(cards)s"),
    "Apollo cannot be played on the first game turn of a Year: there is no card to copy (rule C2)": (
        "Apollo no puede jugarse en el primer turno de juego de un Año: no hay carta que copiar (regla C2)",
        "Apollo kan inte spelas i årets första drag: det finns inget kort att kopiera (regel C2)"),
    "%(block)s is a %(owner)s block, not one of yours": (
        "%(block)s es un bloque de %(owner)s, no uno de los tuyos",
        "%(block)s är en pjäs för %(owner)s, inte en av dina"),
    "%(block)s is a %(owner)s block, not one of yours (rule %(rule)s)": (
        "%(block)s es un bloque de %(owner)s, no uno de los tuyos (regla %(rule)s)",
        "%(block)s är en pjäs för %(owner)s, inte en av dina (regel %(rule)s)"),
    "%(block)s defected to %(side)s: it is not yours now": (
        "%(block)s desertó a %(side)s: ya no es tuyo",
        "%(block)s hoppade av till %(side)s: den är inte din nu"),
    "%(block)s defected to %(side)s: it is not yours now (rule %(rule)s)": (
        "%(block)s desertó a %(side)s: ya no es tuyo (regla %(rule)s)",
        "%(block)s hoppade av till %(side)s: den är inte din nu (regel %(rule)s)"),
    "Cleopatra fights for %(side)s now, not for you": (
        "Cleopatra lucha ahora por %(side)s, no por ti",
        "Cleopatra strider nu för %(side)s, inte för dig"),
    "Cleopatra fights for %(side)s now, not for you (rule %(rule)s)": (
        "Cleopatra lucha ahora por %(side)s, no por ti (regla %(rule)s)",
        "Cleopatra strider nu för %(side)s, inte för dig (regel %(rule)s)"),
    "there is no block %(name)s": (
        "no existe el bloque %(name)s",
        "det finns ingen pjäs %(name)s"),
    "there is no block %(name)s (rule %(rule)s)": (
        "no existe el bloque %(name)s (regla %(rule)s)",
        "det finns ingen pjäs %(name)s (regel %(rule)s)"),
    "%(block)s is dead, not on the map (rule %(rule)s)": (
        "%(block)s ha muerto, no está en el mapa (regla %(rule)s)",
        "%(block)s är död, inte på kartan (regel %(rule)s)"),
    "%(block)s is dead, not on the map": (
        "%(block)s ha muerto, no está en el mapa",
        "%(block)s är död, inte på kartan"),
    "%(block)s is in your levy pool, not on the map": (
        "%(block)s está en tu reserva de leva, no en el mapa",
        "%(block)s är i din rekryteringspool, inte på kartan"),
    "%(block)s is in your levy pool, not on the map (rule %(rule)s)": (
        "%(block)s está en tu reserva de leva, no en el mapa (regla %(rule)s)",
        "%(block)s är i din rekryteringspool, inte på kartan (regel %(rule)s)"),
    "%(block)s was eliminated, not on the map": (
        "%(block)s fue eliminado, no está en el mapa",
        "%(block)s är eliminerad, inte på kartan"),
    "Cleopatra is never levied: she changes sides instead (7.52)": (
        "Cleopatra nunca se leva: en su lugar cambia de bando (7.52)",
        "Cleopatra rekryteras aldrig: hon byter sida i stället (7.52)"),
    "%(block)s is already on the map; to strengthen it write a step levy (6.4)": (
        "%(block)s ya está en el mapa; para reforzarlo escribe una leva de paso (6.4)",
        "%(block)s står redan på kartan; för att förstärka den skriv en stegrekrytering (6.4)"),
    "%(block)s was killed: leaders are eliminated for good (7.51)": (
        "%(block)s murió: los líderes quedan eliminados para siempre (7.51)",
        "%(block)s har dödats: ledare elimineras för gott (7.51)"),
    "%(block)s was eliminated this Year and cannot be levied before the next (5.2, 7.5)": (
        "%(block)s fue eliminado este Año y no puede levarse hasta el siguiente (5.2, 7.5)",
        "%(block)s eliminerades i år och kan inte rekryteras förrän nästa år (5.2, 7.5)"),
    "%(block)s can be levied only after one of %(side)s's leaders has been killed (7.51, M8)": (
        "%(block)s solo puede levarse después de que muera uno de los líderes de %(side)s (7.51, M8)",
        "%(block)s kan rekryteras först när en av %(side)ss ledare har dödats (7.51, M8)"),
    "unknown city %(name)s": (
        "ciudad desconocida %(name)s",
        "okänd stad %(name)s"),
    "%(loc)s is not a major port: Navis are built in Friendly major ports (3.26, 6.4)": (
        "%(loc)s no es un puerto principal: las Navis se construyen en puertos principales Amigos (3.26, 6.4)",
        "%(loc)s är ingen storhamn: navis byggs i egna storhamnar (3.26, 6.4)"),
    "%(block)s is raised only in %(loc)s (6.4)": (
        "%(block)s solo se leva en %(loc)s (6.4)",
        "%(block)s rekryteras bara i %(loc)s (6.4)"),
    "%(block)s is at full strength (%(roman)s) (3.11)": (
        "%(block)s está a plena fuerza (%(roman)s) (3.11)",
        "%(block)s har full styrka (%(roman)s) (3.11)"),
    "%(block)s is at sea: steps are added to Navis only in port (6.4)": (
        "%(block)s está en el mar: los pasos se añaden a las Navis solo en puerto (6.4)",
        "%(block)s är till sjöss: steg läggs till navis bara i hamn (6.4)"),
    "%(loc)s is %(control)s: steps are added only in Friendly cities (6.4)": (
        "%(loc)s es %(control)s: los pasos solo se añaden en ciudades Amigas (6.4)",
        "%(loc)s är %(control)s: steg läggs bara till i egna städer (6.4)"),
    "%(side)s is not levying now (rule 6.4)": (
        "%(side)s no está levando ahora (regla 6.4)",
        "%(side)s rekryterar inte nu (regel 6.4)"),
    "%(side)s is not moving now (rule 6.0)": (
        "%(side)s no está moviendo ahora (regla 6.0)",
        "%(side)s flyttar inte nu (regel 6.0)"),
    "%(block)s is in %(loc)s, not %(origin)s (rule 6.3)": (
        "%(block)s está en %(loc)s, no en %(origin)s (regla 6.3)",
        "%(block)s står i %(loc)s, inte i %(origin)s (regel 6.3)"),
    "%(card)s allows one group move and it was made from %(loc)s (E3-E6)": (
        "%(card)s permite un movimiento de grupo y ya se hizo desde %(loc)s (E3-E6)",
        "%(card)s tillåter en gruppförflyttning och den gjordes från %(loc)s (E3-E6)"),
    "%(card)s allows one group move (E3-E6)": (
        "%(card)s permite un movimiento de grupo (E3-E6)",
        "%(card)s tillåter en gruppförflyttning (E3-E6)"),
    "Neptune moves Navis only (E4)": (
        "Neptuno mueve solo Navis (E4)",
        "Neptune flyttar bara navis (E4)"),
    "%(card)s allows one group move; amphibious moves need a command card (6.3)": (
        "%(card)s permite un movimiento de grupo; los movimientos anfibios necesitan una carta de mando (6.3)",
        "%(card)s tillåter en gruppförflyttning; skeppningar kräver ett befälskort (6.3)"),
    "%(block)s has no amphibious move now": (
        "%(block)s no tiene ningún movimiento anfibio ahora",
        "%(block)s har ingen skeppning nu"),
    "%(block)s can reach by sea %(places)s": (
        "%(block)s puede llegar por mar a %(places)s",
        "%(block)s kan nå sjövägen %(places)s"),
    "you have not attacked %(loc)s this turn (rule 7.3); you attacked %(places)s": (
        "no has atacado %(loc)s este turno (regla 7.3); atacaste %(places)s",
        "du har inte anfallit %(loc)s i detta drag (regel 7.3); du anföll %(places)s"),
    "you have not attacked %(loc)s this turn (rule 7.3); you have attacked nothing yet": (
        "no has atacado %(loc)s este turno (regla 7.3); todavía no has atacado nada",
        "du har inte anfallit %(loc)s i detta drag (regel 7.3); du har inte anfallit något än"),
    "none of your blocks entered %(loc)s from %(origin)s (rule 7.3); they came from %(places)s": (
        "ninguno de tus bloques entró en %(loc)s desde %(origin)s (regla 7.3); vinieron de %(places)s",
        "ingen av dina pjäser gick in i %(loc)s från %(origin)s (regel 7.3); de kom från %(places)s"),
    "%(side)s has no event choice to make now": (
        "%(side)s no tiene ahora ninguna elección de evento",
        "%(side)s har inget händelseval att göra nu"),
    "your event is %(card)s, not %(other_card)s": (
        "tu evento es %(card)s, no %(other_card)s",
        "din händelse är %(card)s, inte %(other_card)s"),
    "%(loc)s is not an Enemy city next to one of your Friendly cities, nor a sea with enemy Navis next to "
       "a Friendly port (rule E1); you may name %(places)s": (
        "%(loc)s no es una ciudad Enemiga junto a una de tus ciudades Amigas, ni un mar con Navis enemigas "
           "junto a un puerto Amigo (regla E1); puedes nombrar %(places)s",
        "%(loc)s är varken en fientlig stad intill en av dina egna städer eller ett hav med fientliga navis "
           "intill en egen hamn (regel E1); du kan nämna %(places)s"),
    "Cleopatra's blue block is not an enemy block in %(loc)s (rule E1)": (
        "el bloque azul de Cleopatra no es un bloque enemigo en %(loc)s (regla E1)",
        "Cleopatras blå pjäs är ingen fientlig pjäs i %(loc)s (regel E1)"),
    "a defector from %(loc)s can only go to an adjacent Friendly city of yours (rule E1); that is %(places)s": (
        "un desertor de %(loc)s solo puede ir a una ciudad Amiga tuya adyacente (regla E1); es decir %(places)s",
        "en avhoppare från %(loc)s kan bara gå till en angränsande egen stad (regel E1); det vill säga %(places)s"),
    "%(loc)s is not an Enemy city (rule E2); you may name %(places)s": (
        "%(loc)s no es una ciudad Enemiga (regla E2); puedes nombrar %(places)s",
        "%(loc)s är ingen fientlig stad (regel E2); du kan nämna %(places)s"),
    "%(loc)s is not a battle you started this turn (rule E3, E4); you may name %(places)s": (
        "%(loc)s no es una batalla que hayas iniciado este turno (regla E3, E4); puedes nombrar %(places)s",
        "%(loc)s är ingen strid du inledde i detta drag (regel E3, E4); du kan nämna %(places)s"),
    "no battle is being fought now (rule 7.1)": (
        "no se está librando ninguna batalla ahora (regla 7.1)",
        "ingen strid utkämpas nu (regel 7.1)"),
    "the battle of %(loc)s is not over yet (rule 7.1)": (
        "la batalla de %(loc)s aún no ha terminado (regla 7.1)",
        "striden vid %(loc)s är inte över än (regel 7.1)"),
    "there is no battle to fight at %(loc)s (rule 7.1); battles left: %(places)s": (
        "no hay batalla que librar en %(loc)s (regla 7.1); batallas pendientes: %(places)s",
        "det finns ingen strid att utkämpa vid %(loc)s (regel 7.1); strider kvar: %(places)s"),
    "it is not %(block)s's battle turn (rule 7.2); the turn belongs to %(blocks)s": (
        "no es el turno de batalla de %(block)s (regla 7.2); el turno es de %(blocks)s",
        "det är inte %(block)ss tur i striden (regel 7.2); turen tillhör %(blocks)s"),
    "attacking blocks must retreat in Round 4 and cannot fire (rule 7.2, B4)": (
        "los bloques atacantes deben retirarse en la Ronda 4 y no pueden disparar (regla 7.2, B4)",
        "anfallande pjäser måste retirera i rond 4 och kan inte slå (regel 7.2, B4)"),
    "attacking blocks must retreat in Round 4 (rule 7.2, B4)": (
        "los bloques atacantes deben retirarse en la Ronda 4 (regla 7.2, B4)",
        "anfallande pjäser måste retirera i rond 4 (regel 7.2, B4)"),
    "no retreats in Round 1 (rule 7.6)": (
        "no hay retiradas en la Ronda 1 (regla 7.6)",
        "inga reträtter i rond 1 (regel 7.6)"),
    "no hit to assign now (rule 7.4)": (
        "ningún impacto que asignar ahora (regla 7.4)",
        "ingen träff att fördela nu (regel 7.4)"),
    "no regroup now (rule 7.7)": (
        "ningún reagrupamiento ahora (regla 7.7)",
        "ingen omgruppering nu (regel 7.7)"),
    "the Navis to place now is %(block)s in %(loc)s (rule 8.3)": (
        "la Navis que se coloca ahora es %(block)s en %(loc)s (regla 8.3)",
        "navisen som ska placeras nu är %(block)s i %(loc)s (regel 8.3)"),
    "%(loc)s is not a Friendly port on %(sea)s (rule 8.3); choose %(places)s": (
        "%(loc)s no es un puerto Amigo de %(sea)s (regla 8.3); elige %(places)s",
        "%(loc)s är ingen egen hamn vid %(sea)s (regel 8.3); välj %(places)s"),
    "Cleopatra cannot be disbanded (rule 8.5)": (
        "Cleopatra no puede disolverse (regla 8.5)",
        "Cleopatra kan inte upplösas (regel 8.5)"),
    "the surplus must come from the blocks in %(loc)s (Cleopatra cannot be disbanded) (rule 8.4); choose "
       "from %(blocks)s": (
        "el excedente debe salir de los bloques de %(loc)s (Cleopatra no puede disolverse) (regla 8.4); elige "
           "entre %(blocks)s",
        "överskottet måste tas från pjäserna i %(loc)s (Cleopatra kan inte upplösas) (regel 8.4); välj bland "
           "%(blocks)s"),
    "%(loc)s is deployed twice (lines %(n)s and %(m)s): one line per city": (
        "%(loc)s se despliega dos veces (líneas %(n)s y %(m)s): una línea por ciudad",
        "%(loc)s ställs upp två gånger (rad %(n)s och %(m)s): en rad per stad"),
    "no Levy Points left: %(card)s gives %(n)s and they are all used (6.4)": (
        "no quedan Puntos de Leva: %(card)s da %(n)s y ya se han usado todos (6.4)",
        "inga rekryteringspoäng kvar: %(card)s ger %(n)s och alla är använda (6.4)"),
    "answer with 'regroup %(loc)s: BLOCK -> DESTINATION' lines, or 'pass'": (
        "responde con líneas 'regroup %(loc)s: BLOQUE -> DESTINO', o 'pass'",
        "svara med rader 'regroup %(loc)s: PJÄS -> MÅL', eller 'pass'"),
    "battle plans are sent in the battles step; this is step %(step)s, %(title)s": (
        "los planes de batalla se envían en la etapa de batallas; esta es la etapa %(step)s, %(title)s",
        "stridsplaner skickas i stridsetappen; detta är etapp %(step)s, %(title)s"),
    "there is no battle at %(loc)s; battles: %(places)s": (
        "no hay batalla en %(loc)s; batallas: %(places)s",
        "det finns ingen strid vid %(loc)s; strider: %(places)s"),
    "%(block)s is not in the battle of %(loc)s": (
        "%(block)s no está en la batalla de %(loc)s",
        "%(block)s är inte med i striden vid %(loc)s"),
    "your blocks in the battle of %(loc)s: %(blocks)s": (
        "tus bloques en la batalla de %(loc)s: %(blocks)s",
        "dina pjäser i striden vid %(loc)s: %(blocks)s"),
    "%(to)s is not a port on a sea next to %(loc)s; by sea you could reach %(places)s": (
        "%(to)s no es un puerto en un mar junto a %(loc)s; por mar podrías llegar a %(places)s",
        "%(to)s är ingen hamn vid ett hav intill %(loc)s; sjövägen kunde du nå %(places)s"),
    "%(to)s is not next to %(loc)s; retreats go to %(places)s": (
        "%(to)s no está junto a %(loc)s; las retiradas van a %(places)s",
        "%(to)s ligger inte intill %(loc)s; reträtter går till %(places)s"),
    "%(to)s is not next to %(loc)s; regroups go to %(places)s": (
        "%(to)s no está junto a %(loc)s; los reagrupamientos van a %(places)s",
        "%(to)s ligger inte intill %(loc)s; omgrupperingar går till %(places)s"),
    "unknown block %(block)s": (
        "bloque desconocido %(block)s",
        "okänd pjäs %(block)s"),
    "%(block)s is not a Navis": (
        "%(block)s no es una Navis",
        "%(block)s är ingen navis"),
    "%(loc)s is not a port": (
        "%(loc)s no es un puerto",
        "%(loc)s är ingen hamn"),
    "one event order only": (
        "solo una orden de evento",
        "bara en händelseorder"),
    "%(card)s is your whole command this turn: no moves or levies (E1, E2)": (
        "%(card)s es todo tu mando este turno: ni movimientos ni levas (E1, E2)",
        "%(card)s är hela ditt befäl i detta drag: inga förflyttningar eller rekryteringar (E1, E2)"),
    "%(word)s is the order of the %(event)s event; your card is %(card)s: one group move (E3-E6)": (
        "%(word)s es la orden del evento %(event)s; tu carta es %(card)s: un movimiento de grupo (E3-E6)",
        "%(word)s är ordern för händelsen %(event)s; ditt kort är %(card)s: en gruppförflyttning (E3-E6)"),
    "%(word)s is the order of the %(event)s event; your card is %(card)s (%(n)s Moves, %(m)s Levies): "
       "send moves and levies": (
        "%(word)s es la orden del evento %(event)s; tu carta es %(card)s (%(n)s Movimientos, %(m)s Levas): "
           "envía movimientos y levas",
        "%(word)s är ordern för händelsen %(event)s; ditt kort är %(card)s (%(n)s förflyttningar, %(m)s "
           "rekryteringar): skicka förflyttningar och rekryteringar"),
    "'no event' is for an event card; your card is %(card)s (%(n)s Moves, %(m)s Levies): send moves and levies": (
        "'no event' es para una carta de evento; tu carta es %(card)s (%(n)s Movimientos, %(m)s Levas): envía "
           "movimientos y levas",
        "'no event' gäller ett händelsekort; ditt kort är %(card)s (%(n)s förflyttningar, %(m)s "
           "rekryteringar): skicka förflyttningar och rekryteringar"),
    "an event card gives no levies (%(card)s)": (
        "una carta de evento no da levas (%(card)s)",
        "ett händelsekort ger inga rekryteringar (%(card)s)"),
    "%(block)s cannot retreat to %(to)s (rule 7.6-7.64)": (
        "%(block)s no puede retirarse a %(to)s (regla 7.6-7.64)",
        "%(block)s kan inte retirera till %(to)s (regel 7.6-7.64)"),
    "%(block)s cannot retreat to %(to)s by sea (rule 7.6-7.64)": (
        "%(block)s no puede retirarse por mar a %(to)s (regla 7.6-7.64)",
        "%(block)s kan inte retirera sjövägen till %(to)s (regel 7.6-7.64)"),
    "it can retreat to %(places)s": (
        "puede retirarse a %(places)s",
        "den kan retirera till %(places)s"),
    "it has no retreat": (
        "no tiene retirada",
        "den har ingen reträtt"),
    "%(block)s cannot regroup to %(to)s (rule 7.7, 7.83, B6)": (
        "%(block)s no puede reagruparse en %(to)s (regla 7.7, 7.83, B6)",
        "%(block)s kan inte omgruppera till %(to)s (regel 7.7, 7.83, B6)"),
    "it can regroup to %(places)s": (
        "puede reagruparse en %(places)s",
        "den kan omgruppera till %(places)s"),
    "it cannot regroup": (
        "no puede reagruparse",
        "den kan inte omgruppera"),
    "%(block)s is not among the strongest blocks (rule 7.4, B2)": (
        "%(block)s no está entre los bloques más fuertes (regla 7.4, B2)",
        "%(block)s är inte bland de starkaste pjäserna (regel 7.4, B2)"),
    "the hit must go to %(blocks)s": (
        "el impacto debe ir a %(blocks)s",
        "träffen måste gå till %(blocks)s"),
    "only a retreat has a destination; to %(action)s, name no place (rule 7.2)": (
        "solo una retirada tiene destino; para %(action)s, no nombres ningún lugar (regla 7.2)",
        "bara en reträtt har ett mål; för att %(action)s, nämn ingen plats (regel 7.2)"),
    "%(loc)s is not one of %(side)s's set-up cities (%(places)s)": (
        "%(loc)s no es una de las ciudades de despliegue de %(side)s (%(places)s)",
        "%(loc)s är inte en av %(side)ss uppställningsstäder (%(places)s)"),
    "%(loc)s is not one of %(side)s's set-up cities (%(places)s) (rule 5.3)": (
        "%(loc)s no es una de las ciudades de despliegue de %(side)s (%(places)s) (regla 5.3)",
        "%(loc)s är inte en av %(side)ss uppställningsstäder (%(places)s) (regel 5.3)"),
    "%(block)s is a Navis and %(loc)s is not a port (4.1)": (
        "%(block)s es una Navis y %(loc)s no es un puerto (4.1)",
        "%(block)s är en navis och %(loc)s är ingen hamn (4.1)"),
    "%(block)s is a Navis and %(loc)s is not a port (4.1) (rule 5.3)": (
        "%(block)s es una Navis y %(loc)s no es un puerto (4.1) (regla 5.3)",
        "%(block)s är en navis och %(loc)s är ingen hamn (4.1) (regel 5.3)"),
    "%(loc)s must hold %(n)s blocks, not %(m)s": (
        "%(loc)s debe tener %(n)s bloques, no %(m)s",
        "%(loc)s måste ha %(n)s pjäser, inte %(m)s"),
    "%(loc)s must hold %(n)s blocks, not %(m)s (rule 5.3)": (
        "%(loc)s debe tener %(n)s bloques, no %(m)s (regla 5.3)",
        "%(loc)s måste ha %(n)s pjäser, inte %(m)s (regel 5.3)"),
    "not in the historical set-up (or placed twice): %(blocks)s": (
        "no están en el despliegue histórico (o se colocaron dos veces): %(blocks)s",
        "inte med i den historiska uppställningen (eller placerade två gånger): %(blocks)s"),
    "not in the historical set-up (or placed twice): %(blocks)s (rule 5.3)": (
        "no están en el despliegue histórico (o se colocaron dos veces): %(blocks)s (regla 5.3)",
        "inte med i den historiska uppställningen (eller placerade två gånger): %(blocks)s (regel 5.3)"),
    "left out: %(blocks)s": (
        "omitidos: %(blocks)s",
        "utelämnade: %(blocks)s"),
    "left out: %(blocks)s (rule 5.3)": (
        "omitidos: %(blocks)s (regla 5.3)",
        "utelämnade: %(blocks)s (regel 5.3)"),
    "send exactly one answer to: %(what)s": (
        "envía exactamente una respuesta a: %(what)s",
        "skicka exakt ett svar på: %(what)s"),
    "this does not answer: %(what)s": (
        "esto no responde a: %(what)s",
        "detta svarar inte på: %(what)s"),
    # the club's own lines (pbem.control)
    "`%(word)s` stands alone: send `%(word)s` on its own (it is not an order of the game), and your orders in a "
    "submission of their own": (
        "`%(word)s` va sola: envía `%(word)s` por sí sola (no es una orden del juego), y tus órdenes en un envío aparte",
        "`%(word)s` står ensam: skicka `%(word)s` för sig (det är ingen order i spelet), och dina order i ett eget "
        "inskick"),
    "write it like: away until 2025-03-10 (or away until 2025-03-10 18:00, UTC)": (
        "escríbelo así: away until 2025-03-10 (o away until 2025-03-10 18:00, UTC)",
        "skriv så här: away until 2025-03-10 (eller away until 2025-03-10 18:00, UTC)"),
    "the game is over; `%(word)s` changes nothing now": ("la partida ha terminado; `%(word)s` ya no cambia nada",
                                                         "spelet är slut; `%(word)s` ändrar ingenting nu"),
    "the other side": ("el otro bando", "den andra sidan"),
    "nothing": ("nada", "ingenting"),
    "none": ("ninguno", "inga"),
    "no draw offer of %(who)s stands, so there is nothing to accept (an offer lapses when the game moves on past the "
    "step after the one it was made in); send `%(offer)s` to offer a draw yourself": (
        "no hay ninguna oferta de tablas de %(who)s en pie, así que no hay nada que aceptar (una oferta caduca cuando "
        "la partida pasa de la etapa siguiente a aquella en que se hizo); envía `%(offer)s` para ofrecer tablas tú",
        "inget erbjudande om remi från %(who)s gäller, så det finns inget att anta (ett erbjudande upphör när spelet "
        "går förbi etappen efter den det gjordes i); skicka `%(offer)s` för att själv erbjuda remi"),
    # the envelope's addressing and the verdict's reasons (pbem.envelope, pbem.decide)
    "this submission is for game %(sent)s, but it was sent to game %(game)s; sign it again for the right game": (
        "este envío es para la partida %(sent)s, pero se mandó a la partida %(game)s; fírmalo de nuevo para la partida "
        "correcta",
        "det här inskicket gäller spel %(sent)s, men det skickades till spel %(game)s; signera det igen för rätt spel"),
    "this submission is for side %(sent)s, but it came from side %(side)s; sign it again for your own side": (
        "este envío es para el bando %(sent)s, pero llegó del bando %(side)s; fírmalo de nuevo para tu propio bando",
        "det här inskicket gäller sidan %(sent)s, men det kom från sidan %(side)s; signera det igen för din egen sida"),
    "this answers step %(sent)s, but the game is at step %(step)s; that step is already resolved": (
        "esto responde a la etapa %(sent)s, pero la partida está en la etapa %(step)s; esa etapa ya está resuelta",
        "detta svarar på etapp %(sent)s, men spelet är i etapp %(step)s; den etappen är redan avgjord"),
    "this answers step %(sent)s, but the game is at step %(step)s; step %(sent)s is not open yet": (
        "esto responde a la etapa %(sent)s, pero la partida está en la etapa %(step)s; la etapa %(sent)s aún no está "
        "abierta",
        "detta svarar på etapp %(sent)s, men spelet är i etapp %(step)s; etapp %(sent)s är inte öppen än"),
    "cannot read the submission: %(why)s": ("no se puede leer el envío: %(why)s", "inskicket kan inte läsas: %(why)s"),
    "the adjudicator failed on these orders and changed nothing (a bug in pbem, not in your orders; the moderator "
    "has the details): %(error)s": (
        "el adjudicador falló con estas órdenes y no cambió nada (un error de pbem, no de tus órdenes; el moderador "
        "tiene los detalles): %(error)s",
        "domaren misslyckades med de här orderna och ändrade ingenting (ett fel i pbem, inte i dina order; "
        "spelledaren har detaljerna): %(error)s"),
    "the block that begins on line %(line)s has no %(end)s line; paste the whole block, down to and including that "
    "line": (
        "el bloque que empieza en la línea %(line)s no tiene la línea %(end)s; pega el bloque entero, hasta esa línea "
        "incluida",
        "blocket som börjar på rad %(line)s saknar raden %(end)s; klistra in hela blocket, till och med den raden"),
    "two armored blocks found (at lines %(lines)s); send one submission per message": (
        "se encontraron dos bloques blindados (en las líneas %(lines)s); manda un envío por mensaje",
        "två pansrade block hittades (på rad %(lines)s); skicka ett inskick per meddelande"),
    "%(n)s armored blocks found (at lines %(lines)s); send one submission per message": (
        "se encontraron %(n)s bloques blindados (en las líneas %(lines)s); manda un envío por mensaje",
        "%(n)s pansrade block hittades (på rad %(lines)s); skicka ett inskick per meddelande"),
    "no %(begin)s line found outside quoted text (the block at line %(line)s is quoted with '>', and quoted text is "
    "ignored); paste the block that `pbem sign` printed without quoting it": (
        "no se encontró ninguna línea %(begin)s fuera del texto citado (el bloque de la línea %(line)s está citado "
        "con '>', y el texto citado se ignora); pega el bloque que imprimió `pbem sign` sin citarlo",
        "ingen rad %(begin)s hittades utanför citerad text (blocket på rad %(line)s är citerat med '>', och citerad "
        "text ignoreras); klistra in blocket som `pbem sign` skrev ut utan att citera det"),
    "no %(begin)s line found; paste the whole block that `pbem sign` printed": (
        "no se encontró ninguna línea %(begin)s; pega el bloque entero que imprimió `pbem sign`",
        "ingen rad %(begin)s hittades; klistra in hela blocket som `pbem sign` skrev ut"),
}
MESSAGES.update(MORE_PROBLEMS)

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
    for path in (package / "replies.py", package / "decide.py", package / "control.py", package / "envelope.py",
                 package / "transport" / "outbox.py"):
        for _line, msg, _comments, _ctx in extract_from_file("python", str(path)):
            out.append((msg, str(path.relative_to(package.parent))))
    # what a game writes itself: its messages are marked N_("...") (pbem.core.phrase)
    for path in sorted((package / "games").rglob("*.py")):
        for _line, msg, _comments, _ctx in extract_from_file("python", str(path), keywords={"N_": None}):
            if not wordless(msg if isinstance(msg, str) else msg[0]):
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
