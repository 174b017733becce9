"""Write the paper-submission archive: code, config, environment, inputs, results, MANIFEST, RO-Crate."""

from simgold.workflow.warm import hand_over

hand_over()  # where the run's warm worker answers, it runs this job (simgold.workflow.warm)

from pathlib import Path

from simgold.report.archive import build
from simgold.workflow.job import run


def main(snakemake, log):
    target = Path(snakemake.output[0])
    params = snakemake.params
    summary = build(
        Path.cwd(),
        params.config,
        list(snakemake.input),
        target,
        code_root=Path(params.code_root),
        run_config=dict(params.run_config),
    )
    log.info("%s: %d files, code from %s", target, summary["files"], params.code_root)
    for path in summary["withheld"]:
        log.info("  not redistributable, only its checksum and source are recorded: %s", path)
    for path in summary["links"]:
        log.info("  a link, left out (an archive holds no links): %s", path)
    log.info("check an unpacked copy with: simgold verify <dir>  (or: simgold rebuild <dir>)")


run(snakemake, main)
