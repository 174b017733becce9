"""Calibrate one dataset's raters (shift or z-score), recording each rater's shift."""

from simgold.workflow.warm import hand_over

hand_over()  # where the run's warm worker answers, it runs this job (simgold.workflow.warm)

from simgold.io.tables import read_parquet, write_parquet
from simgold.stages.calibrate import calibrate
from simgold.stages.controls import calibration_exclusions, recorded_params
from simgold.workflow.job import provenance_for, run


def main(snakemake, log):
    settings = snakemake.params.calibration
    ratings = read_parquet(snakemake.input.ratings)
    anchors = snakemake.params.anchors  # the items table is an input only where the dataset has anchors
    without = calibration_exclusions(read_parquet(snakemake.input.item_table), anchors) if anchors else set()
    if without:
        log.info("calibration: parameters without the ratings of %d anchors", len(without))
    calibrated, raters = calibrate(ratings, snakemake.params.scale, **settings, without=without)
    moved = raters[raters["calib_shift"] != 0]
    log.info("calibration %s: %d of %d raters moved", settings["method"], len(moved), len(raters))
    for r in moved.itertuples():
        log.info(
            "  %s: mean differs by %+.3f, shifted %+g (%d scores changed)",
            r.rater,
            r.calib_diff,
            r.calib_shift,
            r.n_changed,
        )
    prov = provenance_for(snakemake, recorded_params(snakemake.params))
    write_parquet(calibrated, snakemake.output.ratings, table="ratings", provenance=prov)
    write_parquet(raters, snakemake.output.raters, table="calibration", provenance=prov)


run(snakemake, main)
