"""The playground (issue 40.2): analyse a recipe or a meal from the dashboard with one of
the account's keys, metered exactly as ``POST /v1/analysis`` with that key is (one unit,
the same quota and burst bucket, a refusal not counted, a 5xx given back), answered by
the same code (catalogue.analysis.api.analysis_answer), and shown as people read it:
each line's food, grams and portion, the totals and the nutrition label of the market's
rules (catalogue.labels), with the curl and Python that send the same request.

No secret is involved: the dashboard never holds a raw key (it is shown once), so the
page meters the chosen key's principal directly and the snippets name ``$KEY``."""

from __future__ import annotations

import json
from typing import Any

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
from catalogue.delivery import rendering
from catalogue.selectors import markets_offered_named
from core import problems
from foodservice.dashboard.views.accounts import account_of
from keys.models import ApiKey
from keys.selectors import key_list_active, principal_build
from metering.meter import MeterUnavailable
from metering.services import StalePrincipal, usage_consume, usage_refund
from metering.throttling import meter_now

EXAMPLE = "2 tbsp butter\n1 cup whole milk\n2 large eggs\n1 slice whole wheat bread"
READINGS = (("ingredients", "Recipe lines, one per line"), ("text", "A meal in one sentence"))
NUTRITION_TYPES = (
    ("", "The default (recipe lines as bought, a sentence as eaten)"),
    ("cooking", "As bought (a recipe)"),
    ("logging", "As eaten (a food diary)"),
)


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
        self.keys = {str(key.pk): key for key in keys}
        self.fields["key"].choices = [(str(k.pk), f"{k.label} (…{k.hint})") for k in keys]
        markets = [("", "Every market" if paid else "Your market")]
        if paid:
            markets += [(code, f"{name} ({code})") for code, name in markets_offered_named()]
        self.fields["market"].choices = markets
        if not paid:
            self.fields["market"].widget = forms.HiddenInput()

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


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def playground(request: HttpRequest) -> HttpResponse:
    account = account_of(request)
    keys = list(key_list_active(account=account, now=timezone.now()))
    paid = is_paid(account.tier)
    form = PlaygroundForm(request.POST or None, keys=keys, paid=paid)
    context: dict[str, Any] = {"account": account, "form": form, "keys": keys}
    if request.method == "POST" and keys and form.is_valid():
        key = form.keys[form.cleaned_data["key"]]
        body, market = form.body(), form.cleaned_data.get("market") or ""
        context["snippets"] = snippets(body, market)
        context.update(_answer(key, body, market))
    status = 429 if context.get("refused") else 200
    return render(request, "playground/playground.html", context, status=status)


def _answer(key: ApiKey, body: dict[str, Any], market: str) -> dict[str, Any]:
    """The playground's answer for ``key``: metered like the API (``usage_consume``), then
    ``analysis_answer``; a refusal, a problem (the request counted, as the API's 400 does)
    or the answer."""
    principal = principal_build(key=key)
    try:
        decision = usage_consume(principal=principal, now=meter_now())
    except (MeterUnavailable, StalePrincipal):
        return {"problem": "The meter cannot be reached just now; try again in a moment."}
    if not decision.allowed:
        limit = "the burst limit" if decision.refused_by == "burst" else "the quota"
        wait = decision.retry_after or 1
        return {"refused": f"Refused by {limit} (not counted): retry in {wait} s."}
    try:
        data, meta = analysis_answer(principal=principal, requested=market, body=body)
    except problems.Problem as problem:  # answered, and counted, as the API's 4xx is
        return {"problem": str(problem.detail or problem.title), "counted": True}
    except Exception:
        usage_refund(principal=principal, decision=decision)  # the API gives a 5xx back
        raise
    return {"data": data, "meta": meta, "counted": True, "used": decision.used}


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
