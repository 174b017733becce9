"""The report's front page (the answer first) and the summary table as TSV."""

import pandas as pd

from simgold.report import agreement_overview, flag_scores, index_page, write
from simgold.tables import read_parquet
from simgold.workflow import run


def main(snakemake, log):
    inputs = snakemake.input
    summary = read_parquet(inputs.scores[0]) if inputs.scores else pd.DataFrame(columns=["subset", "metric", "n_used"])
    agreement = agreement_overview(
        [read_parquet(p) for p in inputs.agreement], [read_parquet(p) for p in inputs.raters]
    )
    reliability = [read_parquet(p) for p in inputs.reliability]
    page = index_page(
        snakemake.params.datasets,
        summary,
        read_parquet(inputs.clean),
        read_parquet(inputs.crosslingual),
        agreement,
        reliability=pd.concat(reliability, ignore_index=True) if reliability else None,
        audit={name: read_parquet(p) for name, p in zip(snakemake.params.audited, inputs.audit)},
    )
    write(snakemake.output.page, page)
    flag_scores(summary).to_csv(
        snakemake.output.summary, sep="\t", index=False, float_format="%.6g", lineterminator="\n"
    )
    log.info("report index: %d datasets, %d score rows", len(snakemake.params.datasets), len(summary))


run(snakemake, main)
