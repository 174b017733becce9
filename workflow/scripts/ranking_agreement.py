"""Agreement of target-group rankings (per-target Spearman averaged over targets), outlier filtering."""

from simgold.agreement import ranking_report
from simgold.tables import read_parquet, write_parquet
from simgold.workflow import provenance_for, run


def main(snakemake, log):
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


run(snakemake, main)
