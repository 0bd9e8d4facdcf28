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


# --- catalogue (issue 3) ---------------------------------------------------------------


class MarketFactory(DjangoModelFactory):
    class Meta:
        model = "catalogue.Market"
        django_get_or_create = ("code",)

    code = "US"
    name = "United States"


class CategoryFactory(DjangoModelFactory):
    class Meta:
        model = "catalogue.Category"
        django_get_or_create = ("slug",)

    name = factory.Sequence(lambda n: f"Category {n}")
    slug = factory.LazyAttribute(lambda o: "-".join(o.name.lower().split()))


class NutrientFactory(DjangoModelFactory):
    class Meta:
        model = "catalogue.Nutrient"
        django_get_or_create = ("id",)

    id = 203
    number = factory.LazyAttribute(lambda o: str(o.id) if o.id < 1000 else "")
    name = "Protein"
    unit = "g"
    rank = 600


class FoodFactory(DjangoModelFactory):
    """A food as a loader would store it. Pass ``nutrients={"203": 1.5}``; the headline
    columns and the search form of the name follow from it."""

    class Meta:
        model = "catalogue.Food"

    source = "sr28"
    source_id = factory.Sequence(lambda n: f"{90000 + n:05d}")
    public_id = factory.LazyAttribute(lambda o: f"{o.source}-{o.source_id}")
    name = factory.Sequence(lambda n: f"Test food {n}")
    search_name = factory.LazyAttribute(lambda o: _search_name(o.name))
    data_type = "sr_legacy"
    market = factory.SubFactory(MarketFactory)
    category = None
    nutrients = factory.LazyFunction(dict)
    content_hash = "factory"

    @classmethod
    def _create(cls, model_class, *args, **kwargs):  # type: ignore[no-untyped-def]
        from catalogue.nutrients import HEADLINES, headline_columns

        for column, value in headline_columns(kwargs.get("nutrients") or {}).items():
            kwargs.setdefault(column, value)
        kwargs.setdefault("brand_key", kwargs.get("brand_owner", "").casefold())
        from catalogue.search.ranking import food_search_columns

        headlines = {h.column: kwargs.get(h.column) for h in HEADLINES}
        category = kwargs.get("category")
        columns = food_search_columns(
            name=kwargs["name"],
            data_type=kwargs["data_type"],
            headlines=headlines,
            category=category.name if category is not None else "",
        )
        for column, value in columns.items():
            kwargs.setdefault(column, value)
        return super()._create(model_class, *args, **kwargs)


def _search_name(name: str) -> str:
    from catalogue.search.text import search_name

    return search_name(name)
