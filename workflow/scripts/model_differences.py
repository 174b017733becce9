"""Paired bootstrap and Williams' test between every two models scored on the same dataset, and
the dataset's minimum significant Spearman difference."""

import itertools

import pandas as pd

from simgold.dependent_correlations import dataset_msd
from simgold.scoring import paired_difference
from simgold.tables import TABLES, read_parquet, write_parquet
from simgold.workflow import provenance_for, run

COLUMNS = list(TABLES["model_differences"].names)


def main(snakemake, log):
    name, scoring = snakemake.wildcards.dataset, snakemake.params.scoring
    rows = []
    if "gold" in snakemake.input.keys():
        gold = read_parquet(snakemake.input.gold).set_index("item_id")["mean"]
        preds = {
            p["model"].iloc[0]: p.set_index("item_id")["sim"]
            for p in map(read_parquet, snakemake.input.predictions)
            if len(p)
        }
        for a, b in itertools.combinations(sorted(preds), 2):
            items = gold.index
            rows.append(
                paired_difference(
                    name,
                    a,
                    b,
                    gold.to_numpy(float),
                    preds[a].reindex(items).to_numpy(float),
                    preds[b].reindex(items).to_numpy(float),
                    resamples=scoring["resamples"],
                    seed=scoring["seed"],
                    confidence=scoring["confidence"],
                )
            )
    table = pd.DataFrame(rows, columns=COLUMNS)
    log.info(
        "\n%s", table.to_string(index=False) if len(table) else f"{name}: fewer than two models or no gold standard"
    )
    scores = pd.concat([read_parquet(p) for p in snakemake.input.scores], ignore_index=True)
    msd = dataset_msd(name, scores, table)
    log.info("minimum significant Spearman difference (p < 0.05):\n%s", msd.to_string(index=False))
    prov = provenance_for(snakemake)
    write_parquet(table, snakemake.output.differences, table="model_differences", provenance=prov)
    write_parquet(msd, snakemake.output.msd, table="msd", provenance=prov)


run(snakemake, main)
