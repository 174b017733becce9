# simgold: word-similarity gold standards and embedding evaluation. See README.md.
from snakemake.utils import min_version

min_version("9.0")

from simgold.config import check_config_files

# Before Snakemake reads the config (keeping the last of two equal keys, expanding YAML aliases):
# refuse a key given twice and an alias bomb, in this file and in any --configfile.
check_config_files(["config/config.yaml", *workflow.overwrite_configfiles])


configfile: "config/config.yaml"


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/clean.smk"
include: "workflow/rules/translate.smk"
include: "workflow/rules/calibrate.smk"
include: "workflow/rules/agreement.smk"
include: "workflow/rules/gold.smk"
include: "workflow/rules/scores.smk"
include: "workflow/rules/context.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/archive.smk"


rule all:
    default_target: True
    input:
        all_targets(),
