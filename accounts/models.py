"""Users (who sign in) and accounts (who own a tier, a market, keys and a quota)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractUser, BaseUserManager
from django.db import models

from accounts.tiers import Tier, TierLimits, tier_limits


class UserManager(BaseUserManager["User"]):
    use_in_migrations = True

    def create_user(self, email: str, password: str | None = None, **extra: Any) -> User:
        if not email:
            raise ValueError("an e-mail address is required")
        user = self.model(email=self.normalize_email(email).lower(), **extra)
        user.set_password(password)  # None -> unusable password
        user.save(using=self._db)
        return user

    def create_superuser(self, email: str, password: str | None = None, **extra: Any) -> User:
        extra.setdefault("is_staff", True)
        extra.setdefault("is_superuser", True)
        return self.create_user(email, password, **extra)


class User(AbstractUser):
    """A person who signs in to the dashboard, identified by e-mail (no username)."""

    username = None  # type: ignore[assignment]
    email = models.EmailField("e-mail address", unique=True)
    email_verified_at = models.DateTimeField(null=True, blank=True)

    USERNAME_FIELD = "email"
    REQUIRED_FIELDS: list[str] = []
    objects = UserManager()  # type: ignore[misc]

    def __str__(self) -> str:
        return self.email


class Account(models.Model):
    """The unit of billing and metering (spec 2.1): one tier, one market, up to 5 keys,
    one quota and one burst bucket shared by all its keys."""

    owner = models.OneToOneField(User, on_delete=models.CASCADE, related_name="account")
    tier = models.CharField(max_length=20, choices=Tier.choices, default=Tier.TASTER)
    # ISO 3166-1 alpha-2; "" until chosen (spec 3.2).
    market = models.CharField(max_length=2, blank=True, default="")
    # Start of the first billing period on a monthly window; renewals fall on the same
    # day of the month (clamped to the month's last day). None on Taster.
    billing_anchor = models.DateTimeField(null=True, blank=True)
    # Executive Chef's negotiated limits, all set together (custom_quota None: the
    # tier table's defaults). custom_rate and custom_burst None: unthrottled.
    custom_quota = models.PositiveBigIntegerField(null=True, blank=True)
    custom_window = models.CharField(
        max_length=5, blank=True, default="", choices=[("day", "day"), ("month", "month")]
    )
    custom_rate = models.FloatField(null=True, blank=True)
    custom_burst = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["tier"])]

    def __str__(self) -> str:
        return f"{self.owner.email} ({self.get_tier_display()})"

    @property
    def limits(self) -> TierLimits:
        """The limits in force: the tier's, or Executive Chef's negotiated ones."""
        if self.tier == Tier.EXECUTIVE_CHEF and self.custom_quota is not None:
            return TierLimits(
                quota=self.custom_quota,
                window=self.custom_window or "month",  # type: ignore[arg-type]
                rate=self.custom_rate,
                burst=self.custom_burst,
            )
        return tier_limits(self.tier)


class SignInAttempt(models.Model):
    """One counted attempt of the sign-in limit (``accounts.signin_limit``): a password
    tried (kept when wrong, deleted when right) or a password-reset or sign-up request.

    Rows live in the database, not Redis, so the limit holds across every worker on both
    backends and sign-in keeps working while Redis is down. ``subject`` is a hash of the
    e-mail address as typed (no address is stored, and unknown addresses count alike);
    ``client`` is the client's address (an IPv6 client's /64)."""

    kind = models.CharField(max_length=8)
    subject = models.CharField(max_length=64)
    client = models.CharField(max_length=64)
    at = models.DateTimeField()

    class Meta:
        indexes = [
            models.Index(fields=["kind", "subject", "at"], name="signin_subject_at"),
            models.Index(fields=["at"], name="signin_at"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.subject[:8]} from {self.client} at {self.at:%Y-%m-%d %H:%M:%S}"
