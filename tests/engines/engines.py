"""Throwaway engines of the issue 18 tests: a Redis Cluster of three masters, a Redis
primary/replica pair under three sentinels, a PgBouncer in transaction mode, and a
PostgreSQL primary with a streaming replica made by ``pg_basebackup``. Each runs on free
loopback ports, in a temporary directory, and is stopped by the test that started it;
the shared PostgreSQL (5432) and Redis (6379) are never touched.
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from tests.support.engines import LOCAL, ThrowawayPostgres, free_port


def wait_until(predicate: Callable[[], bool], *, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(Exception):
            if predicate():
                return
        time.sleep(0.05)
    raise RuntimeError(f"timed out waiting for {what}")


def _listening(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection((LOCAL, port), 0.2):
        return True
    return False


def redis_cli(port: int, *args: str) -> str:
    out = subprocess.run(
        ["redis-cli", "-h", LOCAL, "-p", str(port), *args],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return out.stdout


def _redis_server(port: int, workdir: Path, *extra: str, program: str = "redis-server"):
    command = [program, "--port", str(port), "--bind", LOCAL, "--dir", str(workdir)]
    command += ["--save", "", "--appendonly", "no", *extra]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    try:
        wait_until(lambda: _listening(port), timeout=10, what=f"{program} on {port}")
    except RuntimeError:
        _stop(process)
        raise
    return process


def _stop(process: subprocess.Popen | None) -> None:
    if process is not None and process.poll() is None:
        process.kill()
        process.wait()


class ThrowawayRedisCluster:
    """Three redis-server masters in cluster mode, slots split by ``redis-cli --cluster
    create``; ``url`` names one of them (the seed)."""

    def __init__(self, masters: int = 3) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="fs-redis-cluster-"))
        # A cluster node also listens on its port + 10000, so ports stay under 55536.
        start = random.randrange(20000, 40000)
        self.ports = [free_port(range(start + 7 * i, start + 7 * i + 7)) for i in range(masters)]
        self.processes: list[subprocess.Popen] = []

    @property
    def url(self) -> str:
        return f"redis://{LOCAL}:{self.ports[0]}/0"

    def start(self) -> None:
        for port in self.ports:
            options = ["--cluster-enabled", "yes", "--cluster-node-timeout", "2000"]
            options += ["--cluster-config-file", str(self.dir / f"nodes-{port}.conf")]
            try:
                self.processes.append(_redis_server(port, self.dir, *options))
            except RuntimeError:
                self.stop()
                raise
        nodes = [f"{LOCAL}:{port}" for port in self.ports]
        redis_cli(self.ports[0], "--cluster", "create", *nodes, "--cluster-yes")
        for port in self.ports:
            wait_until(
                lambda port=port: "cluster_state:ok" in redis_cli(port, "cluster", "info"),
                timeout=20,
                what="the cluster to be ok",
            )

    def flush(self) -> None:
        for port in self.ports:
            redis_cli(port, "flushall")

    def stop(self) -> None:
        for process in self.processes:
            _stop(process)
        self.processes = []
        shutil.rmtree(self.dir, ignore_errors=True)


class ThrowawaySentinel:
    """A Redis primary, one replica of it, and three sentinels (quorum 2) watching the
    primary as ``master``. ``kill_primary`` SIGKILLs the primary; the sentinels then
    promote the replica (``down-after-milliseconds`` 1000)."""

    master = "fsprimary"

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="fs-redis-sentinel-"))
        self.primary_port = free_port()
        self.replica_port = free_port()
        self.sentinel_ports = [free_port() for _ in range(3)]
        self.processes: dict[int, subprocess.Popen] = {}

    @property
    def sentinels(self) -> str:
        """The ``REDIS_SENTINELS`` value."""
        return ",".join(f"{LOCAL}:{port}" for port in self.sentinel_ports)

    @property
    def url(self) -> str:
        """The ``REDIS_URL`` value (its host and port are not used under Sentinel)."""
        return f"redis://{self.master}/0"

    def start(self) -> None:
        port = self.primary_port
        self.processes[port] = _redis_server(port, self.dir)
        replica = self.replica_port
        self.processes[replica] = _redis_server(replica, self.dir, "--replicaof", LOCAL, str(port))
        wait_until(
            lambda: "master_link_status:up" in redis_cli(replica, "info", "replication"),
            timeout=20,
            what="the replica to sync",
        )
        for sentinel in self.sentinel_ports:
            conf = self.dir / f"sentinel-{sentinel}.conf"
            conf.write_text(
                f"port {sentinel}\nbind {LOCAL}\ndir {self.dir}\n"
                f"sentinel monitor {self.master} {LOCAL} {port} 2\n"
                f"sentinel down-after-milliseconds {self.master} 1000\n"
                f"sentinel failover-timeout {self.master} 5000\n"
                f"sentinel parallel-syncs {self.master} 1\n"
            )
            self.processes[sentinel] = subprocess.Popen(
                ["redis-sentinel", str(conf)], stdout=subprocess.DEVNULL
            )
        for sentinel in self.sentinel_ports:
            wait_until(
                lambda sentinel=sentinel: (
                    "num-other-sentinels\n2"
                    in redis_cli(sentinel, "sentinel", "master", self.master)
                    and "num-slaves\n1" in redis_cli(sentinel, "sentinel", "master", self.master)
                ),
                timeout=30,
                what="the sentinels to find each other and the replica",
            )

    def primary_address(self) -> tuple[str, int]:
        """The primary the sentinels name now."""
        out = redis_cli(
            self.sentinel_ports[0], "sentinel", "get-master-addr-by-name", self.master
        ).split()
        return out[0], int(out[1])

    def kill_primary(self) -> None:
        process = self.processes.pop(self.primary_port)
        process.send_signal(signal.SIGKILL)
        process.wait()

    def wait_for_failover(self, timeout: float = 30) -> None:
        wait_until(
            lambda: (
                self.primary_address()[1] == self.replica_port
                and "role:master" in redis_cli(self.replica_port, "info", "replication")
            ),
            timeout=timeout,
            what="the sentinels to promote the replica",
        )

    def stop(self) -> None:
        for process in self.processes.values():
            _stop(process)
        self.processes = {}
        shutil.rmtree(self.dir, ignore_errors=True)


def _as_postgres_user() -> list[str]:
    return [] if os.geteuid() != 0 else ["runuser", "-u", "postgres", "--"]


class ThrowawayPgBouncer:
    """PgBouncer in transaction pooling mode on a free port, in front of ``upstream``
    (host, port) for every database. It refuses to run as root, so it runs as the
    postgres user when the tests run as root."""

    def __init__(self, upstream: tuple[str, int], *, pool_size: int = 4) -> None:
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="fs-pgbouncer-"))
        self.upstream = upstream
        self.pool_size = pool_size
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        host, port = self.upstream
        (self.dir / "users.txt").write_text('"postgres" ""\n')
        conf = self.dir / "pgbouncer.ini"
        conf.write_text(
            "[databases]\n"
            f"* = host={host} port={port}\n"
            "[pgbouncer]\n"
            f"listen_addr = {LOCAL}\nlisten_port = {self.port}\nunix_socket_dir =\n"
            f"auth_type = trust\nauth_file = {self.dir / 'users.txt'}\n"
            "pool_mode = transaction\n"
            f"default_pool_size = {self.pool_size}\nmax_client_conn = 500\n"
            # Server connections idle this long are closed, so the test can drop its
            # database soon after.
            "server_idle_timeout = 1\n"
            # psycopg sends no startup options other than these.
            "ignore_startup_parameters = extra_float_digits,options\n"
            f"logfile = {self.dir / 'pgbouncer.log'}\n"
            f"pidfile = {self.dir / 'pgbouncer.pid'}\n"
        )
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres", "postgres")
            for path in self.dir.iterdir():
                shutil.chown(path, "postgres", "postgres")
        self.process = subprocess.Popen(
            [*_as_postgres_user(), "pgbouncer", str(conf)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_until(lambda: _listening(self.port), timeout=10, what="pgbouncer")

    def log(self) -> str:
        path = self.dir / "pgbouncer.log"
        return path.read_text() if path.exists() else ""

    def stop(self) -> None:
        # The Popen is runuser, which does not pass a SIGKILL on: stop pgbouncer itself.
        pidfile = self.dir / "pgbouncer.pid"
        with contextlib.suppress(OSError, ValueError):
            os.kill(int(pidfile.read_text().strip()), signal.SIGTERM)
        if self.process is not None:
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
        shutil.rmtree(self.dir, ignore_errors=True)


class ThrowawayReplica:
    """A streaming replica of a ``ThrowawayPostgres`` primary: ``pg_basebackup -R`` into a
    temporary directory, started on a free port as a hot standby."""

    def __init__(self, primary: ThrowawayPostgres) -> None:
        self.primary = primary
        self.port = free_port()
        self.data = primary.dir / "replica"

    @property
    def url(self) -> str:
        return f"postgres://postgres@{LOCAL}:{self.port}/fs_fault?connect_timeout=1"

    def create(self) -> None:
        self.primary._as_postgres(
            str(self.primary.bin / "pg_basebackup"),
            "-h",
            LOCAL,
            "-p",
            str(self.primary.port),
            "-U",
            "postgres",
            "-D",
            str(self.data),
            "-R",
            "-X",
            "stream",
            "--no-sync",
        )
        self.start()

    def start(self) -> None:
        options = f"-p {self.port} -c listen_addresses={LOCAL} -k {self.primary.dir}"
        self.primary._as_postgres(
            str(self.primary.bin / "pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.primary.dir / "replica.log"),
            "-o",
            options,
            "-w",
            "-t",
            "30",
            "start",
        )

    def stop(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):
            self.primary._as_postgres(
                str(self.primary.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop"
            )
