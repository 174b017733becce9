"""The CI level a reader sees comes from the config that ran (scoring.confidence), in the terminal,
on the report's pages, in the figures' captions and on their axes: a run at 0.90 says 90%."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import jinja2
import numpy as np
import pandas as pd
import pytest

from simgold.io.config import check_config, load_config
from simgold.io.labels import confidence_label
from simgold.report import figures as figures_module
from simgold.report.figures import figures_rst
from simgold.report.leaderboard import leaderboard
from simgold.report.pages import dataset_page, index_page
from simgold.stages.scores import ScoringSettings, paired_difference, score_dataset, summary, with_holm
from simgold.stages.vectors import Vectors
from simgold.workflow.routing import report_figures, stages

ROOT = Path(__file__).resolve().parents[2]


def _scores(confidence: float) -> pd.DataFrame:
    """Two models' real score tables on 60 pairs, at ``confidence``."""
    rng = np.random.default_rng(9)
    words = [f"w{i}" for i in range(40)]
    pairs = pd.DataFrame({"item_id": [f"i{k}" for k in range(60)], "word1": rng.choice(words, 60), "word2": rng.choice(words, 60)})
    gold = pd.DataFrame({"item_id": pairs["item_id"], "mean": rng.uniform(0, 10, 60)})
    tables = []
    for model in ("a", "b"):
        table = pd.DataFrame({"word": words, "source": "file", "vector": list(rng.normal(size=(40, 8)).astype(np.float32))})
        vectors = Vectors(table, lowercase=False, oov="skip")
        _, scores = score_dataset("toy", model, "means", pairs, vectors, gold=gold, scoring=ScoringSettings(200, 1, confidence))
        tables.append(scores)
    return pd.concat(tables, ignore_index=True)


def test_a_level_is_written_as_readers_expect():
    assert [confidence_label(c) for c in (0.95, 0.9, 0.99, 0.975, 0.8)] == ["95%", "90%", "99%", "97.5%", "80%"]


def test_a_level_is_never_rounded():
    """0.9999999 was said as "100%" (six significant digits): a level is said with its own digits."""
    levels = [0.9999999, 0.99999995, 0.999, 1 - 2**-53, 0.1 + 0.2, 1e-9, 0.123456789012345, np.float64(0.95)]
    assert [confidence_label(c) for c in levels] == [
        "99.99999%", "99.999995%", "99.9%", "99.99999999999999%", "30.000000000000004%", "0.0000001%",
        "12.3456789012345%", "95%",
    ]  # fmt: skip
    # any level in (0, 1): below 100%, and read back (the percentage moved two places) the same float
    for level in [*levels, *np.random.default_rng(5).uniform(size=2000), *(1 - 10.0 ** -np.arange(1, 16))]:
        label = confidence_label(level)
        assert label != "100%" and float(Decimal(label[:-1]) / 100) == float(level), (level, label)


def test_a_level_close_to_one_is_said_with_its_digits_in_the_tables(tmp_path):
    table = summary(_scores(0.9999999))
    boards = leaderboard(table, min_coverage=0.9)
    assert "Spearman [99.99999% CI] (OOV pairs)" in boards["tsv"] and "100%" not in boards["tsv"]
    assert "its 99.99999% bootstrap CI" in boards["md"] and "the 99.99999\\% bootstrap CI" in boards["tex"]
    front = index_page(["toy"], table, pd.DataFrame(), None)
    assert "99.99999% bootstrap CI" in front and "100%" not in front


def test_a_run_at_ninety_percent_says_ninety_percent_everywhere(tmp_path, monkeypatch):
    scores = _scores(0.90)
    assert set(scores.loc[scores["metric"] == "spearman", "confidence"]) == {0.90}
    assert scores.loc[scores["metric"] == "oov_pairs", "confidence"].isna().all()  # no CI, no level
    wider = _scores(0.95)
    spearman = lambda t: t[(t["metric"] == "spearman") & (t["model"] == "a")].iloc[0]  # noqa: E731
    assert spearman(wider)["ci_high"] - spearman(wider)["ci_low"] > spearman(scores)["ci_high"] - spearman(scores)["ci_low"]
    table = summary(scores)

    # the terminal
    results = tmp_path / "results"
    (results / "scores").mkdir(parents=True)
    table.to_parquet(results / "scores" / "summary.parquet", index=False)
    from ..test_cli import simgold

    out = simgold("scores", "--results", results)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0] == "spearman with 90% bootstrap CI; oov: share of pairs not scored"

    # the pages: the dataset's scores and model differences, the front page
    gold = np.random.default_rng(2).uniform(size=30)
    diff = with_holm(pd.DataFrame([paired_difference("toy", "a", "b", gold, gold + 0.1 * np.arange(30), gold[::-1].copy(),
                                                     resamples=100, confidence=0.90)]))  # fmt: skip
    page = dataset_page("toy", clean=None, agreement=None, scores=table, context=None, figures=[],
                        statistics={"differences": diff})  # fmt: skip
    assert "Model scores with 90% bootstrap CIs" in page and "with its 90% paired-bootstrap CI" in page
    assert "Zou&#x27;s (2007) 90% CI" in page and "95%" not in page
    front = index_page(["toy"], table, pd.DataFrame(), None)
    assert "90% bootstrap CI" in front and "scores with 90% CIs" in front and "95%" not in front

    # the figures: the page's captions and the caption snakemake --report renders, from the config
    config = load_config(ROOT / "config" / "config.yaml")
    config["scoring"] = {**config.get("scoring", {}), "confidence": 0.90}
    resolved = check_config(config, ROOT)
    level = confidence_label(resolved["scoring"]["confidence"])
    captions = dict((Path(p).stem, c) for p, c in report_figures(stages(resolved), "ws353", level=level))
    assert captions["scores"] == "Model scores with 90% bootstrap CIs"  # means only: no raters, no ceiling
    captions = dict((Path(p).stem, c) for p, c in report_figures(stages(resolved), "demo-da", level=level))
    assert captions["scores"] == "Model scores with 90% bootstrap CIs and the human ceiling"
    template = jinja2.Template(figures_rst())
    namespace = type("Job", (), {"wildcards": {"figure": "scores", "dataset": "ws353"}, "params": {"ci_level": level}})
    rendered = template.render(snakemake=namespace)
    assert "with 90% percentile bootstrap confidence intervals" in rendered and "95%" not in rendered

    # and the figure's axis
    labels = []
    monkeypatch.setattr("matplotlib.axes.Axes.set_ylabel", lambda self, text, *a, **k: labels.append(text))
    figures_module._scores_figure(table, tmp_path / "scores.png", "toy: model scores")
    assert labels == ["Spearman's rho (90% bootstrap CI)"]


def test_the_workflow_passes_the_configs_level_to_the_report_jobs():
    """The rules hand the report jobs the level (their params); the captions read it from there."""
    rules = (ROOT / "workflow" / "rules" / "report.smk").read_text(encoding="utf-8")
    assert rules.count("ci_level=CI_LEVEL") == 2
    common = (ROOT / "workflow" / "rules" / "common.smk").read_text(encoding="utf-8")
    assert 'CI_LEVEL = confidence_label(CONFIG["scoring"]["confidence"])' in common
    for name in ("index.rst", "summary.rst", "figures.rst"):
        text = (ROOT / "workflow" / "report" / name).read_text(encoding="utf-8")
        assert "95%" not in text.replace("95% of the splits", "") and "{{ snakemake.params.ci_level }}" in text, name


@pytest.mark.parametrize("bad", [0, 1, 1.5])
def test_the_schema_refuses_a_level_outside_zero_and_one(bad):
    from simgold.io.config import ConfigError

    config = load_config(ROOT / "config" / "config.yaml")
    config["scoring"] = {"confidence": bad}
    with pytest.raises(ConfigError, match="confidence"):
        check_config(config, ROOT)
