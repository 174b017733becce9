"""Bootstrap CIs on agreement per stage and subset, and Krippendorff's alpha at every level."""

from simgold.agreement import agreement_report, alpha_levels
from simgold.tables import read_parquet, write_parquet
from simgold.workflow import provenance_for, run


def main(snakemake, log):
    name, params = snakemake.wildcards.dataset, snakemake.params
    settings = params.agreement
    items, raw, calibrated = (read_parquet(snakemake.input[key]) for key in ("item_table", "raw", "calibrated"))
    ci = {"resamples": settings["resamples"], "max_work": settings["ci_max_work"]}
    report = agreement_report(
        name,
        items,
        raw,
        calibrated,
        read_parquet(snakemake.input.calibration),
        min_overlap=settings["min_overlap"],
        subset_names=settings["subsets"],
        outliers=params.outliers,
        persistent_raters=params.persistent_raters,
        ci={**ci, "seed": params.seed, "confidence": params.confidence},
    )
    stages = {"raw": raw, "calibrated": calibrated, "filtered": report["ratings"]}
    alpha = alpha_levels(name, items, stages, settings["subsets"])
    table = report["agreement_ci"]
    log.info("\n%s", table.drop(columns=["dataset", "confidence", "note"]).to_string(index=False))
    log.info("\n%s", alpha.drop(columns=["dataset"]).to_string(index=False))
    prov = provenance_for(snakemake)
    write_parquet(table, snakemake.output.ci, table="agreement_ci", provenance=prov)
    write_parquet(alpha, snakemake.output.alpha, table="alpha", provenance=prov)


run(snakemake, main)
