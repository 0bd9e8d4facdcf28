"""Settings of the server the live contract tests fuzz: every test server's
(tests/support/server_settings.py), with a roomy Taster bucket and quota, so the fuzzer
explores the Taster rules (search first, result depth, market) instead of meeting
mostly 429s. The 429s are fuzzed separately, with an
account whose negotiated limits are tiny (test_live_contract.py)."""

from foodservice.settings import FOODSERVICE_TIERS as _TIERS
from tests.support.server_settings import *  # noqa: F403

FOODSERVICE_TIERS = {
    **_TIERS,
    "taster": {**_TIERS["taster"], "quota": 1_000_000, "rate": 1000.0, "burst": 1000},
}
