"""Factories for test data. Keys built here carry a known secret via ``secret=``."""

from __future__ import annotations

import factory
from django.conf import settings
from factory.django import DjangoModelFactory

from accounts.models import Account, User
from accounts.tiers import Tier
from keys import secrets
from keys.models import ApiKey


class UserFactory(DjangoModelFactory):
    class Meta:
        model = User
        django_get_or_create = ("email",)

    email = factory.Sequence(lambda n: f"cook{n}@example.com")
    password = factory.django.Password("correct horse battery staple")


class AccountFactory(DjangoModelFactory):
    class Meta:
        model = Account

    owner = factory.SubFactory(UserFactory)
    tier = Tier.TASTER
    market = ""


class ApiKeyFactory(DjangoModelFactory):
    """``ApiKeyFactory(secret=s)`` stores the digest of ``s``; the default is random."""

    class Meta:
        model = ApiKey

    class Params:
        secret = factory.LazyFunction(secrets.generate)

    account = factory.SubFactory(AccountFactory)
    label = factory.Sequence(lambda n: f"key {n}")
    secret_hash = factory.LazyAttribute(
        lambda o: secrets.digest(o.secret, pepper=settings.KEY_PEPPER)
    )
    hint = factory.LazyAttribute(lambda o: secrets.hint(o.secret))
