"""Issue 18.3: the service through a real PgBouncer in transaction pooling mode.

A pgbouncer of the test's own (pool_mode = transaction, 4 server connections) in front
of the PostgreSQL of this run; a second pytest runs ``SUBSET`` through it with
``DATABASE_PGBOUNCER=1``, so every request path runs through PgBouncer: every API
endpoint, the dashboard's pages and forms, health, and real gunicorn workers. Its test
database (``test_<name>_pgbouncer``) is a copy of this run's test database, used with
``--reuse-db`` and dropped here afterwards, directly (PgBouncer holds server connections
to it, which a DROP from the run would trip on).

Why these tests (issue 41.4): ``SUBSET`` ran thirteen whole modules, 250 tests, most of
them asserting rules (ranking, headers, forms) that the connection does not change, at
~20 CPU-seconds. What PgBouncer's transaction pooling can break is a statement or a
transaction shape (session state, a server-side cursor, a prepared statement, a
temporary table, ``COPY``, ``set_config``), so the tests kept are a cover, picked
greedily by CPU, of every distinct SQL statement (literals and parameter lists
normalised, migrations left out) and of every view and method those 250 tests ran,
measured with an ``execute_wrapper`` on every connection: among them the phrase index's
raw SQL and the relaxed search (test_search), ``statement_timeout`` by ``set_config`` in
a transaction, the outermost budget's ``BEGIN`` and ``SET LOCAL`` in one message, and a
statement stopped past each (test_cost_bound), the ``COPY`` through a
temporary table of a load-sized store and a whole load (test_records_and_caching), each
``/v1`` endpoint and method they reach, each dashboard page and form (sign-up, sign-in,
sign-out, the keys' create, rotate, revoke and rename, usage and its CSV, plan change),
health and metrics, plus one test of a real gunicorn (two workers) and one of key
authentication, and the connection health check on an idle connection and in a
transaction (test_connection_health). A test added to those modules with a new kind of
statement belongs here too.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import psycopg
import pytest
from django.conf import settings
from django.db import connection

from tests.support.scale_out import ThrowawayPgBouncer
from tests.support.servers import ROOT


def _tests(module: str, *names: str) -> list[str]:
    return [f"tests/{module}::{name}" for name in names]


SUBSET = [
    *_tests(
        "catalogue/delivery/test_records_and_caching.py",
        "test_food_record_has_portions_and_every_measured_nutrient",
        "test_changes_to_foods_nutrients_and_categories_are_served_on_the_next_read",
        "test_served_bytes_and_tags_are_what_the_serializers_render",
        "test_a_rendering_of_an_older_catalogue_version_is_never_served",
        "test_a_load_renders_every_food",
        "test_nutrient_and_category_records",
        "test_unknown_resource_or_id_is_a_404_problem[/v1/foods/sr28-01001/extra]",
        "test_etag_is_stable_and_changes_with_the_representation",
        "test_a_worker_serves_hot_reads_from_memory_until_the_catalogue_version_changes",
        "test_a_load_sized_store_keeps_a_newer_rendering_and_replaces_older_ones",
    ),
    *_tests(
        "catalogue/search/test_search.py",
        "test_filter_by_data_type",
        "test_filter_by_category",
        "test_filter_by_brand_is_a_case_insensitive_prefix",
        "test_filter_by_nutrient_range_per_100g",
        "test_range_excludes_foods_where_the_nutrient_was_not_measured",
        "test_sort_by_name_both_ways",
        "test_sort_by_nutrient_descending_puts_unmeasured_last",
        "test_relevance_is_the_default_sort_with_q_and_name_without",
        "test_search_metacharacters_are_searched_as_text[butter'); DROP TABLE catalogue_food; --]",
        r"test_search_metacharacters_are_searched_as_text[\u9ec4\u6cb9]",
    ),
    *_tests(
        "catalogue/search/test_cost_bound.py",
        "test_suggestions_are_kept_once_however_q_is_spaced",
        "test_a_widened_query_left_with_a_broad_prefix_is_searched_completed",
        "test_an_analysis_past_its_deadline_is_a_503_and_is_not_counted",
        "test_a_statement_running_past_the_budget_is_stopped_and_the_connection_reusable",
        # issue 41.1: the outermost budget's BEGIN and SET LOCALs in one simple query
        "test_an_outermost_budget_stopped_by_its_timeout_leaves_the_connection_clean",
    ),
    *_tests("accounts/test_market_api.py", "test_put_selects_the_market"),
    *_tests(
        "metering/test_api.py",
        "test_quota_t_on_a_billing_period_is_the_renewal",
        "test_usage_answers_over_quota_and_agrees_with_the_last_headers",
        "test_only_reads_are_metered",
        "test_a_body_of_the_wrong_media_type_is_a_415_that_is_not_metered[text/plain]",
    ),
    *_tests("keys/test_authentication.py", "test_x_api_key_and_bearer_give_identical_answers"),
    # real gunicorn workers through PgBouncer: one server is enough to prove the path
    *_tests("keys/test_other_processes.py", "test_changes_made_elsewhere_are_seen_by_every_worker"),
    *_tests(
        "dashboard/test_signup.py",
        "test_sign_up_creates_a_taster_account_and_asks_to_check_the_inbox",
        "test_weak_or_mismatched_passwords_are_refused[cook@example.com1-None-too similar]",
        "test_a_taken_address_gets_the_same_answer_and_its_owner_an_e_mail",
        "test_signed_in_person_visiting_sign_up_goes_to_the_dashboard",
    ),
    *_tests(
        "dashboard/test_signin.py",
        "test_right_password_signs_in_and_lands_on_the_dashboard",
        "test_unverified_people_can_sign_in",
        "test_anonymous_people_are_sent_to_sign_in",
        "test_sign_out_is_a_post_and_ends_the_session",
        "test_the_sign_in_page_works_without_a_session",
    ),
    *_tests(
        "dashboard/test_keys_views.py",
        "test_create_shows_the_secret_once_in_the_post_response",
        "test_reloading_the_create_response_creates_nothing_and_shows_no_secret",
        "test_unverified_person_cannot_create_a_key_and_is_told_why",
        "test_rotate_asks_first_then_shows_a_new_secret_once",
        "test_revoke_asks_first_then_the_key_stops_working",
        "test_rename_changes_only_the_label",
        "test_another_accounts_key_is_not_found_in_every_url[get-/keys/{id}/rename/]",
        "test_forms_refuse_a_post_without_the_csrf_token",
    ),
    *_tests(
        "dashboard/test_usage.py",
        "test_key_history_survives_rotation",
        "test_usage_csv_by_hour",
        "test_key_csv_has_only_that_key",
        "test_taster_frees_up_text_follows_the_meterings_rolling_schedule",
        "test_charts_stack_admitted_refused_and_failed_requests",
    ),
    *_tests(
        "dashboard/test_plan.py",
        "test_downgrade_to_taster_is_allowed_and_explained",
        "test_a_forced_tier_in_the_url_gets_a_clear_message_not_a_form_error[?tier=]",
    ),
    *_tests(
        "ops/test_health.py",
        "test_readyz_answers_503_naming_an_unapplied_migration",
        "test_readyz_methods_other_than_get_and_head_are_refused",
        "test_timed_answer_is_kept_for_its_ttl_then_recomputed",
        "test_probes_and_scrapes_are_not_redirected_to_https",
    ),
    # The health check (issue 41.1): no statement on an idle connection to PgBouncer,
    # SELECT 1 inside a transaction, as on a direct connection.
    *_tests(
        "ops/test_connection_health.py",
        "test_an_idle_healthy_connection_is_usable_with_nothing_sent",
        "test_a_connection_inside_a_transaction_is_checked_with_a_statement",
    ),
]


def _direct(dbname: str) -> psycopg.Connection:
    db = connection.settings_dict
    return psycopg.connect(
        host=db["HOST"] or "127.0.0.1",
        port=db["PORT"] or 5432,
        user=db["USER"],
        password=db["PASSWORD"] or None,
        dbname=dbname,
        autocommit=True,
    )


@pytest.fixture
def pgbouncer() -> Iterator[ThrowawayPgBouncer]:
    db = connection.settings_dict
    bouncer = ThrowawayPgBouncer((db["HOST"] or "127.0.0.1", int(db["PORT"] or 5432)))
    bouncer.start()
    yield bouncer
    bouncer.stop()


def test_the_request_paths_pass_through_pgbouncer_in_transaction_mode(
    pgbouncer, django_db_setup, django_db_blocker
):
    db = connection.settings_dict
    name = f"{settings.DATABASES['default']['NAME'].removeprefix('test_')}_pgbouncer"
    test_db = f"test_{name}_{os.environ['FOODSERVICE_TEST_RUN']}"  # as tests/conftest.py names it
    # A copy of this run's migrated (and empty) test database, so the second run only
    # checks its migrations instead of applying them all again.
    with django_db_blocker.unblock():
        connection.close()
    with _direct("postgres") as direct:
        direct.execute(f'DROP DATABASE IF EXISTS "{test_db}" WITH (FORCE)')
        direct.execute(f'CREATE DATABASE "{test_db}" TEMPLATE "{db["NAME"]}"')
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env.update(
        DATABASE_URL=f"postgres://{auth}@127.0.0.1:{pgbouncer.port}/{name}",
        DATABASE_PGBOUNCER="1",
    )
    try:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                *SUBSET,
                "-q",
                "-x",
                "--reuse-db",
                # Plugins the subset does not use: each costs the start-up imports.
                *("-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:hypothesispytest"),
                *("-p", "no:anyio", "-p", "no:faker", "-p", "no:randomly"),
            ],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
    finally:
        log = pgbouncer.log()
        pgbouncer.stop()
        with _direct("postgres") as direct:
            direct.execute(f'DROP DATABASE IF EXISTS "{test_db}" WITH (FORCE)')
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert f"{len(SUBSET)} passed" in done.stdout.splitlines()[-1]  # every one found and run
    assert f"db={test_db}" in log  # the run's connections went through PgBouncer
