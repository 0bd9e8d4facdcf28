"""The project's routes plus the benchmark's baseline: a bare DRF view that reads one
food by primary key and renders it like GET /v1/foods/{id}, with no authentication,
no permission check and no metering at all."""

from __future__ import annotations

from django.urls import path
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from catalogue import selectors
from catalogue.delivery import serializers
from catalogue.models import Food
from foodservice.urls import urlpatterns as project_urlpatterns


class BareFoodView(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes: list = []

    def get(self, request: Request, pk: int) -> Response:
        food = Food.objects.select_related("category").get(pk=pk)
        nutrients = selectors.nutrients_by_id(ids=[int(k) for k in food.nutrients])
        return Response({"data": serializers.food_detail(food, nutrients)})


urlpatterns = [path("bench/bare-food/<int:pk>", BareFoodView.as_view()), *project_urlpatterns]
