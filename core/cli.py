"""The shared base of the operator commands (``manage.py create_key`` and friends).

The commands are a contract that scripts rely on:

- human-readable output by default; with ``--json`` exactly one JSON object on stdout;
- every failure exits non-zero with one line on stderr: a ``Problem`` raised by a service
  or selector becomes ``CommandError(problem.detail)`` (exit 1), and an argument error is
  one ``<prog>: error: <message>`` line (exit 2) instead of argparse's usage block.

A command subclasses ``ServiceCommand``, adds its arguments, looks up, calls one service
and hands the result to ``emit``.
"""

from __future__ import annotations

import datetime as dt
import json
from functools import partial
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.problems import Problem


class ServiceCommand(BaseCommand):
    """A ``BaseCommand`` with ``--json``, one-line errors and problems as ``CommandError``.

    ``json_output = False`` leaves ``--json`` out (plain-text commands such as
    ``setup_demo``).
    """

    json_output = True
    as_json = False

    def create_parser(self, prog_name: str, subcommand: str, **kwargs: Any) -> CommandParser:
        parser = super().create_parser(prog_name, subcommand, **kwargs)
        if self.json_output:
            parser.add_argument(
                "--json", action="store_true", help="Print exactly one JSON object on stdout."
            )
        parser.error = partial(_one_line_error, parser)  # type: ignore[method-assign]
        return parser

    def execute(self, *args: Any, **options: Any) -> str | None:
        self.as_json = bool(options.get("json"))
        try:
            return super().execute(*args, **options)
        except Problem as problem:
            raise CommandError(" ".join(str(problem.detail).split())) from None

    def emit(self, payload: dict[str, Any], *, human: str) -> None:
        """Write ``payload`` as one JSON object with ``--json``, else the ``human`` text."""
        if self.as_json:
            self.stdout.write(json.dumps(payload, ensure_ascii=False))
        else:
            self.stdout.write(human)


def _one_line_error(parser: CommandParser, message: str) -> None:
    """argparse's error hook: one line on stderr and exit 2 from the command line;
    a ``CommandError`` when called from code (``call_command``), as Django does."""
    if not parser.called_from_command_line:
        raise CommandError(f"Error: {message}")
    parser.exit(2, f"{parser.prog}: error: {message}\n")


def iso(moment: dt.datetime | None) -> str | None:
    """``moment`` as ISO 8601 UTC to the second (``2026-03-10T14:25:00Z``); None stays None."""
    if moment is None:
        return None
    return moment.astimezone(dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
