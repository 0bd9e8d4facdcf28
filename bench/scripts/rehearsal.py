"""A rehearsal of the whole topology under a steady mixed load (issue 30.6).

Started here, on loopback ports below the ephemeral range (tests/support/scale_out.py):

- two gunicorn instances (``gunicorn.conf.py``; they stand for two hosts behind a load
  balancer: a client whose instance refuses the connection tries the other);
- a Redis Cluster of 3 masters + 3 replicas (``cluster-require-full-coverage no``),
  reached through every node as a seed (``REDIS_CLUSTER_NODES``);
- a PostgreSQL primary (``initdb``, the SR28 sample catalogue) behind PgBouncer in
  transaction mode (``DATABASE_PGBOUNCER=1``), and a streaming replica of it for
  catalogue reads (``DATABASE_REPLICA_URLS``).

Accounts with small negotiated quotas read records and search from several client
threads for the whole run, while the script, in turn: kills a Redis master (its replica
promotes itself) and restarts it; restarts one gunicorn; stops the replica and starts it
again. A key is revoked before the Redis kill and one during it (retried while the
key cache refuses). The report: answers by status, 5xx by code, seconds of
unavailability per account (503 stretches), admitted versus quota per account, and the
revoked keys' answers afterwards. Exit status 1 if any account is admitted past its
quota, any 500 appears, or a revoked key is served after its revocation went through.

    .venv/bin/python bench/scripts/rehearsal.py [--seconds-per-step 8] [--no-write]

Figures go to bench/RESULTS.md "## Rehearsal" unless ``--no-write``.
"""

from __future__ import annotations

import argparse
import collections
import http.client
import json
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root

from bench.kits import loadkit
from bench.kits.loadkit import LOCAL, Gunicorn, base_env, cleanup, make_accounts, prepare_database
from tests.support.engines import ThrowawayPostgres
from tests.support.scale_out import (
    ThrowawayPgBouncer,
    ThrowawayRedisCluster,
    ThrowawayReplica,
    engine_port,
    redis_cli,
    throwaway_postgres,
    wait_until,
)

QUOTA = 1500
ACCOUNTS = 6

REVOKE = """
import json, time
from core.problems import ServiceUnavailable
from keys.models import ApiKey
from keys.services import key_revoke
refused = 0
while time.time() < {at}:  # Django's start-up takes seconds: revoke at a set moment
    time.sleep(0.05)
while True:
    try:
        key_revoke(key=ApiKey.objects.get(pk={key_id}))
        break
    except ServiceUnavailable:
        refused += 1
        time.sleep(0.2)
print(json.dumps(refused))
"""


def get(ports: list[int], path: str, secret: str) -> int:
    """GET from the first instance that accepts the connection; 0 when none does."""
    for port in ports:
        conn = http.client.HTTPConnection(LOCAL, port, timeout=10)
        try:
            conn.request("GET", path, headers={"X-API-Key": secret})
            response = conn.getresponse()
            response.read()
            return response.status
        except ConnectionRefusedError:
            continue
        except OSError:
            return 0
        finally:
            conn.close()
    return 0


def unavailable_seconds(answers: list[tuple[float, int]]) -> float:
    """Time covered by stretches of 503s (from a stretch's first 503 to the next
    other answer)."""
    total, start = 0.0, None
    for at, status in answers:
        if status == 503 and start is None:
            start = at
        elif status != 503 and start is not None:
            total += at - start
            start = None
    if start is not None:
        total += answers[-1][0] - start
    return total


class Rehearsal:
    """The load of one rehearsal and what it saw: each metered account's answers and
    the revoked keys' answers (monotonic time, status), the events (seconds from the
    start of the load) and the revocation made during the Redis kill."""

    def __init__(self, ports: list[int], paths: list[str]) -> None:
        self.ports, self.paths = ports, paths
        self.stop = threading.Event()
        self.seen: dict[int, list[tuple[float, int]]] = {}
        self.revoked: dict[str, list[tuple[float, int]]] = {"before": [], "during": []}
        self.events: list[tuple[float, str]] = []
        self.during_revoke: dict[str, float] = {}
        self.threads: list[threading.Thread] = []
        self.started = 0.0

    def start(self, accounts: list[loadkit.Account]) -> None:
        """One client thread per account, alternating instances, until ``finish``."""
        self.seen = {a.id: [] for a in accounts}
        for n, account in enumerate(accounts):
            self.spawn(self.load, account, n)
        self.started = time.monotonic()

    def spawn(self, target: Callable[..., None], *args: object) -> None:
        self.threads.append(threading.Thread(target=target, args=args))
        self.threads[-1].start()

    def load(self, account: loadkit.Account, offset: int) -> None:
        i = offset
        while not self.stop.is_set():
            order = self.ports if i % 2 else self.ports[::-1]
            status = get(order, self.paths[i % len(self.paths)], account.secrets[0])
            self.seen[account.id].append((time.monotonic(), status))
            i += 1
            time.sleep(0.02)

    def watch_revoked(self, name: str, secret: str) -> None:
        while not self.stop.is_set():
            self.revoked[name].append((time.monotonic(), get(self.ports, self.paths[0], secret)))
            time.sleep(0.1)

    def event(self, name: str) -> None:
        self.events.append((time.monotonic() - self.started, name))
        print(f"  {self.events[-1][0]:6.1f} s  {name}", flush=True)

    def finish(self) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=30)
        self.event("load stopped")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds-per-step", type=float, default=8)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    step = args.seconds_per_step

    primary = throwaway_postgres()
    replica = ThrowawayReplica(primary)
    cluster = ThrowawayRedisCluster(masters=3, replicas=1, full_coverage=False)
    with cleanup(cluster, replica, primary):
        direct, env, bouncer = _topology(primary, replica, cluster)
        limits = {"quota": QUOTA, "window": "day", "rate": None, "burst": None}
        plan = [("executive_chef", limits, 1, "rehearsal")] * ACCOUNTS
        plan += [("head_chef", None, 2, "revocations")]
        accounts, foods = make_accounts(direct, plan, foods=200)
        metered, holder = accounts[:ACCOUNTS], accounts[ACCOUNTS]
        servers = [Gunicorn(env, port=engine_port(), workers=2, threads=2) for _ in range(2)]
        with cleanup(*servers, bouncer):
            for server in servers:
                server.start()
            paths = [f"/v1/foods/{food}" for food in foods[:50]]
            paths += ["/v1/foods?q=cheese", "/v1/foods?q=chese", "/v1/foods?q=milk%20whole"]
            rehearsal = Rehearsal([server.port for server in servers], paths)
            rehearsal.start(metered)
            time.sleep(step)
            _revocations_and_redis(rehearsal, step, direct, holder, cluster)
            _deploy_and_replica(rehearsal, step, servers, replica)
            rehearsal.finish()
            load_end = loadkit.loadavg()

    failed, lines = _report(rehearsal, metered, load_end)
    text = "\n".join(lines)
    print()
    print(text)
    if not args.no_write:
        loadkit.write_section("## Rehearsal", text)
    return 1 if failed else 0


def _topology(
    primary: ThrowawayPostgres, replica: ThrowawayReplica, cluster: ThrowawayRedisCluster
) -> tuple[dict[str, str], dict[str, str], ThrowawayPgBouncer]:
    """Start the primary (the sample catalogue), the cluster, the replica and PgBouncer:
    the environment of direct connections (accounts, revocations) and the servers'."""
    primary.init()
    direct = base_env(database_url=primary.url, redis_url=cluster.url)
    direct.update(REDIS_CLUSTER="1", REDIS_CLUSTER_NODES=cluster.seeds)
    cluster.start()
    prepare_database(direct, catalogue="sample")
    replica.create()
    bouncer = ThrowawayPgBouncer((LOCAL, primary.port), pool_size=8)
    bouncer.start()
    through = primary.url.replace(f":{primary.port}/", f":{bouncer.port}/")
    env = {
        **direct,
        "DATABASE_URL": through,
        "DATABASE_PGBOUNCER": "1",
        "DATABASE_REPLICA_URLS": replica.url,
        "GUNICORN_MAX_REQUESTS": "0",
    }
    return direct, env, bouncer


def _revocations_and_redis(
    rehearsal: Rehearsal,
    step: float,
    direct: dict[str, str],
    holder: loadkit.Account,
    cluster: ThrowawayRedisCluster,
) -> None:
    """A key revoked, then a Redis master killed (its replica promotes itself) while
    another key is revoked (retried while the key cache refuses), then restarted."""
    loadkit.shell(direct, REVOKE.format(key_id=holder.key_ids[0], at=0))
    rehearsal.event("key revoked (before)")
    rehearsal.spawn(rehearsal.watch_revoked, "before", holder.secrets[0])
    victim = next(p for p in cluster.masters() if p != cluster.ports[0])
    promoted = cluster.replica_of(victim)
    kill_at = time.time() + 8  # the revoking shell is up and waiting by then

    def revoke_during() -> None:  # half a second into the switch, retried
        script = REVOKE.format(key_id=holder.key_ids[1], at=kill_at + 0.5)
        refused = json.loads(loadkit.shell(direct, script))
        rehearsal.during_revoke.update(refused=refused, at=time.monotonic())
        rehearsal.event(f"key revoked (during; refused {refused} times first)")
        rehearsal.watch_revoked("during", holder.secrets[1])

    rehearsal.spawn(revoke_during)
    time.sleep(max(0.0, kill_at - time.time()))
    cluster.kill(victim)
    rehearsal.event(f"Redis master :{victim} killed")
    wait_until(
        lambda: "role:master" in redis_cli(promoted, "info", "replication"),
        timeout=30,
        what="the replica's promotion",
    )
    rehearsal.event(f"Redis replica :{promoted} promoted")
    time.sleep(step)
    cluster.restart(victim)
    cluster.wait_healthy()
    rehearsal.event(f"Redis :{victim} back (a replica now)")
    time.sleep(step)


def _deploy_and_replica(
    rehearsal: Rehearsal, step: float, servers: list[Gunicorn], replica: ThrowawayReplica
) -> None:
    """One gunicorn restarted (a deploy), then the PostgreSQL replica stopped and
    started again."""
    servers[0].stop()
    rehearsal.event("gunicorn A stopped (deploy)")
    servers[0].start()
    rehearsal.event("gunicorn A started")
    time.sleep(step)
    replica.stop()
    rehearsal.event("PostgreSQL replica stopped")
    time.sleep(step)
    replica.start()
    rehearsal.event("PostgreSQL replica started")
    time.sleep(step)


def _report(
    rehearsal: Rehearsal, metered: list[loadkit.Account], load_end: str
) -> tuple[bool, list[str]]:
    """Whether the rehearsal failed (an account admitted past its quota, a 500, a revoked
    key served after its revocation went through), and the "## Rehearsal" section."""
    seen, revoked = rehearsal.seen, rehearsal.revoked
    statuses = collections.Counter(s for answers in seen.values() for _, s in answers)
    errors = {code: n for code, n in statuses.items() if code >= 500 or code == 0}
    rows, over = _account_rows(seen, metered)
    before = {s for _, s in revoked["before"]}
    revoked_at = rehearsal.during_revoke.get("at", float("inf"))
    during_refused = int(rehearsal.during_revoke.get("refused", -1))
    during = {s for at, s in revoked["during"] if at >= revoked_at}
    revocations_hold = before == {401} and during == {401} and revoked_at < float("inf")
    failed = bool(over) or 500 in statuses or not revocations_hold
    return failed, [
        f"Run {loadkit.machine()}; load average at the end {load_end}. Everything on the "
        "same 2 cores.",
        "",
        "`bench/scripts/rehearsal.py`: two gunicorn instances (2 workers x 2 threads each), a "
        "Redis Cluster of 3 masters + 3 replicas, PgBouncer (transaction mode) in front "
        "of a PostgreSQL primary, a streaming replica for catalogue reads; "
        f"{ACCOUNTS} accounts with a quota of {QUOTA} reading records and searching "
        "(one client thread each, alternating instances). Events (seconds from the "
        "start of the load):",
        "",
        *[f"- {at:.1f} s: {name}" for at, name in rehearsal.events],
        "",
        "Answers: "
        + ", ".join(f"{code}: {n:,}" for code, n in sorted(statuses.items()))
        + f"; 5xx or no answer by code: {errors or 'none'}.",
        "",
        "| account | answers | admitted | quota | 429 | 503 | s unavailable |",
        "|---|---|---|---|---|---|---|",
        *rows,
        "",
        f"Revocations: the key revoked before the Redis kill answered "
        f"{sorted(before)} afterwards ({len(revoked['before'])} tries); the one revoked "
        f"during it was refused {during_refused} times (503, nothing changed) before it "
        f"went through, then answered {sorted(during)} ({len(during)} kinds, "
        f"{sum(1 for at, _ in revoked['during'] if at >= revoked_at)} tries). "
        f"Over-admitted accounts: {over or 'none'}. Verdict: "
        f"{'**FAILED**' if failed else 'passed'}.",
    ]


def _account_rows(
    seen: dict[int, list[tuple[float, int]]], metered: list[loadkit.Account]
) -> tuple[list[str], list[int]]:
    """A table row per metered account, and the ids of those admitted past their quota."""
    rows, over = [], []
    for account in metered:
        answers = seen[account.id]
        admitted = sum(1 for _, s in answers if s == 200)
        if admitted > account.quota:
            over.append(account.id)
        rows.append(
            f"| {account.id} | {len(answers)} | {admitted} | {account.quota} | "
            f"{sum(1 for _, s in answers if s == 429)} | "
            f"{sum(1 for _, s in answers if s == 503)} | {unavailable_seconds(answers):.1f} |"
        )
    return rows, over


if __name__ == "__main__":
    sys.exit(main())
