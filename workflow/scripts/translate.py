"""Link a translated dataset's items to its source dataset's items; list what did not link and why."""

from simgold.tables import read_parquet, write_parquet
from simgold.translate import translate_dataset
from simgold.workflow import provenance_for, run


def main(snakemake, log):
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


run(snakemake, main)
