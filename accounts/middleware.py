"""Answers a request refused by the sign-in limit with the 429 page (issue 11.2)."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from accounts.signin_limit import Kind, Refusal
from core.requestnotes import notes_of

MESSAGES = {
    Kind.SIGN_IN: (
        "Too many failed sign-ins for this address. Wait {wait} and try again, or reset "
        "your password."
    ),
    Kind.RESET: "Too many password-reset requests for this address. Wait {wait} and try again.",
    Kind.SIGN_UP: "Too many sign-ups for this address. Wait {wait} and try again.",
}


def refusal_response(request: HttpRequest, refusal: Refusal) -> HttpResponse:
    """The 429 page for ``refusal``, with ``Retry-After``."""
    wait = f"{refusal.minutes} minute" + ("" if refusal.minutes == 1 else "s")
    detail = MESSAGES[refusal.kind].format(wait=wait)
    response = render(
        request, "429.html", {"detail": detail, "kind": refusal.kind.value}, status=429
    )
    response["Retry-After"] = str(refusal.retry_after)
    return response


class SignInLimitMiddleware:
    """Replaces the response of a request whose sign-in the limit refused (the backend
    marked it ``notes_of(request).signin_refusal``): whatever the login view rendered, the person
    gets the 429 page, on the dashboard and in the admin alike."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        refusal = notes_of(request).signin_refusal
        if isinstance(refusal, Refusal):
            return refusal_response(request, refusal)
        return response
