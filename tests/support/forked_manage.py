"""``manage.py`` commands as real processes, without paying Django's start-up for each.

``python -m tests.support.forked_manage`` sets Django up once (as ``manage.py`` does),
then reads one JSON array of arguments per line on stdin and answers each with one JSON
object line on stdout, ``{"returncode": ..., "stdout": ..., "stderr": ...}``: the command
ran in a forked child, with its own file descriptors 1 and 2 (files), the exit status
of ``manage.py`` (0, ``CommandError`` 1, a usage error 2) and nothing shared with the
next command but the code already imported. Every ``manage.py`` run costs ~1 s of CPU
to import the project; a fork costs milliseconds (issue 41.4).

``ForkedManage`` is the test's side: ``manage("create_key", ...)`` returns a
``subprocess.CompletedProcess`` like ``subprocess.run`` would.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path

from tests.support.line_process import LineProcess


def _run_in_child(args: list[str], out: int, err: int) -> None:
    """In the forked child: the command with fd 1 and 2 on ``out`` and ``err``; never
    returns."""
    code = 1
    try:
        os.dup2(out, 1)
        os.dup2(err, 2)
        from django.core.management import execute_from_command_line

        try:
            execute_from_command_line(["manage.py", *args])
            code = 0
        except SystemExit as exit_:
            if exit_.code is None or isinstance(exit_.code, int):
                code = exit_.code or 0
            else:  # SystemExit("message"): Python prints it and exits with 1
                print(exit_.code, file=sys.stderr)
                code = 1
    except BaseException:
        traceback.print_exc()
        code = 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _serve() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "foodservice.settings")
    import django

    django.setup()  # imports the project once; opens no connection
    channel = sys.stdout
    for line in sys.stdin:
        args = json.loads(line)
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            channel.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                _run_in_child(args, out.fileno(), err.fileno())
            _, status = os.waitpid(pid, 0)
            out.seek(0)
            err.seek(0)
            answer = {
                "returncode": os.waitstatus_to_exitcode(status),
                "stdout": out.read().decode(),
                "stderr": err.read().decode(),
            }
        channel.write(json.dumps(answer) + "\n")
        channel.flush()


class ForkedManage:
    """A running ``python -m tests.support.forked_manage`` in ``cwd`` with ``env``."""

    def __init__(self, *, cwd: Path, env: dict[str, str]) -> None:
        command = [sys.executable, "-m", "tests.support.forked_manage"]
        self._process = LineProcess(command, cwd=cwd, env=env)

    def __call__(self, *args: str) -> subprocess.CompletedProcess[str]:
        answer = self._process.ask(list(args))
        assert answer is not None, "the forked manage.py server died"
        return subprocess.CompletedProcess(
            ["manage.py", *args], answer["returncode"], answer["stdout"], answer["stderr"]
        )

    def close(self) -> None:
        self._process.close(timeout=10)


if __name__ == "__main__":
    _serve()
