"""The headline scores as a dataset x model TSV, and one MTEB-style JSON per model and dataset."""

from simgold.report import headline, mteb_result, wide_table, write_json
from simgold.tables import read_parquet
from simgold.workflow import run


def main(snakemake, log):
    summary = read_parquet(snakemake.input[0])
    wide = wide_table(headline(summary))
    wide.to_csv(snakemake.output.wide, sep="\t", index=False, float_format="%.6g", lineterminator="\n")
    for (dataset, model), path in zip(snakemake.params.scored, snakemake.output.json):
        write_json(path, mteb_result(summary, dataset, model, snakemake.params.languages[dataset]))
    log.info("%d datasets x %d models; %d result files", len(wide), wide.shape[1] - 2, len(snakemake.output.json))


run(snakemake, main)
