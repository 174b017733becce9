"""Cross-lingual table (one row per source item, one column per dataset's gold mean) and the
Spearman between every two datasets of a translation group over their shared items."""

from pathlib import Path

import pyarrow as pa

from simgold.tables import read_parquet, write_parquet
from simgold.translate import crosslingual, link_to_root
from simgold.workflow import provenance_for, run


def by_name(paths) -> dict:
    """results/<stage>/{dataset}/<table>.parquet -> {dataset: table}"""
    return {Path(p).parent.name: read_parquet(p) for p in paths}


def main(snakemake, log):
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
    table, correlations = crosslingual(groups, snakemake.params.languages)
    log.info("\n%s", correlations.to_string(index=False) if len(correlations) else "no translations configured")
    prov = provenance_for(snakemake)
    datasets = [c for c in table.columns if c not in ("source_dataset", "source_item_id", "word1", "word2")]
    write_parquet(
        table, snakemake.output.table, table="crosslingual", provenance=prov, types={d: pa.float64() for d in datasets}
    )
    write_parquet(correlations, snakemake.output.correlations, table="crosslingual_correlations", provenance=prov)


run(snakemake, main)
