# The two set-up commands of the README:
#   make run    runs the service on the embedded default (SQLite, in-process metering)
#   make test   runs the whole test suite on both backends: embedded default, PostgreSQL +
#               Redis, and the engine tests, three passes side by side

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PG_TEST_URL ?= postgres://postgres@127.0.0.1:5432/foodservice
REDIS_TEST_URL ?= redis://127.0.0.1:6379/1
PYTEST_ARGS ?=
XDIST ?= 2
HOST ?= 127.0.0.1
PORT ?= 8000

# Python writes and reuses its bytecode here, whatever the shell says: with
# PYTHONDONTWRITEBYTECODE set (as on some CI images), every server, worker and manage.py
# process compiled the project again, and every pytest worker rewrote every test
# module's asserts again (issue 41.4: a tenth of make test's CPU).
unexport PYTHONDONTWRITEBYTECODE

OPENAPI_LINT := tools/openapi-lint
OPENAPI_CLIENT := tools/openapi-client-check
AXE := tools/axe

.PHONY: axe run test test-embedded test-services lint lint-openapi lint-openapi-client format serve-prod check-deploy test-hostile-long bench-timing

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[dev]"
	touch $@

# A person reads these logs: the text form of the JSON request log (LOG_FORMAT).
run: export LOG_FORMAT ?= text
# Unless BASE_URL is set, the settings build it from HOST and PORT, so every doc_url and
# /docs example points at the port this server listens on.
run: export HOST := $(HOST)
run: export PORT := $(PORT)
run: $(VENV)/.installed
	$(PY) manage.py migrate --noinput -v0
	$(PY) manage.py collectstatic --noinput -v0
	$(PY) manage.py load_catalogue --source sr28 --if-empty
	$(PY) manage.py load_catalogue --source ifct --if-empty
	$(PY) manage.py setup_demo --host $(HOST) --port $(PORT)
	$(PY) manage.py runserver --noreload $(HOST):$(PORT)

# The three passes run side by side (make -j3), each spread over XDIST pytest-xdist
# workers; -Otarget prints each pass's output whole when it ends. Every worker has its
# own test database and Redis key prefix, named after a run id (tests/conftest.py), so
# the passes, their workers and other runs on the same servers never collide.
# The collection first, alone: it compiles every module and writes pytest's rewritten
# test modules once, which the six workers then read instead of each rewriting them.
# Whatever it finds wrong, the passes report (hence || true).
test: $(VENV)/.installed
	env -u DATABASE_URL -u REDIS_URL $(PY) -m pytest --collect-only -qq -p no:cacheprovider > /dev/null 2>&1 || true
	$(MAKE) --no-print-directory -j3 -Otarget test-embedded test-services test-engines

# axe-core for the browser tests' accessibility checks (tests/browser/test_axe.py),
# pinned by tools/axe/package-lock.json, installed by `npm ci` (issue 29).
$(AXE)/node_modules/.installed: $(AXE)/package.json $(AXE)/package-lock.json
	cd $(AXE) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

axe: $(AXE)/node_modules/.installed

# The contract fuzz (tests/openapi/test_live_contract.py, marked fuzz) runs once, in the
# services pass: the response shapes it checks come from the same serializers on both
# backends, and the API tests of this pass assert them on SQLite; its four schemathesis
# runs and their server were a tenth of this pass's CPU (issue 41.4).
test-embedded: $(VENV)/.installed axe
	@echo "=== test pass: embedded default (SQLite, in-process metering) ==="
	env -u DATABASE_URL -u REDIS_URL $(PY) -m pytest -n $(XDIST) -m "not fuzz" $(PYTEST_ARGS)

# backend_free tests start processes on an environment of their own (not this pass's
# DATABASE_URL / REDIS_URL): the embedded pass runs them, running them here would repeat
# the very same thing. The browser tests (layout at 390/1280/1440 px, axe-core, the
# journeys' clicks) assert what the page looks like and how it reads, which no backend
# changes; the pages' data on PostgreSQL + Redis is asserted here by tests/dashboard
# through Django's client. Run once, in the embedded pass, they spare a fifth of this
# pass's CPU (issue 41.4). So are the http_edge tests (what gunicorn and nginx answer to
# request framing and slow clients, before any backend is read).
test-services: $(VENV)/.installed
	@echo "=== test pass: PostgreSQL + Redis (the engine tests have a pass of their own) ==="
	DATABASE_URL=$(PG_TEST_URL) REDIS_URL=$(REDIS_TEST_URL) $(PY) -m pytest -n $(XDIST) -m "not engines and not backend_free and not http_edge and not browser" $(PYTEST_ARGS)

# tests/engines: throwaway Redis Cluster / Sentinel, PgBouncer, a PostgreSQL replica.
# Mostly waiting (failovers, replay, a second pytest through PgBouncer), so two workers
# halve the pass's wall time; --dist loadfile keeps each module's engines (its replica,
# its cluster) on one worker, started once. No engine test uses Hypothesis, anyio or
# Faker's fixture: not loading their plugins spares each of the three processes their
# imports (issue 41.4).
ENGINES_PLUGINS_OFF = -p no:hypothesispytest -p no:anyio -p no:faker
test-engines: $(VENV)/.installed
	@echo "=== test pass: engines (PostgreSQL + Redis) ==="
	DATABASE_URL=$(PG_TEST_URL) REDIS_URL=$(REDIS_TEST_URL) $(PY) -m pytest -n $(XDIST) --dist loadfile $(ENGINES_PLUGINS_OFF) tests/engines $(PYTEST_ARGS); \
	  status=$$?; [ $$status -eq 5 ] || exit $$status  # 5: -m "not engines" left none

lint: $(VENV)/.installed lint-openapi lint-openapi-client
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

# The served /openapi.json through Redocly's recommended rules, warnings counted as
# errors (tools/openapi-lint/redocly.yaml). @redocly/cli is pinned by the lockfile and
# installed by `npm ci` into tools/openapi-lint/node_modules: no global npm state.
$(OPENAPI_LINT)/node_modules/.installed: $(OPENAPI_LINT)/package.json $(OPENAPI_LINT)/package-lock.json
	cd $(OPENAPI_LINT) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

lint-openapi: $(VENV)/.installed $(OPENAPI_LINT)/node_modules/.installed
	mkdir -p var
	$(PY) $(OPENAPI_LINT)/served_schema.py var/openapi.json
	$(OPENAPI_LINT)/node_modules/.bin/redocly lint --config $(OPENAPI_LINT)/redocly.yaml var/openapi.json

# Issue 24.5: a TypeScript client generated from the served schema (openapi-typescript +
# openapi-fetch, pinned by the lockfile in tools/openapi-client-check) compiles under
# tsc --strict while reading error.type: every documented error body is a problem object.
# Issue 42.6: a Python client generated from it too (openapi-python-client, pinned in
# pyproject's dev extra) builds every request tools/openapi-client-check/client.py makes,
# with the parameters the guide documents, and reads each documented 400 as a problem.
$(OPENAPI_CLIENT)/node_modules/.installed: $(OPENAPI_CLIENT)/package.json $(OPENAPI_CLIENT)/package-lock.json
	cd $(OPENAPI_CLIENT) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

lint-openapi-client: $(VENV)/.installed $(OPENAPI_CLIENT)/node_modules/.installed
	mkdir -p var
	$(PY) $(OPENAPI_LINT)/served_schema.py var/openapi.json
	$(OPENAPI_CLIENT)/node_modules/.bin/openapi-typescript var/openapi.json -o var/openapi.d.ts
	$(OPENAPI_CLIENT)/node_modules/.bin/tsc -p $(OPENAPI_CLIENT)/tsconfig.json
	rm -rf var/pyclient && mkdir -p var/pyclient
	$(VENV)/bin/openapi-python-client generate --path var/openapi.json --meta none \
	  --output-path var/pyclient/foodservice_client > var/pyclient.log 2>&1 || (cat var/pyclient.log; exit 1)
	$(PY) $(OPENAPI_CLIENT)/client.py

format: $(VENV)/.installed
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

# Production serving (README "Running in production"; docs/operations.md, "Serving in
# production"): set DATABASE_URL, REDIS_URL,
# SECRET_KEY, KEY_PEPPER, ALLOWED_HOSTS, BASE_URL... first. gunicorn reads
# gunicorn.conf.py (workers, threads, timeouts, metrics) from the repository root.
serve-prod: $(VENV)/.installed
	$(PY) manage.py check --deploy
	$(PY) manage.py migrate --noinput
	$(PY) manage.py collectstatic --noinput -v0
	exec $(VENV)/bin/gunicorn --config gunicorn.conf.py

check-deploy: $(VENV)/.installed
	$(PY) manage.py check --deploy --fail-level WARNING

# The hostile-input properties with many more examples than CI runs (tests/hostile).
test-hostile-long: $(VENV)/.installed
	HYPOTHESIS_PROFILE=long $(PY) -m pytest tests/hostile $(PYTEST_ARGS)

# 401 timing: unknown well-formed key vs revoked key (bench/RESULTS.md "## Timing").
bench-timing: $(VENV)/.installed
	$(PY) bench/scripts/timing_401.py
