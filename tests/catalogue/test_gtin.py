"""catalogue/gtin.py: GTIN normalisation and GS1 check digits (issue 42, point 2). Pure:
tables of codes, no database. The valid codes are real published ones: Nutella 13 oz
(UPC-A 009800895007), Heinz ketchup (013000006408), Smart & Final's coleslaw
(041512162664, FDC 1030925), an EAN-13 (5000159407236) and the GS1 GTIN-8 example
(96385074)."""

from __future__ import annotations

import pytest

from catalogue import gtin


@pytest.mark.parametrize(
    ("code", "gtin14"),
    [
        ("96385074", "00000096385074"),  # GTIN-8
        ("009800895007", "00009800895007"),  # GTIN-12 (UPC-A)
        ("0009800895007", "00009800895007"),  # the same as EAN-13
        ("00009800895007", "00009800895007"),  # ... and as GTIN-14
        ("013000006408", "00013000006408"),
        ("041512162664", "00041512162664"),
        ("5000159407236", "05000159407236"),  # GTIN-13 (EAN-13)
        ("10012345678902", "10012345678902"),  # GTIN-14 with a packaging indicator
        ("  009800895007 ", "00009800895007"),  # spaces around are ignored
    ],
)
def test_valid_gtins_normalise_to_their_gtin14(code, gtin14):
    assert gtin.normalise(code) == gtin14


def test_a_upc_a_and_its_ean13_are_one_product():
    assert gtin.normalise("013000006408") == gtin.normalise("0013000006408")


@pytest.mark.parametrize(
    ("code", "expected"),
    [("009800895008", 7), ("013000006400", 8), ("96385070", 4), ("5000159407230", 6)],
)
def test_a_wrong_check_digit_names_the_expected_one(code, expected):
    with pytest.raises(gtin.BadGtin) as raised:
        gtin.normalise(code)
    assert raised.value.expected_check == expected
    assert f"call for {expected}" in str(raised.value)


@pytest.mark.parametrize("code", ["1", "1234567", "123456789", "12345678901", "123456789012345"])
def test_lengths_other_than_8_12_13_14_are_refused(code):
    with pytest.raises(gtin.BadGtin, match="8, 12, 13 or 14 digits") as raised:
        gtin.normalise(code)
    assert raised.value.expected_check is None


@pytest.mark.parametrize(
    "code",
    [
        "0098008950O7",
        "009800-895007",
        "0098 00895007",
        "\uff11\uff12\uff13\uff14\uff15\uff16\uff17\uff18",
        "-9800895007",
        "",
    ],
)
def test_anything_but_digits_is_refused(code):
    with pytest.raises(gtin.BadGtin, match="digits only"):
        gtin.normalise(code)


@pytest.mark.parametrize(
    ("raw", "stored"),
    [
        ("009800895007", "00009800895007"),
        ("9800895007", "00009800895007"),  # the release drops leading zeros at times
        ("009800895008", ""),  # a wrong check digit: no barcode rather than a wrong one
        ("1234567", ""),
        ("", ""),
        ("N/A", ""),
    ],
)
def test_a_data_files_code_is_stored_as_gtin14_or_not_at_all(raw, stored):
    assert gtin.stored(raw) == stored


def test_check_digit_is_gs1_mod_10():
    assert gtin.check_digit("00980089500") == 7
    assert gtin.check_digit("9638507") == 4
