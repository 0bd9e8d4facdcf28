"""The query path: a food search from its parameters to its ranked page (docs/development.md)."""
