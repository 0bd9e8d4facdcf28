"""Importers of USDA data into the catalogue (issue 3, point 2).

Parsing is pure and streams (``sr28.py``, ``fdc.py``: files in, ``FoodRecord`` and
``Skipped`` out, a row at a time); writing is ``writer.py`` (bulk, idempotent, one
transaction); ``load.py`` ties them together for the ``load_catalogue`` command.
"""
