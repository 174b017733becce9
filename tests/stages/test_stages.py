"""Which datasets go through which stage, for the default config (its datasets listed by hand), and
the files a run makes from them (for a two-dataset config written out by hand)."""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path

from simgold.io.config import check_config, load_config
from simgold.workflow.routing import (
    CLEAN_TABLES,
    Stages,
    all_targets,
    figures_directory,
    finished_message,
    gold_standard_file,
    report_figures,
    stages,
)

from ..conftest import ROOT, checked_default_config

EN = ["demo-en-bws", "demo-en-context", "simlex999", "ws353"]
ALL = ["demo-da", "demo-de", "demo-en-bws", "demo-en-context", "demo-he-rank", "demo-hr", "simlex999", "ws353"]


def _config():
    return copy.deepcopy(checked_default_config())  # the session's checked default config, a copy to change


def test_the_default_configs_stages():
    s = stages(_config())
    assert s.datasets == ALL and s.models == ["e5-small", "glove-6b-50d", "minilm"]
    assert s.cleaned == ALL  # no ag-evaluation files
    assert s.rated == ["demo-da", "demo-de", "demo-en-context", "demo-hr"]  # the contexts sheet has raters
    assert s.ranked == ["demo-he-rank"] and s.context == ["demo-en-context"] and s.bws == ["demo-en-bws"]
    assert s.compared == ["demo-da", "demo-de", "demo-he-rank", "demo-hr"]  # ratings of persistent raters, rankings
    assert s.translated == ["demo-hr"] and s.groups == {"demo-da": ["demo-hr"]}
    assert s.model_datasets["glove-6b-50d"] == EN == s.model_datasets["minilm"]
    assert s.model_datasets["e5-small"] == ALL  # da, hr, de, en, he
    assert len(s.scored) == 8 + 4 + 4 and s.scored_by["ws353"] == ["e5-small", "glove-6b-50d", "minilm"]
    assert s.scored_by["demo-da"] == ["e5-small"]
    assert s.gold_scored == set(ALL) - {"demo-he-rank"}
    assert s.cosimlex == [("demo-en-context", m) for m in ("e5-small", "glove-6b-50d", "minilm")]
    # noise: the three models on [ws353, demo-en-context] (they score simlex999 too, which is left out),
    # but not MiniLM on the context demo: it scores that dataset with in-context vectors, not the words' own
    both = [(d, m) for m in ("e5-small", "glove-6b-50d", "minilm") for d in ("demo-en-context", "ws353")]
    assert s.noised == [pair for pair in both if pair != ("demo-en-context", "minilm")]


def test_the_noise_block_restricts_datasets_and_models():
    raw = load_config(ROOT / "config" / "config.yaml")
    raw = copy.deepcopy(raw)
    raw["noise"] = {"datasets": ["ws353"]}  # every model, one dataset
    s = stages(check_config(raw, base_dir=ROOT))
    assert s.noised == [("ws353", "e5-small"), ("ws353", "glove-6b-50d"), ("ws353", "minilm")]
    raw["noise"] = {"models": ["minilm"]}  # one model, every dataset it scores with its words' own vectors
    s = stages(check_config(raw, base_dir=ROOT))
    assert s.noised == [(d, "minilm") for d in ("demo-en-bws", "simlex999", "ws353")]


# -------------------------------------------------------------------------------- the files a run makes

# "r": rated (per-rater scores, so comparisons too); "m": shipped means only, with the noise check;
# one model "g" scores both
TINY = Stages(
    datasets=["m", "r"],
    models=["g"],
    cleaned=["m", "r"],
    compared=["r"],
    rated=["r"],
    ranked=[],
    bws=[],
    context=[],
    translated=[],
    groups={},
    model_datasets={"g": ["m", "r"]},
    scored=[("m", "g"), ("r", "g")],
    scored_by={"m": ["g"], "r": ["g"]},
    gold_scored={"m", "r"},
    cosimlex=[],
    noised=[("m", "g")],
    released=["m", "r"],
    in_context=[],
    kinds={"m": "means", "r": "ratings"},
)
# the files of one dataset, with its name as {d}
MEANS_ONLY = {
    *(f"results/clean/{{d}}/{table}.parquet" for table in CLEAN_TABLES),
    "results/audit/{d}.parquet",
    "results/gold/{d}/gold.parquet",
    "results/gold/{d}/distribution.parquet",
    "results/scores/{d}/g/predictions.parquet",
    "results/scores/{d}/g/scores.parquet",
    "results/scores/{d}/model_differences.parquet",
    "results/scores/{d}/msd.parquet",
    "results/scores/json/simgold__g/no_revision_available/{d}.json",
    "results/report/{d}/index.html",
    "results/report/{d}/figures",
    # the release: every file declared (no directory output, whose marker file would be published)
    "results/release/{d}/{d}.parquet",
    "results/release/{d}/{d}.tsv",
    "results/release/{d}/{d}.txt",
    "results/release/{d}/README.md",
    "results/release/{d}/croissant.json",
    "results/release/{d}/scores.md",
}
RATED_EXTRA = {
    "results/calibrate/{d}/ratings.parquet",
    "results/calibrate/{d}/raters.parquet",
    "results/agreement/{d}/ratings.parquet",
    "results/agreement/{d}/agreement.parquet",
    "results/agreement/{d}/raters.parquet",
    "results/agreement/{d}/agreement_ci.parquet",
    "results/agreement/{d}/alpha.parquet",
    "results/agreement/{d}/icc.parquet",
    "results/agreement/{d}/retest.parquet",
    "results/reliability/{d}/summary.parquet",
    "results/reliability/{d}/curve.parquet",
    "results/comparisons/{d}.parquet",
    "results/comparisons/{d}.ag.txt",
}
EVERY_RUN = {
    "results/clean/summary.parquet",
    "results/translate/crosslingual.parquet",
    "results/translate/crosslingual_correlations.parquet",
    "results/embeddings/g.parquet",
    "results/embeddings/g.machine.json",
    "results/scores/summary.parquet",
    "results/scores/differences.parquet",
    "results/scores/wide.tsv",
    "results/scores/json/simgold__g/no_revision_available/model_meta.json",
    "results/scores/leaderboard.tsv",
    "results/scores/leaderboard.md",
    "results/scores/leaderboard.tex",
    "results/report/index.html",
    "results/report/summary.tsv",
}


def test_clean_tables_are_the_tables_cleaning_makes():
    from simgold.stages.clean import clean_dataset

    config = _config()
    tables = clean_dataset("demo-da", config["datasets"]["demo-da"], base_dir=str(ROOT))
    assert sorted(tables) == sorted(CLEAN_TABLES)  # the clean rule writes each of them, and only them


def test_all_targets_of_a_rated_and_a_means_only_dataset():
    targets = all_targets(TINY)
    expected = (
        {t.format(d="m") for t in MEANS_ONLY | {"results/noise/{d}/g.parquet"}}
        | {t.format(d="r") for t in MEANS_ONLY | RATED_EXTRA}
        | EVERY_RUN
    )
    assert set(targets) == expected
    assert len(targets) == len(set(targets))  # each file once
    assert "results/agreement/r/agreement_ci.parquet" in targets and "results/reliability/r/curve.parquet" in targets
    assert "results/agreement/m/agreement_ci.parquet" not in targets
    assert "results/reliability/m/curve.parquet" not in targets


def test_report_figures_in_page_order():
    assert [path for path, _ in report_figures(TINY, "r", level="95%")] == [
        "results/report/r/figures/scores.png",
        "results/report/r/figures/raters.png",
        "results/report/r/figures/reliability.png",
        "results/report/r/figures/distribution.png",
    ]
    figures = report_figures(TINY, "m", level="95%")
    assert [path for path, _ in figures] == [
        "results/report/m/figures/scores.png",
        "results/report/m/figures/noise.png",
        "results/report/m/figures/distribution.png",
    ]
    assert figures[1][1].startswith("Noise sanity check")
    # every figure a page shows is in its page's figure directory, which the run makes
    targets = set(all_targets(TINY))
    for d in TINY.datasets:
        assert {str(Path(path).parent) for path, _ in report_figures(TINY, d, level="95%")} <= {figures_directory(d)} <= targets


def test_a_figure_registered_once_is_listed_drawn_and_captioned(monkeypatch, tmp_path):
    """One FIGURES entry is all a new figure needs: the page lists it (where its predicate holds,
    after the figures before it in the registry), the report job draws it with its own function,
    and figures.rst gets its caption."""
    from simgold.report.figures import FIGURES, Figure, draw_dataset_figures, figures_rst

    def toy_figure(name, tables, path):
        Path(path).write_text(f"{name}: {tables['gold']} {tables['outliers']}", encoding="utf-8")

    toy = Figure(
        draw=toy_figure,
        caption="Toy caption",
        report_caption="Toy figure of {dataset}.",
        shown_if=lambda routing, d: d in routing.gold_scored and d not in routing.rated,
    )
    monkeypatch.setitem(FIGURES, "toy", toy)
    assert report_figures(TINY, "m", level="95%")[-1] == ("results/report/m/figures/toy.png", "Toy caption")
    assert "results/report/r/figures/toy.png" not in [path for path, _ in report_figures(TINY, "r", level="95%")]
    path = tmp_path / "toy.png"
    draw_dataset_figures("m", [(str(path), "Toy caption")], {"gold": "GOLD"}, outliers={"method": "none"})
    assert path.read_text(encoding="utf-8") == "m: GOLD {'method': 'none'}"
    assert figures_rst().endswith(
        '{% elif snakemake.wildcards.figure == "toy" %}\nToy figure of {{ snakemake.wildcards.dataset }}.\n{% endif %}\n'
    )


def test_a_run_without_models_makes_no_score_files():
    unscored = dataclasses.replace(TINY, models=[], model_datasets={}, scored=[], scored_by={}, noised=[])
    targets = all_targets(unscored)
    assert not [t for t in targets if t.startswith(("results/scores/", "results/embeddings/", "results/noise/"))]
    assert "results/report/r/index.html" in targets and "results/report/m/figures" in targets
    assert "results/release/r/README.md" in targets and "results/release/r/scores.md" not in targets  # no model
    assert [path for path, _ in report_figures(unscored, "m", level="95%")] == ["results/report/m/figures/distribution.png"]
    assert "wide.tsv" in finished_message(TINY) and "wide.tsv" not in finished_message(unscored)
    assert "leaderboard.md" in finished_message(TINY) and "leaderboard" not in finished_message(unscored)
    assert "results/release/{dataset}/" in finished_message(TINY)
    after = finished_message(TINY, "results/archive/study.tar.gz")
    assert "archive  results/archive/study.tar.gz" in after and "for a paper" not in after
    assert "for a paper: snakemake --cores 8 archive" in finished_message(TINY)


def test_the_revision_of_a_dataset_hashes_what_its_scores_are_computed_against():
    ranked = dataclasses.replace(TINY, datasets=["k", "m"], ranked=["k"], compared=["k"], gold_scored={"m"})
    assert gold_standard_file(ranked, "m") == "results/gold/m/gold.parquet"
    assert gold_standard_file(ranked, "k") == "results/comparisons/k.parquet"  # rankings: their comparisons


def test_the_default_configs_figures_follow_its_stages():
    s = stages(_config())
    targets = set(all_targets(s))
    for d in s.datasets:
        curve, figure = f"results/reliability/{d}/curve.parquet", f"results/report/{d}/figures/reliability.png"
        assert (curve in targets) == (d in s.rated) == (figure in [path for path, _ in report_figures(s, d, level="95%")])
    assert "results/report/demo-en-context/figures/context.png" in [p for p, _ in report_figures(s, "demo-en-context", level="95%")]
