"""Imports flow one way (docs/development.md, "Code layout"; issues 15 and 25):

- the base layer ``core/`` (at the top level since issue 37) imports no app: no domain
  app and none of the project wiring in ``foodservice/`` (at module top or inside a
  function);
- the domain apps import only the base layer, never the wiring (``foodservice/``), and
  no views module or the dashboard (an adapter app, STYLE.md);
- the wiring imports the apps at module top, never inside a function to dodge a cycle;
- no two modules of one app import each other (the old metering cycle
  services -> selectors -> recorder -> services)."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(settings.BASE_DIR)
DOMAIN_APPS = ("accounts", "keys", "metering", "catalogue")
PROJECT = (*DOMAIN_APPS, "foodservice", "core")


@functools.cache
def _imports(path: Path) -> frozenset[str]:
    """Every module ``path`` imports, at the top or inside functions (parsed once a run:
    the layout tests ask of every module many times)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return frozenset(names)


def _function_imports(path: Path) -> set[str]:
    """The modules ``path`` imports anywhere but at its module top."""
    tree = ast.parse(path.read_text())
    top = {id(node) for node in tree.body}
    names: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in top:
            continue
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def _modules(app: str) -> dict[str, Path]:
    return {
        ".".join(p.relative_to(ROOT).with_suffix("").parts): p
        for p in (ROOT / app).rglob("*.py")
        if "migrations" not in p.parts
    }


def _wiring() -> dict[str, Path]:
    return _modules("foodservice")


def test_the_project_is_all_absolute_imports():
    """The rules below read absolute imports only, so a relative one would slip by."""
    for app in PROJECT:
        for name, path in _modules(app).items():
            relative = [
                node.lineno
                for node in ast.walk(ast.parse(path.read_text()))
                if isinstance(node, ast.ImportFrom) and node.level
            ]
            assert not relative, f"{name} has relative imports on lines {relative}"


def test_the_base_layer_imports_no_app():
    modules = _modules("core")
    assert "core.problems" in modules  # the rule reads the right folder
    for name, path in modules.items():
        bad = {m for m in _imports(path) if m.split(".")[0] in (*DOMAIN_APPS, "foodservice")}
        assert not bad, f"{name} (base layer) imports {sorted(bad)}"


@pytest.mark.parametrize("app", DOMAIN_APPS)
def test_domain_apps_import_the_base_layer_not_the_wiring(app):
    for name, path in _modules(app).items():
        bad = {m for m in _imports(path) if m.split(".")[0] == "foodservice"}
        assert not bad, f"{name} imports the project wiring {sorted(bad)}"


def test_the_wiring_imports_apps_at_module_top():
    wiring = _wiring()
    assert "foodservice.openapi.schema" in wiring and "foodservice.urls" in wiring
    for name, path in wiring.items():
        if name.endswith(".apps"):
            continue  # AppConfig.ready() imports on purpose, once the registry is ready
        bad = {m for m in _function_imports(path) if m.split(".")[0] in PROJECT}
        assert not bad, f"{name} imports {sorted(bad)} inside a function"


def test_the_old_base_modules_are_gone():
    """Moved to foodservice/core/ (issue 25), then to the top-level core/ (issue 37),
    with no compatibility module left behind."""
    assert not (ROOT / "foodservice" / "core").exists()
    for old in (
        "problems", "problem_docs", "redis", "cli", "clientaddr",
        "logformat", "env", "metrics", "controlchars",
    ):  # fmt: skip
        assert not (ROOT / "foodservice" / f"{old}.py").exists(), old
        assert (ROOT / "core" / f"{old}.py").exists(), old


@pytest.mark.parametrize("app", DOMAIN_APPS)
def test_domain_apps_import_no_views_and_not_the_dashboard(app):
    for name, path in _modules(app).items():
        bad = {
            m
            for m in _imports(path)
            if m.startswith("foodservice.dashboard")
            or (m.split(".")[0] in PROJECT and m.split(".")[-1] == "views")
        }
        assert not bad, f"{name} imports {sorted(bad)}"


def test_the_old_view_modules_are_gone():
    for old in ("accounts/views.py", "keys/views.py", "metering/views.py", "accounts/forms.py"):
        assert not (ROOT / old).exists(), old


@pytest.mark.parametrize("app", (*DOMAIN_APPS, "foodservice/dashboard"))
def test_no_import_cycle_inside_an_app(app):
    modules = _modules(app)
    graph = {
        name: {m for m in _imports(path) if m in modules and m != name}
        for name, path in modules.items()
    }

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        for nxt in graph[start]:
            if nxt == goal or (nxt not in seen and reaches(nxt, goal, seen | {nxt})):
                return True
        return False

    cyclic = [name for name in graph if reaches(name, name, {name})]
    assert not cyclic, f"import cycle through {cyclic}"


def test_no_test_module_imports_another_test_module():
    """Helpers two test modules share live in tests/support/ (servers.py, engines.py,
    ...), tests/factories.py or a conftest.py (docs/development.md, "Test folders")."""
    offenders = {
        f"{path.relative_to(ROOT)} imports {name}"
        for path in (ROOT / "tests").rglob("*.py")
        for name in _imports(path)
        if name.startswith("tests.") and name.split(".")[-1].startswith("test_")
    }
    assert not offenders


FLOORS = ("core", "accounts", "keys", "metering", "catalogue", "foodservice")


@pytest.mark.parametrize("app", FLOORS)
def test_each_floor_imports_only_the_floors_below_it(app):
    """Issue 37: core < accounts < keys < metering < catalogue < the wiring. A lower app
    learns about a higher one through a signal or an argument (accounts.signals; the
    markets an account may choose come from its caller), never an import."""
    above = set(FLOORS[FLOORS.index(app) + 1 :])
    for name, path in _modules(app).items():
        bad = {m for m in _imports(path) if m.split(".")[0] in above}
        assert not bad, f"{name} imports {sorted(bad)}, a floor above {app}"


def test_the_wiring_keeps_its_modules_in_rooms_by_kind():
    """Issue 37: foodservice/'s top level holds the project's own wiring only; the HTTP
    edge, operations and the OpenAPI document live in http/, ops/ and openapi/."""
    top = {p.stem for p in (ROOT / "foodservice").glob("*.py")}
    assert top == {"__init__", "apps", "asgi", "settings", "urls", "wsgi"}
    for room in ("http", "ops", "openapi", "dashboard", "management"):
        assert (ROOT / "foodservice" / room / "__init__.py").exists(), room


def test_no_test_imports_bench_and_bench_uses_only_tests_support():
    """Issue 37: bench/ measures with tests/support/ and the apps' public functions;
    the tests never import a benchmark (judged sets live in tests/support/judged/)."""
    in_tests = {
        f"{path.relative_to(ROOT)} imports {name}"
        for path in (ROOT / "tests").rglob("*.py")
        for name in _imports(path)
        if name.split(".")[0] == "bench"
    }
    assert not in_tests
    in_bench = {
        f"{path.relative_to(ROOT)} imports {name}"
        for path in (ROOT / "bench").rglob("*.py")
        for name in _imports(path)
        if name.split(".")[0] == "tests" and not name.startswith("tests.support")
    }
    assert not in_bench


# Issue 37: the catalogue's rooms by concept, stacked like the floors: delivery (the
# bytes a record is served as) < search (the query path) < analysis (meals, built on
# search, with its own endpoint); the adapters (the foods API, schema, loaders, commands)
# on top. The models compute their stored search columns on save with search's pure
# functions (text, ranking); no other bottom module enters a room.
CATALOGUE_ROOMS = ("delivery", "search", "analysis")
CATALOGUE_ADAPTERS = ("api", "importers", "management", "policies", "market_api", "apps")
CATALOGUE_BOTTOM = {
    "models": {"catalogue.search.text", "catalogue.search.ranking"},
    "nutrients": set(),
    "routing": set(),
    "sources": set(),
    "selectors": set(),
}


def _catalogue_room(module: str) -> str | None:
    """The room or top-level module of a ``catalogue.*`` module name, or None."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "catalogue" else None


def test_the_catalogue_keeps_its_query_path_and_delivery_in_rooms():
    top = {p.stem for p in (ROOT / "catalogue").glob("*.py")}
    assert not top & {"params", "text", "ranking", "rendering", "serializers", "memory"}
    for room in (*CATALOGUE_ROOMS, "importers", "schema"):
        assert (ROOT / "catalogue" / room / "__init__.py").exists(), room


@pytest.mark.parametrize("room", CATALOGUE_ROOMS)
def test_each_catalogue_room_imports_only_the_rooms_below_it(room):
    above = set(CATALOGUE_ROOMS[CATALOGUE_ROOMS.index(room) + 1 :]) | set(CATALOGUE_ADAPTERS)
    # A room's own endpoint (analysis/api.py, schema.py) is an adapter: it may use the
    # foods API's base view and the schema helpers; the room's domain modules may not.
    paths = {
        n: p
        for n, p in _modules("catalogue").items()
        if _catalogue_room(n) == room and n.rsplit(".", 1)[-1] not in ("api", "schema")
    }
    assert paths
    for name, path in paths.items():
        bad = {m for m in _imports(path) if _catalogue_room(m) in above}
        assert not bad, f"{name} imports {sorted(bad)}, a room above {room}"


@pytest.mark.parametrize("module", sorted(CATALOGUE_BOTTOM))
def test_the_catalogues_bottom_modules_enter_no_room(module):
    allowed = CATALOGUE_BOTTOM[module]
    rooms = set(CATALOGUE_ROOMS) | set(CATALOGUE_ADAPTERS) | {"schema"}
    imported = _imports(ROOT / "catalogue" / f"{module}.py")
    bad = {
        m
        for m in imported
        if _catalogue_room(m) in rooms and not any(m.startswith(a) for a in allowed)
    }
    assert not bad, f"catalogue.{module} imports {sorted(bad)}"
