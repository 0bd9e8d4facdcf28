"""keys/secrets.py: the key format, checksum and hashing. Pure: no database."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from keys import secrets

PEPPER = "test-pepper"


def test_generated_secret_has_the_documented_shape():
    secret = secrets.generate()
    assert re.fullmatch(r"svc_sk_live_[0-9A-Za-z]{49}", secret)
    assert len(secret) == secrets.SECRET_LENGTH == 61
    assert secrets.is_well_formed(secret)


def test_generated_secrets_are_distinct():
    assert len({secrets.generate() for _ in range(1000)}) == 1000


def test_random_part_carries_at_least_256_bits():
    assert len(secrets.ALPHABET) ** secrets.RANDOM_LENGTH >= 2**256


@pytest.mark.parametrize("position", [12, 30, 54, 60])
def test_a_single_mistyped_character_is_refused(position):
    secret = secrets.generate()
    swapped = "b" if secret[position] != "b" else "c"
    assert not secrets.is_well_formed(secret[:position] + swapped + secret[position + 1 :])


@pytest.mark.parametrize(
    "candidate",
    [
        "",
        "svc_sk_live_",
        "svc_sk_test_" + "a" * 49,
        "SVC_SK_LIVE_" + "a" * 49,
        "svc_sk_live_" + "-" * 49,
    ],
)
def test_malformed_candidates_are_refused(candidate):
    assert not secrets.is_well_formed(candidate)


def test_truncated_and_extended_secrets_are_refused():
    secret = secrets.generate()
    assert not secrets.is_well_formed(secret[:-1])
    assert not secrets.is_well_formed(secret + "0")


@given(st.text(max_size=80))
def test_arbitrary_text_is_never_well_formed_by_accident(text):
    assert not secrets.is_well_formed(text) or text.startswith("svc_sk_live_")


def test_checksum_is_crc32_in_six_base62_digits():
    assert secrets.checksum("") == "000000"  # crc32("") == 0
    assert len(secrets.checksum("x" * 43)) == 6


def test_digest_is_keyed_and_matches_in_constant_time():
    secret = secrets.generate()
    stored = secrets.digest(secret, pepper=PEPPER)
    assert len(stored) == 64 and secret not in stored
    assert secrets.digest(secret, pepper="another pepper") != stored
    assert secrets.matches(secret, stored, pepper=PEPPER)
    assert not secrets.matches(secrets.generate(), stored, pepper=PEPPER)


def test_hint_is_the_last_four_characters():
    secret = secrets.generate()
    assert secrets.hint(secret) == secret[-4:]
