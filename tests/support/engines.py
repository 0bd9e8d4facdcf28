"""Servers of our own for tests and benchmarks: a throwaway redis-server and PostgreSQL
cluster on free loopback ports, and ``manage.py`` runs in a given environment. No Django
import: bench/ (scripts run outside Django) imports this module too.

Every server listens on 127.0.0.1 only (``LOCAL``) and is stopped by whoever started it;
a throwaway PostgreSQL cluster lives in a temporary directory removed by ``destroy``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.support.line_process import LineProcess

ROOT = Path(__file__).resolve().parent.parent.parent
LOCAL = "127.0.0.1"


def free_port(preferred: range | None = None) -> int:
    """A free TCP port on 127.0.0.1, from ``preferred`` when one there is free."""
    for port in preferred or ():
        with socket.socket() as sock:
            try:
                sock.bind((LOCAL, port))
            except OSError:
                continue
            return port
    with socket.socket() as sock:
        sock.bind((LOCAL, 0))
        return sock.getsockname()[1]


def manage(env: dict[str, str], *args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        check=check,
        capture_output=True,
        text=True,
        timeout=600,
    )


def shell(env: dict[str, str], script: str) -> str:
    """Run ``script`` in ``manage.py shell``; returns the last line of its stdout."""
    done = manage(env, "shell", "-c", script, check=False)
    if done.returncode:
        raise RuntimeError(f"manage.py shell failed:\n{done.stderr[-3000:]}")
    return done.stdout.strip().splitlines()[-1]


_SHELL_LOOP = """
import contextlib, io, json, sys, traceback
import django
django.setup()
for line in sys.stdin:
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(json.loads(line), {"__name__": "__main__"})
        answer = {"stdout": out.getvalue()}
    except BaseException:
        answer = {"error": traceback.format_exc()}
    from django.db import connections
    connections.close_all()
    sys.stdout.write(json.dumps(answer) + "\\n")
    sys.stdout.flush()
"""


class Shell:
    """One Django process in ``env`` that runs scripts sent to it, one after another, as
    ``shell(env, script)`` does in a process of its own each: ``run`` returns the last
    line a script printed. Starting Django costs about a CPU-second, a process per script
    a CPU-second a script. Its database connections are closed after every script."""

    def __init__(self, env: dict[str, str]) -> None:
        env = {**env}
        env.setdefault("DJANGO_SETTINGS_MODULE", "foodservice.settings")
        self.process = LineProcess([sys.executable, "-c", _SHELL_LOOP], cwd=ROOT, env=env)

    def run(self, script: str) -> str:
        answer = self.process.ask(script)
        if answer is None:
            raise RuntimeError(f"the shell exited with {self.process.process.wait()}")
        if "error" in answer:
            raise RuntimeError(f"the script failed:\n{answer['error'][-3000:]}")
        return answer["stdout"].strip().splitlines()[-1]

    def close(self) -> None:
        self.process.close()


class ThrowawayRedis:
    """A redis-server of our own on a free port (never the shared 6379), no persistence:
    a restart starts empty, like a failover to an empty replica."""

    def __init__(self) -> None:
        self.port = free_port()
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://{LOCAL}:{self.port}/0"

    def start(self) -> None:
        command = ["redis-server", "--port", str(self.port), "--bind", LOCAL]
        command += ["--save", "", "--appendonly", "no"]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection((LOCAL, self.port), 0.2):
                return
            time.sleep(0.05)
        raise RuntimeError("the throwaway redis-server did not start")

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


class ThrowawayPostgres:
    """A PostgreSQL cluster of our own (``initdb`` into a temporary directory, owned by
    the postgres user, listening on LOCAL at a free port): restarting it disturbs nobody.
    """

    def __init__(self) -> None:
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="fs-load-pg-"))
        self.data = self.dir / "data"
        bins = sorted(Path("/usr/lib/postgresql").glob("*/bin"))
        if not bins:
            raise RuntimeError("no PostgreSQL binaries under /usr/lib/postgresql")
        self.bin = bins[-1]

    @property
    def url(self) -> str:
        return f"postgres://postgres@{LOCAL}:{self.port}/fs_fault?connect_timeout=2"

    def _as_postgres(self, *command: str) -> subprocess.CompletedProcess:
        prefix = [] if os.geteuid() != 0 else ["runuser", "-u", "postgres", "--"]
        return subprocess.run(
            [*prefix, *command], capture_output=True, text=True, check=True, timeout=120
        )

    def init(self) -> None:
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres", "postgres")
        self._as_postgres(
            str(self.bin / "initdb"),
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-sync",
        )
        self.start()
        self._as_postgres(
            str(self.bin / "createdb"),
            "-h",
            LOCAL,
            "-p",
            str(self.port),
            "-U",
            "postgres",
            "fs_fault",
        )

    def start(self) -> None:
        options = f"-p {self.port} -c listen_addresses={LOCAL} -k {self.dir} -c fsync=off"
        self._as_postgres(
            str(self.bin / "pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.dir / "log"),
            "-o",
            options,
            "-w",
            "-t",
            "30",
            "start",
        )

    def stop(self) -> None:
        """Fast shutdown: every session is cut, as in a crash-restart or failover."""
        self._as_postgres(
            str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop"
        )

    def destroy(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):
            self._as_postgres(
                str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop"
            )
        shutil.rmtree(self.dir, ignore_errors=True)
