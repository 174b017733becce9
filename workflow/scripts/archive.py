"""Write the paper-submission archive: code, config, environment, inputs, results, MANIFEST, RO-Crate."""

from pathlib import Path

from simgold.archive import build
from simgold.workflow import run


def main(snakemake, log):
    target = Path(snakemake.output[0])
    summary = build(Path.cwd(), snakemake.params.config, list(snakemake.input), target)
    log.info("%s: %d files", target, summary["files"])
    for path in summary["withheld"]:
        log.info("  not redistributable, only its checksum and source are recorded: %s", path)
    log.info("check an unpacked copy with: python -m simgold.archive verify <dir>  (or: rebuild <dir>)")


run(snakemake, main)
