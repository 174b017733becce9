"""The jobs of workflow/rules/agreement.smk, one function per rule (``run`` picks the rule's):

* ``agreement``: Agreement per stage and subset, per-rater agreement, outlier filtering; writes the
  filtered ratings (the per-rater figure is drawn with the dataset's report page).
* ``ranking_agreement``: Agreement of target-group rankings (per-target Spearman averaged over
  targets), outlier filtering.
* ``agreement_ci``: Bootstrap CIs on agreement per stage and subset, Krippendorff's alpha at
  every level, intraclass correlations and test-retest reliability, on the raters the
  ``agreement`` job kept (its raters table and filtered ratings).
* ``bws_agreement``: Best-Worst Scaling's split-half reliability, each rater's agreement with the
  others, outlier filtering; writes the answers kept.
"""

from simgold.workflow.warm import hand_over

hand_over()  # where the run's warm worker answers, it runs this job (simgold.workflow.warm)

from simgold.io.tables import read_parquet, write_parquet
from simgold.stages.agreement import (
    agreement_ci_report,
    agreement_report,
    alpha_levels,
    icc_levels,
    optimistic_note,
    ranking_report,
    retest_table,
)
from simgold.stages.bws_agreement import bws_report
from simgold.stages.controls import recorded_params, scored, with_attention
from simgold.workflow.job import provenance_for, run


def agreement_job(snakemake, log):
    name = snakemake.wildcards.dataset
    settings = snakemake.params.agreement
    items, raw, calibrated = scored(  # the anchors leave agreement, filtering and gold here unless in_gold
        snakemake.params.anchors, *(read_parquet(snakemake.input[key]) for key in ("item_table", "raw", "calibrated"))
    )
    report = agreement_report(
        name,
        items,
        raw,
        calibrated,
        read_parquet(snakemake.input.calibration),
        min_overlap=settings["min_overlap"],
        subset_names=settings["subsets"],
        outliers=snakemake.params.outliers,
        persistent_raters=snakemake.params.persistent_raters,
        log=log.info,
    )
    table = report["agreement"]
    log.info(
        "\n%s",
        table[
            ["stage", "subset", "n_raters", "n_items", "pairwise", "vs_mean", "vs_rest", "alpha_interval", "note"]
        ].to_string(index=False),
    )
    prov = provenance_for(snakemake, recorded_params(snakemake.params))
    write_parquet(table, snakemake.output.agreement, table="agreement", provenance=prov)
    attention = snakemake.params.attention  # the ledger is an input only where the dataset has attention checks
    rejects = read_parquet(snakemake.input.rejects) if attention else None
    raters = with_attention(report["raters"], rejects, attention)
    write_parquet(raters, snakemake.output.raters, table="raters", provenance=prov)
    write_parquet(report["ratings"], snakemake.output.ratings, table="ratings", provenance=prov)


def ranking_agreement_job(snakemake, log):
    name = snakemake.wildcards.dataset
    report = ranking_report(
        name, read_parquet(snakemake.input.rankings), outliers=snakemake.params.outliers, log=log.info
    )
    table = report["agreement"]
    log.info(
        "\n%s",
        table[["stage", "n_raters", "n_items", "pairwise", "vs_mean", "vs_rest", "alpha_interval"]].to_string(
            index=False
        ),
    )
    prov = provenance_for(snakemake)
    write_parquet(table, snakemake.output.agreement, table="agreement", provenance=prov)
    write_parquet(report["raters"], snakemake.output.raters, table="raters", provenance=prov)
    write_parquet(report["rankings"], snakemake.output.rankings, table="rankings", provenance=prov)


def agreement_ci_job(snakemake, log):
    name, params = snakemake.wildcards.dataset, snakemake.params
    settings = params.agreement
    items, raw, calibrated, filtered = scored(  # without the anchors, as the agreement job had them
        params.anchors, *(read_parquet(snakemake.input[key]) for key in ("item_table", "raw", "calibrated", "filtered"))
    )
    raters = read_parquet(snakemake.input.raters)
    ci = {
        "resamples": settings["resamples"],
        "max_work": settings["ci_max_work"],
        "min_defined": settings["ci_min_resamples"],
    }
    table = agreement_ci_report(
        name,
        items,
        raw,
        calibrated,
        raters,
        min_overlap=settings["min_overlap"],
        subset_names=settings["subsets"],
        outlier_method=params.outliers["method"],
        persistent_raters=params.persistent_raters,
        ci={**ci, "seed": params.seed, "confidence": params.confidence},
    )
    stages = {"raw": raw, "calibrated": calibrated, "filtered": filtered}
    alpha = alpha_levels(name, items, stages, settings["subsets"])
    excluded = raters.query("stage == 'calibrated'")["excluded"]
    optimism = optimistic_note(int(excluded.sum()), params.outliers["method"])
    icc = icc_levels(
        name,
        items,
        stages,
        settings["subsets"],
        persistent_raters=params.persistent_raters,
        confidence=params.confidence,
        notes={"filtered": optimism},
    )
    log.info("\n%s", table.drop(columns=["dataset", "confidence", "note"]).to_string(index=False))
    log.info("\n%s", alpha.drop(columns=["dataset"]).to_string(index=False))
    prov = provenance_for(snakemake, recorded_params(params))  # every input read, the agreement job's too
    write_parquet(table, snakemake.output.ci, table="agreement_ci", provenance=prov)
    write_parquet(alpha, snakemake.output.alpha, table="alpha", provenance=prov)
    log.info("\n%s", icc.drop(columns=["dataset", "note"]).to_string(index=False))
    write_parquet(icc, snakemake.output.icc, table="icc", provenance=prov)
    retest = retest_table(name, read_parquet(snakemake.input.repeats), params.confidence)
    log.info("test-retest:\n%s", retest.drop(columns=["dataset", "note"]).to_string(index=False))
    write_parquet(retest, snakemake.output.retest, table="retest", provenance=prov)


def bws_agreement_job(snakemake, log):
    name, params = snakemake.wildcards.dataset, snakemake.params
    report = bws_report(
        name,
        read_parquet(snakemake.input.answers),
        outliers=params.outliers,
        settings=params.bws,
        confidence=params.confidence,
        seed=params.seed,
        log=log.info,
    )
    log.info("\n%s", report["reliability"].drop(columns=["dataset"]).T.to_string(header=False))
    prov = provenance_for(snakemake)
    write_parquet(report["reliability"], snakemake.output.reliability, table="bws_reliability", provenance=prov)
    write_parquet(report["raters"], snakemake.output.raters, table="raters", provenance=prov)
    write_parquet(report["answers"], snakemake.output.answers, table="answers", provenance=prov)


JOBS = {
    "agreement": agreement_job,
    "ranking_agreement": ranking_agreement_job,
    "agreement_ci": agreement_ci_job,
    "bws_agreement": bws_agreement_job,
}

run(snakemake, JOBS[snakemake.rule])
