"""The common run of the fault scripts (issue 7.6): load before, during and after one
part failing, key revocation and rotation during the fault, then the checks of the
documented policy (docs/operations.md "Load and faults", "Faults"). Each fault script
supplies the part (``Fault``) and its expectations; this module does the rest.

Timeline (seconds, defaults): load starts; at ``--before`` (5) the part goes down;
during the outage one key is revoked and one rotated with the operator commands
(``manage.py revoke_key`` / ``rotate_key``, each a fresh process); after ``--down`` (3),
or once both commands have finished if later, it comes back; the load goes on for
``--after`` (8) more; gunicorn is
stopped gracefully (workers write their last usage history) and the checks run.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from bench.kits import loadkit
from bench.kits.loadkit import Account, Client, Gunicorn, Sample, Verdict

FLUSH_SECONDS = 2.0  # METER_FLUSH_SECONDS of the server under test
LOSS_MARGIN = 1.0  # seconds: a flush's duration plus response latency, see _counts()
QUICK_DB_URL = "postgres://postgres@127.0.0.1:5432/fs_load_quick"


def ensure_database(url: str) -> None:
    """Create the database of ``url`` (on 127.0.0.1) when missing."""
    from urllib.parse import urlsplit

    import psycopg

    parts = urlsplit(url)
    assert parts.hostname in ("127.0.0.1", "localhost"), "local databases only"
    name = parts.path.lstrip("/")
    admin = (
        f"postgres://{parts.username or 'postgres'}@{parts.hostname}:{parts.port or 5432}/postgres"
    )
    with psycopg.connect(admin, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def server_env(*, database_url: str, redis_url: str) -> dict[str, str]:
    """The environment of the server under test (and of the operator commands)."""
    return loadkit.base_env(
        database_url=database_url,
        redis_url=redis_url,
        METER_FLUSH_SECONDS=str(FLUSH_SECONDS),
        METER_FAILURE_POLICY="closed",
        GUNICORN_MAX_REQUESTS="0",
    )


def on_shared_postgres(
    args: argparse.Namespace,
) -> tuple[loadkit.ThrowawayRedis, dict[str, str], Gunicorn]:
    """A started throwaway Redis, the environment, and a (not yet started) gunicorn on
    ``FAULT_DATABASE_URL`` (default ``fs_load_quick`` on the local cluster, with SR28)."""
    redis = loadkit.ThrowawayRedis()
    redis.start()
    database_url = os.environ.get("FAULT_DATABASE_URL", QUICK_DB_URL)
    ensure_database(database_url)
    env = server_env(database_url=database_url, redis_url=redis.url)
    loadkit.prepare_database(env, catalogue="sr28")
    server = Gunicorn(env, port=args.port, workers=args.workers, threads=args.threads)
    return redis, env, server


@dataclass
class Fault:
    """One part to break. ``down``/``up`` take the part away and bring it back.
    ``expects_503``: requests get the 503 problem while it is down.
    ``key_changes_during``: revoke and rotate a key while it is down.
    ``usage_may_trail``: the live count may trail the admitted requests by the history's
    loss bound (the meter's state was rebuilt from the history)."""

    name: str
    down: object
    up: object
    expects_503: bool = True
    key_changes_during: bool = True
    usage_may_trail: bool = False
    extra_checks: object = None  # called with the Verdict before the server stops
    notes: list[str] = field(default_factory=list)


def arguments(
    description: str, configure: Callable[[argparse.ArgumentParser], None] | None = None
) -> argparse.Namespace:
    """The common options; ``configure`` adds a script's own."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--before", type=float, default=5.0)
    parser.add_argument("--down", type=float, default=3.0)
    parser.add_argument("--after", type=float, default=8.0)
    parser.add_argument("--concurrency", type=int, default=12)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument(
        "--recover-within",
        type=float,
        default=5.0,
        help="seconds after the part returns by which reads must succeed",
    )
    parser.add_argument("--port", type=int, default=8163)
    parser.add_argument("--no-write", action="store_true")
    if configure is not None:
        configure(parser)
    return parser.parse_args()


def operator(env: dict[str, str], command: str, key_id: int) -> tuple[bool, dict | str]:
    """``manage.py revoke_key|rotate_key KEY_ID --json``: (succeeded, output)."""
    done = loadkit.manage(env, command, str(key_id), "--json", check=False)
    if done.returncode:
        return False, (done.stderr.strip().splitlines() or ["(no output)"])[-1]
    return True, json.loads(done.stdout)


@dataclass
class KeyChanges:
    """The victim account's keys: [0] revoked, [1] rotated, [2] left alone."""

    victim: Account
    log: list[str] = field(default_factory=list)
    revoked: bool = False
    rotated_secret: str | None = None

    def apply(self, env: dict[str, str], when: str) -> None:
        if not self.revoked:
            t = time.monotonic()
            ok, out = operator(env, "revoke_key", self.victim.key_ids[0])
            self.revoked = ok
            result = "ok " + json.dumps(out) if ok else "refused: " + str(out)
            self.log.append(f"revoke_key {when} ({time.monotonic() - t:.1f} s): {result}")
        if self.rotated_secret is None:
            t = time.monotonic()
            ok, out = operator(env, "rotate_key", self.victim.key_ids[1])
            if ok:
                self.rotated_secret = out["secret"]  # type: ignore[index]
            result = "ok" if ok else "refused: " + str(out)
            self.log.append(f"rotate_key {when} ({time.monotonic() - t:.1f} s): {result}")

    def verify(self, verdict: Verdict, port: int) -> None:
        old_revoked = loadkit.get(port, "/v1/usage", {"X-API-Key": self.victim.secrets[0]})[0]
        old_rotated = loadkit.get(port, "/v1/usage", {"X-API-Key": self.victim.secrets[1]})[0]
        new_rotated = (
            loadkit.get(port, "/v1/usage", {"X-API-Key": self.rotated_secret})[0]
            if self.rotated_secret
            else None
        )
        untouched = loadkit.get(port, "/v1/usage", {"X-API-Key": self.victim.secrets[2]})[0]
        for line in self.log:
            print(f"    {line}")
        verdict.check(
            "no lost revocation: the revoked key gets 401 afterwards",
            self.revoked and old_revoked == 401,
            f"revoked={self.revoked}, status {old_revoked}",
        )
        verdict.check(
            "no lost rotation: the old secret gets 401, the new one 200",
            self.rotated_secret is not None and old_rotated == 401 and new_rotated == 200,
            f"old {old_rotated}, new {new_rotated}",
        )
        verdict.check(
            "the account's other key still works", untouched == 200, f"status {untouched}"
        )


@dataclass
class Seen:
    """What the client saw through the fault, and when (monotonic seconds)."""

    samples: list[Sample]
    t0: float  # the load started
    t_down: float  # the part went down
    t_back: float  # the part was back


@dataclass
class Counts:
    """Per account id: the requests seen admitted, the answers that never arrived (the
    meter may have counted them), the live ``/v1/usage`` count, and the loss bound."""

    admitted: Counter[int]
    conn_errors: Counter[int]
    usage: dict[int, int | None]
    loss_bound: Counter[int]


def run(
    title: str,
    args: argparse.Namespace,
    *,
    env: dict[str, str],
    fault: Fault,
    server: Gunicorn,
    exact_history: bool,
    results_heading: str,
    started_at: float,
) -> int:
    """The common timeline and checks; returns the exit status."""
    plan = [*loadkit.standard_plan(1), ("head_chef", None, 3, "victim")]
    accounts, foods = loadkit.make_accounts(env, plan, foods=500)
    victim = accounts[-1]
    server.start()
    print(
        f"{title}: {len(accounts)} accounts, gunicorn {len(server.worker_pids())} workers "
        f"on 127.0.0.1:{server.port}; setup {time.monotonic() - started_at:.0f} s"
    )
    changes = KeyChanges(victim)
    load_accounts = [*accounts[:-1], _without_changed_keys(victim)]
    seen = _load_through(fault, args, env=env, port=server.port, changes=changes,
                         accounts=load_accounts, foods=foods)  # fmt: skip
    # Anything refused during the fault is done now, and must then hold.
    changes.apply(env, "after the fault")
    print("  what the client saw, per second:")
    print(loadkit.timeline(seen.samples, seen.t0))

    verdict = Verdict(title)
    changes.verify(verdict, server.port)
    _check_service(verdict, args, fault, seen)
    counts = _counts(seen, accounts, server.port, victim)
    _check_counts(verdict, fault, accounts, counts)
    if fault.extra_checks is not None:
        fault.extra_checks(verdict)  # type: ignore[operator]
    _note_given_back(fault, seen.samples)
    _check_history_while_serving(verdict, env, accounts, counts, exact_history)
    server.stop()  # graceful: every worker writes its last history
    _check_history_after(verdict, env, accounts, seen, counts, exact_history)
    for note in fault.notes:
        print(f"  note: {note}")
    print(verdict.summary())
    if not args.no_write:
        body = _results(args, seen, accounts, changes, fault, verdict)
        loadkit.write_section(results_heading, "\n".join(body))
    return 0 if verdict.passed else 1


def _load_through(
    fault: Fault,
    args: argparse.Namespace,
    *,
    env: dict[str, str],
    port: int,
    changes: KeyChanges,
    accounts: list[Account],
    foods: list[str],
) -> Seen:
    """The load before, during and after the fault (the timeline of the module
    docstring), with the key changes while the part is down."""
    client = Client(port, accounts, foods, args.concurrency, seed=3)
    total = args.before + args.down + args.after
    t0 = time.monotonic()
    client.start(total + 300)  # stopped explicitly below; the deadline is a safety net
    time.sleep(args.before)
    t_down = time.monotonic()
    print(f"  t={t_down - t0:.1f}s: {fault.name}: down")
    fault.down()  # type: ignore[operator]
    changer = threading.Thread(target=changes.apply, args=(env, "during the fault"), daemon=True)
    if fault.key_changes_during:
        changer.start()
    if fault.key_changes_during:  # the part stays down until the commands have run
        changer.join(timeout=60)
    time.sleep(max(0.0, args.down - (time.monotonic() - t_down)))
    t_up = time.monotonic()
    print(f"  t={t_up - t0:.1f}s: {fault.name}: up")
    fault.up()  # type: ignore[operator]
    t_back = time.monotonic()
    time.sleep(args.after)
    client.stop()
    client.join()
    return Seen(client.samples, t0, t_down, t_back)


def _check_service(verdict: Verdict, args: argparse.Namespace, fault: Fault, seen: Seen) -> None:
    """No 500; the 503 problem while the part is down (if expected); reads back within
    ``--recover-within`` of its return, and nothing but normal answers after that."""
    samples = seen.samples
    loadkit.no_500(verdict, samples)
    outage = [s for s in samples if seen.t_down <= s.at <= seen.t_back + 0.5]
    n503 = sum(1 for s in outage if s.status == 503)
    if fault.expects_503:
        verdict.check(
            "a 503 problem while the part is down",
            n503 > 0,
            f"{n503} x 503 of {len(outage)} answers during the outage",
        )
    back = loadkit.recovery_time(samples, seen.t_back)
    verdict.check(
        f"service back within {args.recover_within:.0f} s of the part returning",
        back is not None and back <= args.recover_within,
        f"first successful record read {back:.2f} s after" if back is not None else "never",
    )
    tail = [s for s in samples if s.at >= seen.t_back + args.recover_within]
    bad_tail = Counter(s.status for s in tail if s.status in (0, 503) or s.status >= 500)
    verdict.check(
        "nothing but normal answers once recovered",
        not bad_tail and bool(tail),
        f"{len(tail)} answers; bad: {dict(bad_tail)}" if bad_tail else f"{len(tail)} answers",
    )


def _counts(seen: Seen, accounts: list[Account], port: int, victim: Account) -> Counts:
    samples = seen.samples
    admitted = loadkit.admitted_by_account(samples)
    conn_errors = Counter(s.account for s in samples if s.status == 0)
    # Requests whose answer never arrived (a killed worker, a cut connection) may have
    # been counted by the meter: the live count may exceed what the client saw by that.
    usage = {
        a.id: loadkit.usage_count(port, a.secrets[2] if a is victim else a.secrets[0])
        for a in accounts
    }
    # A loss of the meter's data (a Redis restart or flush) loses what was admitted since
    # the account's last copy to the history: up to METER_FLUSH_SECONDS plus a copy's own
    # duration; LOSS_MARGIN also covers the time between admission and the client seeing
    # the answer (Sample.at), before the fault and after it (a request admitted just
    # before the loss whose answer arrives just after).
    t_down = seen.t_down
    loss_bound = _admitted_in(samples, t_down - FLUSH_SECONDS - LOSS_MARGIN, t_down + LOSS_MARGIN)
    return Counts(admitted, conn_errors, usage, loss_bound)


def _check_counts(verdict: Verdict, fault: Fault, accounts: list[Account], counts: Counts) -> None:
    """Each account's live count is what the client saw admitted (within the loss bound
    where the meter's data may be lost), and nobody is over quota."""
    admitted, usage = counts.admitted, counts.usage
    bad_usage = []
    for a in accounts:
        low = admitted[a.id] - (counts.loss_bound[a.id] if fault.usage_may_trail else 0)
        high = admitted[a.id] + counts.conn_errors[a.id]
        if usage[a.id] is None or not low <= usage[a.id] <= high:
            bad_usage.append(f"{a.id} ({a.label}): usage {usage[a.id]}, admitted {admitted[a.id]}")
    verdict.check(
        "every account's /v1/usage count equals the requests seen admitted"
        + (" (within the history's loss bound)" if fault.usage_may_trail else ""),
        not bad_usage,
        "; ".join(bad_usage[:4])
        or f"{sum(admitted.values())} admitted over {len(accounts)} accounts",
    )
    # A rebuilt count may hand out again what the history lost: at most the loss bound.
    slack = dict(counts.loss_bound) if fault.usage_may_trail else None
    loadkit.quota_respected(verdict, accounts, admitted, slack=slack)
    over_meter = [
        f"{a.id}: {usage[a.id]} > {a.quota}"
        for a in accounts
        if usage[a.id] is not None and usage[a.id] > a.quota
    ]
    verdict.check("no account's live count over its quota", not over_meter, "; ".join(over_meter))


def _note_given_back(fault: Fault, samples: list[Sample]) -> None:
    given_back = sum(1 for s in samples if s.status == 503 and s.metered)
    if given_back:
        fault.notes.append(
            f"{given_back} of the 503s carried RateLimit headers: the meter had admitted "
            "them before the database failed, and gave each unit back (a 5xx is not "
            "charged): the checks count them as not admitted, and /v1/usage agrees"
        )


def _check_history_while_serving(
    verdict: Verdict,
    env: dict[str, str],
    accounts: list[Account],
    counts: Counts,
    exact_history: bool,
) -> None:
    """While the server still runs: the workers' flusher threads must have written the
    history again once the part returned (a graceful stop would hide a stuck flusher)."""
    deadline = time.monotonic() + 3 * FLUSH_SECONDS + 2
    while True:
        live_history = loadkit.history_by_account(env, accounts)
        behind = {a.id: counts.admitted[a.id] - live_history.get(a.id, 0) for a in accounts}
        allowed = {a.id: 0 if exact_history else counts.loss_bound[a.id] for a in accounts}
        if all(behind[i] <= allowed[i] for i in behind) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    late = [f"{i}: {n} behind" for i, n in behind.items() if n > allowed[i]]
    verdict.check(
        "the history is written again after the fault, while the server runs",
        not late,
        "; ".join(late[:4]) or f"caught up within {3 * FLUSH_SECONDS + 2:.0f} s",
    )


def _check_history_after(
    verdict: Verdict,
    env: dict[str, str],
    accounts: list[Account],
    seen: Seen,
    counts: Counts,
    exact_history: bool,
) -> None:
    """Once the server has stopped: every account's usage history holds what it was
    seen admitted, less at most the documented loss bound."""
    admitted, loss_bound = counts.admitted, counts.loss_bound
    history = loadkit.history_by_account(env, accounts)
    bad_history, lost_total = [], 0
    for a in accounts:
        got = history.get(a.id, 0)
        allowed_loss = 0 if exact_history else loss_bound[a.id]
        lost_total += max(0, admitted[a.id] - got)
        if not admitted[a.id] - allowed_loss <= got <= admitted[a.id] + counts.conn_errors[a.id]:
            if os.environ.get("FAULT_DEBUG"):
                _debug(seen, a.id)
            bad_history.append(
                f"{a.id} ({a.label}): history {got}, admitted {admitted[a.id]}, "
                f"allowed loss {allowed_loss}"
            )
    needed = _loss_window(seen, accounts, admitted, history)
    bound_text = (
        "exact: nothing may be missing"
        if exact_history
        else f"at most the requests admitted in the {FLUSH_SECONDS:g} s (METER_FLUSH_SECONDS) + "
        f"{LOSS_MARGIN:g} s before the fault (+ {LOSS_MARGIN:g} s of answers in flight): "
        f"{sum(loss_bound.values())}; the loss needed "
        f"{needed:.2f} s"
    )
    verdict.check(
        f"usage history within the documented loss bound ({bound_text})",
        not bad_history,
        "; ".join(bad_history[:4]) or f"{lost_total} request(s) missing from the history",
    )


def _loss_window(
    seen: Seen, accounts: list[Account], admitted: Counter[int], history: dict[int, int]
) -> float:
    """The time before the fault (+ ``LOSS_MARGIN``) whose admitted requests explain what
    the history lost, for the account that needs the longest; printed."""
    needed = max(
        (
            _window_for_loss(
                seen.samples, a.id, seen.t_down + LOSS_MARGIN, admitted[a.id] - history.get(a.id, 0)
            )
            for a in accounts
        ),
        default=0.0,
    )
    print(
        f"  history loss explained by the requests answered in the last {needed:.2f} s "
        f"before the fault + {LOSS_MARGIN:g} s"
    )
    return needed


def _debug(seen: Seen, account: int) -> None:
    """``FAULT_DEBUG``: the account's answers around the fault."""
    mine = sorted(
        (s.at - seen.t_down, s.status, s.kind) for s in seen.samples if s.account == account
    )
    print("DEBUG", account, [(round(t, 2), st, k) for t, st, k in mine if -4 < t < 6])


def _results(
    args: argparse.Namespace,
    seen: Seen,
    accounts: list[Account],
    changes: KeyChanges,
    fault: Fault,
    verdict: Verdict,
) -> list[str]:
    """The lines of the script's RESULTS.md subsection."""
    command = " ".join(["bench/scripts/" + os.path.basename(sys.argv[0]), *sys.argv[1:]])
    return [
        f"Run {loadkit.machine()}; `{command}`: "
        f"gunicorn via `gunicorn.conf.py`, {args.workers} workers x {args.threads} threads, "
        f"`METER_FLUSH_SECONDS={FLUSH_SECONDS:g}`, `METER_FAILURE_POLICY=closed`, "
        f"{args.concurrency} clients; {len(accounts)} accounts on every tier. Fault at "
        f"t={seen.t_down - seen.t0:.1f} s, part back {seen.t_back - seen.t_down:.1f} s later "
        "(it is held down until the revoke/rotate commands have finished); the whole run "
        f"{time.monotonic() - seen.t0:.0f} s. Statuses: {loadkit.status_summary(seen.samples)}.",
        "",
        *[f"- {line}" for line in changes.log],
        *[f"- note: {n}" for n in fault.notes],
        "",
        *verdict.markdown(),
        "",
        f"**{verdict.summary()}**",
    ]


def _without_changed_keys(victim: Account) -> Account:
    """The victim as the load sees it: only the key nobody changes."""
    return Account(
        victim.id, victim.tier, victim.quota, [victim.secrets[2]], [victim.key_ids[2]], victim.label
    )


def _window_for_loss(samples: list[Sample], account: int, before: float, lost: int) -> float:
    """The shortest time before ``before`` in which ``account`` had ``lost`` requests
    admitted (0 when nothing was lost)."""
    if lost <= 0:
        return 0.0
    times = sorted(
        (s.at for s in samples if s.admitted and s.account == account and s.at <= before),
        reverse=True,
    )
    return before - times[lost - 1] if len(times) >= lost else float("inf")


def _admitted_in(samples: list[Sample], start: float, end: float) -> Counter[int]:
    return Counter(s.account for s in samples if s.admitted and start <= s.at <= end)
