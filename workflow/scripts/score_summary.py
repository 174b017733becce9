"""One table of every dataset x model x metric, with CIs, OOV shares, the human ceiling and the
dataset's minimum significant Spearman difference."""

import pandas as pd

from simgold.dependent_correlations import MSD_COLUMNS, with_msd
from simgold.scoring import summary
from simgold.tables import read_parquet, write_parquet
from simgold.workflow import provenance_for, run


def main(snakemake, log):
    msd = [read_parquet(p) for p in snakemake.input.msd]
    msd = pd.concat(msd, ignore_index=True) if msd else pd.DataFrame(columns=MSD_COLUMNS)
    table = with_msd(summary(pd.concat([read_parquet(p) for p in snakemake.input.scores], ignore_index=True)), msd)
    view = table[(table["subset"] == "all") & table["metric"].isin(["spearman", "ag_score"])]
    log.info(
        "\n%s",
        view[["dataset", "model", "metric", "value", "ci_low", "ci_high", "oov_pairs", "human_ceiling", "msd"]].to_string(
            index=False
        ),
    )
    write_parquet(table, snakemake.output[0], table="summary_scores", provenance=provenance_for(snakemake))


run(snakemake, main)
