"""The jobs of workflow/rules/translate.smk, one function per rule (``run`` picks the rule's):

* ``translate``: Link a translated dataset's items to its source dataset's items; list what did not
  link and why.
* ``crosslingual``: Cross-lingual table (one row per source item, one column per dataset's gold
  mean) and the Spearman between every two datasets of a translation group over their shared items.
"""

from simgold.workflow.warm import hand_over

hand_over()  # where the run's warm worker answers, it runs this job (simgold.workflow.warm)

from pathlib import Path

import pyarrow as pa

from simgold.io.tables import read_parquet, write_parquet
from simgold.stages.translate import crosslingual, link_to_root, translate_dataset
from simgold.workflow.job import provenance_for, run


def translate_job(snakemake, log):
    name = snakemake.wildcards.dataset
    gold = None
    if "gold" in snakemake.input.keys():
        gold = (read_parquet(snakemake.input.gold), read_parquet(snakemake.input.source_gold))
    items, dropped = translate_dataset(
        name,
        read_parquet(snakemake.input.item_table),
        read_parquet(snakemake.input.source_items),
        snakemake.params.translation,
        gold=gold,
    )
    counts = items["link_status"].value_counts().to_dict()
    log.info(
        "%s: %d items, %d linked, %d not linked", name, len(items), counts.get("linked", 0), counts.get("unlinked", 0)
    )
    for r in dropped.itertuples():
        log.info("  dropped %s %s %s/%s: %s %s", r.side, r.item_id, r.word1, r.word2, r.reason, r.candidates)
    for r in items[items["link_note"] != ""].itertuples():
        if r.link_status == "linked":
            log.info("  note %s %s/%s: %s", r.item_id, r.word1, r.word2, r.link_note)
    prov = provenance_for(snakemake)
    write_parquet(items, snakemake.output.item_table, table="items", provenance=prov)
    write_parquet(dropped, snakemake.output.dropped, table="dropped", provenance=prov)


def by_name(paths) -> dict:
    """results/<stage>/{dataset}/<table>.parquet -> {dataset: table}"""
    return {Path(p).parent.name: read_parquet(p) for p in paths}


def crosslingual_job(snakemake, log):
    root_items, links, gold = (
        by_name(snakemake.input.root_items),
        by_name(snakemake.input.links),
        by_name(snakemake.input.gold),
    )
    groups = {}
    for root, members in snakemake.params.groups.items():
        groups[root] = {
            "items": root_items[root],
            "gold": {d: gold[d] for d in [root, *members]},
            "links": {d: link_to_root(d, links, snakemake.params.sources, root) for d in members},
        }
    scoring = snakemake.params.scoring
    table, correlations = crosslingual(
        groups,
        snakemake.params.languages,
        resamples=scoring["resamples"],
        seed=scoring["seed"],
        confidence=scoring["confidence"],
    )
    log.info("\n%s", correlations.to_string(index=False) if len(correlations) else "no translations configured")
    prov = provenance_for(snakemake)
    datasets = [c for c in table.columns if c not in ("source_dataset", "source_item_id", "word1", "word2")]
    write_parquet(
        table, snakemake.output.table, table="crosslingual", provenance=prov, types={d: pa.float64() for d in datasets}
    )
    write_parquet(correlations, snakemake.output.correlations, table="crosslingual_correlations", provenance=prov)


JOBS = {"translate": translate_job, "crosslingual": crosslingual_job}

run(snakemake, JOBS[snakemake.rule])
