"""The dashboard is an adapter app (STYLE.md, issue 15): imports flow adapters -> domain
apps -> ``foodservice/``; no domain module imports a views module or the dashboard, and
no two modules of one app import each other (the old metering cycle
services -> selectors -> recorder -> services)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(settings.BASE_DIR)
DOMAIN_APPS = ("accounts", "keys", "metering", "catalogue")
PROJECT = (*DOMAIN_APPS, "foodservice")


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports, at the top or inside functions."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _modules(app: str) -> dict[str, Path]:
    return {
        ".".join(p.relative_to(ROOT).with_suffix("").parts): p
        for p in (ROOT / app).rglob("*.py")
        if "migrations" not in p.parts
    }


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
