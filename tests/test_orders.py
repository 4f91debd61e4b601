"""The order language: round trip, robustness, and messages."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.games.caesar.orders import language as O
from pbem.games.caesar.orders.language import parse_order, parse_orders
from pbem.games.caesar.rules.board import BlockType, Side, default_board

BOARD = default_board()
LOCS = sorted(BOARD.spaces)
CARDS = sorted({c.name for c in BOARD.cards})


def own_names(side: Side) -> list[str]:
    names = [b.name for b in BOARD.blocks.values() if b.side is side and b.type is not BlockType.CLEOPATRA]
    foreign = [f"{side.enemy.value} {b.name}" for b in BOARD.blocks.values() if b.side is side.enemy and b.type is not BlockType.CLEOPATRA]
    return sorted(names + foreign + ["Cleopatra"])


sides = st.sampled_from(list(Side))
locs = st.sampled_from(LOCS)


def block_lists(side: Side, min_size: int = 1) -> st.SearchStrategy[tuple[str, ...]]:
    return st.lists(st.sampled_from(own_names(side)), min_size=min_size, max_size=4, unique=True).map(tuple)


def paths(n: int) -> st.SearchStrategy[tuple[str, ...]]:
    return st.lists(locs, min_size=n, max_size=n + 2).map(tuple)


def orders_for(side: Side) -> st.SearchStrategy[O.Order]:
    blocks = block_lists(side)
    one = st.sampled_from(own_names(side))
    return st.one_of(
        st.builds(O.PlayCard, st.sampled_from(CARDS)),
        st.builds(O.DiscardCard, st.sampled_from(CARDS)),
        st.builds(O.DeployOrder, locs, blocks),
        st.builds(O.MoveOrder, paths(2), blocks),
        st.builds(O.SeaOrder, paths(3), blocks),
        st.builds(O.MainOrder, locs, locs),
        st.builds(O.LevyOrder, one, st.none() | locs),
        st.builds(O.StepOrder, one),
        st.builds(O.JupiterOrder, locs, st.booleans(), st.none() | locs),
        st.builds(O.VulcanOrder, locs),
        st.just(O.NoEventOrder()),
        st.builds(O.SurpriseOrder, st.none() | locs),
        st.just(O.PassOrder()),
        st.builds(O.BattlesOrder, st.lists(locs, min_size=1, max_size=4, unique=True).map(tuple)),
        st.builds(O.RetreatPlan, locs, block_lists(side, 0), locs, st.none() | st.sampled_from([2, 3, 4]), st.booleans(), st.booleans()),
        st.builds(O.HitsPlan, locs, blocks),
        st.builds(O.OrderPlan, locs, blocks),
        st.builds(O.RegroupPlan, locs, blocks, locs),
        st.builds(O.WinterNavis, one, locs),
        st.builds(O.WinterDisband, blocks),
        st.builds(O.FireOrder, one),
        st.builds(O.PassBlockOrder, one),
        st.builds(O.RetreatOrder, one, locs, st.booleans()),
        st.builds(O.HitOrder, one),
    )


@given(st.data())
@settings(max_examples=400, deadline=None)
def test_parse_format_round_trip(data: st.DataObject) -> None:
    side = data.draw(sides)
    order = data.draw(orders_for(side))
    text = str(order)
    assert parse_order(text, side) == order
    # players' spellings: any case, extra spaces
    assert parse_order("  " + text.upper().replace(" ", "  ") + "  ", side) == order


@given(st.text(max_size=300), sides)
@settings(max_examples=300, deadline=None)
def test_random_text_never_crashes(text: str, side: Side) -> None:
    orders, errors = parse_orders(text, side)
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for e in errors:
        assert 1 <= e.lineno <= len(lines)
        assert e.message
    for o in orders:
        assert parse_order(str(o.order), side) == o.order


@given(st.data())
@settings(max_examples=200, deadline=None)
def test_mutated_orders_give_errors_with_line_numbers(data: st.DataObject) -> None:
    side = data.draw(sides)
    good = [str(data.draw(orders_for(side))) for _ in range(3)]
    i = data.draw(st.integers(0, 2))
    line = good[i]
    pos = data.draw(st.integers(0, len(line)))
    junk = data.draw(st.text(min_size=1, max_size=3))
    good[i] = line[:pos] + junk + line[pos:]
    text = "\n".join(good)
    orders, errors = parse_orders(text, side)
    assert len(orders) + len(errors) <= 3 + text.count("\r") + 2
    for e in errors:
        assert e.lineno >= 1 and e.text


def test_email_quotes_comments_and_signature_are_ignored() -> None:
    text = "> play 4/1\n# a comment\nplay 3/2   # my card\n\n-- \nMarcus\nplay 2/2\n"
    orders, errors = parse_orders(text, Side.CAESAR)
    assert errors == []
    assert [o.order for o in orders] == [O.PlayCard("3/2")]
    assert orders[0].lineno == 3


def test_names_as_players_write_them() -> None:
    o = parse_order("MOVE rome -> Naples: l8, leg 12, antonius", Side.CAESAR)
    assert o == O.MoveOrder(("Roma", "Neapolis"), ("Legio 8", "Legio 12", "Antonius"))
    assert parse_order("levy aux 1 at Massila", Side.CAESAR) == O.LevyOrder("Auxilia 1", "Massilia")
    assert parse_order("winter: navis N2 -> athens", Side.POMPEY) == O.WinterNavis("Navis 2", "Athenae")
    # legions are often written with Roman numerals
    assert parse_order("move Ravenna -> Roma: Legio XIII, leg xii", Side.CAESAR) == O.MoveOrder(
        ("Ravenna", "Roma"), ("Legio 13", "Legio 12")
    )
    # a defector keeps its origin in its name
    assert parse_order("levy step Pompey Eq 1", Side.CAESAR) == O.StepOrder("Pompey Equitatus 1")


def test_errors_say_what_would_be_right() -> None:
    _, errors = parse_orders("move Genua -> Rma: L8\nmove Genua -> Roma L8\nfoo\nlevy Legio 99", Side.CAESAR)
    msgs = [e.message for e in errors]
    assert "did you mean 'Roma'" in msgs[0]
    assert "a colon before the blocks" in msgs[1]
    assert "Orders start with one of" in msgs[2]
    assert "did you mean 'Legio 9'" in msgs[3]
    assert [e.lineno for e in errors] == [1, 2, 3, 4]


def test_parse_orders_remembers_its_results_without_sharing_its_lists() -> None:
    """parse_orders keeps its last results (a submission is parsed on every check): the same
    answer as a fresh parse, and a caller's changes to the lists it got never reach the next caller."""
    from pbem.games.caesar.orders import language
    from pbem.games.caesar.rules.board import default_board

    text = "play 3/2\nmove Roma -> Genua: Caesar\nmove Roma -> Genua: Nobody\nlanguage es\n"
    language._PARSED.clear()
    fresh = tuple(map(list, language._parse_orders(text, Side.CAESAR, default_board())))
    assert fresh[0] and fresh[1]  # orders and errors both
    first = language.parse_orders(text, Side.CAESAR)
    assert first == fresh
    first[0].clear()
    first[1].clear()
    assert language.parse_orders(text, Side.CAESAR) == fresh  # the cached answer, whole
    again = language.parse_orders(text, Side.CAESAR)
    assert language.parse_orders(text, Side.POMPEY) != again  # the side is part of the question


def test_a_block_name_resolved_once_is_remembered_per_board_side_and_spelling() -> None:
    """resolve_block_name keeps what it found: the same answer as walking the catalogue, for every
    spelling of every block (own, the enemy's, with the enemy's name before it) and both sides; a name
    that resolves to nothing is never kept (it raises each time); another board has its own table."""
    from pbem.errors import PbemError
    from pbem.games.caesar.rules.board import Board, block_aliases, load_board_data

    board = default_board()
    spellings = {a for info in board.blocks.values() for a in block_aliases(info)}
    spellings |= {f"{side.value} {info.name}" for side in Side for info in board.blocks.values()}
    for side in Side:
        for text in sorted(spellings):
            try:
                walked: str | None = O._resolve_block_key(board, side, text, O._norm(text))
            except PbemError:
                walked = None
            for _ in range(2):  # the first call walks and keeps; the second reads what was kept
                try:
                    got: str | None = O.resolve_block_name(board, side, text)
                except PbemError:
                    got = None
                assert got == walked, (side, text)
    kept = O._RESOLVED(board)
    assert {s for s, _ in kept} == set(Side)
    assert all(v is not None for v in kept.values())
    other = Board.from_dict(load_board_data())
    assert O.resolve_block_name(other, Side.CAESAR, "Legio 7") == "Legio 7"
    assert O._RESOLVED(other) is not kept and O._RESOLVED(board) is kept  # each board its own names
    # a process that makes board after board keeps a few tables, not one per board ever made
    boards = [Board.from_dict(load_board_data()) for _ in range(2 * O._BOARDS_KEPT)]
    for b in boards:
        assert O.resolve_block_name(b, Side.POMPEY, "Pompey") == "Pompey"
    assert len(O._RESOLVED) <= O._BOARDS_KEPT
    assert O._RESOLVED(boards[-1]) == {(Side.POMPEY, O._norm("Pompey")): "Pompey"}
