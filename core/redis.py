"""The one place that builds Redis clients: one server, a Redis Cluster, or a primary
under Redis Sentinel (issue 18). The meter (metering/backends.py), the shared key cache
and the default cache (django-redis, through ``ConnectionFactory``) all get their client
here, so every piece of code on Redis follows the same topology settings.

- plain (``REDIS_URL`` only): ``redis.Redis``.
- cluster (``REDIS_CLUSTER=1``): ``REDIS_URL`` names one node (a seed) and
  ``REDIS_CLUSTER_NODES=host:port,...`` any number of other seeds (issue 30.1); the
  client (``redis.cluster.RedisCluster``) asks the seeds in turn until one answers,
  discovers the others and routes each key to the master of its slot. With one seed, a
  worker starting while that node is down cannot reach the cluster at all (12 s of 503
  to every account after a deploy, until the node came back). Everything of one
  account is under the hash tag ``{a<id>}`` (``account_tag``), so a Lua script over an
  account's keys runs on one node.
- sentinel (``REDIS_SENTINELS=host:port,...`` and ``REDIS_SENTINEL_MASTER=name``): the
  sentinels tell the client where the current primary is; after a failover the next
  connection goes to the promoted replica. ``REDIS_URL`` then only supplies the database
  number and credentials (its host and port are not used).

Every client has short timeouts and never retries a command that timed out (the meter's
script may have run, and a retry could count a request twice); a broken pooled
connection is retried once on one server or Sentinel, never on a cluster (where a retry
goes through a topology refresh and cannot tell a timeout from a refused connection).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

CONNECT_TIMEOUT_SECONDS = 0.5
TIMEOUT_SECONDS = 0.5
# How long a key revocation waits for a replica to hold its tombstones (Sentinel only).
WAIT_REPLICA_MS = 500


@dataclass(frozen=True, slots=True)
class Topology:
    """Where Redis is: ``url`` and at most one of ``cluster`` / ``sentinels``;
    ``cluster_nodes``: more seeds of a cluster besides ``url``'s host."""

    url: str
    cluster: bool = False
    sentinels: tuple[tuple[str, int], ...] = ()
    sentinel_master: str = ""
    cluster_nodes: tuple[tuple[str, int], ...] = ()

    @property
    def mode(self) -> str:
        if self.cluster:
            return "cluster"
        return "sentinel" if self.sentinels else "plain"


def parse_sentinels(
    raw: list[str], setting: str = "REDIS_SENTINELS"
) -> tuple[tuple[str, int], ...]:
    """``["host:port", ...]`` as address pairs; raises ``ImproperlyConfigured`` naming
    ``setting`` for anything else."""
    out = []
    for item in raw:
        host, sep, port = item.rpartition(":")
        if not sep or not host or not port.isdigit():
            raise ImproperlyConfigured(f"{setting} entries are host:port, got {item!r}")
        out.append((host.strip("[]"), int(port)))
    return tuple(out)


def topology_from_settings(
    *,
    url: str,
    cluster: bool,
    sentinels: list[str],
    master: str,
    cluster_nodes: list[str] | None = None,
) -> Topology:
    """Check the settings' combination (called by settings.py at start-up)."""
    if cluster_nodes and not cluster:
        raise ImproperlyConfigured("REDIS_CLUSTER_NODES needs REDIS_CLUSTER=1")
    if cluster and sentinels:
        raise ImproperlyConfigured("REDIS_CLUSTER and REDIS_SENTINELS exclude each other")
    if (cluster or sentinels) and not url:
        raise ImproperlyConfigured("REDIS_CLUSTER and REDIS_SENTINELS need REDIS_URL")
    if sentinels and not master:
        raise ImproperlyConfigured("REDIS_SENTINELS needs REDIS_SENTINEL_MASTER")
    if url and urlsplit(url).scheme not in ("redis", "rediss"):
        raise ImproperlyConfigured("REDIS_URL must start with redis:// or rediss://")
    return Topology(
        url,
        cluster,
        parse_sentinels(sentinels),
        master,
        parse_sentinels(cluster_nodes or [], "REDIS_CLUSTER_NODES"),
    )


def account_tag(account_id: int) -> str:
    """The hash tag under which every Redis key of one account lives (one cluster slot)."""
    return f"{{a{account_id}}}"


def current_topology(url: str | None = None) -> Topology:
    """The configured topology, with ``url`` in place of ``REDIS_URL`` when given."""
    return Topology(
        url or settings.REDIS_URL,
        settings.REDIS_CLUSTER,
        tuple((host, int(port)) for host, port in settings.REDIS_SENTINELS),
        settings.REDIS_SENTINEL_MASTER,
        tuple((host, int(port)) for host, port in settings.REDIS_CLUSTER_NODES),
    )


def connect(
    topology: Topology,
    *,
    timeout: float = TIMEOUT_SECONDS,
    connect_timeout: float = CONNECT_TIMEOUT_SECONDS,
) -> Any:
    """A new client for ``topology`` (``redis.Redis`` or ``redis.cluster.RedisCluster``),
    with its own connection pool."""
    import redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    common: dict[str, Any] = {
        "socket_timeout": timeout,
        "socket_connect_timeout": connect_timeout,
    }
    if topology.cluster:
        from redis.cluster import ClusterNode, RedisCluster

        seeds = [ClusterNode(host, port) for host, port in topology.cluster_nodes]
        return RedisCluster.from_url(
            topology.url, startup_nodes=seeds, retry=Retry(NoBackoff(), 0), **common
        )
    retry = Retry(NoBackoff(), 1, supported_errors=(redis.ConnectionError,))
    if not topology.sentinels:
        return redis.Redis.from_url(topology.url, retry=retry, **common)
    from redis.sentinel import Sentinel

    parts = urlsplit(topology.url)
    auth = {
        "username": unquote(parts.username) if parts.username else None,
        "password": unquote(parts.password) if parts.password else None,
    }
    db = int(parts.path.strip("/") or 0)
    sentinel = Sentinel(list(topology.sentinels), sentinel_kwargs=common, **common)
    return sentinel.master_for(topology.sentinel_master, db=db, retry=retry, **auth)


def _unreachable() -> tuple[type[BaseException], ...]:
    import redis
    from redis.exceptions import ClusterError, RedisClusterException

    try:
        from django_redis.exceptions import ConnectionInterrupted
    except ImportError:  # pragma: no cover - ships with the service
        return (redis.ConnectionError, redis.TimeoutError, ClusterError, RedisClusterException)
    return (
        ConnectionInterrupted,
        redis.ConnectionError,
        redis.TimeoutError,
        ClusterError,  # a cluster with a slot's master down (CLUSTERDOWN, MASTERDOWN)
        RedisClusterException,  # no node of the cluster answers
    )


# The errors of an unreachable Redis, whatever the topology.
UNREACHABLE = _unreachable()


def set_many_replicated(
    cache: Any,
    values: dict[str, Any],
    *,
    timeout: float,
    raw: dict[str, str] | None = None,
    raw_timeout: int = 0,
) -> None:
    """``cache.set_many(values, timeout)``; under Sentinel, when the primary has a replica,
    also wait (at most ``WAIT_REPLICA_MS``) until one holds the writes: a failover
    promotes a replica, and a write it never received is lost with the old primary. (A
    primary without replicas cannot fail over; a replica that connects later copies the
    whole data set.) Raises one of ``UNREACHABLE`` when Redis cannot be reached, or
    ``redis.ConnectionError`` when no replica acknowledged the writes in time: the
    caller must not rely on them then.

    ``raw``: more keys written as they are (no cache prefix, no serialisation; each with
    ``raw_timeout`` seconds to live) in the same step, under the same wait: the account
    epochs of keys/cache.py (issue 13). Only for a django-redis ``cache``.

    The writes and ``WAIT`` go down one pipeline, so one connection: ``WAIT`` counts the
    writes of the connection it is sent on."""
    client = getattr(cache, "client", None)
    raw = raw or {}
    if not settings.REDIS_SENTINELS or not hasattr(client, "get_client"):
        if values:
            cache.set_many(values, timeout=timeout)
        if raw:
            primary = client.get_client(write=True)
            for key, value in raw.items():
                primary.set(key, value, ex=raw_timeout)
        return
    primary = client.get_client(write=True)
    if not int(primary.info("replication").get("connected_slaves", 0)):
        if values:
            cache.set_many(values, timeout=timeout)
        for key, value in raw.items():
            primary.set(key, value, ex=raw_timeout)
        return
    pipeline = primary.pipeline(transaction=False)
    for key, value in values.items():
        client.set(key, value, timeout, client=pipeline)
    for key, value in raw.items():
        pipeline.set(key, value, ex=raw_timeout)
    pipeline.execute_command("WAIT", 1, WAIT_REPLICA_MS)
    if int(pipeline.execute()[-1]) < 1:
        import redis

        raise redis.ConnectionError("no Redis replica acknowledged the writes")


# --- django-redis ---------------------------------------------------------------------

_clients: dict[tuple[Topology, float, float], Any] = {}


def _django_redis_factory_base() -> type:
    from django_redis.pool import ConnectionFactory as Base

    return Base


class ConnectionFactory(_django_redis_factory_base()):  # type: ignore[misc]
    """django-redis ``CONNECTION_FACTORY``: the cache's client is built by ``connect``
    for the cache's ``LOCATION`` and the configured topology, one per process and
    location (django-redis builds a cache client per request)."""

    def connect(self, url: str) -> Any:
        timeout = float(self.options.get("SOCKET_TIMEOUT") or TIMEOUT_SECONDS)
        connect_timeout = float(
            self.options.get("SOCKET_CONNECT_TIMEOUT") or CONNECT_TIMEOUT_SECONDS
        )
        key = (current_topology(url), timeout, connect_timeout)
        client = _clients.get(key)
        if client is None:
            client = _clients[key] = connect(
                key[0], timeout=timeout, connect_timeout=connect_timeout
            )
        return client

    def disconnect(self, connection: Any) -> None:
        connection.close()
