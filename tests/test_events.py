"""``pbem.core.events.Event``, a named tuple, behaves as the frozen record it was: equal only to an event
with the same fields, hashed by kind, audience and text, read back from its JSON form, immutable."""

from __future__ import annotations

import copy
import pickle
from enum import Enum
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbem.core.events import ALL, Event, new_event

_json = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
                     max_leaves=8)
_events = st.builds(Event, st.text(max_size=10), st.sampled_from([ALL, "Caesar", "Pompey", "moderator"]),
                    st.text(max_size=30), st.dictionaries(st.text(max_size=6), _json, max_size=4))


@given(_events)
def test_an_event_reads_back_from_its_json_and_copies_as_itself(ev: Event) -> None:
    back = Event.from_json(ev.to_json())
    assert back == ev and hash(back) == hash(ev) and type(back) is Event
    assert pickle.loads(pickle.dumps(ev)) == ev and copy.deepcopy(ev) == ev
    assert new_event(tuple(ev)) == ev  # type: ignore[arg-type]


@given(_events)
def test_an_event_equals_only_an_event(ev: Event) -> None:
    assert ev != tuple(ev) and tuple(ev) != ev
    assert ev != Event(ev.kind + "x", ev.audience, ev.text, ev.data)
    assert ev != Event(ev.kind, ev.audience, ev.text, {**ev.data, "extra": 1})
    # the data takes no part in the hash (as the frozen dataclass's field with hash=False)
    assert hash(ev) == hash(Event(ev.kind, ev.audience, ev.text, {"other": True}))


class _Audience(str, Enum):
    CAESAR = "Caesar"


def test_an_enum_audience_is_kept_as_its_plain_value_and_the_data_defaults_to_empty() -> None:
    ev = Event("move", _Audience.CAESAR, "a block moves")
    assert type(ev.audience) is str and ev.audience == "Caesar" and ev.data == {}
    assert ev.visible_to("Caesar") and not ev.visible_to("Pompey") and ev.visible_to(None)
    assert repr(ev) == "Event(kind='move', audience='Caesar', text='a block moves', data={})"


def test_an_event_cannot_be_changed() -> None:
    ev: Any = Event("move", ALL, "text")
    with pytest.raises(AttributeError):
        ev.text = "forged"
    assert ev._replace(text="forged").text == "forged" and ev.text == "text"  # a changed copy only
