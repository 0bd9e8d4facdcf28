"""What the scripts of bench/scripts/ share:

- ``loadkit``: gunicorn started the production way, accounts on every tier, the
  concurrent client and its request mix, the end-of-run checks, writing RESULTS.md;
- ``faultkit``: the timeline and checks of the fault scripts (``fault_*.py``);
- ``spread``: the spread traffic of ``reads.py --spread`` (and of ``reads_profile.py``);
- ``queries``: the query lists of the search benchmarks;
- ``worst_inputs``, ``worst_probe``, ``worst_contention``: the hostile inputs of
  ``search_worst.py``, one request timed, and the contention phase;
- ``servers/``: settings and URLconfs of servers the scripts start, put on the server's
  ``PYTHONPATH`` and imported by their own names (``reads_settings``).

Kits import tests/support/ and the apps' public functions, never a script.
"""
