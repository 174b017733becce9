"""Vectors of every word the model's datasets need: one pass over the embedding file (or computed once per word)."""

from simgold.embeddings import coverage_warning, load_model, write_embeddings
from simgold.scoring import words_of
from simgold.tables import read_parquet
from simgold.workflow import provenance_for, run


def main(snakemake, log):
    name, model = snakemake.wildcards.model, snakemake.params.model
    words = sorted({w for path in snakemake.input.words for w in words_of(read_parquet(path))})
    log.info("%s: %d distinct words needed by %d datasets", name, len(words), len(snakemake.input.words))
    table, report = load_model(model, words, log=log.info, threads=snakemake.threads)
    have = set(table["word"])
    found = {w for w in words if w in have or (model["lowercase"] and w.lower() in have)}
    log.info(
        "%s (%s, %d dimensions): %d words in the file, %d kept; %d of %d needed words found (%.1f%%)",
        report.file,
        report.format,
        report.dim,
        report.lines,
        report.kept,
        len(found),
        len(words),
        100 * len(found) / max(1, len(words)),
    )
    for note in report.notes:
        log.info("%s: %s", report.file, note)
    warning = coverage_warning(report, len(found), len(words))
    if warning:
        log.warning("%s", warning)
    for word, first, again in report.duplicates:
        log.info("  duplicated word %r: line %d kept, line %d ignored", word, first, again)
    write_embeddings(table, report, snakemake.output[0], provenance_for(snakemake))


run(snakemake, main)
