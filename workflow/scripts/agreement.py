"""Agreement per stage and subset, per-rater agreement, outlier filtering; writes the filtered ratings
(the per-rater figure is drawn with the dataset's report page)."""

from simgold.agreement import agreement_report
from simgold.tables import read_parquet, write_parquet
from simgold.workflow import provenance_for, run


def main(snakemake, log):
    name = snakemake.wildcards.dataset
    settings = snakemake.params.agreement
    report = agreement_report(
        name,
        read_parquet(snakemake.input.item_table),
        read_parquet(snakemake.input.raw),
        read_parquet(snakemake.input.calibrated),
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
    prov = provenance_for(snakemake)
    write_parquet(table, snakemake.output.agreement, table="agreement", provenance=prov)
    write_parquet(report["raters"], snakemake.output.raters, table="raters", provenance=prov)
    write_parquet(report["ratings"], snakemake.output.ratings, table="ratings", provenance=prov)


run(snakemake, main)
