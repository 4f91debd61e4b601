"""pbem.core.memo.ByIdentity: values made once for objects that cannot be dict keys (a game's board)."""

from __future__ import annotations

from pbem.core.memo import ByIdentity


class Unhashable:
    __hash__ = None  # type: ignore[assignment]  # as a frozen dataclass of mappings is

    def __init__(self, name: str) -> None:
        self.name = name


def test_a_value_is_made_once_for_each_object() -> None:
    made: list[str] = []
    memo: ByIdentity[Unhashable, str] = ByIdentity(lambda o: made.append(o.name) or o.name.upper())
    a, b = Unhashable("a"), Unhashable("a")  # equal in every field, two objects
    assert memo(a) == "A" and memo(a) == "A" and memo(b) == "A"
    assert made == ["a", "a"]


def test_an_object_at_the_id_of_one_gone_gets_its_own_value() -> None:
    memo: ByIdentity[Unhashable, str] = ByIdentity(lambda o: o.name)
    gone = Unhashable("gone")
    memo(gone)
    now = Unhashable("now")
    memo._values[id(now)] = memo._values.pop(id(gone))  # as if ``now`` had taken the id of ``gone``
    assert memo(now) == "now"


def test_the_memo_starts_afresh_past_its_size() -> None:
    memo: ByIdentity[Unhashable, str] = ByIdentity(lambda o: o.name, kept=3)
    objects = [Unhashable(str(i)) for i in range(10)]
    assert [memo(o) for o in objects] == [str(i) for i in range(10)]
    assert len(memo) <= 3


def test_values_are_the_values_kept() -> None:
    memo: ByIdentity[Unhashable, str] = ByIdentity(lambda o: o.name.upper(), kept=2)
    a, b, c = Unhashable("a"), Unhashable("b"), Unhashable("c")
    assert memo.values() == []
    memo(a), memo(b)
    assert sorted(memo.values()) == ["A", "B"]
    memo(c)  # past its size: afresh
    assert memo.values() == ["C"]
