"""Shared parts of the load and fault harnesses (issue 7.5, 7.6): gunicorn, accounts, a
concurrent client with a realistic request mix, and the end-of-run checks. The throwaway
Redis and PostgreSQL servers, free ports and ``manage.py`` runs are test support
(tests/support/engines.py), which the tests use too; bench imports tests.support, never
the reverse.

Every request goes to 127.0.0.1 only (``LOCAL``; ``Client`` refuses anything else).
Every run is bounded: the client stops at its deadline, the servers it starts are
stopped on exit (also on Ctrl-C), and throwaway redis-server / PostgreSQL clusters live
in a temporary directory that is removed afterwards.

Admitted requests are counted the way the meter counts them (docs/metering.md, "What
is metered"): a response is *metered* when it carries ``RateLimit-Limit`` (an admitted
2xx/304/403/404 or 5xx, or a quota 429) or is a burst 429; it is *admitted* (counted)
when metered and neither a 429 nor a 5xx (whose unit is given back).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import http.client
import json
import os
import platform
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

# The bench scripts reach these through loadkit (loadkit.ThrowawayRedis, ...).
from tests.support.engines import (  # noqa: F401
    LOCAL,
    ROOT,
    ThrowawayPostgres,
    ThrowawayRedis,
    free_port,
    manage,
    shell,
)
from tests.support.judged import analysis_set

VAR = Path(os.environ.get("FOODSERVICE_VAR_DIR", "/tmp/fs-load"))
SEARCH_WORDS = [
    "butter",
    "chicken",
    "cheese",
    "apple",
    "milk",
    "bread",
    "yogurt",
    "rice",
    "beef",
    "peanut butter",
    "whole milk",
    "orange juice",
    "brown rice",
    "cheddar",
    "salmon",
    "tomato",
    "egg",
    "pasta",
    "banana",
    "oat",
]
SEARCH_EXTRAS = ["", "", "", "&page=2", "&protein_min=5", "&sort=-protein", "&page_size=50"]
# Ingredient lines as people write them (the analysis judged set's texts).
ANALYSIS_LINES = [line for line, _, _ in (*analysis_set.LINES, *analysis_set.GROWN)]
# A malformed key (refused before any I/O) and a well-formed one that does not exist.
BAD_KEYS = ["not-a-key", "svc_sk_live_" + "A" * 40]


# --- machine -------------------------------------------------------------------------


def loadavg() -> str:
    with open("/proc/loadavg") as handle:
        return " ".join(handle.read().split()[:3])


def machine() -> str:
    """nproc, memory, load average and date, for RESULTS.md."""
    with open("/proc/meminfo") as handle:
        mem_kb = int(handle.readline().split()[1])
    now = dt.datetime.now(dt.UTC)
    return (
        f"{now:%Y-%m-%d %H:%M} UTC, {platform.node()}: nproc {os.cpu_count()}, "
        f"{mem_kb / 1024 / 1024:.1f} GiB memory, load average {loadavg()}, "
        f"Python {platform.python_version()}"
    )


# --- environment, manage.py ------------------------------------------------------------


def base_env(*, database_url: str, redis_url: str | None, **extra: str) -> dict[str, str]:
    """The environment of every process a harness starts (server and manage.py)."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(
        DATABASE_URL=database_url,
        FOODSERVICE_VAR_DIR=str(VAR),
        DJANGO_SETTINGS_MODULE="foodservice.settings",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        SECRET_KEY="load-harness-secret-key-not-for-production-0123456789abcdef",  # noqa: S106
        KEY_PEPPER="load-harness-pepper",
        SECURE_COOKIES="0",
        DEBUG="0",
        LOG_LEVEL=os.environ.get("LOAD_LOG_LEVEL", "WARNING"),
        GUNICORN_LOG_LEVEL="warning",
    )
    if redis_url:
        env["REDIS_URL"] = redis_url
    env.update(extra)
    return env


def prepare_database(env: dict[str, str], *, catalogue: str) -> None:
    """Migrate; load a catalogue when the database holds none. ``catalogue``: ``sample``
    (the small SR28 sample of tests/catalogue/data, seconds), ``sr28`` (8,789 foods,
    ``load_catalogue --source sr28``) or ``keep`` (use what is there)."""
    manage(env, "migrate", "--noinput", "-v0")
    if catalogue == "sr28":
        manage(env, "load_catalogue", "--source", "sr28", "--if-empty")
    elif catalogue == "sample":
        shell(
            env,
            "from pathlib import Path\n"
            "from catalogue.importers.load import catalogue_load\n"
            "from catalogue.models import Food\n"
            "if not Food.objects.exists():\n"
            "    catalogue_load(source='sr28', path=Path('tests/catalogue/data/sr28'))\n"
            "print('ok')\n",
        )


# --- accounts ----------------------------------------------------------------------------


@dataclass
class Account:
    """An account the harness made: its keys' secrets, and what the harness saw."""

    id: int
    tier: str
    quota: int
    secrets: list[str]
    key_ids: list[int]
    label: str = ""


ACCOUNTS_SCRIPT = """
import json, random
from accounts.services import account_create, account_set_tier
from accounts.tiers import TierLimits
from catalogue.models import Food
from keys.services import key_create
plan = json.loads({plan!r})
out = {{"accounts": [], "foods": []}}
for i, (tier, custom, nkeys, label) in enumerate(plan["accounts"]):
    email = f"{{plan['prefix']}}-{{i}}@load.example.com"
    account = account_create(email=email, tier="taster", market="US", email_verified=True)
    if tier != "taster":
        limits = TierLimits(**custom) if custom else None
        account = account_set_tier(account=account, tier=tier, custom=limits)
    keys = [key_create(account=account, label=f"load {{k}}") for k in range(nkeys)]
    out["accounts"].append({{"id": account.pk, "tier": tier, "quota": account.limits.quota,
        "secrets": [s for _, s in keys], "key_ids": [k.pk for k, _ in keys], "label": label}})
ids = list(Food.objects.filter(market="US").values_list("public_id", flat=True)[:50000])
random.shuffle(ids)
out["foods"] = ids[: plan["foods"]]
print(json.dumps(out))
"""


def make_accounts(
    env: dict[str, str], plan: list[tuple[str, dict | None, int, str]], *, foods: int = 2000
) -> tuple[list[Account], list[str]]:
    """Create fresh accounts (unique e-mails per run, so no earlier run's usage counts)
    per ``plan``: ``(tier, custom limits or None, number of keys, label)``. Returns the
    accounts and up to ``foods`` public food ids of market US."""
    prefix = f"run{int(time.time())}{random.randrange(10**6)}"
    script = ACCOUNTS_SCRIPT.format(
        plan=json.dumps({"prefix": prefix, "accounts": plan, "foods": foods})
    )
    data = json.loads(shell(env, script))
    return [Account(**a) for a in data["accounts"]], data["foods"]


def standard_plan(scale: int = 1) -> list[tuple[str, dict | None, int, str]]:
    """Many accounts on every tier. A few Executive Chef accounts get a tiny negotiated
    quota, so quota 429s happen and "no account over its quota" is really tested."""
    small = {"quota": 40, "window": "day", "rate": None, "burst": None}
    big = {"quota": 10_000_000, "window": "month", "rate": 100.0, "burst": 500}
    plan: list[tuple[str, dict | None, int, str]] = []
    plan += [("taster", None, 1, "taster")] * (12 * scale)
    plan += [("sous_chef", None, 2, "sous_chef")] * (8 * scale)
    plan += [("head_chef", None, 2, "head_chef")] * (6 * scale)
    plan += [("executive_chef", big, 2, "executive_chef")] * (3 * scale)
    plan += [("executive_chef", small, 2, "executive_chef small quota")] * (3 * scale)
    return plan


# --- servers -----------------------------------------------------------------------------


class Gunicorn:
    """gunicorn started the production way (``--config gunicorn.conf.py``), on LOCAL."""

    def __init__(
        self, env: dict[str, str], *, port: int, workers: int, threads: int, root: Path = ROOT
    ) -> None:
        self.port = port
        self.root = root  # the tree whose code serves (another checkout: a baseline)
        self.env = {
            **env,
            "GUNICORN_BIND": f"{LOCAL}:{port}",
            "WEB_CONCURRENCY": str(workers),
            "GUNICORN_THREADS": str(threads),
        }
        self.process: subprocess.Popen | None = None
        self.log = tempfile.NamedTemporaryFile(prefix="fs-load-gunicorn-", suffix=".log")  # noqa: SIM115

    def start(self, timeout: float = 60) -> Gunicorn:
        command = [sys.executable, "-m", "gunicorn", "--config", "gunicorn.conf.py"]
        self.process = subprocess.Popen(
            command, cwd=self.root, env=self.env, stdout=self.log, stderr=subprocess.STDOUT
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn exited:\n{self.log_tail()}")
            if get(self.port, "/healthz")[0] == 200 and len(self.worker_pids()) >= int(
                self.env["WEB_CONCURRENCY"]
            ):
                return self
            time.sleep(0.2)
        raise RuntimeError(f"gunicorn did not start:\n{self.log_tail()}")

    def worker_pids(self) -> list[int]:
        if self.process is None:
            return []
        path = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        try:
            return [int(p) for p in path.read_text().split()]
        except OSError:
            return []

    def stop(self) -> None:
        """Graceful stop (SIGTERM): workers finish and write their usage history."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=40)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def log_tail(self, chars: int = 4000) -> str:
        self.log.flush()
        return Path(self.log.name).read_text(errors="replace")[-chars:]

    def log_text(self) -> str:
        self.log.flush()
        return Path(self.log.name).read_text(errors="replace")


# --- HTTP ----------------------------------------------------------------------------------


def get(
    port: int, path: str, headers: dict[str, str] | None = None, timeout: float = 5
) -> tuple[int, dict[str, str], bytes]:
    """One GET to LOCAL:port on a fresh connection; (0, {}, b"") when it cannot connect."""
    conn = http.client.HTTPConnection(LOCAL, port, timeout=timeout)
    try:
        conn.request("GET", path, headers=headers or {})
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    except OSError:
        return 0, {}, b""
    finally:
        conn.close()


def usage_count(port: int, secret: str) -> int | None:
    status, _, body = get(port, "/v1/usage", {"X-API-Key": secret})
    return json.loads(body)["data"]["request_count"] if status == 200 else None


@dataclass(slots=True)
class Sample:
    """One response the client saw. ``status`` 0: the connection failed."""

    at: float  # monotonic, when the response (or failure) arrived
    latency: float  # seconds
    kind: str  # search, record, revalidate, usage, bad-key, suggest, analysis
    status: int
    account: int  # the account's id, -1 for bad keys
    metered: bool
    admitted: bool
    problem: str = ""


@dataclass
class Mix:
    """Shares of each kind of request (the rest of 1.0 are record reads)."""

    search: float = 0.40
    revalidate: float = 0.15
    usage: float = 0.02
    bad_key: float = 0.04
    # As-you-type suggestions and meal analyses (issues 26, 27): none unless asked for
    # (bench/scripts/load.py's mix has them), so the other harnesses keep their recorded mixes.
    suggest: float = 0.0
    analysis: float = 0.0


@dataclass
class Client:
    """``concurrency`` threads, each with its own keep-alive connection to LOCAL:port,
    sending the ``Mix`` for the accounts until ``stop()`` or the deadline."""

    port: int
    accounts: list[Account]
    foods: list[str]
    concurrency: int = 16
    mix: Mix = field(default_factory=Mix)
    seed: int = 1
    samples: list[Sample] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _threads: list[threading.Thread] = field(default_factory=list)
    # Secrets the harness must no longer use (revoked or rotated away), per account.
    retired: set[str] = field(default_factory=set)

    def run_for(self, seconds: float) -> list[Sample]:
        self.start(seconds)
        self.join()
        return self.samples

    def start(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        for i in range(self.concurrency):
            thread = threading.Thread(target=self._loop, args=(i, deadline), daemon=True)
            thread.start()
            self._threads.append(thread)

    def stop(self) -> None:
        self._stop.set()

    def join(self) -> None:
        for thread in self._threads:
            thread.join()

    def _loop(self, index: int, deadline: float) -> None:
        rng = random.Random(self.seed * 1000 + index)
        etags: dict[tuple[int, str], str] = {}
        conn = http.client.HTTPConnection(LOCAL, self.port, timeout=15)
        local: list[Sample] = []
        while not self._stop.is_set() and time.monotonic() < deadline:
            kind, account, path, headers = self._pick(rng, etags)
            body = None
            if kind == "analysis":
                lines = rng.sample(ANALYSIS_LINES, rng.randint(1, 8))
                body = json.dumps({"ingredients": lines}).encode()
                headers = {**headers, "Content-Type": "application/json"}
            started = time.monotonic()
            try:
                conn.request("POST" if body else "GET", path, body=body, headers=headers)
                response = conn.getresponse()
                body = response.read()
                status, got = response.status, response
            except (OSError, http.client.HTTPException):
                conn.close()
                conn = http.client.HTTPConnection(LOCAL, self.port, timeout=15)
                local.append(Sample(time.monotonic(), 0.0, kind, 0, account, False, False))
                time.sleep(0.05)
                continue
            now = time.monotonic()
            metered = got.getheader("RateLimit-Limit") is not None or (
                status == 429 and b"burst-limit-exceeded" in body
            )
            problem = ""
            if status >= 400 and body[:1] == b"{":
                with contextlib.suppress(ValueError):
                    problem = json.loads(body).get("type", "")
            etag = got.getheader("ETag")
            if etag and account >= 0:
                etags[(account, path)] = etag
            local.append(
                Sample(
                    now,
                    now - started,
                    kind,
                    status,
                    account,
                    metered,
                    # a 5xx after admission is given back (docs/metering.md)
                    metered and status != 429 and status < 500,
                    problem,
                )
            )
            if got.getheader("Connection", "").lower() == "close":
                conn.close()
                conn = http.client.HTTPConnection(LOCAL, self.port, timeout=15)
        conn.close()
        with self._lock:
            self.samples.extend(local)

    def _pick(
        self, rng: random.Random, etags: dict[tuple[int, str], str]
    ) -> tuple[str, int, str, dict[str, str]]:
        roll = rng.random()
        mix = self.mix
        if roll < mix.bad_key:
            return "bad-key", -1, self._record_path(rng), {"X-API-Key": rng.choice(BAD_KEYS)}
        account = rng.choice(self.accounts)
        index = account.id
        live = [s for s in account.secrets if s not in self.retired] or account.secrets
        headers = {"X-API-Key": rng.choice(live)}
        roll -= mix.bad_key
        if roll < mix.usage:
            return "usage", index, "/v1/usage", headers
        roll -= mix.usage
        if roll < mix.revalidate:
            known = [(a, p) for (a, p) in etags if a == index]
            if known:
                pair = rng.choice(known)
                headers["If-None-Match"] = etags[pair]
                return "revalidate", index, pair[1], headers
        roll -= mix.revalidate
        if roll < mix.search:
            q = rng.choice(SEARCH_WORDS).replace(" ", "+")
            return "search", index, f"/v1/foods?q={q}{rng.choice(SEARCH_EXTRAS)}", headers
        roll -= mix.search
        if roll < mix.suggest:  # what has been typed so far: a word cut anywhere
            word = rng.choice(SEARCH_WORDS)
            typed = word[: rng.randint(1, len(word))].replace(" ", "+")
            return "suggest", index, f"/v1/suggest?q={typed}", headers
        roll -= mix.suggest
        if roll < mix.analysis:
            return "analysis", index, "/v1/analysis", headers
        return "record", index, self._record_path(rng), headers

    def _record_path(self, rng: random.Random) -> str:
        return f"/v1/foods/{rng.choice(self.foods)}"


# --- figures and checks ----------------------------------------------------------------------


def elapsed_ms(fn: Callable[[], object]) -> float:
    """How long ``fn()`` took, in milliseconds."""
    started = time.perf_counter()
    fn()
    return (time.perf_counter() - started) * 1000


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def latency_row(name: str, samples: list[Sample], seconds: float) -> str:
    ms = [s.latency * 1000 for s in samples if s.status]
    return (
        f"| {name} | {len(samples)} | {len(samples) / seconds:.1f} | {percentile(ms, 50):.1f} | "
        f"{percentile(ms, 95):.1f} | {percentile(ms, 99):.1f} |"
    )


def status_summary(samples: list[Sample]) -> str:
    counts = Counter(
        (s.status, s.problem.rsplit("/", 1)[-1]) if s.problem else (s.status, "") for s in samples
    )
    parts = [
        f"{status if status else 'conn-error'}{' ' + kind if kind else ''}: {n}"
        for (status, kind), n in sorted(counts.items())
    ]
    return ", ".join(parts)


def admitted_by_account(samples: list[Sample]) -> Counter[int]:
    return Counter(s.account for s in samples if s.admitted)


class Verdict:
    """Collects named checks; prints PASS/FAIL lines and a summary."""

    def __init__(self, title: str) -> None:
        self.title = title
        self.results: list[tuple[str, bool, str]] = []

    def check(self, name: str, ok: bool, detail: str = "") -> bool:
        self.results.append((name, bool(ok), detail))
        print(f"  [{'PASS' if ok else 'FAIL'}] {name}{': ' + detail if detail else ''}", flush=True)
        return bool(ok)

    @property
    def passed(self) -> bool:
        return all(ok for _, ok, _ in self.results)

    def summary(self) -> str:
        failed = [name for name, ok, _ in self.results if not ok]
        head = f"{self.title}: {'PASS' if self.passed else 'FAIL'}"
        return head + (
            f" (failed: {', '.join(failed)})" if failed else f" ({len(self.results)} checks)"
        )

    def markdown(self) -> list[str]:
        return [
            f"- {'PASS' if ok else '**FAIL**'}: {n}{' — ' + d if d else ''}"
            for n, ok, d in self.results
        ]


def no_500(verdict: Verdict, samples: list[Sample]) -> None:
    fives = [s for s in samples if s.status >= 500 and s.status != 503]
    bad503 = [
        s for s in samples if s.status == 503 and not s.problem.endswith("service-unavailable")
    ]
    verdict.check(
        "no 500 (and no other 5xx but the 503 problem)",
        not fives,
        f"{len(fives)} seen" if fives else "",
    )
    verdict.check(
        "every 503 is the service-unavailable problem",
        not bad503,
        f"{len(bad503)} other 503s" if bad503 else "",
    )


def quota_respected(
    verdict: Verdict,
    accounts: list[Account],
    admitted: Counter[int],
    slack: dict[int, int] | None = None,
) -> None:
    """No account was admitted more than its quota (plus ``slack``, by account id, where
    the documented loss bound allows it). ``admitted``: by account id."""
    over = []
    for account in accounts:
        allowed = account.quota + (slack or {}).get(account.id, 0)
        if admitted[account.id] > allowed:
            over.append(
                f"account {account.id} ({account.label}) {admitted[account.id]} > {allowed}"
            )
    limited = [a for a in accounts if admitted[a.id] >= a.quota]
    verdict.check(
        "no account over its quota",
        not over,
        "; ".join(over) if over else f"{len(limited)} account(s) reached their quota exactly",
    )


def recovery_time(
    samples: list[Sample], since: float, kinds: tuple[str, ...] = ("record",)
) -> float | None:
    """Seconds from ``since`` to the first successful (2xx/304) data read after it."""
    ok = [s.at for s in samples if s.at >= since and s.kind in kinds and s.status in (200, 304)]
    return min(ok) - since if ok else None


def timeline(samples: list[Sample], start: float, step: float = 1.0) -> str:
    """One line per ``step`` seconds: the statuses seen."""
    buckets: dict[int, Counter] = defaultdict(Counter)
    for s in samples:
        buckets[int((s.at - start) // step)][s.status or "conn-err"] += 1
    lines = []
    for b in sorted(buckets):
        c = buckets[b]
        lines.append(
            f"    t={b * step:5.1f}s " + " ".join(f"{k}:{v}" for k, v in sorted(c.items(), key=str))
        )
    return "\n".join(lines)


def history_by_account(env: dict[str, str], accounts: list[Account]) -> dict[int, int]:
    """Each account's total in the usage history (KeyUsageHour), read from the database."""
    ids = [a.id for a in accounts]
    script = (
        "import json\n"
        "from django.db.models import Sum\n"
        "from metering.models import KeyUsageHour\n"
        f"rows = KeyUsageHour.objects.filter(account_id__in={ids!r}).values('account_id')"
        ".annotate(n=Sum('count'))\n"
        "print(json.dumps({r['account_id']: r['n'] for r in rows}))\n"
    )
    data = json.loads(shell(env, script))
    return {int(k): v for k, v in data.items()}


def write_section(heading: str, body: str) -> None:
    """Replace (or append) ``## heading`` in bench/RESULTS.md; a ``### sub`` heading is
    replaced inside its ``##`` parent, which is created when missing."""
    path = ROOT / "bench" / "RESULTS.md"
    text = path.read_text() if path.exists() else "# Benchmark results\n"
    level = heading.split(" ", 1)[0]
    block = heading + "\n\n" + body.rstrip() + "\n"
    if level == "##":
        pattern = re.compile(rf"^{re.escape(heading)}\n.*?(?=^## |\Z)", re.S | re.M)
        text = (
            pattern.sub(lambda _: block + "\n", text)
            if pattern.search(text)
            else (text.rstrip() + "\n\n" + block)
        )
    else:
        parent = "## Faults"
        if parent not in text:
            text = text.rstrip() + "\n\n" + parent + "\n\n" + FAULTS_INTRO + "\n"
        pattern = re.compile(rf"^{re.escape(heading)}\n.*?(?=^### |^## |\Z)", re.S | re.M)
        if pattern.search(text):
            text = pattern.sub(lambda _: block + "\n", text)
        else:
            start = text.index(parent)
            nxt = re.search(r"^## ", text[start + len(parent) :], re.M)
            end = start + len(parent) + nxt.start() if nxt else len(text)
            text = text[:end].rstrip() + "\n\n" + block + "\n" + text[end:]
    path.write_text(text.rstrip() + "\n")


FAULTS_INTRO = (
    "Issue 7.6. Each script starts its own gunicorn (via `gunicorn.conf.py`) on "
    "127.0.0.1, drives the load of `bench/kits/loadkit.py` through it, breaks one part in the "
    "middle, and checks what the documented policy promises (docs/operations.md, "
    '"Load and faults"). Each rewrites its own subsection below.'
)


@contextlib.contextmanager
def cleanup(*stoppers: object) -> Iterator[None]:
    """Call each ``stop``/``destroy`` on exit, also on Ctrl-C or an error."""
    try:
        yield
    finally:
        for thing in stoppers:
            for name in ("stop", "destroy"):
                method = getattr(thing, name, None)
                if method is not None:
                    with contextlib.suppress(Exception):
                        method()
