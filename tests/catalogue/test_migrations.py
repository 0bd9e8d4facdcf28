"""The catalogue's migrations are self-contained (issue 37): a migration does the same
whenever it runs, so it imports Django, the standard library, third-party packages and
the frozen helpers beside it (``catalogue/migrations/_*.py``), never a live module of
the project (``catalogue.search.ranking`` changes with the product); and no live module loads
a migration to reuse its code (``catalogue.importers.changes`` owns its SQL)."""

from __future__ import annotations

import ast
from pathlib import Path

from django.conf import settings

ROOT = Path(settings.BASE_DIR)
PROJECT = ("core", "accounts", "keys", "metering", "catalogue", "foodservice")


def _imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", "") == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            names.add(str(node.args[0].value))
    return names


def test_catalogue_migrations_import_no_live_module():
    migrations = sorted((ROOT / "catalogue" / "migrations").glob("*.py"))
    assert any(p.name.startswith("0015") for p in migrations)  # the rule reads the folder
    for path in migrations:
        live = {
            name
            for name in _imported(path)
            if name.split(".")[0] in PROJECT and not name.startswith("catalogue.migrations")
        }
        assert not live, f"{path.name} imports {sorted(live)}"


def test_no_live_catalogue_module_loads_a_migration():
    for path in (ROOT / "catalogue").rglob("*.py"):
        if "migrations" in path.parts:
            continue
        loaded = {name for name in _imported(path) if ".migrations" in name}
        assert not loaded, f"{path.relative_to(ROOT)} imports {sorted(loaded)}"
