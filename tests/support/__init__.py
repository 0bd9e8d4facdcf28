"""Helpers shared by tests (and by bench/): no test module imports another test module;
what two of them need lives here (docs/development.md, "Tests")."""
