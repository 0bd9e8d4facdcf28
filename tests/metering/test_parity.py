"""One case table, run against every meter backend (in-process always, Redis in the
PostgreSQL + Redis pass), so the Lua script and the Python meter cannot drift."""

from __future__ import annotations

import pytest

from tests.support.meter_cases import CASES, admitted_of, run


@pytest.mark.parametrize("name", list(CASES))
def test_backends_agree_with_the_case_table(meter, name):
    case = CASES[name]
    expected = [(s.expect, s.used, admitted_of(s), s.retry_after) for s in case.steps]
    assert run(meter, case, account_id=1000 + list(CASES).index(name)) == expected
