"""Nutrition analysis of free-text ingredient lines (issue 26, ``POST /v1/analysis``).

``units`` and ``parser`` are pure (text in, values out); ``weighing`` turns a parsed line
and a food's household measures into grams (pure); ``selectors`` matches lines to foods
through the catalogue's search and adds up the nutrients (reads the database).
"""
