"""What a finished run says last (the Snakefile's onsuccess: simgold.workflow.lastlines.last_lines):
every warning the release jobs logged, repeated from their logs; that the archive has no licence;
and, after a targeted run, only what it made, with the warnings of its own datasets."""

from __future__ import annotations

import dataclasses

from simgold.workflow.lastlines import last_lines
from simgold.workflow.logs import logged_warnings
from simgold.workflow.routing import RELEASE_LOG, Stages, asked_for, datasets_of, release_report, withheld_warning

# "m": shipped means (not licensed, not to be redistributed, a pair left out); "r": rated, no warning;
# the stages these lines do not read are empty
ROUTING = Stages(**{field.name: [] for field in dataclasses.fields(Stages)} | dict(
    datasets=["m", "r"], models=["g"], cleaned=["m", "r"], rated=["r"], scored=[("m", "g"), ("r", "g")],
    scored_by={"m": ["g"], "r": ["g"]}, released=["m", "r"],
))  # fmt: skip
# the release job's log as simgold.workflow.job.run writes it ("%(levelname)s %(message)s"), with the
# warnings simgold.report.release gives
M_LOG = """WARNING m.txt: left out 1 pair without a score
WARNING m: its raw files may not be redistributed; the release derives from them
WARNING m: no release licence (release: {license: ...} in the config); the card says so
INFO results/release/m: m.parquet, m.tsv, m.txt, README.md, croissant.json
"""
R_LOG = "INFO results/release/r: r.parquet, r.tsv, r.txt, README.md, croissant.json\n"
# the rules' output files, as the Snakefile hands them over (rule -> files)
OUTPUTS = {"release_means": ["results/release/{dataset}/README.md"], "score_tables": ["results/scores/wide.tsv", "results/report/summary.tsv"],
           "all": [], "archive": ["results/archive/study.tar.gz"]}  # fmt: skip
WARNINGS = """
simgold: to decide before publishing a release (each job's log: logs/release/{dataset}.log):
  m.txt: left out 1 pair without a score
  m: its raw files may not be redistributed; the release derives from them
  m: no release licence (release: {license: ...} in the config); the card says so"""
NO_LICENCE = """
simgold: no licence is chosen for the archive: set archive.license in the config (an SPDX expression, such as \
CC-BY-4.0, that the data and code it holds allow); until one is, the archive says that none was chosen"""


def _logs(root) -> None:
    for dataset, text in (("m", M_LOG), ("r", R_LOG)):
        path = root / RELEASE_LOG.format(dataset=dataset)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_a_jobs_warning_as_its_log_writes_it_is_read_back():
    import logging

    from simgold.workflow.logs import LOG_FORMAT

    record = logging.LogRecord("simgold.release_means", logging.WARNING, "", 0, "m: no release licence", None, None)
    assert logged_warnings(logging.Formatter(LOG_FORMAT).format(record) + "\n") == ["m: no release licence"]


def test_the_warnings_of_a_log_are_its_warning_records():
    log = "INFO start\nWARNING one\nWARNING two lines:\nthe second\nERROR bad\nINFO done\n"
    assert logged_warnings(log) == ["one", "two lines:\n    the second"]
    assert logged_warnings("") == [] and logged_warnings("INFO all fine\n") == []


def test_every_release_warning_is_repeated_from_the_jobs_logs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert release_report(["m", "r"]) == ""  # no log yet: nothing to repeat
    _logs(tmp_path)
    assert release_report(["m", "r"]) == WARNINGS
    assert release_report(["r"]) == ""
    # a warning that does not name its dataset is said with it
    (tmp_path / RELEASE_LOG.format(dataset="r")).write_text("WARNING 2 words start with '#'\n", encoding="utf-8")
    assert release_report(["r"]).splitlines()[-1] == "  r: 2 words start with '#'"


def test_a_whole_run_ends_with_the_warnings_the_archive_licence_and_where_the_results_are(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _logs(tmp_path)
    jobs = [("release_means", {"dataset": "m"}), ("release_ratings", {"dataset": "r"}), ("gold", {"dataset": "m"}), ("all", {})]
    archive = "results/archive/study.tar.gz"
    said = last_lines(ROUTING, [], OUTPUTS, jobs, archive=archive, archive_license=None)
    assert said.startswith(WARNINGS + NO_LICENCE + "\nsimgold: finished. The results:\n  report   results/report/")
    assert "paper    results/scores/leaderboard.md" in said and "for a paper: snakemake --cores 8 archive" in said
    # rule all named, the jobs unknown (every dataset's log is read): the same; a licence: no warning of it
    assert last_lines(ROUTING, ["all"], OUTPUTS, None, archive=archive, archive_license=None) == said
    licensed = last_lines(ROUTING, [], OUTPUTS, jobs, archive=archive, archive_license="CC-BY-4.0")
    assert licensed == said.replace(NO_LICENCE, "")
    # `snakemake archive`: where the archive is
    archived = last_lines(ROUTING, ["archive"], OUTPUTS, jobs, archive=archive, archive_license=None)
    assert archived.startswith(WARNINGS + NO_LICENCE) and f"  archive  {archive} (unpack it" in archived


def test_a_targeted_run_names_only_what_it_made(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _logs(tmp_path)
    jobs = [("clean_dataset", {"dataset": "m"}), ("gold", {"dataset": "m"}), ("release_means", {"dataset": "m"})]
    said = last_lines(ROUTING, ["results/release/m/"], OUTPUTS, jobs, archive="a.tar.gz", archive_license=None)
    assert said == WARNINGS + "\nsimgold: finished. Made, as asked:\n  results/release/m"
    # r's release is not part of the run: its warnings are not said
    (tmp_path / RELEASE_LOG.format(dataset="r")).write_text("WARNING r: no release licence\n", encoding="utf-8")
    jobs_r = [("release_ratings", {"dataset": "r"})]
    assert last_lines(ROUTING, ["results/release/r"], OUTPUTS, jobs_r, archive="a", archive_license=None) == (
        "\nsimgold: to decide before publishing a release (each job's log: logs/release/{dataset}.log):"
        "\n  r: no release licence\nsimgold: finished. Made, as asked:\n  results/release/r"
    )
    # a rule's name stands for its files; a run without release jobs says no release warning
    tables = last_lines(ROUTING, ["score_tables"], OUTPUTS, [("score_tables", {})], archive="a", archive_license=None)
    assert tables == "\nsimgold: finished. Made, as asked:\n  results/scores/wide.tsv\n  results/report/summary.tsv"


def test_what_a_run_was_asked_for():
    assert asked_for([], OUTPUTS) is None and asked_for(["all"], OUTPUTS) is None
    assert asked_for(["archive", "results/release/m"], OUTPUTS) is None  # the archive holds every result
    assert asked_for(["./results/release/m/", "results/release/m", "score_tables"], OUTPUTS) == [
        "results/release/m", "results/scores/wide.tsv", "results/report/summary.tsv",
    ]  # fmt: skip
    many = [f"results/release/d{i}" for i in range(25)]
    named = last_lines(dataclasses.replace(ROUTING, cleaned=[]), many, OUTPUTS, [], archive="a", archive_license=None)
    assert named.splitlines()[-2:] == ["  results/release/d19", "  and 5 more"]
    assert datasets_of([("release", {"dataset": "b"}), ("release", {"dataset": "a"}), ("gold", {"dataset": "c"}),
                        ("release", {"dataset": "a"}), ("release", {})], "release") == ["a", "b"]  # fmt: skip


def test_a_dataset_kept_out_by_its_licence_is_named_at_the_end_of_a_whole_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    kept_out = dataclasses.replace(ROUTING, released=["r"])
    said = last_lines(kept_out, [], OUTPUTS, None, archive="results/archive/a.tar.gz", archive_license="CC0-1.0")
    line = (
        "simgold: not released (redistribute: false): m; no release is built for them, and an archive leaves out "
        "their raw files and every table that holds their items (only the checksums go in)"
    )
    assert line in said.splitlines() and withheld_warning(ROUTING) == ""
    # a targeted run names only what it made
    assert line not in last_lines(
        kept_out, ["results/gold/r/gold.parquet"], OUTPUTS, [], archive="a", archive_license=None
    )
