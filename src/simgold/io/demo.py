"""Generator of the demo data shipped in ``raw/demo`` (simulated annotators, not real people).

    simgold demo raw/demo

Part of the installed package (``simgold demo`` works from a wheel), standard library only; the
pipeline never runs it.

Six sheets in five languages, each in a format that real datasets use, with planted cases the
pipeline must find. The word pairs are real words; every rating is simulated from a latent
similarity chosen by hand, per-rater noise and the planted behaviours below. The output is
byte-for-byte reproducible (Python's ``random`` stream with a fixed seed; zip containers written
with fixed timestamps), which ``tests/io/test_demo.py`` checks against the committed files.

Planted cases (see ``raw/README.md``):

* ``da/sporgeskema.xlsx`` (Danish, wide XLSX, 0-6): the Danish questionnaire design (groups of
  7, the last pair of a group repeated as the first of the next: 5 repeated calibration rows);
  raters ``Deltager 05`` and ``Deltager 11`` rate with a +1.5 bias; ``Deltager 08`` and
  ``Deltager 14`` answer at random (an ordinary spread of values, shuffled over the items); a few
  empty cells.
* ``hr/ocjene.tsv`` (Croatian, wide TSV, 0-6): translations of 30 Danish pairs, with the Danish
  source pair in two columns; ``nan`` strings for missing answers, three out-of-range values
  (7, -1 and 60), one pair listed twice and one pair listed in both orders.
* ``de/bewertungen.csv`` (German, long CSV in cp1252, semicolons, decimal commas, CRLF, 0-10
  in half points): rater ``T07`` stopped after 8 of 24 pairs; a few blank answers.
* ``en/contexts.ods`` (English, two-context ODS sheet, CoSimLex design, 0-10, different raters
  per context): 8 pairs with a strong context effect, 6 null pairs.
* ``en/bws.csv`` (English, Best-Worst Scaling, Kiritchenko & Mohammad's CSV with a tuple id and an
  annotator): 24 pairs (``car:automobile``) in 48 4-tuples (8 random shuffles cut into tuples),
  each tuple answered by 3 of 8 annotators; ``a07`` clicks at random; four bad answers planted
  (best equals worst, a best not in its tuple, a blank worst, an answer given twice).
* ``he/rankings.csv`` (Hebrew, target-group ranking sheet, Avraham & Goldberg design, UTF-8 with
  BOM and CRLF as Excel writes it): 8 targets x (4 positives, 1 distractor, 1 random) ranked by
  12 raters; ``rater_07`` gives one target an invalid ranking (rank 2 twice).
"""

from __future__ import annotations

import io
import math
import random
import zipfile
from pathlib import Path
from xml.sax.saxutils import escape

__all__ = ["fixed_time_zip", "generate", "ods_bytes", "xlsx_bytes"]

SEED = 20261121
FIXED_TIME = (2026, 1, 1, 0, 0, 0)

# --------------------------------------------------------------------------------------------
# word pairs with a hand-chosen latent similarity on the dataset's scale

DANISH = [  # (word1, word2, latent 0-6); adjectives, verbs, nouns as in the Danish questionnaire
    ("stor", "enorm", 4.8),
    ("glad", "lykkelig", 4.7),
    ("kold", "varm", 0.7),
    ("hurtig", "langsom", 0.5),
    ("smuk", "køn", 4.5),
    ("gammel", "ny", 0.6),
    ("klog", "intelligent", 4.9),
    ("træt", "søvnig", 4.2),
    ("rig", "fattig", 0.4),
    ("svær", "vanskelig", 5.0),
    ("løbe", "gå", 3.2),
    ("spise", "drikke", 2.2),
    ("tale", "snakke", 4.9),
    ("købe", "sælge", 1.5),
    ("sove", "hvile", 3.8),
    ("se", "kigge", 4.3),
    ("bygge", "konstruere", 4.5),
    ("tænke", "mene", 3.4),
    ("finde", "miste", 0.8),
    ("begynde", "starte", 5.0),
    ("hund", "kat", 2.5),
    ("bil", "vogn", 4.0),
    ("hus", "bolig", 4.5),
    ("by", "landsby", 2.9),
    ("læge", "doktor", 5.0),
    ("bog", "avis", 2.3),
    ("skov", "træ", 2.6),
    ("hav", "sø", 2.7),
    ("mad", "måltid", 4.0),
    ("vej", "gade", 3.9),
    ("stol", "bord", 1.7),
    ("sol", "måne", 2.0),
    ("barn", "voksen", 1.2),
    ("penge", "kontanter", 4.6),
    ("krig", "fred", 0.5),
    ("ven", "fjende", 0.7),
    ("kaffe", "te", 2.6),
]  # 37 pairs: 6 groups of 7 questions, 5 of them repeated

# Croatian translations of 30 of the Danish pairs: (word1, word2, index into DANISH); the sheet
# keeps the Danish source pair beside each translation, and the latent similarity is the Danish one.
CROATIAN = [
    ("velik", "golem", 0),
    ("sretan", "veseo", 1),
    ("hladan", "topao", 2),
    ("brz", "spor", 3),
    ("lijep", "zgodan", 4),
    ("star", "nov", 5),
    ("pametan", "inteligentan", 6),
    ("umoran", "pospan", 7),
    ("bogat", "siromašan", 8),
    ("trčati", "hodati", 10),
    ("jesti", "piti", 11),
    ("govoriti", "pričati", 12),
    ("kupiti", "prodati", 13),
    ("spavati", "odmarati", 14),
    ("graditi", "konstruirati", 16),
    ("naći", "izgubiti", 18),
    ("početi", "započeti", 19),
    ("pas", "mačka", 20),
    ("auto", "kola", 21),
    ("kuća", "dom", 22),
    ("grad", "selo", 23),
    ("liječnik", "doktor", 24),
    ("knjiga", "novine", 25),
    ("šuma", "drvo", 26),
    ("more", "jezero", 27),
    ("hrana", "obrok", 28),
    ("cesta", "ulica", 29),
    ("sunce", "mjesec", 31),
    ("rat", "mir", 34),
    ("prijatelj", "neprijatelj", 35),
]

GERMAN = [  # latent on 0-10
    ("Straße", "Weg", 6.5),
    ("Mädchen", "Junge", 2.5),
    ("Hund", "Katze", 3.0),
    ("groß", "riesig", 8.5),
    ("schön", "hübsch", 8.5),
    ("Brot", "Brötchen", 6.5),
    ("Arzt", "Doktor", 9.5),
    ("Bär", "Löwe", 3.5),
    ("Tür", "Tor", 6.0),
    ("Schüler", "Student", 6.5),
    ("Käse", "Milch", 3.0),
    ("fröhlich", "glücklich", 8.0),
    ("süß", "sauer", 1.0),
    ("kaufen", "verkaufen", 2.0),
    ("laufen", "rennen", 8.0),
    ("Frühling", "Sommer", 4.0),
    ("Auto", "Fahrzeug", 8.0),
    ("Haus", "Gebäude", 7.5),
    ("Fluss", "Bach", 7.0),
    ("Geld", "Münze", 5.5),
    ("Krieg", "Frieden", 0.5),
    ("Freund", "Feind", 1.0),
    ("Stadt", "Dorf", 4.0),
    ("Buch", "Heft", 5.0),
]

ENGLISH_CONTEXTS = [  # (word1, word2, context 1, latent 1, context 2, latent 2) on 0-10
    (
        "bank",
        "shore",
        "They fished from the muddy bank, and the shore birds watched them all afternoon.",
        8.0,
        "The bank approved her loan for a small flat near the shore.",
        1.5,
    ),
    (
        "bat",
        "club",
        "He swung the heavy wooden bat like a club.",
        7.5,
        "A bat flew out of the cave as the club members left for home.",
        1.0,
    ),
    (
        "plant",
        "factory",
        "The car plant is the largest factory in the region.",
        8.5,
        "She watered the plant on the windowsill of her office at the factory.",
        1.5,
    ),
    (
        "spring",
        "season",
        "Spring is the season when the gardens wake up.",
        8.0,
        "A spring in the old mattress broke at the end of the season.",
        1.0,
    ),
    (
        "crane",
        "bird",
        "A crane is a tall wading bird with long legs and a long neck.",
        8.0,
        "The crane lifted the steel beams while a bird sat on its cable.",
        1.0,
    ),
    (
        "star",
        "celebrity",
        "The film star was the biggest celebrity at the festival.",
        8.5,
        "Far from the city every star was visible, and no celebrity could compete with the sky.",
        1.5,
    ),
    (
        "mouse",
        "rat",
        "A mouse and a rat were living in the barn behind the house.",
        7.0,
        "He clicked the mouse twice, but the program about the rat population would not open.",
        1.5,
    ),
    (
        "court",
        "tribunal",
        "The court heard the case, and the tribunal delivered its verdict in the morning.",
        8.0,
        "They played tennis on the court while the tribunal was on holiday.",
        2.0,
    ),
    (
        "car",
        "automobile",
        "He parked his car next to an old automobile at the museum.",
        9.0,
        "The automobile industry sold a new car every minute last year.",
        9.0,
    ),
    (
        "cat",
        "dog",
        "The cat slept on the sofa while the dog guarded the door.",
        5.0,
        "Her cat and her neighbour's dog became friends over the summer.",
        5.0,
    ),
    (
        "coffee",
        "tea",
        "In the morning he drinks coffee, and in the evening tea.",
        6.0,
        "The shop sells coffee and tea from small farms.",
        6.0,
    ),
    (
        "happy",
        "glad",
        "She was happy with the result and glad that it was over.",
        8.5,
        "I am glad you came; the children were happy to see you.",
        8.5,
    ),
    (
        "king",
        "queen",
        "The king and the queen opened the new bridge.",
        6.0,
        "In the story the queen outlived the king by thirty years.",
        6.0,
    ),
    (
        "teacher",
        "student",
        "The teacher asked each student to read aloud.",
        3.5,
        "Every student thanked the teacher at the end of the year.",
        3.5,
    ),
]

HEBREW_GROUPS = [  # target, 4 positives with latent similarity, distractor, random
    ("תפוח", [("אגס", 0.9), ("תפוז", 0.7), ("ענב", 0.6), ("בננה", 0.5)], "עץ", "מכונית"),
    ("כלב", [("זאב", 0.9), ("שועל", 0.8), ("חתול", 0.6), ("סוס", 0.4)], "עצם", "שולחן"),
    ("שולחן", [("שידה", 0.8), ("כיסא", 0.7), ("ארון", 0.6), ("מיטה", 0.4)], "צלחת", "ענן"),
    ("מכונית", [("משאית", 0.9), ("אוטובוס", 0.8), ("אופנוע", 0.6), ("רכבת", 0.4)], "כביש", "תפוח"),
    ("חולצה", [("מעיל", 0.8), ("שמלה", 0.7), ("חצאית", 0.6), ("מכנסיים", 0.5)], "כפתור", "ים"),
    ("פטיש", [("מברג", 0.8), ("מפתח", 0.7), ("מסור", 0.6), ("מקדחה", 0.5)], "מסמר", "שיר"),
    ("גיטרה", [("כינור", 0.9), ("פסנתר", 0.6), ("חליל", 0.5), ("תוף", 0.4)], "שיר", "לחם"),
    ("אדום", [("ורוד", 0.9), ("כתום", 0.8), ("סגול", 0.6), ("כחול", 0.4)], "דם", "עיפרון"),
]


ENGLISH_BWS = [  # (word1, word2, latent 0-1): classic similarity pairs, from synonyms to unrelated
    ("car", "automobile", 0.95),
    ("boy", "lad", 0.9),
    ("coast", "shore", 0.9),
    ("journey", "voyage", 0.88),
    ("cup", "mug", 0.85),
    ("forest", "woods", 0.85),
    ("stone", "rock", 0.82),
    ("river", "stream", 0.72),
    ("hill", "mountain", 0.7),
    ("pen", "pencil", 0.62),
    ("tiger", "cat", 0.6),
    ("coffee", "tea", 0.58),
    ("king", "queen", 0.55),
    ("doctor", "nurse", 0.5),
    ("ocean", "lake", 0.5),
    ("bread", "butter", 0.45),
    ("chair", "table", 0.4),
    ("teacher", "student", 0.35),
    ("sun", "moon", 0.35),
    ("money", "bank", 0.3),
    ("dog", "bone", 0.25),
    ("cord", "smile", 0.05),
    ("noon", "string", 0.03),
    ("rooster", "voyage", 0.02),
]

# --------------------------------------------------------------------------------------------
# simulation helpers (stdlib only, so the stream never changes with a library upgrade)


class _Sim:
    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    def normal(self, sd: float = 1.0) -> float:
        u1, u2 = self.rng.random(), self.rng.random()  # Box-Muller on random(), which is stable
        return sd * math.sqrt(-2.0 * math.log(1.0 - u1)) * math.cos(2.0 * math.pi * u2)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p


def _clip_round(x: float, low: float, high: float, step: float = 1.0) -> float:
    return min(high, max(low, round(x / step) * step))


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


# --------------------------------------------------------------------------------------------
# the five sheets


def _danish_sheet(sim: _Sim):
    raters = [f"Deltager {k:02d}" for k in range(1, 23)]
    biased, random_raters = {"Deltager 05", "Deltager 11"}, {"Deltager 08", "Deltager 14"}
    planted = biased | random_raters
    leniency = {r: 0.0 if r in planted else sim.normal(0.25) for r in raters}
    # A random rater answers with an ordinary rater's spread of values, assigned to the items at
    # random (a shuffle): no relation to the items, and no overall bias that calibration would see.
    shuffled = {}
    for r in sorted(random_raters):
        values = [_clip_round(latent + sim.normal(0.7), 0, 6) for _, _, latent in DANISH]
        sim.rng.shuffle(values)
        shuffled[r] = values
    # questionnaire order: group 1 = pairs 0-6; each next group repeats the previous group's last pair
    order, start = list(range(7)), 7
    while start < len(DANISH):
        order += [order[-1]] + list(range(start, min(start + 6, len(DANISH))))
        start += 6
    rows = []
    for idx in order:
        w1, w2, latent = DANISH[idx]
        cells = []
        for r in raters:
            if r not in planted and sim.chance(0.012):
                cells.append(None)  # an unanswered question
            elif r in random_raters:
                cells.append(shuffled[r][idx])
            else:
                bias = 1.5 if r in biased else 0.0
                cells.append(_clip_round(latent + leniency[r] + bias + sim.normal(0.7), 0, 6))
        word_class = "adj" if idx < 10 else "verb" if idx < 20 else "sub"  # as ordered in DANISH
        rows.append([w1, w2, word_class] + cells)
    title = ["Ordpar-undersøgelse (simulerede svar, se raw/README.md)"]
    return [title, ["Ord 1", "Ord 2", "Ordklasse"] + raters] + rows


def _croatian_sheet(sim: _Sim) -> str:
    raters = [f"ocjena_{k:02d}" for k in range(1, 13)]
    leniency = {r: sim.normal(0.3) for r in raters}
    pairs = [(w1, w2, DANISH[k][0], DANISH[k][1], DANISH[k][2]) for w1, w2, k in CROATIAN]
    pairs.insert(17, pairs[0])  # "velik golem" listed a second time
    grad = pairs[21]
    pairs.insert(25, (grad[1], grad[0], grad[3], grad[2], grad[4]))  # "selo grad": grad/selo reversed
    lines = ["rijec1\trijec2\tizvor1\tizvor2\t" + "\t".join(raters)]
    for w1, w2, da1, da2, latent in pairs:
        cells = []
        for r in raters:
            if sim.chance(0.03):
                cells.append("nan")
            else:
                cells.append(_fmt(_clip_round(latent + leniency[r] + sim.normal(0.7), 0, 6)))
        lines.append(f"{w1}\t{w2}\t{da1}\t{da2}\t" + "\t".join(cells))
    # three typing slips outside the 0-6 scale: a 7, a -1 and a 60 (meant as 6.0)
    for line, col, value in ((3, 4, "7"), (12, 9, "-1"), (21, 2, "60")):
        fields = lines[line].split("\t")
        fields[4 + col] = value
        lines[line] = "\t".join(fields)
    return "\n".join(lines) + "\n"


def _german_sheet(sim: _Sim) -> bytes:
    raters = [f"T{k:02d}" for k in range(1, 11)]
    leniency = {r: sim.normal(0.5) for r in raters}
    lines = ["Teilnehmer;Wort 1;Wort 2;Bewertung"]
    for r in raters:
        answered = 8 if r == "T07" else len(GERMAN)  # T07 gave up after 8 pairs
        for w1, w2, latent in GERMAN[:answered]:
            if sim.chance(0.02):
                value = ""
            else:
                value = _fmt(_clip_round(latent + leniency[r] + sim.normal(1.0), 0, 10, 0.5)).replace(".", ",")
            lines.append(f"{r};{w1};{w2};{value}")
    return ("\r\n".join(lines) + "\r\n").encode("cp1252")


def _english_context_sheet(sim: _Sim):
    raters1 = [f"c1_a{k:02d}" for k in range(1, 9)]
    raters2 = [f"c2_b{k:02d}" for k in range(1, 9)]
    header = ["word1", "word2", "context1", "context2"] + raters1 + raters2
    rows = [header]
    for w1, w2, text1, latent1, text2, latent2 in ENGLISH_CONTEXTS:
        row = [w1, w2, text1, text2]
        row += [int(_clip_round(latent1 + sim.normal(1.2), 0, 10)) for _ in raters1]
        row += [int(_clip_round(latent2 + sim.normal(1.2), 0, 10)) for _ in raters2]
        rows.append(row)
    return rows


def _hebrew_sheet(sim: _Sim) -> bytes:
    raters = [f"rater_{k:02d}" for k in range(1, 13)]
    lines = ["target,candidate,category," + ",".join(raters)]
    table = []
    for target, positives, distractor, rnd in HEBREW_GROUPS:
        cands = [(w, "positive", s) for w, s in positives] + [(distractor, "distractor", 0.15), (rnd, "random", -0.3)]
        ranks = {}
        for r in raters:
            noisy = [(s + sim.normal(0.12), k) for k, (_, _, s) in enumerate(cands)]
            order = sorted(range(len(cands)), key=lambda k: -noisy[k][0])
            ranks[r] = {k: pos + 1 for pos, k in enumerate(order)}
        table.append((target, cands, ranks))
    for g, (target, cands, ranks) in enumerate(table):
        for k, (word, category, _) in enumerate(cands):
            cells = []
            for r in raters:
                rank = ranks[r][k]
                if r == "rater_07" and g == 2 and rank == 3:
                    rank = 2  # planted: rank 2 given twice for one target
                cells.append(str(rank))
            lines.append(f"{target},{word},{category}," + ",".join(cells))
    return b"\xef\xbb\xbf" + ("\r\n".join(lines) + "\r\n").encode("utf-8")


def _bws_tuples(sim: _Sim, n_items: int, k: int = 4, shuffles: int = 8) -> list[list[int]]:
    """Kiritchenko & Mohammad's design: random shuffles of the items, each cut into k-tuples."""
    tuples = []
    for _ in range(shuffles):
        order = list(range(n_items))
        sim.rng.shuffle(order)
        tuples += [order[i : i + k] for i in range(0, n_items - k + 1, k)]
    return tuples


def _english_bws_sheet(sim: _Sim) -> bytes:
    raters = [f"a{k:02d}" for k in range(1, 9)]
    items = [f"{w1}:{w2}" for w1, w2, _ in ENGLISH_BWS]
    lines = ["tuple_id,annotator,Item1,Item2,Item3,Item4,BestItem,WorstItem"]
    for t, tup in enumerate(_bws_tuples(sim, len(items))):
        for r in (raters[t % 8], raters[(t + 3) % 8], raters[(t + 5) % 8]):
            if r == "a07":  # planted: a random clicker
                best, worst = sim.rng.sample(tup, 2)
            else:
                noisy = {i: ENGLISH_BWS[i][2] + sim.normal(0.12) for i in tup}
                best, worst = max(tup, key=noisy.get), min(tup, key=noisy.get)
            lines.append(",".join([f"t{t + 1:02d}", r] + [items[i] for i in tup] + [items[best], items[worst]]))
    head = lines[1].split(",")
    # planted: best equals worst, a best spelled unlike its tuple, a blank worst, an answer given twice
    lines.append(",".join(head[:6] + [head[2], head[2]]).replace(head[1], "a09", 1))
    lines.append(",".join(lines[4].split(",")[:6] + [lines[4].split(",")[2] + "s", lines[4].split(",")[3]]))
    lines.append(",".join(lines[7].split(",")[:7] + [""]))
    lines.append(lines[10])
    return ("\n".join(lines) + "\n").encode("utf-8")


# --------------------------------------------------------------------------------------------
# deterministic spreadsheet containers


def fixed_time_zip(entries: list[tuple[str, bytes]]) -> bytes:
    """A zip container whose every member carries one fixed time, so that the same members always
    give the same bytes (XLSX and ODS are zip files).

    Parameters
    ----------
    entries : list of (str, bytes)
        The members' names and contents, in the order written (``mimetype`` is stored, the others
        deflated).

    Returns
    -------
    bytes
        The zip file.

    Examples
    --------
    >>> fixed_time_zip([("a.txt", b"x")]) == fixed_time_zip([("a.txt", b"x")])
    True
    """
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=FIXED_TIME)
            info.compress_type = zipfile.ZIP_STORED if name == "mimetype" else zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, data)
    return buf.getvalue()


def _col_letter(j: int) -> str:
    s = ""
    j += 1
    while j:
        j, rem = divmod(j - 1, 26)
        s = chr(65 + rem) + s
    return s


def xlsx_bytes(rows: list[list], sheet_name: str) -> bytes:
    """A minimal, valid XLSX workbook (inline strings), written without timestamps.

    Parameters
    ----------
    rows : list of list
        The sheet's rows from the first; a cell is a string, a number, or None (left empty).
    sheet_name : str
        The name of the workbook's one sheet.

    Returns
    -------
    bytes
        The ``.xlsx`` file: the same rows always give the same bytes.

    Examples
    --------
    >>> data = xlsx_bytes([["word1", "word2", "score"], ["cat", "dog", 2.5]], "Sheet1")
    >>> data[:2], data == xlsx_bytes([["word1", "word2", "score"], ["cat", "dog", 2.5]], "Sheet1")
    (b'PK', True)
    """
    xml_rows = []
    for i, row in enumerate(rows, start=1):
        cells = []
        for j, v in enumerate(row):
            ref = f"{_col_letter(j)}{i}"
            if v is None:
                continue
            if isinstance(v, str):
                cells.append(f'<c r="{ref}" t="inlineStr"><is><t xml:space="preserve">{escape(v)}</t></is></c>')
            else:
                cells.append(f'<c r="{ref}"><v>{_fmt(v)}</v></c>')
        xml_rows.append(f'<row r="{i}">{"".join(cells)}</row>')
    ns = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
    rel_ns = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'
    sheet = f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet {ns}><sheetData>{"".join(xml_rows)}</sheetData></worksheet>'
    workbook = (
        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<workbook {ns} {rel_ns}>'
        f'<sheets><sheet name="{escape(sheet_name)}" sheetId="1" r:id="rId1"/></sheets></workbook>'
    )
    rels_pkg = "http://schemas.openxmlformats.org/package/2006/relationships"
    rels_doc = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    content_types = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
        '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
        "</Types>"
    )
    root_rels = (
        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="{rels_pkg}">'
        f'<Relationship Id="rId1" Type="{rels_doc}/officeDocument" Target="xl/workbook.xml"/></Relationships>'
    )
    wb_rels = (
        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="{rels_pkg}">'
        f'<Relationship Id="rId1" Type="{rels_doc}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>'
    )
    return fixed_time_zip(
        [
            ("[Content_Types].xml", content_types.encode()),
            ("_rels/.rels", root_rels.encode()),
            ("xl/workbook.xml", workbook.encode()),
            ("xl/_rels/workbook.xml.rels", wb_rels.encode()),
            ("xl/worksheets/sheet1.xml", sheet.encode()),
        ]
    )


def ods_bytes(rows: list[list], sheet_name: str) -> bytes:
    """A minimal, valid ODS spreadsheet, written without timestamps.

    Parameters
    ----------
    rows : list of list
        The sheet's rows from the first; a cell is a string, a number, or None (an empty cell).
    sheet_name : str
        The name of the spreadsheet's one table.

    Returns
    -------
    bytes
        The ``.ods`` file (its ``mimetype`` member first and stored, as the format asks); the same
        rows always give the same bytes.

    Examples
    --------
    >>> ods_bytes([["word1", "word2"], ["cat", "dog"]], "ratings")[30:76]
    b'mimetypeapplication/vnd.oasis.opendocument.spr'
    """
    office = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
    table_ns = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
    text_ns = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
    xml_rows = []
    for row in rows:
        cells = []
        for v in row:
            if v is None:
                cells.append("<table:table-cell/>")
            elif isinstance(v, str):
                cells.append(
                    f'<table:table-cell office:value-type="string"><text:p>{escape(v)}</text:p></table:table-cell>'
                )
            else:
                cells.append(
                    f'<table:table-cell office:value-type="float" office:value="{_fmt(v)}"><text:p>{_fmt(v)}</text:p></table:table-cell>'
                )
        xml_rows.append(f"<table:table-row>{''.join(cells)}</table:table-row>")
    content = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<office:document-content xmlns:office="{office}" '
        f'xmlns:table="{table_ns}" xmlns:text="{text_ns}" office:version="1.2"><office:body><office:spreadsheet>'
        f'<table:table table:name="{escape(sheet_name)}">{"".join(xml_rows)}</table:table>'
        "</office:spreadsheet></office:body></office:document-content>"
    )
    manifest = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">'
        '<manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/>'
        '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>'
        "</manifest:manifest>"
    )
    return fixed_time_zip(
        [
            ("mimetype", b"application/vnd.oasis.opendocument.spreadsheet"),
            ("META-INF/manifest.xml", manifest.encode()),
            ("content.xml", content.encode()),
        ]
    )


def generate(out_dir: str | Path) -> dict[str, bytes]:
    """Write the demo files under ``out_dir``; return {relative path: bytes}.

    Parameters
    ----------
    out_dir : str or Path
        Where the five sheets go (``raw/demo`` in the repository); made if missing, and files of the
        same names in it are overwritten.

    Returns
    -------
    dict of str to bytes
        Each file's path relative to ``out_dir`` (``da/sporgeskema.xlsx``, ...) and its bytes,
        byte-identical to the committed ``raw/demo`` (``tests/io/test_demo.py``).
    """
    sim = _Sim(SEED)
    files = {
        "da/sporgeskema.xlsx": xlsx_bytes(_danish_sheet(sim), "Svar"),
        "hr/ocjene.tsv": _croatian_sheet(sim).encode("utf-8"),
        "de/bewertungen.csv": _german_sheet(sim),
        "en/contexts.ods": ods_bytes(_english_context_sheet(sim), "ratings"),
        "he/rankings.csv": _hebrew_sheet(sim),
        "en/bws.csv": _english_bws_sheet(sim),
    }
    for rel, data in files.items():
        path = Path(out_dir) / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return files
