"""Tiers and their limits (spec 2.2, 8.1, 8.3). Pure: no database.

The launch values live in ``settings.FOODSERVICE_TIERS``; this module turns them into
``TierLimits`` values. An Executive Chef account may carry its own negotiated values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from django.conf import settings
from django.db import models

WindowKind = Literal["day", "month"]
WINDOWS: tuple[WindowKind, ...] = ("day", "month")


class Tier(models.TextChoices):
    TASTER = "taster", "Taster"
    SOUS_CHEF = "sous_chef", "Sous Chef"
    HEAD_CHEF = "head_chef", "Head Chef"
    EXECUTIVE_CHEF = "executive_chef", "Executive Chef"


PAID_TIERS = frozenset({Tier.SOUS_CHEF, Tier.HEAD_CHEF, Tier.EXECUTIVE_CHEF})


@dataclass(frozen=True, slots=True)
class TierLimits:
    """What a tier allows.

    ``quota`` requests per ``window`` ("day": rolling 24 hours in hourly steps;
    "month": the billing period). ``rate`` (tokens per second) and ``burst`` (bucket
    size) describe the burst bucket; both ``None`` means unthrottled.
    """

    quota: int
    window: WindowKind
    rate: float | None
    burst: int | None

    def __post_init__(self) -> None:
        if self.quota < 0:
            raise ValueError("quota must not be negative")
        if self.window not in WINDOWS:
            raise ValueError(f"window must be one of {WINDOWS}")
        if (self.rate is None) != (self.burst is None):
            raise ValueError("rate and burst are both set or both unthrottled")
        if self.rate is not None and (self.rate <= 0 or (self.burst or 0) < 1):
            raise ValueError("rate must be positive and burst at least 1")

    @property
    def unthrottled(self) -> bool:
        return self.rate is None


def tier_limits(tier: str) -> TierLimits:
    """The launch limits of ``tier`` from ``settings.FOODSERVICE_TIERS``."""
    row = settings.FOODSERVICE_TIERS[Tier(tier).value]
    return TierLimits(
        quota=int(row["quota"]),  # type: ignore[call-overload]
        window=row["window"],  # type: ignore[arg-type]
        rate=None if row["rate"] is None else float(row["rate"]),  # type: ignore[arg-type]
        burst=None if row["burst"] is None else int(row["burst"]),  # type: ignore[call-overload]
    )


def is_paid(tier: str) -> bool:
    return tier in PAID_TIERS
