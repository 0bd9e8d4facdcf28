"""Issue 18.4: DATABASE_REPLICA_URLS against a real streaming replica.

The shared PostgreSQL has no replication entry in its pg_hba.conf (and must not be
reconfigured), so the test owns both ends: a throwaway primary (``initdb``) and a
replica of it made with ``pg_basebackup -R``. gunicorn runs on them; data is written
on the primary with ``manage.py shell``.

Issue 30.3 and 30.4 (first in this module: the issue 18 test ends by stopping the
replica): under a mixed load with a healthy replica, ``pg_stat_statements`` on the
primary shows no catalogue read at all (typo fallback included) and the replica's shows
them; replay lag is measured on WAL positions, so a paused replica of an idle primary is
still used, and one of a busy primary is skipped once its lag passes the limit.

Checked (issue 18): catalogue reads are served by the replica (a food written while its replay is
paused is not found), while keys, accounts and metering stay on the primary (a key made
or revoked while the replica is paused works or fails at once, and usage counts); a
replica lagging more than DATABASE_REPLICA_MAX_LAG is skipped (the food appears); a
replica stopped under load never fails a request.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator

import psycopg
import pytest

from tests.support.engines import Shell, ThrowawayPostgres
from tests.support.scale_out import (
    ThrowawayReplica,
    throwaway_postgres,
    track_statements,
    wait_until,
)
from tests.support.servers import fetch, gunicorn, server_env

SETUP = """
from accounts.services import account_set_tier
from tests.factories import AccountFactory, FoodFactory
from keys.services import key_create
account = account_set_tier(account=AccountFactory(market="US"), tier="head_chef")
_, kept = key_create(account=account, label="kept")
doomed, doomed_secret = key_create(account=account, label="doomed")
food = FoodFactory(name="Replica butter", source_id="91000")
print(json.dumps([kept, doomed_secret, doomed.pk, food.public_id, account.pk]))
"""

WHILE_PAUSED = """
from accounts.models import Account
from keys.models import ApiKey
from keys.services import key_create, key_revoke
from tests.factories import FoodFactory
key_revoke(key=ApiKey.objects.get(pk={doomed}))
_, fresh = key_create(account=Account.objects.get(pk={account}), label="fresh")
print(json.dumps([fresh, FoodFactory(name="{name}", source_id="{source_id}").public_id]))
"""


# The Django shell writing on each primary (``run``), closed with its primary.
_shells: dict[int, Shell] = {}


@pytest.fixture(scope="module")
def primary_and_replica() -> Iterator[tuple[ThrowawayPostgres, ThrowawayReplica]]:
    primary = throwaway_postgres()
    replica = ThrowawayReplica(primary)
    try:
        primary.init()
        track_statements(primary)
        # Migrated by the module's Django shell (``run``): no Django start of its own.
        run(primary, MIGRATE)
        replica.create()
        yield primary, replica
    finally:
        if primary.port in _shells:
            _shells.pop(primary.port).close()
        replica.stop()
        primary.destroy()


MIGRATE = """
from django.core.management import call_command
call_command("migrate", interactive=False, verbosity=0)
print("[]")
"""


def run(primary: ThrowawayPostgres, script: str) -> list:
    """``script`` run by Django on ``primary`` (its last line printed, as JSON): one
    Django process for the module's scripts, not one each (a CPU-second a start)."""
    if primary.port not in _shells:
        _shells[primary.port] = Shell(server_env(DATABASE_URL=primary.url))
    return json.loads(_shells[primary.port].run("import json\n" + script))


def on_replica(replica: ThrowawayReplica, sql: str, params: tuple = ()) -> object:
    with psycopg.connect(replica.url, autocommit=True) as connection:
        return connection.execute(sql, params).fetchone()[0]


def read(base: str, path: str, secret: str) -> int:
    return fetch(base + path, {"X-API-Key": secret})[0]


MIXED_SETUP = """
from accounts.services import account_set_tier
from tests.factories import AccountFactory, CategoryFactory, FoodFactory, NutrientFactory
from keys.services import key_create
account = AccountFactory(market="US", owner__email="mixed@example.com")
account = account_set_tier(account=account, tier="executive_chef")
_, secret = key_create(account=account, label="mixed")
NutrientFactory(id=203)
category = CategoryFactory(name="Dairy and Egg Products")
foods = [
    FoodFactory(name=name, source_id=str(92000 + n), category=category,
                nutrients={"203": 0.85 + n, "204": 81.1, "208": 717})
    for n, name in enumerate(["Cheese, cheddar", "Cheese, swiss", "Cheese spread, pasteurized"])
]
print(json.dumps([secret, [f.public_id for f in foods], category.slug]))
"""

# Every statement of the primary that reads a catalogue table (a SELECT, or a WITH
# before one); writes (the stored renderings' upsert) belong there.
CATALOGUE_READS = """
SELECT query, calls FROM pg_stat_statements
WHERE query ILIKE '%catalogue\\_%' AND query NOT ILIKE '%pg_stat_statements%'
  AND query ~* '^\\s*(select|with)'
"""


def catalogue_read_statements(url: str, *, reset: bool = False) -> dict[str, int]:
    """The catalogue reads pg_stat_statements counted on the server at ``url`` since
    its last reset, with their calls (then reset them when ``reset``)."""
    with psycopg.connect(url, autocommit=True) as connection:
        found = dict(connection.execute(CATALOGUE_READS).fetchall())
        if reset:
            connection.execute("SELECT pg_stat_statements_reset()")
    return found


def catalogue_reads(url: str, *, reset: bool = False) -> int:
    """How many catalogue reads ``catalogue_read_statements`` counted."""
    return sum(catalogue_read_statements(url, reset=reset).values())


def mixed_paths(foods: list[str], category: str) -> list[str]:
    """A mixed catalogue load: records, searches (a misspelling takes the typo
    fallback), nutrients, categories, the account's market and usage."""
    paths = [f"/v1/foods/{food}" for food in foods]
    paths += ["/v1/foods?q=cheese&page_size=1&page=2", "/v1/foods?q=cheese&market=US"]
    paths += ["/v1/foods?q=cheese", "/v1/foods?q=chese", "/v1/foods?q=swiss%20chedar"]
    paths += [f"/v1/foods?q=cheese&category={category}", "/v1/foods?q=zzqx"]
    paths += ["/v1/nutrients/203", f"/v1/categories/{category}", "/v1/market", "/v1/usage"]
    return paths


def wait_for_idle(primary: ThrowawayPostgres) -> None:
    """Until the primary's WAL position has not moved for 16 s: the background writer
    logs one more standby snapshot up to 15 s after the last write."""
    seen: list[tuple[float, str]] = []

    def idle() -> bool:
        with psycopg.connect(primary.url, autocommit=True) as connection:
            position = connection.execute("SELECT pg_current_wal_lsn()::text").fetchone()[0]
        if not seen or seen[-1][1] != position:
            seen.append((time.monotonic(), position))
        return time.monotonic() - seen[-1][0] > 16

    wait_until(idle, timeout=90, what="the primary to be idle", interval=0.5)


@pytest.fixture(scope="module")
def mixed(primary_and_replica: tuple[ThrowawayPostgres, ThrowawayReplica]) -> list:
    """An account's key, three foods and their category, replayed on the replica."""
    primary, replica = primary_and_replica
    secret, foods, category = run(primary, MIXED_SETUP)
    replayed = "SELECT count(*) FROM catalogue_food WHERE public_id = %s"
    wait_until(
        lambda: on_replica(replica, replayed, (foods[-1],)),
        timeout=20,
        what="the replica to replay the set-up",
    )
    return [secret, foods, category]


def test_the_primary_serves_no_catalogue_read_while_the_replica_is_healthy(
    primary_and_replica: tuple[ThrowawayPostgres, ThrowawayReplica], mixed: list
):
    primary, replica = primary_and_replica
    secret, foods, category = mixed
    servers = {"DATABASE_URL": primary.url, "DATABASE_REPLICA_URLS": replica.url}
    # One worker (four threads): the router decides in each process alike, and every
    # worker started is a CPU-second of imports (issue 41.4).
    with gunicorn(workers=1, threads=4, **servers) as base:
        catalogue_reads(primary.url, reset=True)
        catalogue_reads(replica.url, reset=True)
        statuses: list[int] = []

        def load() -> None:
            for _ in range(4):
                for path in mixed_paths(foods, category):
                    statuses.append(fetch(base + path, {"X-API-Key": secret})[0])

        threads = [threading.Thread(target=load) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
    assert set(statuses) == {200}, sorted(set(statuses))
    assert len(statuses) == 3 * 4 * len(mixed_paths(foods, category))
    assert catalogue_read_statements(primary.url) == {}
    # Most requests read the catalogue (usage and market may be answered from caches).
    assert catalogue_reads(replica.url) >= len(statuses) // 2
    with psycopg.connect(replica.url, autocommit=True) as connection:
        spelling = connection.execute(
            "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements"
            " WHERE query ILIKE '%FROM catalogue_word%'"
        ).fetchone()[0]
    assert spelling > 0  # the typo fallback's look-ups ran on the replica


def test_replay_lag_is_measured_on_wal_positions(
    primary_and_replica: tuple[ThrowawayPostgres, ThrowawayReplica], mixed: list
):
    """Replay paused on an idle primary: the replica is used (nothing waits to be
    replayed, however long since the last commit). A food written then is not found at
    once (the replica, behind by less than the limit, answers), and found once the lag
    passes DATABASE_REPLICA_MAX_LAG while the primary stays busy."""
    primary, replica = primary_and_replica
    secret, foods, _ = mixed
    servers = {"DATABASE_URL": primary.url, "DATABASE_REPLICA_URLS": replica.url}
    stop = threading.Event()
    busy = threading.Thread(target=write_until, args=(primary, stop))
    with gunicorn(workers=1, DATABASE_REPLICA_MAX_LAG="5", **servers) as base:

        def keep_reading() -> None:  # positions stay fresh: a check every 2 s
            while not stop.wait(0.5):
                fetch(f"{base}/v1/foods/{foods[0]}", {"X-API-Key": secret})

        reader = threading.Thread(target=keep_reading)
        reader.start()
        try:
            wait_until(
                lambda: read(base, f"/v1/foods/{foods[-1]}", secret) == 200,
                timeout=20,
                what="the set-up to be served",
                interval=0.2,
            )
            wait_for_idle(primary)
            on_replica(replica, "SELECT pg_wal_replay_pause()")
            catalogue_reads(primary.url, reset=True)
            time.sleep(8)  # longer than the limit: the old measure would skip it here
            assert read(base, f"/v1/foods/{foods[0]}", secret) == 200
            assert catalogue_reads(primary.url) == 0  # idle primary: the replica answers

            _, (late,), _ = run(
                primary,
                "from tests.factories import FoodFactory\n"
                'print(json.dumps(["", [FoodFactory(source_id="93900").public_id], ""]))',
            )
            assert read(base, f"/v1/foods/{late}", secret) == 404  # behind, within limit

            busy.start()
            wait_until(
                lambda: read(base, f"/v1/foods/{late}", secret) == 200,
                timeout=30,
                what="the lagging replica to be skipped",
                interval=0.2,
            )
        finally:
            stop.set()
            reader.join(timeout=10)
            on_replica(replica, "SELECT pg_wal_replay_resume()")
        if busy.is_alive():
            busy.join(timeout=10)


def write_until(primary: ThrowawayPostgres, stop: threading.Event) -> None:
    """A busy primary: a row written every 0.2 s until ``stop``."""
    with psycopg.connect(primary.url, autocommit=True) as connection:
        connection.execute("CREATE TABLE IF NOT EXISTS busy (at timestamptz)")
        while not stop.wait(0.2):
            connection.execute("INSERT INTO busy VALUES (now())")


def test_catalogue_reads_go_to_the_replica_and_fall_back_to_the_primary(
    primary_and_replica: tuple[ThrowawayPostgres, ThrowawayReplica],
):
    primary, replica = primary_and_replica
    kept, doomed_secret, doomed, first_food, account = run(primary, SETUP)
    replayed = "SELECT count(*) FROM catalogue_food WHERE public_id = %s"
    wait_until(
        lambda: on_replica(replica, replayed, (first_food,)),
        timeout=20,
        what="the replica to replay the set-up",
    )
    servers = {"DATABASE_URL": primary.url, "DATABASE_REPLICA_URLS": replica.url}

    # 1. The replica is paused (lagging): catalogue reads come from it, key state and
    # metering from the primary.
    on_replica(replica, "SELECT pg_wal_replay_pause()")
    fresh, late_food = run(
        primary,
        WHILE_PAUSED.format(doomed=doomed, account=account, name="Late butter", source_id="91001"),
    )
    # One worker each (as above): what is routed where does not depend on which worker.
    with gunicorn(workers=1, DATABASE_REPLICA_MAX_LAG="3600", **servers) as base:
        assert read(base, f"/v1/foods/{first_food}", kept) == 200
        assert read(base, f"/v1/foods/{late_food}", kept) == 404  # not replayed yet
        status, _, body = fetch(f"{base}/v1/foods?q=butter", {"X-API-Key": kept})
        assert status == 200
        assert [f["name"] for f in json.loads(body)["data"]] == ["Replica butter"]
        assert read(base, f"/v1/foods/{first_food}", fresh) == 200  # key made meanwhile
        assert read(base, f"/v1/foods/{first_food}", doomed_secret) == 401  # revoked
        status, _, body = fetch(f"{base}/v1/usage", {"X-API-Key": kept})
        assert status == 200

        on_replica(replica, "SELECT pg_wal_replay_resume()")
        wait_until(
            lambda: read(base, f"/v1/foods/{late_food}", kept) == 200,
            timeout=20,
            what="the replica to catch up",
            interval=0.2,
        )

    # 2. A replica lagging more than DATABASE_REPLICA_MAX_LAG is skipped.
    with gunicorn(workers=1, DATABASE_REPLICA_MAX_LAG="1", **servers) as base:
        on_replica(replica, "SELECT pg_wal_replay_pause()")
        fresh, lagging_food = run(
            primary,
            WHILE_PAUSED.format(
                doomed=doomed, account=account, name="Lag butter", source_id="91002"
            ),
        )
        wait_until(
            lambda: read(base, f"/v1/foods/{lagging_food}", kept) == 200,
            timeout=20,
            what="the primary to answer in place of the lagging replica",
            interval=0.2,
        )
        on_replica(replica, "SELECT pg_wal_replay_resume()")

        # 3. The replica stops under load: no request fails.
        statuses: list[int] = []
        stop = threading.Event()

        def load() -> None:
            while not stop.is_set():
                statuses.append(read(base, f"/v1/foods/{first_food}", kept))
                statuses.append(fetch(f"{base}/v1/foods?q=butter", {"X-API-Key": kept})[0])

        threads = [threading.Thread(target=load) for _ in range(3)]
        for thread in threads:
            thread.start()
        wait_until(lambda: len(statuses) > 30, timeout=30, what="the load")
        replica.stop()
        served = len(statuses)
        wait_until(lambda: len(statuses) > served + 60, timeout=60, what="load after the stop")
        stop.set()
        for thread in threads:
            thread.join(timeout=15)
    assert set(statuses) == {200}
