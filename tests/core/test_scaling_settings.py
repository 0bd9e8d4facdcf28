"""Issue 18: the settings of the scaling configurations (Redis topology, PgBouncer, read
replicas) are checked at start-up; the engines themselves are tested in tests/engines."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from django.core.exceptions import ImproperlyConfigured

from core.redis import Topology, account_tag, topology_from_settings
from tests.support.servers import ROOT


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"url": "redis://a/0", "cluster": True, "sentinels": ["a:1"], "master": "m"},
            "exclude each other",
        ),
        ({"url": "", "cluster": True, "sentinels": [], "master": ""}, "need REDIS_URL"),
        ({"url": "redis://m/0", "cluster": False, "sentinels": ["a:1"], "master": ""}, "MASTER"),
        ({"url": "redis://m/0", "cluster": False, "sentinels": ["a"], "master": "m"}, "host:port"),
        ({"url": "http://x", "cluster": False, "sentinels": [], "master": ""}, "redis://"),
        (
            {
                "url": "redis://a/0",
                "cluster": False,
                "sentinels": [],
                "master": "",
                "cluster_nodes": ["b:1"],
            },
            "REDIS_CLUSTER_NODES needs REDIS_CLUSTER",
        ),
        (
            {
                "url": "redis://a/0",
                "cluster": True,
                "sentinels": [],
                "master": "",
                "cluster_nodes": ["b"],
            },
            "REDIS_CLUSTER_NODES entries are host:port",
        ),
    ],
)
def test_bad_redis_topologies_fail_at_start(kwargs, message):
    with pytest.raises(ImproperlyConfigured, match=message):
        topology_from_settings(**kwargs)


def test_sentinels_are_parsed():
    topology = topology_from_settings(
        url="redis://fsprimary/0",
        cluster=False,
        sentinels=["10.0.0.1:26379", "[::1]:5"],
        master="m",
    )
    assert topology == Topology(
        "redis://fsprimary/0", False, (("10.0.0.1", 26379), ("::1", 5)), "m"
    )
    assert topology.mode == "sentinel"


def test_cluster_seeds_are_parsed():
    topology = topology_from_settings(
        url="redis://10.0.0.11:6379/0",
        cluster=True,
        sentinels=[],
        master="",
        cluster_nodes=["10.0.0.12:6379", "[::1]:7000"],
    )
    assert topology.cluster_nodes == (("10.0.0.12", 6379), ("::1", 7000))
    assert topology.mode == "cluster"


def test_an_accounts_tag_is_the_hash_tag_of_its_meter_key():
    assert account_tag(42) == "{a42}"


def settings_under(**env: str) -> dict:
    """Selected settings as a fresh process computes them from ``env``."""
    script = (
        "import json, django; django.setup(); from django.conf import settings as s; "
        "print(json.dumps({'dbs': {a: {'engine': d['ENGINE'], "
        "'nocursors': d.get('DISABLE_SERVER_SIDE_CURSORS', False), "
        "'prepare': d['OPTIONS'].get('prepare_threshold', 'unset'), "
        "'mirror': d.get('TEST', {}).get('MIRROR')} for a, d in s.DATABASES.items()}, "
        "'routers': s.DATABASE_ROUTERS, 'middleware': s.MIDDLEWARE[-1]}))"
    )
    base = {k: v for k, v in os.environ.items() if not k.startswith(("DATABASE", "REDIS"))}
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env={**base, "DJANGO_SETTINGS_MODULE": "foodservice.settings", **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.backend_free
def test_pgbouncer_and_replicas_settings():
    got = settings_under(
        DATABASE_URL="postgres://u@primary/db",
        DATABASE_REPLICA_URLS="postgres://u@r1/db,postgres://u@r2/db",
        DATABASE_PGBOUNCER="1",
    )
    assert got["dbs"] == {
        "default": {
            "engine": "foodservice.ops.postgresql",
            "nocursors": True,
            "prepare": None,
            "mirror": None,
        },
        **{
            alias: {
                "engine": "foodservice.ops.replica_db",
                "nocursors": True,
                "prepare": None,
                "mirror": "default",
            }
            for alias in ("replica1", "replica2")
        },
    }
    assert got["routers"] == ["foodservice.ops.replicas.ReplicaRouter"]
    assert got["middleware"] == "foodservice.ops.replicas.ReplicaReadsMiddleware"


@pytest.mark.backend_free
def test_without_them_nothing_changes():
    got = settings_under(DATABASE_URL="postgres://u@primary/db")
    assert got["dbs"]["default"]["nocursors"] is False
    assert got["dbs"]["default"]["prepare"] == 5  # core/sql.py: prepared statements on
    assert list(got["dbs"]) == ["default"]
    assert got["routers"] == []


@pytest.mark.backend_free
def test_prepared_statements_can_be_turned_off():
    got = settings_under(DATABASE_URL="postgres://u@primary/db", DATABASE_PREPARED="0")
    assert got["dbs"]["default"]["prepare"] is None
