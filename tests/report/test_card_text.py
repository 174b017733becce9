"""Config text is data, never markup (issue 37): every string key of the config schema that
reaches the dataset card, Croissant, the TSV, the gensim file, LaTeX or HTML is given hostile text
(a Markdown link to javascript:, raw HTML, a front-matter break, backtick fences, LaTeX specials,
line breaks), and what comes out is inert: the card's front matter parses to the keys simgold
writes, the card rendered as HTML (CommonMark with GitHub's tables, raw HTML let through, every
link kept) has no tag, attribute or link that the text made, and the Croissant file's URLs are
URLs. The keys come from the schema itself: a new key that is in no group fails the test."""

from __future__ import annotations

import copy
import io
import json
import re
import urllib.parse
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from simgold.errors import ConfigError
from simgold.io.cardtext import CARD_PROSE, MAX_CARD_BYTES
from simgold.io.config import check_config, check_dataset
from simgold.io.schema import load_schema
from simgold.report.markup import md_prose
from simgold.report.pages import _html_table, _release_html
from simgold.report.archive import _study_readme
from simgold.report.card import markdown_table
from simgold.report.release import release
from simgold.stages.clean import clean_dataset
from simgold.stages.gold import gold_from_ratings, score_distribution

SHEET = "w1,w2,r1,r2,r3\ncat,dog,4,4,5\nsea,ocean,6,5,5\nsun,moon,2,3,2\ntea,cup,1,2,1\n"

#: hostile text for every free-text key
HOSTILE = [
    "x) [click](javascript:alert(1)) <img src=x onerror=alert(2)>",
    "<script>alert(3)</script><iframe src=javascript:alert(4)>",
    "ok\n---\nlicense: mit\n---",
    "```\n## Citation\n<img src=x onerror=alert(5)>",
    "\\begin{document} $x$ & 100% #1 _{}^~ \\end{document}",
    "line1\r\n## Heading\n# Title\n===",
    "[ref]: javascript:alert(6)\n\n[ref] and [x](JaVa&#115;cript:alert(7)) <javascript:alert(8)>",
    '=HYPERLINK("http://evil.example","x")',
    "<!-- never closed\n\n## Audit",
]
#: hostile URLs: each is refused, or written as one harmless URL
HOSTILE_URLS = [
    "https://example.org/x) [click](javascript:alert(1)) <img src=x onerror=alert(2)>",
    "https://example.org/x)[click](javascript:alert(1))<img/src=x/onerror=alert(2)>",
    "https://example.org/\n---\nlicense: mit",
    'https://example.org/"><script>alert(3)</script>',
    "javascript:alert(1)",
    "https://example.org/a`b```c",
]
#: hostile citations: each is refused, or fenced whole
HOSTILE_CITATIONS = [
    "@misc{k, title = {```\n## Citation\n<img src=x onerror=alert(1)>}}",
    "@misc{k, title = {a}}\n```\n<script>alert(2)</script>",
    "@misc{k, title = {````` five}, note = {`` two}}",
    "@misc{k,\n  title = {x},\n  note = {\n```\n## Citation\n<img src=x onerror=alert(2)>\n}\n}",
]

# -------------------------------------------------------------------------------- the schema's keys


def _resolve(schema: dict, node: dict) -> dict:
    while "$ref" in node:
        target = schema["$defs"][node["$ref"].split("/")[-1]]
        rest = {k: v for k, v in node.items() if k != "$ref"}
        node = {**target, **rest, "properties": {**target.get("properties", {}), **rest.get("properties", {})}}
    return node


def schema_string_keys() -> set[str]:
    """Every key of the schema whose value is free text (a string that is not an enum), and every
    mapping whose keys are names (``<name>``), as paths: ``datasets.*.release.homepage``."""
    schema = load_schema()
    keys: set[str] = set()

    def walk(node: dict, path: str) -> None:
        node = _resolve(schema, node)
        for alternative in node.get("oneOf", []) + node.get("anyOf", []):
            walk(alternative, path)
        types = node.get("type") if isinstance(node.get("type"), list) else [node.get("type")]
        if "string" in types and "enum" not in node and "const" not in node:
            keys.add(path)
        for key, child in node.get("properties", {}).items():
            walk(child, f"{path}.{key}" if path else key)
        if isinstance(node.get("additionalProperties"), dict):
            walk(node["additionalProperties"], f"{path}.*")
        if "propertyNames" in node:
            keys.add(f"{path}.<name>")
        if isinstance(node.get("items"), dict):
            walk(node["items"], f"{path}[]")

    walk(schema, "")
    return keys


#: where each key's text goes. "refused": its pattern or check refuses hostile text (so it reaches
#: LaTeX and file names safely: dataset and model names are the only config text in the leaderboard);
#: "release": the card, Croissant, the TSV and gensim file (tested key by key below); "tables": cells
#: of the card's and the report's tables (raw file paths, rater names, column names in the ledger);
#: "archive": the archive's README; "json": only JSON files; "read": read by the pipeline, never written.
GROUPS = {
    "refused": [r"archive\.(date|name|license|license_url)", r"datasets\.<name>", r"models\.<name>", r"datasets\.\*\.language",
                r"models\.\*\.language(\[\])?", r"datasets\.\*\.release\.(version|license)",
                r"datasets\.\*\.release\.card\.task_categories\[\]", r"datasets\.\*\.translation_of",
                r"noise\.(datasets|models)\[\]", r"datasets\.\*\.agreement\.subsets\[\]",
                r".*\.attributes\.<name>"],
    "release": [r"datasets\.\*\.(description|licence|source)", r"datasets\.\*\.release\.(?!version$|license$).*",
                r".*\.attributes\.\*\.value"],
    "tables": [r".*\.path(\[\])?", r".*\.rater_names\.\*", r".*\.raters(\[\])?", r"models\.\*\.description",
               r".*\.(words|source_words|target_words)\[\]", r".*\.attributes\.\*(\.column)?",
               r".*\.(rater|score|mean|sd|n|context|context_text|candidate|category|target|text|join|source|word|count)",
               r".*\.(items(\[\])*|items\.column|best|worst|tuple|item_list\.item)"],  # BWS columns: the ledger names them
    "archive": [r"archive\.(title|description)"],
    "json": [],
    "read": [r".*\.(encoding|sep|comment|sheet|strip)", r".*\.missing\[\]", r"datasets\.\*\.context\.pvalue",
             r".*\.(separator|items\.split)"],
}  # fmt: skip


def group_of(key: str) -> str | None:
    for group, patterns in GROUPS.items():
        if any(re.fullmatch(p, key) for p in patterns):
            return group
    return None


def test_every_string_key_of_the_schema_is_in_a_group():
    keys = schema_string_keys()
    assert len(keys) > 100 and "datasets.*.release.homepage" in keys  # the walk reaches the release block
    assert {k: group_of(k) for k in keys if group_of(k) is None} == {}
    # and the release keys, the ones tested one by one below, are exactly those of RELEASE_CASES
    release_keys = {k for k in keys if group_of(k) == "release"}
    assert release_keys == set(RELEASE_CASES) | {"datasets.*.sources[].contexts[].attributes.*.value"}


# -------------------------------------------------------------------------------- what inert means

#: the front matter's keys that simgold writes
FRONT_KEYS = {"license", "license_name", "license_link", "language", "pretty_name", "size_categories",
              "task_categories", "tags", "configs", "dataset_info"}  # fmt: skip
#: the card's own sections (generated, or the authors' under their fixed headings)
SECTIONS = {"Files", "Columns", "Where the pairs come from", "Raters", "What was not kept", "Agreement",
            "The gold standard", "Audit", "Evaluating a model", "Citation", *CARD_PROSE.values()}  # fmt: skip
TAGS = {"p", "h1", "h2", "h3", "h4", "h5", "h6", "a", "code", "pre", "table", "thead", "tbody", "tr", "th", "td",
        "em", "strong", "ul", "ol", "li", "blockquote", "hr", "br", "s", "img"}  # fmt: skip


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.h2: list[str] = []
        self._in_h2 = False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "h2":
            self._in_h2 = True
            self.h2.append("")

    def handle_endtag(self, tag):
        self._in_h2 = self._in_h2 and tag != "h2"

    def handle_data(self, data):
        if self._in_h2:
            self.h2[-1] += data


def _link_ok(url: str, image: bool = False) -> bool:
    parts = urllib.parse.urlsplit(url)
    if image or parts.scheme:
        return parts.scheme in (("http", "https") if image else ("http", "https", "mailto")) and url_ok(
            url, mailto=True
        )
    return re.fullmatch(r"[A-Za-z0-9._~/#%-]+", url) is not None


def url_ok(url: str, mailto: bool = False) -> bool:
    """A URL as Croissant and a browser take it: http(s), a host, nothing a URL may not hold."""
    parts = urllib.parse.urlsplit(url)
    if mailto and parts.scheme == "mailto":
        return not re.search(r"[\s<>\"`]", url)
    return parts.scheme in ("http", "https") and bool(parts.hostname) and not re.search(r"[\s<>\"`{}|\\^\[\]]", url)


def html_problems(html: str) -> tuple[list[str], list[str]]:
    """What in rendered HTML the text made: a tag of its own, an event attribute, a link elsewhere
    than http(s), mailto or a plain relative path; and the h2 headings in order."""
    parser = _Tags()
    parser.feed(html)
    problems = []
    for tag, attrs in parser.tags:
        if tag not in TAGS:
            problems.append(f"<{tag}>")
        problems += [f"<{tag} {a}>" for a in attrs if a.startswith("on") or a in ("style", "srcdoc")]
        if tag == "a" and not _link_ok(attrs.get("href") or ""):
            problems.append(f"<a href={attrs.get('href')!r}>")
        if tag == "img" and not _link_ok(attrs.get("src") or "", image=True):
            problems.append(f"<img src={attrs.get('src')!r}>")
    return problems, parser.h2


def render(markdown: str) -> str:
    """Markdown as GitHub or the Hub would render it, but keeping raw HTML and every link."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    md.validateLink = lambda url: True
    return md.render(markdown)


def front_matter(card: str) -> tuple[dict, str]:
    assert card.startswith("---\n")
    end = card.index("\n---\n", 4)
    return yaml.safe_load(card[4:end]), card[end + 5 :]


def assert_inert(files: dict[str, bytes], ds: dict, note: str) -> None:
    card = files["README.md"].decode("utf-8")
    front, body = front_matter(card)
    assert set(front) <= FRONT_KEYS, note
    license_ = ds["release"].get("license")
    assert (
        front.get("license") == (license_.lower() if license_ else None) or front.get("license_name") == license_
    ), note
    assert front["tags"][:2] == ["word-similarity", "simgold"] and front["language"] == [ds["language"]], note
    problems, h2 = html_problems(render(body))
    assert problems == [], (note, problems)
    assert set(h2) <= SECTIONS and len(h2) == len(set(h2)) and h2[-1] == "Citation", (note, h2)
    meta = json.loads(files["croissant.json"])
    urls = [meta.get("url"), *(c.get("url") for c in meta.get("creator", []))]
    urls += [meta["license"]] if str(meta.get("license", "")).startswith("http") else []
    assert all(url_ok(u) for u in urls if u), (note, urls)
    if "toy.txt" in files:
        text = files["toy.txt"].decode("utf-8").splitlines()
        header = [line for line in text if not line.count("\t") == 2]
        assert all(line.startswith("# ") for line in header), (note, header)


# -------------------------------------------------------------------------------- the release keys


def _spec(tmp_path: Path) -> dict:
    (tmp_path / "d.csv").write_text(SHEET, encoding="utf-8")
    return {"language": "en", "kind": "ratings", "scale": [0, 6], "description": "toy pairs",
            "sources": [{"path": "d.csv", "words": ["w1", "w2"], "raters": "^r"}],
            "release": {"license": "CC-BY-4.0", "creators": ["A. Rater"]}}  # fmt: skip


def _release(tmp_path: Path, spec: dict):
    ds = check_dataset("toy", spec, tmp_path)
    tables = clean_dataset("toy", ds, base_dir=str(tmp_path))
    gold = gold_from_ratings("toy", tables["items"], tables["ratings"], ds["scale"], tables["means"])
    all_tables = {"items": tables["items"], "gold": gold, "clean": tables["summary"],
                  "distribution": score_distribution("toy", gold, ds["scale"], 1.0)}  # fmt: skip
    made = release("toy", ds, all_tables, [{"path": "d.csv", "sha256": "0" * 64, "size": 1}], confidence=0.95,
                   made_with="simgold test", date="2026-11-26")  # fmt: skip
    return ds, made


def _card_file(tmp_path: Path, text: str) -> str:
    (tmp_path / "card.md").write_text(text, encoding="utf-8")
    return "card.md"


def _put(spec: dict, where: str, value) -> None:
    """Put a value at a dotted path under the dataset (``release.card.summary``), making the dicts."""
    *parents, last = where.split(".")
    node = spec
    for key in parents:
        node = node.setdefault(key, {})
    node[last] = value


#: each release key: how hostile text goes in (spec, value, tmp_path), and which values it takes
RELEASE_CASES = {
    "datasets.*.description": lambda s, v, t: _put(s, "description", v),
    "datasets.*.licence": lambda s, v, t: _put(s, "licence", v),
    "datasets.*.source": lambda s, v, t: _put(s, "source", v),
    "datasets.*.release.citation": lambda s, v, t: _put(s, "release.citation", v),
    "datasets.*.release.creators[]": lambda s, v, t: _put(s, "release.creators", [v]),
    "datasets.*.release.creators[].name": lambda s, v, t: _put(s, "release.creators", [{"name": v}]),
    "datasets.*.release.creators[].affiliation": lambda s, v, t: _put(s, "release.creators", [{"name": "B", "affiliation": v}]),
    "datasets.*.release.creators[].url": lambda s, v, t: _put(s, "release.creators", [{"name": "B", "url": v}]),
    "datasets.*.release.homepage": lambda s, v, t: _put(s, "release.homepage", v),
    "datasets.*.release.license_url": lambda s, v, t: (_put(s, "release.license", "LicenseRef-Mine"),
                                                       _put(s, "release.license_url", v)),
    "datasets.*.release.card_file": lambda s, v, t: _put(s, "release.card_file", _card_file(t, v)),
    "datasets.*.release.card.pretty_name": lambda s, v, t: _put(s, "release.card.pretty_name", v),
    "datasets.*.release.card.tags[]": lambda s, v, t: _put(s, "release.card.tags", [v]),
    **{f"datasets.*.release.card.{key}": (lambda key: lambda s, v, t: _put(s, f"release.card.{key}", v))(key)
       for key in CARD_PROSE},
    "datasets.*.sources[].attributes.*.value": lambda s, v, t: s["sources"][0].update(attributes={"note": {"value": v}}),
}  # fmt: skip
URL_KEYS = {"datasets.*.release.homepage", "datasets.*.release.license_url", "datasets.*.release.creators[].url"}
ONE_LINE = {"datasets.*.release.creators[]", "datasets.*.release.creators[].name", "datasets.*.release.card.tags[]",
            "datasets.*.release.creators[].affiliation", "datasets.*.release.card.pretty_name"}  # fmt: skip


@pytest.mark.parametrize("key", sorted(RELEASE_CASES))
def test_hostile_text_in_a_release_key_is_refused_or_inert(tmp_path, key):
    values = HOSTILE_URLS if key in URL_KEYS else HOSTILE_CITATIONS if key.endswith("citation") else HOSTILE
    taken = refused = 0
    for n, value in enumerate(values):
        work = tmp_path / str(n)
        work.mkdir()
        spec = _spec(work)
        RELEASE_CASES[key](spec, value, work)
        try:
            ds, made = _release(work, spec)
        except ConfigError as err:
            refused += 1
            assert (
                "\n" not in str(err)
                and "datasets.toy.release" in str(err)
                or key.endswith(("description", "licence", "source", "value"))
            ), err
            continue
        taken += 1
        assert_inert(made.files, ds, f"{key} = {value!r}")
    if key in URL_KEYS:  # a space, a line break or another scheme: refused; brackets, quotes, backticks: encoded
        assert (taken, refused) == (3, 3), (taken, refused)
    elif key.endswith("card_file"):  # a '# ' title or an unknown '## ' heading is refused, the rest written inert
        assert taken >= 5, (taken, refused)
    elif key in ONE_LINE:  # one line: the values with a line break are refused, the others written as text
        assert taken == sum("\n" not in v and "\r" not in v for v in values) and taken >= 4
    elif key.endswith("citation"):  # one entry, with backticks anywhere in it: fenced whole
        assert (taken, refused) == (3, 1), (taken, refused)
    else:
        assert refused == 0  # prose and notes take any text, and write it inert


def test_a_valid_url_with_brackets_still_links_and_an_injected_one_does_not(tmp_path):
    spec = _spec(tmp_path)
    spec["release"]["homepage"] = "https://en.wikipedia.org/wiki/Fish_(food)"
    ds, made = _release(tmp_path, spec)
    card = made.files["README.md"].decode()
    assert (
        "Homepage: [https://en.wikipedia.org/wiki/Fish\\_(food)](<https://en.wikipedia.org/wiki/Fish_(food)>)." in card
    )
    assert '<a href="https://en.wikipedia.org/wiki/Fish_(food)">' in render(card)
    assert json.loads(made.files["croissant.json"])["url"] == "https://en.wikipedia.org/wiki/Fish_(food)"
    spec["release"]["homepage"] = HOSTILE_URLS[0]
    with pytest.raises(
        ConfigError,
        match=r"^config datasets\.toy\.release\.homepage: 'https://example\.org/x\) .* holds U\+0020 \(space\)",
    ):
        check_dataset("toy", spec, tmp_path)
    spec["release"]["homepage"] = HOSTILE_URLS[1]
    ds, made = _release(tmp_path, spec)
    hrefs = re.findall(r'href="([^"]*)"', render(made.files["README.md"].decode()))
    encoded = "https://example.org/x)%5Bclick%5D(javascript:alert(1))%3Cimg/src=x/onerror=alert(2)%3E"
    assert encoded in hrefs and not any(h.startswith("javascript") for h in hrefs)
    assert json.loads(made.files["croissant.json"])["url"] == encoded


def test_a_homepage_cannot_change_the_licence(tmp_path):
    spec = _spec(tmp_path)
    del spec["release"]["license"]
    spec["release"]["homepage"] = "https://example.org/\n---\nlicense: mit"
    with pytest.raises(ConfigError, match=r"release\.homepage: .* holds U\+000A"):
        check_dataset("toy", spec, tmp_path)
    spec["release"]["card"] = {"summary": "ok\n---\nlicense: mit\n---"}
    del spec["release"]["homepage"]
    ds, made = _release(tmp_path, spec)
    front, body = front_matter(made.files["README.md"].decode())
    assert "license" not in front and "No licence was given for this release" in body and "license: mit" in body


def test_a_citation_is_one_bibtex_entry_in_a_fence_it_cannot_close(tmp_path):
    spec = _spec(tmp_path)
    spec["release"]["citation"] = HOSTILE_CITATIONS[2]
    ds, made = _release(tmp_path, spec)
    card = made.files["README.md"].decode()
    assert "``````bibtex\n@misc{k, title = {````` five}, note = {`` two}}\n``````" in card
    assert json.loads(made.files["croissant.json"])["citeAs"] == HOSTILE_CITATIONS[2]
    for text, error in [
        ("@misc{a, title={A}}\n@misc{b, title={B}}", r"release\.citation: holds 2 BibTeX entries; give exactly one"),
        ("@misc{a,\n  title = {A,\n  year = 2026\n}", r"release\.citation: not a BibTeX entry: .*\(in the field 'title', from line 2\)"),
        ("@misc{a, title = {A}, title = {B}}", r"release\.citation: not a BibTeX entry: .*duplicate title field"),
        (HOSTILE_CITATIONS[1], r"release\.citation: text after the BibTeX entry: '\\n```\\n<script>"),
    ]:  # fmt: skip
        spec["release"]["citation"] = text
        with pytest.raises(ConfigError, match=error):
            check_dataset("toy", spec, tmp_path)


def test_a_licence_of_ones_own_links_only_where_the_config_says(tmp_path):
    spec = _spec(tmp_path)
    spec["release"]["license"] = "LicenseRef-Proprietary"
    ds, made = _release(tmp_path, spec)
    front, body = front_matter(made.files["README.md"].decode())
    assert (
        front["license"] == "other"
        and front["license_name"] == "LicenseRef-Proprietary"
        and "license_link" not in front
    )
    assert "spdx.org" not in body and "spdx.org" not in made.files["croissant.json"].decode()
    assert json.loads(made.files["croissant.json"])["license"] == "LicenseRef-Proprietary"
    assert any("release.license_url" in w and "LicenseRef-Proprietary" in w for w in made.warnings)
    spec["release"]["license_url"] = "https://example.org/licence"
    ds, made = _release(tmp_path, spec)
    front, body = front_matter(made.files["README.md"].decode())
    assert front["license_link"] == "https://example.org/licence" and not any("license_url" in w for w in made.warnings)
    assert "Licence: [LicenseRef-Proprietary](<https://example.org/licence>)" in body
    assert json.loads(made.files["croissant.json"])["license"] == "https://example.org/licence"


def test_everything_hostile_at_once_still_loads_in_croissant(tmp_path):
    mlc = pytest.importorskip("mlcroissant")
    spec = _spec(tmp_path)
    spec["description"] = HOSTILE[0]
    spec["release"].update(homepage=HOSTILE_URLS[1], citation=HOSTILE_CITATIONS[0],
                           creators=[HOSTILE[1], {"name": HOSTILE[0], "url": HOSTILE_URLS[5]}],
                           card={"pretty_name": HOSTILE[4], "tags": [HOSTILE[7]],
                                 **{key: HOSTILE[i % len(HOSTILE)] for i, key in enumerate(CARD_PROSE)}})  # fmt: skip
    ds, made = _release(tmp_path, spec)
    assert_inert(made.files, ds, "all at once")
    for name, data in made.files.items():
        (tmp_path / name).write_bytes(data)
    dataset = mlc.Dataset(jsonld=str(tmp_path / "croissant.json"))
    assert (
        dataset.metadata.url == "https://example.org/x)%5Bclick%5D(javascript:alert(1))%3Cimg/src=x/onerror=alert(2)%3E"
    )
    assert len(list(dataset.records(record_set="gold"))) == 4


# -------------------------------------------------------------------------------- the other groups


def test_refused_keys_refuse_hostile_text(tmp_path):
    """Each key of the "refused" group, given hostile text, stops the config check."""
    keys = sorted(k for k in schema_string_keys() if group_of(k) == "refused")
    (tmp_path / "d.csv").write_text(SHEET, encoding="utf-8")
    hostile = "x) [a](javascript:1) <img src=x onerror=alert(1)> $\\&%#_{}\n---"
    setters = {
        "archive.date": lambda c: c.setdefault("archive", {}).update(date=hostile),
        "archive.name": lambda c: c.setdefault("archive", {}).update(name=hostile),
        "archive.license": lambda c: c.setdefault("archive", {}).update(license=hostile),
        "archive.license_url": lambda c: c.setdefault("archive", {}).update(license_url=hostile),
        "datasets.<name>": lambda c: c.update(datasets={hostile: c["datasets"]["toy"]}),
        "models.<name>": lambda c: c.update(models={hostile: {"language": "en", "path": "d.csv"}}),
        "models.*.language": lambda c: c.update(models={"m": {"language": hostile, "path": "d.csv"}}),
        "models.*.language[]": lambda c: c.update(models={"m": {"language": [hostile], "path": "d.csv"}}),
        "noise.datasets[]": lambda c: c.update(noise={"datasets": [hostile]}),
        "noise.models[]": lambda c: c.update(noise={"models": [hostile]}),
        "datasets.*.language": lambda c: c["datasets"]["toy"].update(language=hostile),
        "datasets.*.translation_of": lambda c: c["datasets"]["toy"].update(translation_of=hostile),
        "datasets.*.agreement.subsets[]": lambda c: c["datasets"]["toy"].update(agreement={"subsets": [hostile]}),
        "datasets.*.release.version": lambda c: c["datasets"]["toy"]["release"].update(version=hostile),
        "datasets.*.release.license": lambda c: c["datasets"]["toy"]["release"].update(license=hostile),
        "datasets.*.release.card.task_categories[]":
            lambda c: c["datasets"]["toy"]["release"].update(card={"task_categories": [hostile]}),
        "datasets.*.sources[].attributes.<name>": lambda c: c["datasets"]["toy"]["sources"][0].update(attributes={hostile: "w1"}),
        "datasets.*.sources[].contexts[].attributes.<name>":
            lambda c: c["datasets"]["toy"]["sources"][0].update(contexts=[{"context": 1, "text": "w1", "mean": "r1", "attributes": {hostile: "w1"}}]),
    }  # fmt: skip
    assert set(setters) == set(keys)
    for key in keys:
        config = {"datasets": {"toy": _spec(tmp_path)}}
        setters[key](config)
        with pytest.raises(ConfigError) as err:
            check_config(copy.deepcopy(config), base_dir=tmp_path)
        assert "\n" not in str(err.value).replace(hostile, ""), (key, err.value)


def test_table_cells_are_data_in_the_card_and_the_report():
    """The "tables" group (raw file paths, rater names, column names in the ledger, model
    descriptions): cells of markdown_table (card, archive README) and html_table (report)."""
    cells = pd.DataFrame({"rater": HOSTILE, "n_items": np.arange(len(HOSTILE)), "why": HOSTILE[::-1]})
    problems, _ = html_problems(render(markdown_table(cells)))
    assert problems == []
    assert len(re.findall(r"^\|", markdown_table(cells), re.M)) == len(HOSTILE) + 2  # no cell broke its row
    problems, _ = html_problems(_html_table(cells, caption=HOSTILE[0]))
    assert problems == []


def test_archive_readme_and_release_link_are_data():
    config = {"archive": {"title": HOSTILE[5], "description": HOSTILE[1] + "\n\n" + HOSTILE[3], "date": "2026-01-01",
                          "name": "a"},
              "datasets": {"toy": {"language": "en", "kind": "ratings", "release": {"license": "MIT"}}},
              "models": {"m": {"description": HOSTILE[0], "language": "en"}, "p": {"path": HOSTILE[6], "language": "en"}}}  # fmt: skip
    readme = _study_readme(config, {}, "simgold test")
    problems, h2 = html_problems(render(readme))
    assert problems == [] and readme.startswith("# line1 \\#\\# Heading \\# Title ===\n") and "## Heading" not in h2
    meta = {"license": HOSTILE[1], "version": HOSTILE[0]}
    problems, _ = html_problems(_release_html("toy", ["toy.tsv"], meta, "../release"))
    assert problems == []


def test_author_prose_is_markdown_written_back_inert():
    text = md_prose(
        "Intro with *emphasis*, `code <b>`, a [link](https://example.org/a_(b)) and ![logo](https://x.example/l.png).\n\n"
        "| a | b |\n|---|---|\n| `x | <img src=x onerror=alert(1)> | y` | z |\n\n"
        "- one\n- two <i>x</i>\n\n```python\nprint('<not html>')\n"
    )
    html = render(text)
    problems, h2 = html_problems(html)
    assert problems == [] and h2 == []
    assert "<em>emphasis</em>" in html and "<code>code &lt;b&gt;</code>" in html
    assert (
        '<a href="https://example.org/a_(b)">link</a>' in html
        and '<img src="https://x.example/l.png" alt="logo"' in html
    )
    assert "<pre><code class=\"language-python\">print('&lt;not html&gt;')\n</code></pre>" in html  # the fence closed
    assert "<li>two &lt;i&gt;x&lt;/i&gt;</li>" in html


# -------------------------------------------------------------------------------- the card file


def test_card_file_sections_go_under_the_cards_headings(tmp_path):
    spec = _spec(tmp_path)
    spec["release"]["card"] = {"pretty_name": "Toy pairs", "tags": ["toy"], "task_categories": ["sentence-similarity"]}
    spec["release"]["card_file"] = _card_file(tmp_path, (
        "A summary of *toy* pairs.\n\n## Intended use\n\nTesting.\n\n### Not for\n\nPapers.\n\n"
        "## How the pairs were chosen\n\nBy hand.\n\n## who the raters are\n\nThree friends.\n"))  # fmt: skip
    ds, made = _release(tmp_path, spec)
    card = made.files["README.md"].decode()
    front, body = front_matter(card)
    assert front["pretty_name"] == "Toy pairs" and front["tags"] == ["word-similarity", "simgold", "toy"]
    assert front["task_categories"] == ["sentence-similarity"]
    assert body.startswith("\n# Toy pairs\n\nA summary of *toy* pairs.\n\nVersion 1.0.0.")
    assert "## Intended use\n\nTesting.\n\n### Not for\n\nPapers.\n\n## Files" in body
    assert "## How the pairs were chosen\n\nBy hand.\n\n## Where the pairs come from" in body
    assert "## Who the raters are\n\nThree friends.\n\n## Raters" in body
    assert "About the raw files: toy pairs." in body  # the config's note on the raw file, no longer the summary
    meta = json.loads(made.files["croissant.json"])
    assert meta["description"] == "A summary of *toy* pairs." and meta["alternateName"] == "Toy pairs"
    assert (
        meta["rai:dataUseCases"] == ["Testing.\n\n### Not for\n\nPapers."] and meta["rai:dataCollection"] == "By hand."
    )
    assert meta["rai:annotatorDemographics"] == ["Three friends."] and "toy" in meta["keywords"]


def test_without_a_summary_the_card_opens_with_a_generated_one(tmp_path):
    ds, made = _release(tmp_path, _spec(tmp_path))
    front, body = front_matter(made.files["README.md"].decode())
    assert front["pretty_name"] == "toy (word similarity, en)"
    assert body.startswith("\n# toy\n\nA word-similarity gold standard in `en`: per-rater similarity ratings of word "
                           "pairs, averaged into one score per pair.\n")  # fmt: skip


@pytest.mark.parametrize(
    "content,error",
    [
        (None, r"release\.card_file: 'card\.md' does not exist"),
        (b"caf\xe9", r"release\.card_file: 'card\.md', line 1: byte 0xe9 is not UTF-8"),
        (b"x" * (MAX_CARD_BYTES + 1), r"release\.card_file: 'card\.md' is 65,537 bytes; a card file holds at most 65,536"),
        (b"---\nlicense: mit\n---\nText", r"release\.card_file: 'card\.md' starts with '---', front matter of its own"),
        (b"# My dataset\n\nText", r"release\.card_file: 'card\.md', line 1: a title \('My dataset'\)"),
        (b"Text\n\n## Intended uses\n\nx", r"line 3: the heading 'Intended uses' is not one of the card's: .*did you mean 'Intended use'\?"),
        (b"Text\n\n## Summary\n\nx", r"line 3: the section 'Summary' is given twice"),
        (b"Text \x1b[31m red", r"'card\.md', line 1 holds U\+001B"),
    ],
)  # fmt: skip
def test_a_bad_card_file_is_a_one_line_error(tmp_path, content, error):
    spec = _spec(tmp_path)
    spec["release"]["card_file"] = "card.md"
    if content is not None:
        (tmp_path / "card.md").write_bytes(content)
    with pytest.raises(ConfigError, match=error) as err:
        check_dataset("toy", spec, tmp_path)
    assert "\n" not in str(err.value) and str(err.value).startswith("config datasets.toy.release.card_file")


def test_a_card_file_may_not_be_a_link_nor_repeat_a_key(tmp_path):
    spec = _spec(tmp_path)
    (tmp_path / "real.md").write_text("Text", encoding="utf-8")
    (tmp_path / "card.md").symlink_to(tmp_path / "real.md")
    spec["release"]["card_file"] = "card.md"
    with pytest.raises(ConfigError, match=r"release\.card_file: 'card\.md' is a symbolic link"):
        check_dataset("toy", spec, tmp_path)
    spec["release"].update(card_file="real.md", card={"summary": "Another text"})
    with pytest.raises(
        ConfigError, match=r"release\.card\.summary: is given here and as the section 'Summary' of 'real\.md'"
    ):
        check_dataset("toy", spec, tmp_path)


# -------------------------------------------------------------------------------- gensim and spreadsheets


def test_a_word_starting_with_a_hash_is_not_lost_to_gensim(tmp_path):
    """gensim skips a line that starts with '#': the pair is written second word first (a cosine
    does not care), so the card's gensim command gives simgold's Spearman; a pair of two such words
    cannot be written, and is counted."""
    gensim_models = pytest.importorskip("gensim.models")
    import simgold

    sheet = "w1,w2,r1,r2\n#tag,cat,5,6\ndog,cat,4,4\nsun,moon,1,2\ncar,bus,3,2\nsea,ocean,6,5\n#a,#b,2,2\n"
    spec = _spec(tmp_path)
    (tmp_path / "d.csv").write_text(sheet, encoding="utf-8")
    ds, made = _release(tmp_path, spec)
    (tmp_path / "toy.txt").write_bytes(made.files["toy.txt"])
    lines = made.files["toy.txt"].decode().splitlines()
    assert "cat\t#tag\t5.5" in lines and not any(line.startswith("#tag") or line.startswith("#a\t") for line in lines)
    assert "# left out: 1 pair whose two words both start with # (gensim skips such a line as a comment)" in lines
    card = made.files["README.md"].decode()
    assert "In `toy.txt`, 1 pair written as word2, word1: gensim skips a line that starts with #" in card
    assert "(left out: 1 pair whose two words both start with # (gensim skips such a line as a comment))" in card
    words = ["#tag", "cat", "dog", "sun", "moon", "car", "bus", "sea", "ocean"]
    kv = gensim_models.KeyedVectors(vector_size=3)
    kv.add_vectors(words, np.random.default_rng(3).normal(size=(len(words), 3)).astype(np.float32))
    pairs = pd.read_parquet(io.BytesIO(made.files["toy.parquet"]))
    # simgold on the whole release (#a/#b is out of the vectors' vocabulary here); gensim on the .txt
    pearson, spearman, oov = kv.evaluate_word_pairs(str(tmp_path / "toy.txt"), restrict_vocab=len(kv))
    ours = simgold.evaluate(kv, pairs, resamples=0).scores.set_index("metric")
    assert oov == 0 and ours.loc["spearman", "n_used"] == 5
    assert ours.loc["spearman", "value"] == pytest.approx(spearman.statistic, abs=1e-6)
    assert ours.loc["pearson", "value"] == pytest.approx(pearson.statistic, abs=1e-6)


def test_cells_a_spreadsheet_would_run_are_counted_and_named_not_changed(tmp_path):
    sheet = "w1,w2,r1,r2\n=1+1,cat,5,6\n+dog,-cat,4,4\n@sun,moon,1,2\ncar,bus,3,2\n"
    spec = _spec(tmp_path)
    (tmp_path / "d.csv").write_text(sheet, encoding="utf-8")
    spec["sources"][0]["attributes"] = {"note": {"value": "=HYPERLINK(1)"}}
    ds, made = _release(tmp_path, spec)
    card = made.files["README.md"].decode()
    assert ("8 cells of `toy.tsv` start with a character a spreadsheet takes for a formula (`=`, `+`, `-`, `@`, a tab "
            "or a carriage return): word1 3 (e.g. `=1+1`, `+dog`, `@sun`); word2 1 (e.g. `-cat`); note 4 (e.g. "
            "`=HYPERLINK(1)`). They are data, kept as written") in card  # fmt: skip
    tsv = pd.read_csv(io.BytesIO(made.files["toy.tsv"]), sep="\t", keep_default_na=False, na_values=[""])
    assert tsv["word1"].tolist() == ["=1+1", "+dog", "@sun", "car"] and set(tsv["note"]) == {"=HYPERLINK(1)"}
    assert_inert(made.files, ds, "formulas")
