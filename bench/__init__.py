"""Benchmarks: the top floor (docs/development.md, "The floors"), which may use every app
and tests/support/, and which nothing imports.

- ``scripts/``: the runnable benchmarks, each ``.venv/bin/python bench/scripts/<name>.py``
  (its docstring says what it measures and how to run it); never imported.
- ``kits/``: what the scripts share (gunicorn and the load client, the fault timeline,
  the hostile inputs, the query lists) and, in ``kits/servers/``, the settings and
  URLconfs of the servers some scripts start.
- ``RESULTS.md``: the figures, each script writing its own section.
"""
