"""Dashboard routes for API keys, mounted at /keys/ under the ``keys`` namespace."""

from __future__ import annotations

from django.urls import path

from keys import views

app_name = "keys"
urlpatterns = [
    path("", views.key_list, name="list"),
    path("new/", views.create, name="create"),
    path("<int:key_id>/rotate/", views.rotate, name="rotate"),
    path("<int:key_id>/revoke/", views.revoke, name="revoke"),
    path("<int:key_id>/rename/", views.rename, name="rename"),
]
