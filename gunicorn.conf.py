"""gunicorn settings for production (issue 7.1). gunicorn reads this file by itself when
started from the repository root; ``make serve-prod`` and docs/operations.md use it.

Every value can be changed from the environment; flags on the command line win over it.

- ``GUNICORN_BIND``: listen addresses, comma-separated; default ``127.0.0.1:$PORT`` when
  ``PORT`` is set, else ``127.0.0.1:8000``.
- ``WEB_CONCURRENCY``: worker processes; default ``2 x cores + 1`` (5 on 2 cores) with
  ``REDIS_URL``, 1 without.
- ``GUNICORN_THREADS``: threads per worker (the ``gthread`` worker); default 4.
- ``GUNICORN_WORKER_CLASS``: default ``gthread`` (``sync`` for comparisons); both name
  gunicorn's worker with refusals rendered as problem objects.
- ``GUNICORN_TIMEOUT`` (30), ``GUNICORN_GRACEFUL_TIMEOUT`` (30), ``GUNICORN_KEEPALIVE``
  (75): seconds.
- ``GUNICORN_MAX_REQUESTS``: recycle a worker after this many requests, plus up to 10 %
  jitter; default 5000, ``0`` = never.
- ``GUNICORN_LOG_LEVEL``: gunicorn's own log; default ``info``.
- ``GUNICORN_CONTROL_SOCKET``: a path turns on gunicorn's control socket (off by default).
- ``PROMETHEUS_MULTIPROC_DIR``: where workers write their metrics; default a fresh
  temporary directory.

Choices:

- **Workers and threads.** A request spends most of its time waiting on PostgreSQL and
  Redis, so each of the ``2 x cores + 1`` processes runs 4 threads (Django keeps one
  database connection per thread, so the database sees at most workers x threads
  connections: 20 on 2 cores, under PostgreSQL's default 100). Without ``REDIS_URL``
  metering is in-process, so several workers would each keep their own quota: the
  default is then one worker, and ``on_starting`` warns when more are asked for.
  Measured again for issue 13 with ``bench/scripts/reads.py`` (one run per setting, 2 cores
  shared with other work at load average 17-22, so +-30 % noise; bench/RESULTS.md):
  gthread 5 x 4 served record/search/filtered/pgraw at 210/174/163/189 requests/s,
  sync 5 x 1 at 145/90/76/120 (no keep-alive: every request opens a connection, and a
  worker waiting on PostgreSQL serves nobody else), gthread 2 x 8 at 269/249/148/198
  with a worse p99 (one busy process holds half the threads behind its GIL). On a
  quiet machine (2026-11-25, same command) sync 5 x 1 and gthread 5 x 4 served the same
  within noise (record 1,895 vs 1,817 requests/s, both 94 % of pgraw; sync with the
  lower p99) and gthread 2 x 8 was bimodal again. gthread 5 x 4 stays: it is as fast
  when the cores are free, clearly faster when they are busy, keeps client connections
  alive, and overlaps the waits on a PostgreSQL or Redis reached over a network.
- **Loopback unless told otherwise.** gunicorn listens on 127.0.0.1 (``PORT`` only
  changes the port): production serves through nginx on the same host
  (deploy/nginx.conf.template), and a client that reached gunicorn directly would skip
  nginx's slow-client protection. Any other address (a private interface, a
  container's ``0.0.0.0``) is named in ``GUNICORN_BIND``. Whatever the bind, the client
  address is the socket's unless the connection comes from ``TRUSTED_PROXIES``
  (core/clientaddr.py): gunicorn's own ``forwarded_allow_ips`` governs only
  the scheme headers it reads and never ``X-Forwarded-For``.
- **Timeouts.** 30 s for a silent worker, 30 s of grace on ``SIGTERM`` / ``SIGHUP``.
  Keep-alive 75 s: longer than the proxy's idle timeout (60 s for nginx upstream
  keep-alive and for AWS load balancers), so the proxy always closes first and never
  reuses a connection gunicorn has just closed (a 502). Idle keep-alive connections
  wait in the gthread worker's poller, not in a thread.
- **Recycling.** ``max_requests`` with 10 % jitter bounds any slow leak and keeps the
  workers from all restarting at once.
- **Logs.** gunicorn's access log is off: ``foodservice.http.requestlog`` writes one JSON
  line per request with more in it (account, key, tier, metered, request id). gunicorn's
  own error log goes to stderr.
- **No preload.** ``preload_app`` stays False: each worker imports the app after the
  fork, so nothing opened at import time (database or Redis connections, the metering
  flush thread, the Prometheus value files) is shared between processes, and
  ``kill -HUP <master>`` reloads new code gracefully. The price is a slower worker start
  and no copy-on-write memory sharing, which matter little at 5 workers.
- **Garbage collector.** ``post_worker_init`` freezes what the loaded app holds and
  raises the first generation's threshold (core/gctune.py), so no full collection of
  the whole heap (90 ms, measured) lands on a request.
- **Metrics.** ``PROMETHEUS_MULTIPROC_DIR`` is set here, before any worker imports
  prometheus_client, to a fresh directory that is emptied at start and removed at exit;
  ``child_exit`` marks a dead worker's files so its live gauges stop counting.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import shutil
import tempfile
from pathlib import Path


def _int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    return int(raw) if raw else default


def default_workers(*, cores: int, redis: bool) -> int:
    """``2 x cores + 1`` when the workers share their state through Redis, else 1."""
    return 2 * cores + 1 if redis else 1


def default_bind() -> list[str]:
    if os.environ.get("GUNICORN_BIND"):
        return [b.strip() for b in os.environ["GUNICORN_BIND"].split(",") if b.strip()]
    if os.environ.get("PORT"):
        return [f"127.0.0.1:{os.environ['PORT']}"]
    return ["127.0.0.1:8000"]


wsgi_app = "foodservice.wsgi:application"
bind = default_bind()
workers = _int(
    "WEB_CONCURRENCY",
    default_workers(cores=multiprocessing.cpu_count(), redis=bool(os.environ.get("REDIS_URL"))),
)
threads = _int("GUNICORN_THREADS", 4)
# gunicorn's own workers, except that a request gunicorn refuses (414, 431, 400) is
# answered with a problem object, not an HTML page (foodservice/http/gunicorn_workers.py).
worker_class = {
    "gthread": "foodservice.http.gunicorn_workers.ThreadWorker",
    "sync": "foodservice.http.gunicorn_workers.SyncWorker",
}.get(os.environ.get("GUNICORN_WORKER_CLASS", "gthread"), os.environ.get("GUNICORN_WORKER_CLASS"))
timeout = _int("GUNICORN_TIMEOUT", 30)
graceful_timeout = _int("GUNICORN_GRACEFUL_TIMEOUT", 30)
keepalive = _int("GUNICORN_KEEPALIVE", 75)
max_requests = _int("GUNICORN_MAX_REQUESTS", 5000)
max_requests_jitter = max_requests // 10
preload_app = False
# gunicorn's own ceiling (8190; the default 4094 answered a long but valid search, whose
# UTF-8 text is percent-encoded to 9 bytes a character, with gunicorn's HTML 414 before
# the app could answer). Anything longer gets gunicorn's 414, as a problem object.
limit_request_line = 8190
accesslog = None
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOG_LEVEL", "info")
# The heartbeat file on tmpfs: a worker is never judged dead because a disk stalled.
worker_tmp_dir = "/dev/shm" if Path("/dev/shm").is_dir() else None  # noqa: S108
# gunicorn >= 25's control socket (run-time worker changes through ``gunicornc``) sits at
# one path per user, so two instances on a host would fight over it: off unless a path
# is given in GUNICORN_CONTROL_SOCKET.
control_socket_disable = not os.environ.get("GUNICORN_CONTROL_SOCKET")
if not control_socket_disable:
    control_socket = os.environ["GUNICORN_CONTROL_SOCKET"]
# Django reads X-Forwarded-Proto itself (SECURE_PROXY_SSL_HEADER); gunicorn's own
# request limits (8 KB per header, 100 headers) stay at their defaults.

# --- Prometheus multi-process mode (core/metrics.py) ---------------------------
# Read again on every reload (SIGHUP): the environment remembers the directory, and
# that this file made it, so the first one is kept and removed at exit.
_OWNED = "FOODSERVICE_OWNS_METRICS_DIR"
if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="foodservice-metrics-")
    os.environ[_OWNED] = "1"
METRICS_DIR = Path(os.environ["PROMETHEUS_MULTIPROC_DIR"])


def on_starting(server: object) -> None:
    """Master start: empty the metrics directory (values of an earlier run must not be
    summed in) and warn about several workers without Redis."""
    METRICS_DIR.mkdir(parents=True, exist_ok=True)
    for stale in METRICS_DIR.glob("*.db"):
        stale.unlink()
    cfg = server.cfg  # type: ignore[attr-defined]
    if cfg.workers > 1 and not os.environ.get("REDIS_URL"):
        logging.getLogger("gunicorn.error").warning(
            "%d workers without REDIS_URL: in-process metering gives each worker its own "
            "quota and burst bucket; set REDIS_URL or WEB_CONCURRENCY=1",
            cfg.workers,
        )


def post_worker_init(worker: object) -> None:
    """The worker has loaded the app: its long-lived objects are frozen out of the
    garbage collector's full walks and its first generation made larger
    (core/gctune.py: a 90 ms collection no longer lands on a request)."""
    from core import gctune

    gctune.settle()


def child_exit(server: object, worker: object) -> None:
    """A worker died or was recycled: its live gauges no longer count."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)  # type: ignore[attr-defined]


def on_exit(server: object) -> None:
    """Master exit: remove the metrics directory this file created."""
    if os.environ.get(_OWNED) == "1":
        shutil.rmtree(METRICS_DIR, ignore_errors=True)
