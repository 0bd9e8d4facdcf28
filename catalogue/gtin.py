"""GTIN (barcode) normalisation as GS1 defines it (GS1 General Specifications, 3.3.2
and 7.9.1): pure, no database.

A GTIN-8, -12 (UPC-A), -13 (EAN-13) or -14 is the same number written in more or fewer
digits: left-padded with zeros to 14 digits it is the GTIN-14 every length maps to, so
UPC-A ``012345678905`` and EAN-13 ``0012345678905`` are one product. The last digit is
a check digit (mod 10, weights 3 and 1 alternating from the right).
"""

from __future__ import annotations

from dataclasses import dataclass

LENGTHS = (8, 12, 13, 14)


@dataclass(frozen=True, slots=True)
class BadGtin(ValueError):
    """Why a code is not a GTIN; ``expected_check`` is the check digit its other digits
    call for when only the check digit is wrong (None otherwise)."""

    reason: str
    expected_check: int | None = None

    def __str__(self) -> str:
        return self.reason


def check_digit(body: str) -> int:
    """The GS1 mod-10 check digit of ``body`` (the digits before it)."""
    total = sum(int(d) * (3 if i % 2 == 0 else 1) for i, d in enumerate(reversed(body)))
    return (10 - total % 10) % 10


def normalise(code: str) -> str:
    """``code`` (spaces around it ignored) as its GTIN-14, or ``BadGtin``: a code that is
    not 8, 12, 13 or 14 ASCII digits, or whose last digit is not its check digit."""
    digits = code.strip()
    if not digits.isascii() or not digits.isdigit():
        raise BadGtin("A GTIN holds digits only.")
    if len(digits) not in LENGTHS:
        raise BadGtin(f"A GTIN has 8, 12, 13 or 14 digits, not {len(digits)}.")
    expected = check_digit(digits[:-1])
    if int(digits[-1]) != expected:
        raise BadGtin(
            f"The check digit of {digits} is {digits[-1]}; its other digits call for {expected}.",
            expected_check=expected,
        )
    return digits.zfill(14)


def stored(code: str) -> str:
    """A data file's ``gtin_upc`` as stored: its GTIN-14, or "" when it is not a valid
    GTIN. Leading zeros are insignificant (GS1), and the release writes some codes
    without them ("9800895007" for UPC-A 009800895007), so any 8 to 14 digits whose
    check digit holds are taken, zero-padded; other codes (bad check digits, fewer
    digits) load without a barcode rather than under a wrong one."""
    digits = code.strip()
    if not (digits.isascii() and digits.isdigit() and 8 <= len(digits) <= 14):
        return ""
    try:
        return normalise(digits.zfill(14))
    except BadGtin:
        return ""
