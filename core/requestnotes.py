"""What the layers of one request tell each other, in one typed note (issue 25.2).

Authentication, the meter's throttle, the metered view, the sign-in limit and the
request log hand facts along a request: whether the meter checks the key's epoch, the
key's principal and the account epoch still to be checked, the meter's decision and
whether its unit was given back, a refused sign-in, the request id. They live in one
``RequestNotes`` attached to the Django request on first use and read through
``notes_of`` (after Zulip's ``RequestNotes``), never as loose attributes. A DRF
``Request`` and the Django request it wraps share one note. The base layer imports no
app, so the app-typed fields are ``Any`` here; each app reads its own through a typed
function (``metering.throttling.meter_decision``, ``keys.authentication.unchecked_epoch``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest
from rest_framework.request import Request

_ATTRIBUTE = "foodservice_notes"


@dataclass(slots=True)
class RequestNotes:
    request_id: str | None = None  # set by the request log middleware
    principal: Any = None  # keys.principal.KeyPrincipal, once a key authenticated
    # The account epoch of a principal answered unchecked (this worker's copy), which
    # the meter checks in the same step as its decision; None: nothing to check.
    key_epoch: str | None = None
    # Set by a metered view before authentication: its meter checks the key's epoch in
    # the same step as its decision, so authentication may answer an unchecked copy.
    key_checked_by_meter: bool = False
    meter_decision: Any = None  # metering.decisions.MeterDecision, once metered
    meter_refunded: bool = False  # the admitted unit was given back (a 5xx answer)
    signin_refusal: Any = None  # accounts.signin_limit.Refusal of a refused sign-in
    # A refused key (issue 40.3), for the usage log: (key id, account id) when the key
    # is known (a disallowed address), else the refused secret's stored-digest form.
    refused_key: tuple[int, int] | None = None
    refused_digest: str | None = None


def notes_of(request: HttpRequest | Request) -> RequestNotes:
    """The request's note, attached on first use."""
    django_request = request._request if isinstance(request, Request) else request
    notes = getattr(django_request, _ATTRIBUTE, None)
    if notes is None:
        notes = RequestNotes()
        setattr(django_request, _ATTRIBUTE, notes)
    return notes
