"""Settings of the server the live contract tests fuzz: the project's, with a roomy
Taster bucket and quota, so the fuzzer explores the Taster rules (search first, result
depth, market) instead of meeting mostly 429s. The 429s are fuzzed separately, with an
account whose negotiated limits are tiny (test_live_contract.py)."""

from foodservice.settings import *  # noqa: F403
from foodservice.settings import FOODSERVICE_TIERS as _TIERS

FOODSERVICE_TIERS = {
    **_TIERS,
    "taster": {**_TIERS["taster"], "quota": 1_000_000, "rate": 1000.0, "burst": 1000},
}
