"""Throwaway engines of a scaled-out topology, for the issue 18 tests (tests/engines/) and
bench/scripts/rehearsal.py: a Redis Cluster of three masters, a Redis primary/replica pair under
three sentinels, a PgBouncer in transaction mode, and a PostgreSQL primary with a
streaming replica made by ``pg_basebackup``. Each runs on free loopback ports, in a
temporary directory, and is stopped by whoever started it; the shared PostgreSQL (5432)
and Redis (6379) are never touched.

Ports (issue 30.7) come from ``engine_port``: below the OS's ephemeral range, where the
kernel never hands a port to an outgoing connection between the moment a port is found
free and the moment the server binds it (a port picked by binding to 0 is inside that
range, and a cluster node's bus port was never checked at all: 19 errors in one run). A
cluster node's bus port is one more such port, given with ``--cluster-port``.
"""

from __future__ import annotations

import contextlib
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import redis

from tests.support.engines import LOCAL, ThrowawayPostgres

# Ports of the shared services and of anything else well known below the range.
_RESERVED = frozenset({5432, 6379, 6432, 8000, 8080, 16379, 26379})
_handed_out: set[int] = set()


def ephemeral_ports(path: str = "/proc/sys/net/ipv4/ip_local_port_range") -> range:
    """The ports the OS gives outgoing connections (Linux's default when unreadable)."""
    try:
        low, high = (int(part) for part in Path(path).read_text().split())
    except (OSError, ValueError):
        low, high = 32768, 60999
    return range(low, high + 1)


def _bindable(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind((LOCAL, port))
        except OSError:
            return False
    return True


def engine_port() -> int:
    """A free loopback port for a throwaway server, from 10000 up to the start of the
    ephemeral range (never inside it), not one of the shared services' ports and not one
    this process handed out before (a server may not have bound it yet)."""
    low = 10000
    high = max(ephemeral_ports().start, low + 1000)
    for _ in range(500):
        port = random.randrange(low, high)
        if port in _RESERVED or port in _handed_out or port in ephemeral_ports():
            continue
        if _bindable(port):
            _handed_out.add(port)
            return port
    raise RuntimeError("no free port below the ephemeral range")


def wait_until(
    predicate: Callable[[], bool], *, timeout: float, what: str, interval: float = 0.05
) -> None:
    """Until ``predicate()`` is true, asking every ``interval`` seconds (a wait whose
    predicate opens a connection or makes a request, and which lasts seconds, asks less
    often: each ask costs CPU on both ends)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(Exception):
            if predicate():
                return
        time.sleep(interval)
    raise RuntimeError(f"timed out waiting for {what}")


def _listening(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection((LOCAL, port), 0.2):
        return True
    return False


def _as_cli_text(reply: object) -> str:
    """A reply as ``redis-cli`` prints it to a pipe: a line per element, nested or not."""
    if isinstance(reply, dict):  # a map (Sentinel's replies): its keys and values in turn
        return "".join(_as_cli_text(item) for pair in reply.items() for item in pair)
    if isinstance(reply, list | tuple | set):
        return "".join(_as_cli_text(item) for item in reply)
    text = reply.decode() if isinstance(reply, bytes) else str(reply)
    return text if text.endswith("\n") else f"{text}\n"


def redis_cli(port: int, *args: str) -> str:
    """What ``redis-cli -p port args...`` prints, for a command: sent on a connection of
    its own (no client-side parsing of the reply; an error reply raises). Spawning
    redis-cli cost ~5 ms of CPU a call, and the waits poll every 50 ms: 1,800 calls, 9
    CPU-seconds, in the failover tests alone (issue 41.4). ``--cluster`` subcommands
    still run redis-cli itself."""
    if args and args[0].startswith("--"):
        out = subprocess.run(
            ["redis-cli", "-h", LOCAL, "-p", str(port), *args],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        )
        return out.stdout
    connection = redis.Connection(
        host=LOCAL, port=port, socket_timeout=30, socket_connect_timeout=2
    )
    try:
        connection.send_command(*args)
        return _as_cli_text(connection.read_response())
    finally:
        connection.disconnect()


def _redis_server(port: int, workdir: Path, *extra: str, program: str = "redis-server"):
    command = [program, "--port", str(port), "--bind", LOCAL, "--dir", str(workdir)]
    command += ["--save", "", "--appendonly", "no", *extra]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    try:
        # Listening, and this process is the one listening (not someone else's server).
        wait_until(
            lambda: _listening(port) and process.poll() is None,
            timeout=10,
            what=f"{program} on {port}",
        )
        if process.poll() is not None:
            raise RuntimeError(f"{program} on {port} exited")
    except RuntimeError:
        _stop(process)
        raise
    return process


def _stop(process: subprocess.Popen | None) -> None:
    if process is not None and process.poll() is None:
        process.kill()
        process.wait()


class ThrowawayRedisCluster:
    """A Redis Cluster: ``masters`` redis-server masters, each with ``replicas`` replicas
    (``redis-cli --cluster create --cluster-replicas``). ``url`` names the first node
    (a seed); ``seeds`` every node, the ``REDIS_CLUSTER_NODES`` value. ``kill`` SIGKILLs
    a node, ``restart`` starts it again on its port and node file (it rejoins, as a
    replica when another node took its slots); ``failover`` makes a replica take over
    from its (dead) master, as ``cluster-node-timeout`` does on its own.
    ``full_coverage=False``: ``cluster-require-full-coverage no``."""

    def __init__(self, masters: int = 3, replicas: int = 0, *, full_coverage: bool = True) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="fs-redis-cluster-"))
        self.replicas = replicas
        self.full_coverage = full_coverage
        self.ports = [engine_port() for _ in range(masters * (1 + replicas))]
        self.bus_ports = {port: engine_port() for port in self.ports}
        self.processes: dict[int, subprocess.Popen] = {}

    @property
    def url(self) -> str:
        return f"redis://{LOCAL}:{self.ports[0]}/0"

    @property
    def seeds(self) -> str:
        return ",".join(f"{LOCAL}:{port}" for port in self.ports)

    def _start_node(self, port: int) -> None:
        options = ["--cluster-enabled", "yes", "--cluster-node-timeout", "2000"]
        options += ["--cluster-port", str(self.bus_ports[port])]
        if not self.full_coverage:
            options += ["--cluster-require-full-coverage", "no"]
        options += ["--cluster-config-file", str(self.dir / f"nodes-{port}.conf")]
        self.processes[port] = _redis_server(port, self.dir, *options)

    def start(self) -> None:
        try:
            for port in self.ports:
                self._start_node(port)
            nodes = [f"{LOCAL}:{port}" for port in self.ports]
            redis_cli(
                self.ports[0],
                "--cluster",
                "create",
                *nodes,
                "--cluster-replicas",
                str(self.replicas),
                "--cluster-yes",
            )
            self.wait_healthy()
        except Exception:
            self.stop()
            raise

    def nodes(self, via: int | None = None) -> list[dict[str, str]]:
        """``CLUSTER NODES`` as seen by ``via`` (a live node): port, bus port, role,
        master port (replicas), link state."""
        via = via or next(iter(self.processes))
        by_id: dict[str, dict[str, str]] = {}
        for line in redis_cli(via, "cluster", "nodes").splitlines():
            fields = line.split()
            match = re.match(r"[^:]*:(\d+)@(\d+)", fields[1])
            if not match:
                continue
            role = "master" if "master" in fields[2] else "replica"
            failed = "fail" in fields[2]
            by_id[fields[0]] = {
                "port": match[1],
                "bus": match[2],
                "role": role,
                "master_id": fields[3],
                "state": "fail" if failed else fields[7],
                "slots": " ".join(fields[8:]),
            }
        for node in by_id.values():
            master = by_id.get(node["master_id"])
            node["master"] = master["port"] if master else ""
        return list(by_id.values())

    def masters(self) -> list[int]:
        return sorted(int(n["port"]) for n in self.nodes() if n["role"] == "master" and n["slots"])

    def replica_of(self, master: int) -> int:
        return next(
            int(n["port"])
            for n in self.nodes()
            if n["role"] == "replica" and n["master"] == str(master)
        )

    def master_of(self, key: str) -> int:
        """The port of the master that holds ``key``'s slot now."""
        slot = int(redis_cli(next(iter(self.processes)), "cluster", "keyslot", key).strip())
        for node in self.nodes():
            if node["role"] != "master" or node["state"] == "fail":
                continue
            for part in node["slots"].split():
                low, _, high = part.partition("-")
                if part[0] != "[" and int(low) <= slot <= int(high or low):
                    return int(node["port"])
        raise LookupError(f"no live master holds slot {slot}")

    def wait_healthy(self, timeout: float = 30) -> None:
        """Every live node reports ``cluster_state:ok`` and every live replica is
        linked to its master."""

        def healthy() -> bool:
            for port in self.processes:
                if "cluster_state:ok" not in redis_cli(port, "cluster", "info"):
                    return False
                info = redis_cli(port, "info", "replication")
                if "role:slave" in info and "master_link_status:up" not in info:
                    return False
            return True

        wait_until(healthy, timeout=timeout, what="the cluster to be healthy")

    def kill(self, port: int) -> None:
        process = self.processes.pop(port)
        process.send_signal(signal.SIGKILL)
        process.wait()

    def restart(self, port: int) -> None:
        self._start_node(port)

    def failover(self, replica: int) -> None:
        """Make ``replica`` a master now (its master is down): ``CLUSTER FAILOVER
        TAKEOVER`` skips the wait for ``cluster-node-timeout``."""
        redis_cli(replica, "cluster", "failover", "takeover")
        wait_until(
            lambda: "role:master" in redis_cli(replica, "info", "replication"),
            timeout=20,
            what=f"{replica} to be promoted",
        )

    def flush(self) -> None:
        for port in self.masters():
            redis_cli(port, "flushall")

    def stop(self) -> None:
        for process in self.processes.values():
            _stop(process)
        self.processes = {}
        shutil.rmtree(self.dir, ignore_errors=True)


class ThrowawaySentinel:
    """A Redis primary, one replica of it, and three sentinels (quorum 2) watching the
    primary as ``master``. ``kill_primary`` SIGKILLs the primary; the sentinels then
    promote the replica (``down-after-milliseconds`` 1000)."""

    master = "fsprimary"

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="fs-redis-sentinel-"))
        self.primary_port = engine_port()
        self.replica_port = engine_port()
        self.sentinel_ports = [engine_port() for _ in range(3)]
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
        self.port = engine_port()
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


def throwaway_postgres() -> ThrowawayPostgres:
    """A ``ThrowawayPostgres`` (not created yet) on an ``engine_port``."""
    primary = ThrowawayPostgres()
    primary.port = engine_port()
    return primary


def track_statements(primary: ThrowawayPostgres) -> None:
    """Load pg_stat_statements on a running ``primary`` (a restart) and create it in its
    database; a replica made afterwards has it too (``postgresql.auto.conf`` and the
    extension are copied). Autovacuum is turned off: it writes WAL at moments of its
    own, which a replica whose replay is paused counts as lag."""
    import psycopg

    with psycopg.connect(primary.url, autocommit=True) as connection:
        connection.execute("ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'")
        connection.execute("ALTER SYSTEM SET autovacuum = off")
    primary.stop()
    primary.start()
    with psycopg.connect(primary.url, autocommit=True) as connection:
        connection.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")


class ThrowawayReplica:
    """A streaming replica of a ``ThrowawayPostgres`` primary: ``pg_basebackup -R`` into a
    temporary directory, started on a free port as a hot standby."""

    def __init__(self, primary: ThrowawayPostgres) -> None:
        self.primary = primary
        self.port = engine_port()
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
        # fsync off, as on the primary (ThrowawayPostgres.start): a throwaway instance.
        options = f"-p {self.port} -c listen_addresses={LOCAL} -k {self.primary.dir}"
        options += " -c fsync=off"
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
