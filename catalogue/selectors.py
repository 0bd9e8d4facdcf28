"""Reads of the catalogue."""

from __future__ import annotations

from django.conf import settings


def markets_offered() -> list[str]:
    """Market codes an account may choose. Until the catalogue holds foods: the settings'."""
    return sorted(settings.DEFAULT_MARKETS)
