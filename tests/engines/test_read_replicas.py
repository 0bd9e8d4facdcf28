"""Issue 18.4: DATABASE_REPLICA_URLS against a real streaming replica.

The shared PostgreSQL has no replication entry in its pg_hba.conf (and must not be
reconfigured), so the test owns both ends: a throwaway primary (``initdb``) and a
replica of it made with ``pg_basebackup -R``. gunicorn runs on them; data is written
on the primary with ``manage.py shell``.

Checked: catalogue reads are served by the replica (a food written while its replay is
paused is not found), while keys, accounts and metering stay on the primary (a key made
or revoked while the replica is paused works or fails at once, and usage counts); a
replica lagging more than DATABASE_REPLICA_MAX_LAG is skipped (the food appears); a
replica stopped under load never fails a request.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator

import psycopg
import pytest

from bench.loadkit import ThrowawayPostgres, manage, shell
from tests.engines.engines import ThrowawayReplica, throwaway_postgres, wait_until
from tests.servers import fetch, gunicorn, server_env

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


@pytest.fixture(scope="module")
def primary_and_replica() -> Iterator[tuple[ThrowawayPostgres, ThrowawayReplica]]:
    primary = throwaway_postgres()
    replica = ThrowawayReplica(primary)
    try:
        primary.init()
        manage(server_env(DATABASE_URL=primary.url), "migrate", "--noinput", "-v0")
        replica.create()
        yield primary, replica
    finally:
        replica.stop()
        primary.destroy()


def run(primary: ThrowawayPostgres, script: str) -> list:
    return json.loads(shell(server_env(DATABASE_URL=primary.url), "import json\n" + script))


def on_replica(replica: ThrowawayReplica, sql: str, params: tuple = ()) -> object:
    with psycopg.connect(replica.url, autocommit=True) as connection:
        return connection.execute(sql, params).fetchone()[0]


def read(base: str, path: str, secret: str) -> int:
    return fetch(base + path, {"X-API-Key": secret})[0]


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
    with gunicorn(workers=2, DATABASE_REPLICA_MAX_LAG="3600", **servers) as base:
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
        )

    # 2. A replica lagging more than DATABASE_REPLICA_MAX_LAG is skipped.
    with gunicorn(workers=2, DATABASE_REPLICA_MAX_LAG="1", **servers) as base:
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
