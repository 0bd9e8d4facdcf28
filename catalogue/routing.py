"""Which database a raw SQL catalogue read runs on.

The project's ``ReplicaRouter`` (``foodservice/replicas.py``, installed only when read
replicas are configured) routes model reads; a raw SQL read asks Django's router the
same question for ``Food``, so it goes where a model read would: a healthy replica
during a GET or HEAD, the primary otherwise."""

from __future__ import annotations

from django.db import router

from catalogue.models import Food


def catalogue_read_alias() -> str:
    """The alias a raw SQL catalogue read uses (as the router would route a model)."""
    return router.db_for_read(Food)
