"""A child process that answers each JSON line sent to it with one JSON line: what the
process-per-call helpers share (``engines.Shell``: Django scripts; ``forked_manage``:
``manage.py`` commands), so that a test pays a process's start-up once, not per call."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any


class LineProcess:
    """``command`` running in ``cwd`` with ``env``; ``ask`` sends one message and reads
    its answer, ``close`` ends the process (its stdin closed, killed after ``timeout``)."""

    def __init__(self, command: list[str], *, cwd: Path, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            command, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )

    def ask(self, message: Any) -> dict[str, Any] | None:
        """The answer to ``message``; None when the process ended without one."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        return json.loads(line) if line else None

    def close(self, timeout: float = 15) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
