"""One table of every dataset x model x metric, with CIs, OOV shares and the human ceiling."""

import pandas as pd

from simgold.scoring import summary
from simgold.tables import read_parquet, write_parquet
from simgold.workflow import provenance_for, run


def main(snakemake, log):
    table = summary(pd.concat([read_parquet(p) for p in snakemake.input], ignore_index=True))
    view = table[(table["subset"] == "all") & table["metric"].isin(["spearman", "ag_score"])]
    log.info(
        "\n%s",
        view[["dataset", "model", "metric", "value", "ci_low", "ci_high", "oov_pairs", "human_ceiling"]].to_string(
            index=False
        ),
    )
    write_parquet(table, snakemake.output[0], table="summary_scores", provenance=provenance_for(snakemake))


run(snakemake, main)
