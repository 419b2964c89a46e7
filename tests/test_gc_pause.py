"""A query pauses Python's cyclic collector (its full passes walked the whole dataset at
every few thousand allocations) and leaves it as it found it: resumed after the last of the
queries running at once, still off when the program had turned it off, and after an error."""

from __future__ import annotations

import gc
import threading

import pytest

from anthology.gc_pause import gc_paused
from anthology.query.rows import Budget, Dataset, FileRow
from anthology.query.values import QueryError


@pytest.fixture(autouse=True)
def _collector_on():
    was = gc.isenabled()
    gc.enable()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


def _dataset() -> Dataset:
    rows = [FileRow(f"n{i}.md", f"n{i}", props_json=f'{{"x": {i}}}') for i in range(50)]
    return Dataset(rows, lambda target, source: None)


def test_a_query_pauses_the_collector_and_resumes_it() -> None:
    from anthology.query.dataview import parse_query, run_query

    seen: list[bool] = []
    query = parse_query("TABLE x WHERE x > 10")
    data = _dataset()
    with gc_paused():
        seen.append(gc.isenabled())
        result = run_query(query, data, this_path=None, budget=Budget())
        seen.append(gc.isenabled())  # the query's own pause ended, the outer one holds
    assert result.total == 39
    assert seen == [False, False] and gc.isenabled()


def test_overlapping_pauses_resume_after_the_last() -> None:
    inside = threading.Event()
    release = threading.Event()

    def other() -> None:
        with gc_paused():
            inside.set()
            release.wait(10)

    t = threading.Thread(target=other)
    t.start()
    inside.wait(10)
    with gc_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()  # the other query still runs
    release.set()
    t.join(10)
    assert gc.isenabled()


def test_an_error_resumes_it_and_an_off_collector_stays_off() -> None:
    from anthology.query.dataview import parse_query, run_query

    with pytest.raises(QueryError):
        # every row fails its WHERE (a number plus null is Dataview's error): the query fails
        run_query(parse_query("TABLE x WHERE x + null > 1"), _dataset(), this_path=None,
                  budget=Budget())  # fmt: skip
    assert gc.isenabled()
    gc.disable()
    with gc_paused():
        pass
    assert not gc.isenabled()
