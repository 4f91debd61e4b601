"""The packaged board: it loads, it agrees with the rulebook, the validator finds every fault, names resolve."""

from __future__ import annotations

import copy
import dataclasses
from collections import Counter
from typing import Any

import pytest

from pbem.errors import AmbiguousOrderError, BoardDataError, UnknownNameError
from pbem.games.caesar.rules.board import (
    BlockType,
    Board,
    Edge,
    EdgeKind,
    Side,
    block_aliases,
    default_board,
    load_board_data,
    short_name,
)
from pbem.games.caesar.rules.game import new_game


@pytest.fixture(scope="module")
def board() -> Board:
    return default_board()


@pytest.fixture()
def data() -> dict[str, Any]:
    return copy.deepcopy(load_board_data())


# ---- the packaged data loads and is sound -------------------------------------------


def test_packaged_board_loads_and_validates(board: Board) -> None:
    assert board.problems() == []
    assert Board.from_dict(load_board_data()).problems() == []


def test_counts_from_the_rulebook(board: Board) -> None:
    seas = board.seas()
    assert len(seas) == 9  # 4.4
    valued = [n for n, s in board.spaces.items() if s.vp]
    assert len(valued) == 11 and sum(board.spaces[n].vp for n in valued) == 13  # 4.2
    assert len(board.blocks) == 63  # 1.3
    assert len(board.cards) == 27 and sum(c.event for c in board.cards) == 7  # 2.1
    assert sum(1 for e in board.edges if e.kind is EdgeKind.STRAIT) == 4  # 4.32
    for side in Side:
        mine = [b for b in board.blocks.values() if b.side is side and b.type is not BlockType.CLEOPATRA]
        kinds = Counter(b.type for b in mine)
        assert kinds[BlockType.LEADER] == 3  # 3.21
        assert kinds[BlockType.NAVIS] == 5  # 3.26
        assert kinds[BlockType.BALLISTA] == 1  # 3.25
        aux = sorted(str(b.attack) for b in mine if b.type is BlockType.AUXILIA)
        assert aux == ["A1", "A1", "B1", "B1"]  # 3.23
    caesar = Counter(b.type for b in board.blocks.values() if b.side is Side.CAESAR)
    pompey = Counter(b.type for b in board.blocks.values() if b.side is Side.POMPEY)
    assert caesar[BlockType.EQUITATUS] == 4 and pompey[BlockType.EQUITATUS] == 3 and pompey[BlockType.ELEPHANT] == 1  # 3.24
    ballista = board.blocks["Caesar:Ballista"]
    assert (str(ballista.defend), str(ballista.attack)) == ("B4", "D4")  # 7.42
    assert board.blocks["Pompey:Elephant"].strengths() == (4, 2)  # 7.41
    assert {c.name for c in board.cards if c.event} == {"Apollo", "Jupiter", "Mars", "Mercury", "Neptune", "Pluto", "Vulcan"}


# The rulebook's sidebar "Ports", spelled as printed.
RULEBOOK_PORTS = {
    "Atlanticus": "Burdigala, Gades, Olisipo, Portus, Sala, Tingis",
    "Hispanum": "Caralis, Carthago Nova, Genua, Iomnium, Massilia, Narbo, Siga, Tarraco, Tingis, Utica",
    "Tyrrhenum": "Aleria, Caralis, Genua, Lilybaeum, Messana, Neapolis, Rhegium, Rome, Utica",
    "Internum": "Ambracia, Brundisium, Creta, Cyrene, Lilybaeum, Messana, Pylos, Rhegium, Syracuse, Tacape, Thubactus, Utica",
    "Hadriaticum": "Aquileia, Brundisium, Dyrrachium, Ravenna, Salone, Sipontum",
    "Aegaeum": "Aenos, Athena, Creta, Ephesus, Thessalonika",
    "Propontis": "Byzantium, Nicomedia",
    "Euxinus": "Byzantium, Sinope",
    "Egypticum": "Alexandria, Antioch, Catabathmus, Creta, Perga, Pelusium, Salamis, Tarsus",
}


@pytest.mark.parametrize("sea", sorted(RULEBOOK_PORTS))
def test_ports_match_the_rulebook(board: Board, sea: str) -> None:
    want = sorted(board.resolve_space(p.strip()) for p in RULEBOOK_PORTS[sea].split(","))
    assert sorted(board.ports_of(board.resolve_space(sea))) == want


def test_three_sea_ports_and_islands(board: Board) -> None:
    three = sorted(n for n in board.cities() if len(board.seas_of(n)) == 3)
    assert three == ["Creta", "Utica"]  # 4.42
    islands = {s.island for s in board.spaces.values() if s.island}
    assert islands == {"Corsica", "Sardinia", "Sicilia", "Creta", "Cyprus"}  # 4.41
    assert not board.spaces["Pergamum"].is_port  # Navis example 2


def test_historical_setup_vp() -> None:
    g = new_game(1)
    # "Pompey starts the game holding 7vp while Caesar has only 1vp (Massilia)."
    assert (g.vp(Side.CAESAR), g.vp(Side.POMPEY)) == (1, 7)
    for city in ("Roma", "Athenae", "Byzantium", "Ephesus"):
        assert g.control(city, Side.CAESAR).value == "vacant"


# ---- the validator reports every fault at once ----------------------------------------


def _edge(data: dict[str, Any], a: str, b: str) -> dict[str, Any]:
    for e in data["edges"]:
        if {e["a"], e["b"]} == {a, b}:
            return e
    raise KeyError((a, b))


def _space(data: dict[str, Any], name: str) -> dict[str, Any]:
    return next(s for s in data["spaces"] if s["name"] == name)


def test_validator_reports_every_fault_at_once(data: dict[str, Any]) -> None:
    data["edges"].append({"a": "Genua", "b": "Atlantis", "type": "major"})  # unknown name, no way back
    data["edges"].append({"a": "Roma", "b": "Genua", "type": "major"})  # listed twice (other direction)
    data["edges"].append({"a": "Roma", "b": "Mare Hispanum", "type": "minor"})  # a road onto a sea
    data["edges"].append({"a": "Lugdunum", "b": "Narbo", "type": "sea"})  # a sea edge between land spaces
    data["edges"].append({"a": "Aleria", "b": "Genua", "type": "minor"})  # off an island without a strait
    _space(data, "Roma")["vp"] = 3  # city values total 14
    _space(data, "Genua")["aliases"] = ["Rome"]  # one name for two spaces
    data["blocks"] = [b for b in data["blocks"] if not (b["side"] == "Caesar" and b["name"] == "Legio 21")]  # 30 Caesar blocks
    next(b for b in data["blocks"] if b["name"] == "Legio 17")["levy_city"] = "Londinium"
    data["cards"].pop()  # 26 cards
    data["setup"]["map"]["Pompey"]["Tarraco"].append("Legio 99")
    with pytest.raises(BoardDataError) as info:
        Board.from_dict(data)
    text = str(info.value)
    for fault in (
        "edge Genua-Atlantis names unknown space 'Atlantis'",
        "edge Genua->Atlantis has no way back",
        "edge Roma-Genua is listed twice",
        "minor road Roma-Mare Hispanum touches a sea",
        "sea edge Lugdunum-Narbo joins no sea",
        "inland city Lugdunum has a sea edge",
        "road Aleria-Genua leaves island Corsica without a strait",
        "city values total 14, the rulebook says 13",
        "name 'Rome' is used by both 'Genua' and 'Roma'",
        "blocks: 30 Caesar, 31 Pompey, 1 Cleopatra",
        "unknown levy city 'Londinium'",
        "cards: 26 with 7 events",
        "set-up of Pompey names unknown block 'Legio 99'",
        "levy pool of Caesar names unknown block 'Legio 21'",
    ):
        assert fault in text, f"the validator did not report: {fault}\n{text}"
    assert text.count("\n- ") >= 13


def test_problems_lists_without_raising(data: dict[str, Any]) -> None:
    _space(data, "Alexandria")["vp"] = 0
    board = Board.from_dict(data, check=False)
    assert board.problems() == ["city values total 11, the rulebook says 13 (4.2)"]


def test_one_way_edge_is_found(board: Board) -> None:
    one_way = Edge("Genua", "Tarraco", EdgeKind.MAJOR)
    bad = dataclasses.replace(board, roads={**board.roads, "Genua": board.roads["Genua"] + (one_way,)})
    assert "edge Genua->Tarraco has no way back" in bad.problems()


def test_setup_faults_are_found(data: dict[str, Any]) -> None:
    data["setup"]["map"]["Caesar"]["Lugdunum"].append("Navis 3")  # a Navis inland, and placed twice (also in the pool)
    data["setup"]["levy_pool"]["Pompey"].remove("Brutus")
    problems = Board.from_dict(data, check=False).problems()
    assert "set-up puts Caesar:Navis 3 in Lugdunum, which is not a port" in problems
    assert "set-up of Caesar places ['Navis 3'] more than once" in problems
    assert "set-up of Pompey leaves out ['Brutus']" in problems


# ---- names as players and the rulebook write them -------------------------------------


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Rome", "Roma"),
        ("roma", "Roma"),
        ("ROME", "Roma"),
        ("Syracuse", "Syracusae"),
        ("syracusae", "Syracusae"),
        ("Athena", "Athenae"),
        ("Athens", "Athenae"),
        ("Antioch", "Antiochia"),
        ("Thessalonika", "Thessalonica"),
        ("Nova Carthago", "Carthago Nova"),
        ("carthago nova", "Carthago Nova"),
        ("Massila", "Massilia"),
        ("Egypticum", "Mare Aegypticum"),
        ("Mare Egypticum", "Mare Aegypticum"),
        ("mare aegypticum", "Mare Aegypticum"),
        ("Treveri", "Treviri"),
        ("Salone", "Salona"),
        ("Crete", "Creta"),
        ("Naples", "Neapolis"),
        ("Hispanum", "Mare Hispanum"),
        ("Atlanticus", "Oceanus Atlanticus"),
        ("Euxinus", "Pontus Euxinus"),
        ("Mare Hisp", "Mare Hispanum"),
        ("  genua ", "Genua"),
    ],
)
def test_location_names(board: Board, text: str, name: str) -> None:
    assert board.resolve_space(text) == name


def test_unknown_and_ambiguous_locations(board: Board) -> None:
    with pytest.raises(UnknownNameError) as info:
        board.resolve_space("Massillia")
    assert "Massilia" in info.value.suggestions
    with pytest.raises(AmbiguousOrderError):
        board.resolve_space("Mare")


@pytest.mark.parametrize(
    ("side", "text", "bid"),
    [
        (Side.CAESAR, "L8", "Caesar:Legio 8"),
        (Side.CAESAR, "l8", "Caesar:Legio 8"),
        (Side.CAESAR, "Leg 8", "Caesar:Legio 8"),
        (Side.CAESAR, "Legion 8", "Caesar:Legio 8"),
        (Side.CAESAR, "Legio 13", "Caesar:Legio 13"),
        (Side.CAESAR, "Eq1", "Caesar:Equitatus 1"),
        (Side.CAESAR, "cav 4", "Caesar:Equitatus 4"),
        (Side.CAESAR, "Aux3", "Caesar:Auxilia 3"),
        (Side.CAESAR, "N2", "Caesar:Navis 2"),
        (Side.CAESAR, "ship 5", "Caesar:Navis 5"),
        (Side.CAESAR, "ball", "Caesar:Ballista"),
        (Side.CAESAR, "caesar", "Caesar:Caesar"),
        (Side.POMPEY, "L1", "Pompey:Legio 1"),
        (Side.POMPEY, "eleph", "Pompey:Elephant"),
        (Side.POMPEY, "cleo", "Cleopatra"),
        (Side.POMPEY, "Pompey", "Pompey:Pompey"),
    ],
)
def test_block_short_forms(board: Board, side: Side, text: str, bid: str) -> None:
    assert board.resolve_block(side, text) == bid


def test_block_names_are_per_side(board: Board) -> None:
    with pytest.raises(UnknownNameError):
        board.resolve_block(Side.CAESAR, "L1")  # Legio 1 is Pompey's
    with pytest.raises(UnknownNameError):
        board.resolve_block(Side.CAESAR, "Elephant")
    with pytest.raises(UnknownNameError):
        board.resolve_block(Side.CAESAR, "Cleopatra")  # she is Pompey's unless told otherwise
    assert board.resolve_block(Side.CAESAR, "Cleopatra", cleopatra_side=Side.CAESAR) == "Cleopatra"


def test_short_name_round_trip(board: Board) -> None:
    for info in board.blocks.values():
        owner = info.side
        assert board.resolve_block(owner, short_name(info), cleopatra_side=owner) == info.id
        assert board.resolve_block(owner, info.name, cleopatra_side=owner) == info.id
        assert block_aliases(info)


def test_cards_and_sides_by_name(board: Board) -> None:
    assert board.card("apollo").name == "Apollo"
    assert board.card(" 3/2 ").moves == 3
    with pytest.raises(UnknownNameError):
        board.card("Minerva")
    assert Side.parse("pompey") is Side.POMPEY
    with pytest.raises(UnknownNameError):
        Side.parse("Crassus")
