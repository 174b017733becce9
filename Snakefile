# simgold: word-similarity gold standards and embedding evaluation. See README.md.
from snakemake.utils import min_version

min_version("9.0")


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
