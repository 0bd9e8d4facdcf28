"""The catalogue's operations in the OpenAPI schema (issue 6): parameters, bodies,
problems and headers of ``GET /v1/foods``, ``/v1/suggest``, ``/v1/foods/{id}``,
``/v1/nutrients/{id}``, ``/v1/categories/{id}`` and ``/v1/sources``. Loaded by
``CatalogueConfig.ready()``, which imports this package: importing it registers every
operation's ``OpenApiViewExtension``.

One module per operation or concept: ``shapes`` (building blocks, nothing registered),
``components`` (the food, nutrient, category and source bodies), ``reads`` (what every
metered catalogue read has), ``foods_list`` and ``foods_parameters`` (``GET /v1/foods``),
``suggest``, ``records`` (the reads of one record by id, and the sources). The bodies
mirror ``catalogue.delivery.serializers`` and the contract tests (tests/openapi) check every live
response against them.

The document lists the components in the order they are registered: ``components``
first (``foods_list`` imports it), then ``FoodList``, then ``Suggestions``.
"""

from catalogue.schema import foods_list, lists, records, suggest  # noqa: F401
