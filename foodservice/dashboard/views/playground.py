"""The playground (issue 40.2): search foods and analyse a recipe or a meal from the
dashboard with one of the account's keys, metered exactly as ``GET /v1/foods`` and
``POST /v1/analysis`` with that key are (one unit, the same quota and burst bucket, a
refusal not counted, a 5xx given back, and in the key's usage log as those endpoints),
answered by the same code (catalogue.api.food_search_answer,
catalogue.analysis.api.analysis_answer), and shown as people read it: each food found
with its energy, each line's food, grams and portion, the totals and the nutrition
label of the market's rules (catalogue.labels), with the curl and Python that send the
same request.

No secret is involved: the dashboard never holds a raw key (it is shown once), so the
page meters the chosen key's principal directly and the snippets name ``$KEY``."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

from django import forms
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from accounts.tiers import is_paid
from catalogue.analysis.api import MAX_SERVINGS, analysis_answer
from catalogue.api import food_search_answer
from catalogue.delivery import rendering
from catalogue.selectors import markets_offered_named
from core import problems
from foodservice.dashboard.views.accounts import account_of
from keys.models import ApiKey
from keys.selectors import key_list_active, principal_build
from metering.meter import MeterUnavailable
from metering.outcomes import outcome_note_for
from metering.services import StalePrincipal, usage_consume, usage_refund
from metering.throttling import meter_now

EXAMPLE = "2 tbsp butter\n1 cup whole milk\n2 large eggs\n1 slice whole wheat bread"
READINGS = (("ingredients", "Recipe lines, one per line"), ("text", "A meal in one sentence"))
NUTRITION_TYPES = (
    ("", "The default (recipe lines as bought, a sentence as eaten)"),
    ("cooking", "As bought (a recipe)"),
    ("logging", "As eaten (a food diary)"),
)


def _key_and_market_fields(form: forms.Form, keys: list[ApiKey], paid: bool) -> None:
    form.keys = {str(key.pk): key for key in keys}  # type: ignore[attr-defined]
    form.fields["key"].choices = [(str(k.pk), f"{k.label} (…{k.hint})") for k in keys]
    markets = [("", "Every market" if paid else "Your market")]
    if paid:
        markets += [(code, f"{name} ({code})") for code, name in markets_offered_named()]
    form.fields["market"].choices = markets
    if not paid:
        form.fields["market"].widget = forms.HiddenInput()


class SearchForm(forms.Form):
    """The search half: ``GET /v1/foods?q=...`` (its first page)."""

    prefix = "search"
    key = forms.ChoiceField(label="Key to meter the request on")
    q = forms.CharField(label="Food", max_length=200, initial="")
    market = forms.ChoiceField(label="Market", required=False)

    def __init__(self, *args: Any, keys: list[ApiKey], paid: bool, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _key_and_market_fields(self, keys, paid)
        self.fields["q"].widget.attrs.update({"autocomplete": "off", "spellcheck": "false"})


class PlaygroundForm(forms.Form):
    key = forms.ChoiceField(label="Key to meter the request on")
    reading = forms.ChoiceField(
        label="Read as", choices=READINGS, initial="ingredients", widget=forms.RadioSelect
    )
    meal = forms.CharField(
        label="Ingredients or meal",
        widget=forms.Textarea(attrs={"rows": 6, "spellcheck": "false"}),
        initial=EXAMPLE,
        max_length=20_000,
    )
    servings = forms.IntegerField(
        label="Servings (optional)", required=False, min_value=1, max_value=MAX_SERVINGS
    )
    nutrition_type = forms.ChoiceField(label="Foods", choices=NUTRITION_TYPES, required=False)
    market = forms.ChoiceField(label="Market", required=False)

    def __init__(self, *args: Any, keys: list[ApiKey], paid: bool, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _key_and_market_fields(self, keys, paid)

    def body(self) -> dict[str, Any]:
        """The JSON body ``POST /v1/analysis`` would receive."""
        data = self.cleaned_data
        if data["reading"] == "text":
            body: dict[str, Any] = {"text": data["meal"]}
        else:
            body = {
                "ingredients": [line.strip() for line in data["meal"].splitlines() if line.strip()]
            }
        if data.get("servings"):
            body["servings"] = data["servings"]
        if data.get("nutrition_type"):
            body["nutrition_type"] = data["nutrition_type"]
        return body


def snippets(body: dict[str, Any], market: str) -> dict[str, str]:
    """curl and Python (requests) sending ``body`` to ``POST /v1/analysis``; the key is
    read from ``$KEY`` (the dashboard never has it)."""
    url = f"{settings.BASE_URL}/v1/analysis" + (f"?market={market}" if market else "")
    payload = json.dumps(body, ensure_ascii=False)
    curl = (
        f"curl -s -H \"X-API-Key: $KEY\" -H 'Content-Type: application/json' \\\n"
        f"  -d '{payload.replace(chr(39), chr(39) + chr(92) + chr(39) + chr(39))}' \\\n"
        f"  '{url}'"
    )
    python = (
        "import os\n\nimport requests\n\n"
        f"response = requests.post(\n    {url!r},\n"
        '    headers={"X-API-Key": os.environ["KEY"]},\n'
        f"    json={json.dumps(body, ensure_ascii=False)},\n    timeout=30,\n)\n"
        "print(response.json())"
    )
    return {"curl": curl, "python": python}


def search_snippets(q: str, market: str) -> dict[str, str]:
    """curl and Python sending the playground's search as ``GET /v1/foods``."""
    params = {"q": q} | ({"market": market} if market else {})
    url = f"{settings.BASE_URL}/v1/foods?{urlencode(params)}"
    curl = f"curl -s -H \"X-API-Key: $KEY\" \\\n  '{url.replace(chr(39), '%27')}'"
    python = (
        "import os\n\nimport requests\n\n"
        f"response = requests.get(\n    {settings.BASE_URL + '/v1/foods'!r},\n"
        f"    params={json.dumps(params, ensure_ascii=False)},\n"
        '    headers={"X-API-Key": os.environ["KEY"]},\n    timeout=30,\n)\n'
        "print(response.json())"
    )
    return {"curl": curl, "python": python}


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def playground(request: HttpRequest) -> HttpResponse:
    """Both forms on one page; a POST names its form by ``action`` (``search`` or the
    analysis, the default)."""
    account = account_of(request)
    keys = list(key_list_active(account=account, now=timezone.now()))
    paid = is_paid(account.tier)
    searching = request.method == "POST" and request.POST.get("action") == "search"
    analysing = request.method == "POST" and not searching
    form = PlaygroundForm(request.POST if analysing else None, keys=keys, paid=paid)
    search = SearchForm(request.POST if searching else None, keys=keys, paid=paid)
    context: dict[str, Any] = {"account": account, "form": form, "search": search, "keys": keys}
    if analysing and keys and form.is_valid():
        key = form.keys[form.cleaned_data["key"]]
        body, market = form.body(), form.cleaned_data.get("market") or ""
        context["snippets"] = snippets(body, market)
        context.update(
            _metered(
                request,
                key,
                "POST /v1/analysis",
                lambda principal: _analysis(principal, body, market),
            )
        )
    if searching and keys and search.is_valid():
        key = search.keys[search.cleaned_data["key"]]  # type: ignore[attr-defined]
        q, market = search.cleaned_data["q"], search.cleaned_data.get("market") or ""
        context["snippets"] = search_snippets(q, market)
        context["searched"] = True
        context.update(
            _metered(
                request,
                key,
                "GET /v1/foods",
                lambda principal: {
                    "found": food_search_answer(principal=principal, q=q, market=market)
                },
            )
        )
    status = 429 if context.get("refused") else 200
    return render(request, "playground/playground.html", context, status=status)


def _analysis(principal: Any, body: dict[str, Any], market: str) -> dict[str, Any]:
    data, meta = analysis_answer(principal=principal, requested=market, body=body)
    return {"data": data, "meta": meta}


def _metered(
    request: HttpRequest, key: ApiKey, endpoint: str, work: Callable[[Any], dict[str, Any]]
) -> dict[str, Any]:
    """The playground's answer for ``key``: metered like the API (``usage_consume``), then
    ``work(principal)``; a refusal, a problem (the request counted, as the API's 4xx is)
    or the answer. Noted in the key's usage log as ``endpoint`` (metering.outcomes)."""
    principal = principal_build(key=key)
    start = time.perf_counter()

    hour: int | None = None  # the hour the meter counted the request in, once decided

    def note(status: int, kind: str = "", *, counted: bool) -> None:
        outcome_note_for(
            request,
            key_id=key.pk,
            account_id=key.account_id,
            endpoint=endpoint,
            status=status,
            kind=kind,
            counted=counted,
            seconds=time.perf_counter() - start,
            hour=hour,
        )

    try:
        decision = usage_consume(principal=principal, now=meter_now())
    except (MeterUnavailable, StalePrincipal):
        return {"problem": "The meter cannot be reached just now; try again in a moment."}
    hour = decision.hour
    if not decision.allowed:
        burst = decision.refused_by == "burst"
        note(429, "burst-limit-exceeded" if burst else "quota-exceeded", counted=False)
        limit = "the burst limit" if burst else "the quota"
        wait = decision.retry_after or 1
        return {"refused": f"Refused by {limit} (not counted): retry in {wait} s."}
    try:
        answer = work(principal)
    except problems.Problem as problem:  # answered, and counted, as the API's 4xx is
        note(problem.status_code, problem.kind, counted=True)
        return {"problem": str(problem.detail or problem.title), "counted": True}
    except Exception:
        usage_refund(principal=principal, decision=decision)  # the API gives a 5xx back
        note(500, "internal-error", counted=False)
        raise
    note(200, counted=True)
    return answer | {"counted": True, "used": decision.used}


@login_required
@require_http_methods(["GET"])
def food(request: HttpRequest, public_id: str) -> HttpResponse:
    """A food as people read it (issue 40.2): its nutrition label by its market's rules
    (the record's ``label``), its household measures and its source, from the same stored
    rendering ``GET /v1/foods/{id}`` answers with. Among the account's market's foods on
    Taster, every market's on a paid plan, as its keys read them; not metered (one page a
    click, for the signed-in person; the playground's analyses are)."""
    account = account_of(request)
    market = None if is_paid(account.tier) else (account.market or None)
    try:
        body, _ = rendering.food_record(public_id=public_id[:40], market=market)
    except problems.NotFound:
        raise Http404("No such food.") from None
    record = json.loads(body)["data"]
    return render(request, "playground/food.html", {"account": account, "food": record})
