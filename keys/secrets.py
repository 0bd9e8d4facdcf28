"""API key secrets: generate, parse, hash, compare. Pure: no database, no settings.

Format (documented in docs/api-guide.md)::

    svc_sk_live_<43 base62 characters: 256 bits of randomness><6 base62: CRC32 checksum>

The checksum is the CRC32 of the random part, base62-encoded and zero-padded, as in
GitHub's tokens: a mistyped or truncated key is refused without touching the
database, and secret scanners can tell a real key from a random string.
Secrets are stored only as HMAC-SHA256(pepper, secret): a fast keyed hash is right for
256-bit random secrets (there is nothing to brute-force); argon2 is for passwords.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import string
import zlib

PREFIX = "svc_sk_live_"
ALPHABET = string.digits + string.ascii_uppercase + string.ascii_lowercase  # base62
RANDOM_LENGTH = 43  # 62**43 > 2**256
CHECKSUM_LENGTH = 6  # 62**6 > 2**32
SECRET_LENGTH = len(PREFIX) + RANDOM_LENGTH + CHECKSUM_LENGTH
_SHAPE = re.compile(rf"{PREFIX}[0-9A-Za-z]{{{RANDOM_LENGTH + CHECKSUM_LENGTH}}}", re.ASCII)


def generate() -> str:
    """A fresh secret. Returned once to the caller; never stored or logged."""
    body = "".join(secrets.choice(ALPHABET) for _ in range(RANDOM_LENGTH))
    return f"{PREFIX}{body}{checksum(body)}"


def checksum(body: str) -> str:
    """CRC32 of ``body`` in base62, left-padded to ``CHECKSUM_LENGTH``."""
    value = zlib.crc32(body.encode("ascii"))
    digits = []
    for _ in range(CHECKSUM_LENGTH):
        value, rem = divmod(value, 62)
        digits.append(ALPHABET[rem])
    return "".join(reversed(digits))


def is_well_formed(candidate: str) -> bool:
    """True when ``candidate`` has the key's shape and a valid checksum.

    Cheap and database-free: the authentication class calls it before any look-up.
    """
    if len(candidate) != SECRET_LENGTH or not _SHAPE.fullmatch(candidate):
        return False
    body = candidate[len(PREFIX) : len(PREFIX) + RANDOM_LENGTH]
    return hmac.compare_digest(checksum(body), candidate[-CHECKSUM_LENGTH:])


def digest(secret: str, *, pepper: str) -> str:
    """HMAC-SHA256 of ``secret`` keyed with ``pepper``, as 64 hex characters."""
    return hmac.new(pepper.encode(), secret.encode(), hashlib.sha256).hexdigest()


def matches(secret: str, stored_digest: str, *, pepper: str) -> bool:
    """Constant-time check of ``secret`` against a stored digest."""
    return hmac.compare_digest(digest(secret, pepper=pepper), stored_digest)


def hint(secret: str) -> str:
    """The last four characters, shown in the dashboard to tell keys apart."""
    return secret[-4:]
