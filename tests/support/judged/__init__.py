"""The judged sets and their scorers: what people type or write, what a good answer
holds, and how an answer is scored. The tests run them on small samples of real rows
(tests/catalogue/search/test_judged_set.py, tests/catalogue/analysis/test_judged_set.py); the
benchmarks on the full catalogue (bench/scripts/search_quality.py and
analysis_quality.py).

- ``search_set``: the judged queries of ``GET /v1/foods``; ``search_scoring`` runs them
  through ``catalogue.search.selectors.food_search`` and scores the pages.
- ``analysis_set``: the judged lines of ``POST /v1/analysis``; ``analysis_scoring`` runs
  them through ``catalogue.analysis.selectors.analysis_run`` and scores the results.
"""
