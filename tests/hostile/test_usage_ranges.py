"""Hostile usage-history ranges (issue 36.3): any ``key``, ``start``, ``end``,
``granularity``, ``period`` (and any other name, repeated or not) on GET
/v1/usage/history is answered 200, the ``invalid-parameter`` 400 or the 404 of another
account's key, and the dashboard's usage pages and CSV downloads (``range``, ``by``,
``period``, ``start``, ``end``) 200 or their 400: never a 500.

Most queries are well formed but for their values, so that the values reach the range
parser (an unknown name is refused before any value is read): ids in digits of every
script ("²", "①", "١٢": ``str.isdigit()`` holds for all, ``int()`` refuses or misreads
them), moments near the limits of ``datetime`` (year 1, 9999-12-31) and of the service
(the year 2000, the current hour) with offsets of almost a day either way, and
arbitrary Unicode text.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from urllib.parse import urlencode

import pytest
from django.test import Client
from hypothesis import given, settings
from hypothesis import strategies as st

from keys.models import ApiKey
from keys.services import key_create
from metering.history_range import MAX_BUCKETS, RangeError, floor_to, parse_range
from tests.conftest import T0
from tests.factories import AccountFactory
from tests.hostile.profile import hostile

pytestmark = pytest.mark.django_db

text = st.text(st.characters(exclude_categories=("Cs",)), max_size=30)
# Every character that is a digit to str.isdigit() but not a decimal to int().
NOT_DECIMAL = "".join(c for c in map(chr, range(0x3000)) if c.isdigit() and not c.isdecimal())
ids = st.one_of(
    st.text(st.sampled_from("0123456789" + NOT_DECIMAL), min_size=1, max_size=6),
    st.text(st.characters(categories=("Nd", "No")), min_size=1, max_size=4),  # ١٢, ½
    st.integers(-(2**70), 2**70).map(str),
    text,
)
OFFSETS = ["", "Z", "z", "+00:00", "-00:00", "+05:30", "-12:00", "+23:59", "-23:59",
           "+23:59:59", "-23:59:59", "-23:59:59.999999", "+23:59:59.999999", "-24:00"]  # fmt: skip
EDGES = [
    datetime(1, 1, 1),
    datetime(1999, 12, 31, 23),
    datetime(2000, 1, 1),
    T0.replace(tzinfo=None),  # the controlled clock's now: the current hour and day
    datetime(9999, 12, 31),
    datetime(9999, 12, 31, 23),
    datetime.max,
]
FORMS = ["%Y-%m-%d", "%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M:%S.%f", "%Y-%m-%d %H"]
HOUR_US, TWO_DAYS_US = 3600 * 10**6, 2 * 86400 * 10**6


@st.composite
def moments(draw: st.DrawFn) -> str:
    """An ISO 8601 date or date-time within an hour or two days of a limit, with any
    offset."""
    edge = draw(st.sampled_from(EDGES))
    shift = timedelta(
        microseconds=draw(st.integers(-HOUR_US, HOUR_US) | st.integers(-TWO_DAYS_US, TWO_DAYS_US))
    )
    try:
        moment = edge + shift
    except OverflowError:  # past year 1 or 9999: as far on the other side
        moment = edge - shift
    # strftime writes year 1 as "1": the year is written here
    stamp = moment.strftime(draw(st.sampled_from(FORMS)).replace("%Y", f"{moment.year:04d}"))
    return stamp if len(stamp) == 10 else stamp + draw(st.sampled_from(OFFSETS))


dates = st.one_of(moments(), moments(), moments(), text)
granularities = st.sampled_from(["hour", "day"]) | text
periods = st.sampled_from(["24h", "7d", "30d"]) | text
API_VALUES = {
    "key": ids,
    "start": dates,
    "end": dates,
    "granularity": granularities,
    "period": periods,
}
DASHBOARD_VALUES = {
    "by": granularities,
    "period": periods,
    "start": dates,
    "end": dates,
    "range": periods,
}


def queries(values: dict[str, st.SearchStrategy[str]]) -> st.SearchStrategy[str]:
    """A range (``start`` and maybe ``end``), or any of the known parameters, each
    present or not; then now and then one more pair: a repeated name or any other (an
    unknown name is refused before any value is read, so it comes last and seldom)."""
    rest = {name: strategy for name, strategy in values.items() if name != "start"}
    known = st.one_of(
        st.fixed_dictionaries({"start": dates}, optional=rest),
        st.fixed_dictionaries({}, optional=values),
    ).map(lambda chosen: list(chosen.items()))
    other = st.tuples(st.sampled_from(list(values)) | text, ids | dates)
    extra = st.lists(other, max_size=1) | st.just([]) | st.just([])
    return st.tuples(known, extra).map(lambda parts: urlencode(parts[0] + parts[1]))


# The parser alone costs next to nothing: four times the examples of an HTTP property.
parser_examples = settings(hostile, max_examples=4 * hostile.max_examples)


@parser_examples
@given(
    start=dates,
    end=st.none() | dates,
    granularity=st.none() | granularities,
    key=st.none() | ids,
)
def test_any_range_is_parsed_or_refused_naming_its_parameter(start, end, granularity, key):
    """Issue 36.3: ``parse_range`` raises ``RangeError`` and nothing else (an
    ``OverflowError`` or ``ValueError`` out of it was a 500); what it returns is whole
    buckets, in range, ending by the current hour or day."""
    given_params = {"start": start, "end": end, "granularity": granularity, "key": key}
    params = {name: value for name, value in given_params.items() if value is not None}
    try:
        found = parse_range(params, now=T0)
    except RangeError as refusal:
        assert refusal.parameter in params
        return
    assert found.start.year >= 2000 and found.start < found.end
    assert found.end <= floor_to(T0, found.granularity) + found.step
    assert 1 <= len(found) <= MAX_BUCKETS[found.granularity]
    assert found.key_id is None or str(found.key_id) == key.lstrip("0") or found.key_id == 0


@pytest.fixture
def own_key() -> tuple[ApiKey, str]:
    return key_create(account=AccountFactory(market="US"), label="hostile")


@hostile
@given(query=queries(API_VALUES))
def test_any_history_query_gets_a_range_a_400_or_a_404(query, api_client, own_key, clock):
    response = api_client.get(f"/v1/usage/history?{query}", HTTP_X_API_KEY=own_key[1])
    assert response.status_code in (200, 400, 404), (query, response.content[:300])
    if response.status_code == 400:
        body = response.json()
        assert body["type"] == "/problems/invalid-parameter", body
        assert isinstance(body["errors"][0]["parameter"], str)  # "" for "?=1"
    elif response.status_code == 404:
        assert "key=" in query


@hostile
@given(
    query=queries(DASHBOARD_VALUES),
    page=st.sampled_from(
        ["/usage/", "/usage/usage.csv", "/usage/keys/{id}/", "/usage/keys/{id}/usage.csv"]
    ),
)
def test_any_dashboard_usage_query_gets_a_page_or_a_400(query, page, own_key, clock):
    key = own_key[0]
    browser = Client()
    browser.force_login(key.account.owner)
    response = browser.get(f"{page.format(id=key.pk)}?{query}")
    assert response.status_code in (200, 400), (page, query, response.content[:300])
    if response.status_code == 400:  # a bad range in plain text; a control character
        # anywhere is the site-wide 400 page (core/controlchars.py)
        assert response["Content-Type"].split(";")[0] in ("text/plain", "text/html")
