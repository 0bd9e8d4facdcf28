"""The catalogue's /v1 views (issue 3, point 3): metered data reads.

Each view validates, checks the tier's limits (catalogue.policies), calls one selector
and renders. ``CatalogueReadView.respond`` adds the ETag and answers 304 itself, inside
the metered view, so a revalidation is metered and carries the metering headers.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from django.http import HttpResponse, HttpResponseBase
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from catalogue import batch, gtin, policies, reference_lists, selectors
from catalogue.delivery import projection, rendering, serializers, shared
from catalogue.delivery.conditional import CACHE_CONTROL, etag_for, etag_of_bytes, is_not_modified
from catalogue.search import suggest
from catalogue.search.budget import read_budget
from catalogue.search.paging import Position, cursor_dumps, position_for, with_cursor_search
from catalogue.search.params import MAX_PAGE_OFFSET, MAX_Q_LENGTH, FoodQuery, parse_food_query
from catalogue.search.selectors import FoodPage, food_search
from catalogue.search.text import clean_query
from core import problems
from core.controlchars import refuse_in_api
from metering.api import MeteredAPIView
from metering.throttling import meter_decision

JSON = "application/json"  # what DRF's JSONRenderer answers with


class CatalogueReadView(MeteredAPIView):
    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        """After authentication and metering: a control character in a path parameter is
        a 404, in a query parameter a 400 (issue 11.6), before any query."""
        super().initial(request, *args, **kwargs)
        refuse_in_api(path_parameters=kwargs.values(), query=request.query_params)

    def respond(self, request: Request, body: dict[str, Any]) -> HttpResponseBase:
        """200 with ``body``, or 304 with no body when ``If-None-Match`` holds its tag."""
        etag = etag_for(body)
        headers = {"ETag": etag, "Cache-Control": CACHE_CONTROL}
        if is_not_modified(if_none_match=request.headers.get("If-None-Match"), etag=etag):
            return Response(status=status.HTTP_304_NOT_MODIFIED, headers=headers)
        return Response(body, headers=headers)

    def respond_rendered(self, request: Request, body: bytes, etag: str) -> HttpResponseBase:
        """``respond`` for a body already rendered to JSON bytes (catalogue/delivery/rendering.py):
        the same status, headers and bytes, without encoding anything."""
        headers = {"ETag": etag, "Cache-Control": CACHE_CONTROL}
        if is_not_modified(if_none_match=request.headers.get("If-None-Match"), etag=etag):
            return Response(status=status.HTTP_304_NOT_MODIFIED, headers=headers)
        response = HttpResponse(body, content_type=JSON, headers=headers)
        # What DRF puts on its own responses: the request log reads the request here.
        response.renderer_context = {"request": request}  # type: ignore[attr-defined]
        return response


class FoodListView(CatalogueReadView):
    """``GET /v1/foods``: search, filter, sort, page (docs/catalogue.md, "Searching foods").

    A page this worker does not hold in memory is asked of Redis in the meter's own
    round trip (``meter_carry``; catalogue.delivery.shared, issue 41.1), so a page any
    worker answered lately costs no query and no round trip of its own."""

    carry: shared.Carry | None = None
    asked: tuple[str, dict[str, list[str]], FoodQuery, str | None, int | None] | None = None
    shown: projection.Projection = projection.NO_PROJECTION

    def meter_units(self, request: Request) -> int:
        """A batch (``ids``) costs one unit a distinct id (catalogue.batch); a page one."""
        if "ids" not in request.query_params:
            return 1
        return batch.ids_cost(dict(request.query_params.lists()))

    def _asked(
        self, request: Request
    ) -> tuple[str, dict[str, list[str]], FoodQuery, str | None, int | None]:
        """The page asked for: its path (q cleaned), parameters, query, market and depth;
        read once a request. Raises the request's problem (a Taster without a market, a
        bad parameter, a listing Taster may not make)."""
        if self.asked is None:
            principal = request.auth
            policies.require_market(principal=principal)
            own = dict(request.query_params.lists())
            params = with_cursor_search(own)
            # fields and nutrients shape the rows, not the search (issue 42.4): in the
            # path (one memory entry a projection) and the links, not in the query.
            self.shown = projection.parse_projection(params, shape=projection.SUMMARY_FIELDS)
            query = parse_food_query(
                {k: v for k, v in params.items() if k not in projection.PARAMETERS}
            )
            market = policies.check_food_list(principal=principal, query=query)
            depth = policies.depth_limit(principal=principal)
            # q as searched (cleaned: catalogue.search.text.clean_query), so "butter",
            # "butter%20" and "butter%E2%80%8B" are one page, one memory entry, one link
            # (issue 36.1).
            if "q" in params:
                params["q"] = [query.q]
            if "q" in own:
                own["q"] = [query.q]
            path = f"{request.path}?{urlencode(own, doseq=True)}" if own else request.path
            self.asked = (path, params, query, market, depth)
        return self.asked

    def meter_carry(self, request: Request) -> str | None:
        if "ids" in request.query_params:
            return None  # a batch: records, read in one query
        try:
            path, _, _, market, depth = self._asked(request)
        except problems.Problem:  # answered by get(), after metering, as before
            return None
        if rendering.local_pages.holds((path, market, depth)):
            return None  # this worker holds it: nothing to carry
        self.carry = shared.page_carry(path=path, market=market, depth=depth)
        return None if self.carry is None else self.carry.key

    def get(self, request: Request) -> HttpResponseBase:
        if "ids" in request.query_params:
            return self._batch(request)
        path, params, query, market, depth = self._asked(request)
        decision = meter_decision(request)
        carried = None if decision is None else decision.carried
        # Everything a page depends on: the request's path and query (q cleaned), and
        # the caller's market and depth (catalogue/delivery/rendering.py keeps it for the
        # catalogue version).
        body, etag = shared.food_page(
            key=(path, market, depth),
            carry=self.carry,
            carried=carried,
            make=lambda: self._page(request, path, params, query, market, depth),
        )
        return self.respond_rendered(request, body, etag)

    def _batch(self, request: Request) -> HttpResponseBase:
        """``GET /v1/foods?ids=...`` (catalogue.batch): records by id, as a single read
        sees them; a Taster needs its market but no ``q`` (these are record reads)."""
        market = policies.foods_market(principal=request.auth)
        params = dict(request.query_params.lists())
        ids = batch.parse_ids(params)
        body, etag = batch.food_batch(
            ids=ids, market=market, projection=batch.batch_projection(params)
        )
        return self.respond_rendered(request, body, etag)

    def _page(
        self,
        request: Request,
        path: str,
        params: dict[str, list[str]],
        query: FoodQuery,
        market: str | None,
        depth: int | None,
    ) -> tuple[bytes, str]:
        """The page's body and ETag, searched and assembled from the stored summaries."""
        fingerprint = query.fingerprint()
        position = position_for(
            page=query.page, cursor=query.cursor, page_size=query.page_size, fingerprint=fingerprint
        )
        with read_budget("search"):
            page = food_search(query=query, market=market, depth=depth, position=position)
        links = _links(request, path, params, query, page, fingerprint)
        meta = {
            "q": query.q or None,
            # The query searched instead of q when q (nearly) matched nothing.
            "corrected_q": page.corrected_q,
            # Words of q left out because q found nothing (or only weak matches) with them.
            "relaxed": (
                None
                if page.relaxed is None
                else {"dropped": list(page.relaxed.dropped), "searched": page.relaxed.searched}
            ),
            # The words of q searched as the market's names for them (catalogue.search.synonyms).
            "synonyms": [{"typed": u.typed, "searched": u.searched} for u in page.synonyms],
            "sort": query.sort.text,
            "market": market,
            "offset": page.offset,
            "page_size": query.page_size,
            "count": len(page.rows),
            "total": page.total,
            "total_exact": page.total_exact,
            "depth_limit": depth,
        }
        body = b"".join(
            (
                b'{"data":[',
                b",".join(
                    row["summary"]
                    if self.shown.none
                    else self.shown.bytes_of(row["summary"], wrapped=False)
                    for row in page.rows
                ),
                b'],"links":',
                rendering.dumps(links),
                b',"meta":',
                rendering.dumps(meta),
                b"}",
            )
        )
        return body, etag_of_bytes(body)


def _links(
    request: Request,
    path: str,
    given: dict[str, list[str]],
    query: FoodQuery,
    page: FoodPage,
    fingerprint: str,
) -> dict[str, str | None]:
    """``self`` is the request as made (``path``: q as searched); ``next`` and ``prev``
    are paths to follow as is (``next`` null on the last page the caller may read,
    ``prev`` null on the first),
    holding the whole search (``given``: a cursor's search completed) and a cursor that
    carries it too."""
    params = [(k, v[-1]) for k, v in given.items() if k not in ("page", "cursor")]

    def at(position: Position) -> str:
        if position.key is None and position.offset % query.page_size == 0:
            number = position.offset // query.page_size + 1
            extra = [("page", str(number))] if number > 1 else []
            if position.offset < MAX_PAGE_OFFSET:
                return f"{request.path}?{urlencode(params + extra)}".rstrip("?")
        token = cursor_dumps(position, fingerprint=fingerprint, search=params)
        return f"{request.path}?{urlencode([*params, ('cursor', token)])}"

    previous = None
    if page.offset > 0:
        previous = at(Position(max(0, page.offset - query.page_size)))
    return {
        "self": path,
        "next": at(page.next) if page.next else None,
        "prev": previous,
    }


class FoodDetailView(CatalogueReadView):
    """``GET /v1/foods/{id}``: one food with every portion and measured nutrient.

    A record this worker does not hold in memory is asked of Redis in the meter's own
    round trip (``meter_carry``; catalogue.delivery.shared, issue 28.5), so a record read lately
    by any worker costs no database query."""

    carry: shared.Carry | None = None

    def meter_carry(self, request: Request) -> str | None:
        public_id = self.kwargs.get("public_id", "")
        try:
            market = policies.foods_market(principal=request.auth)
        except problems.Problem:  # answered by get(), after metering, as before
            return None
        if rendering.local_records.holds((public_id, market)):
            return None  # this worker holds it: nothing to carry
        self.carry = shared.record_carry(public_id=public_id, market=market)
        return None if self.carry is None else self.carry.key

    def get(self, request: Request, public_id: str) -> HttpResponseBase:
        market = policies.foods_market(principal=request.auth)
        shown = projection.NO_PROJECTION
        if any(name in request.query_params for name in projection.PARAMETERS):
            shown = projection.parse_projection(
                dict(request.query_params.lists()), shape=projection.RECORD_FIELDS
            )
        decision = meter_decision(request)
        carried = None if decision is None else decision.carried
        body, etag = shared.food_record(
            public_id=public_id, market=market, carry=self.carry, carried=carried
        )
        if not shown.none:  # issue 42.4: its own bytes, its own tag
            body = shown.bytes_of(body, wrapped=True)
            etag = etag_of_bytes(body)
        return self.respond_rendered(request, body, etag)


class BarcodeView(CatalogueReadView):
    """``GET /v1/barcodes/{code}``: the record of the food a GTIN-8/12/13/14 is printed on
    (docs/api-guide.md, "Barcodes"), exactly as ``GET /v1/foods/{id}`` answers it for the
    caller (same body, ETag and market rules), metered as one record read. A code that
    is not a GTIN, or whose check digit is wrong, is a 400 naming ``code``."""

    def get(self, request: Request, code: str) -> HttpResponseBase:
        market = policies.foods_market(principal=request.auth)
        try:
            number = gtin.normalise(code)
        except gtin.BadGtin as exc:
            raise problems.InvalidParameter("code", str(exc)) from None
        public_id = selectors.food_id_by_gtin(gtin=number)
        body, etag = rendering.food_record(public_id=public_id, market=market)
        return self.respond_rendered(request, body, etag)


class NutrientDetailView(CatalogueReadView):
    """``GET /v1/nutrients/{id}``: id is the USDA nutrient number (203 = Protein)."""

    def get(self, request: Request, nutrient_id: str) -> Response:
        nutrient = selectors.nutrient_get(nutrient_id=nutrient_id)
        return self.respond(request, {"data": serializers.nutrient_record(nutrient)})


class CategoryDetailView(CatalogueReadView):
    """``GET /v1/categories/{id}``: id is the category's slug."""

    def get(self, request: Request, slug: str) -> Response:
        category = selectors.category_get(slug=slug)
        return self.respond(request, {"data": serializers.category_record(category)})


class SourceListView(CatalogueReadView):
    """``GET /v1/sources``: the datasets loaded, with their foods per market."""

    def get(self, request: Request) -> Response:
        loads = selectors.source_loads_list()
        return self.respond(request, {"data": serializers.source_list(loads)})


class SuggestView(CatalogueReadView):
    """``GET /v1/suggest?q=``: completions of what has been typed, best first, in the
    caller's market (docs/catalogue.md, "Suggestions"). Any ``q`` is answered: input
    without a letter or digit gets no suggestions, long input is cut
    (catalogue.search.suggest). Answers are kept in the worker's memory for the catalogue
    version, like search pages: people typing share their first letters."""

    def get(self, request: Request) -> HttpResponseBase:
        market = policies.foods_market(principal=request.auth)
        q = request.query_params.get("q", "")
        if len(q) > MAX_Q_LENGTH:
            raise problems.InvalidParameter("q", f"At most {MAX_Q_LENGTH} characters.")
        q = clean_query(q)  # one memory entry however it is spaced (issue 36.1)
        body, etag = rendering.local_pages.remember(
            ("suggest", q, market), lambda: self._answer(q, market)
        )
        return self.respond_rendered(request, body, etag)

    @staticmethod
    def _answer(q: str, market: str | None) -> tuple[bytes, str]:
        with read_budget("suggest"):
            found = suggest.food_suggest(q=q, market=market)
        data = [
            {"text": s.text, "links": {"foods": f"/v1/foods?{urlencode({'q': s.text})}"}}
            for s in found
        ]
        body = rendering.dumps({"data": data, "meta": {"q": q, "market": market}})
        return body, etag_of_bytes(body)


PLAYGROUND_PAGE_SIZE = 10


def food_search_answer(*, principal: Any, q: str, market: str = "") -> dict[str, Any]:
    """The first page of ``GET /v1/foods?q=<q>[&market=<market>]`` for ``principal`` as
    ``{"data": [summary, ...], "meta": {...}}``, through the same policies and search as
    the view (the dashboard's playground; it meters the request itself). Raises the
    view's problems (a Taster without a market, a market not offered, a bad ``q``)."""
    policies.require_market(principal=principal)
    params = {"q": [q], "page_size": [str(PLAYGROUND_PAGE_SIZE)]}
    if market:
        params["market"] = [market]
    query = parse_food_query(params)
    chosen = policies.check_food_list(principal=principal, query=query)
    depth = policies.depth_limit(principal=principal)
    position = position_for(
        page=query.page,
        cursor=query.cursor,
        page_size=query.page_size,
        fingerprint=query.fingerprint(),
    )
    with read_budget("search"):
        page = food_search(query=query, market=chosen, depth=depth, position=position)
    return {
        "data": [json.loads(row["summary"]) for row in page.rows],
        "meta": {
            "q": query.q,
            "corrected_q": page.corrected_q,
            "market": chosen,
            "total": page.total,
            "total_exact": page.total_exact,
        },
    }


class ReferenceListView(CatalogueReadView):
    """A reference list (catalogue.reference_lists): paged like ``GET /v1/foods``, each
    item the record by id. Pages are kept in the worker's memory for the catalogue
    version, like suggestions: every caller of a market reads the same few pages."""

    kind: str

    def require(self, request: Request) -> None:
        """Raises what comes before any parameter is read (nothing by default)."""

    def market(self, request: Request, query: reference_lists.ListQuery) -> str | None:
        """The market the list is of (None: every market, or none applies)."""
        return None

    def get(self, request: Request) -> HttpResponseBase:
        self.require(request)
        params = dict(request.query_params.lists())
        query = reference_lists.list_query_parse(kind=self.kind, params=params)
        market = self.market(request, query)
        path = request.get_full_path()
        body, etag = rendering.local_pages.remember(
            (self.kind, path, market),
            lambda: reference_lists.list_body(query=query, path=path, market=market),
        )
        return self.respond_rendered(request, body, etag)


class NutrientListView(ReferenceListView):
    """``GET /v1/nutrients``: every nutrient, in USDA's display order; any tier, no
    market (one table for both markets)."""

    kind = reference_lists.NUTRIENTS


class CategoryListView(ReferenceListView):
    """``GET /v1/categories``: the categories of the foods the caller reads: its own
    market on Taster (a market chosen first, as every foods read), every market or
    ``market=`` on paid tiers."""

    kind = reference_lists.CATEGORIES

    def require(self, request: Request) -> None:
        # A Taster without a market: before any parameter, as on every foods read (spec 3.2).
        policies.require_market(principal=request.auth)

    def market(self, request: Request, query: reference_lists.ListQuery) -> str | None:
        return policies.foods_market(principal=request.auth, requested=query.market)
