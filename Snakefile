# simgold: word-similarity gold standards and embedding evaluation. See README.md.
# The workflow is workflow/Snakefile (the layout that the Snakemake workflow catalog and
# `snakedeploy deploy-workflow` expect); this file lets `snakemake` run from the checkout's root.


include: "workflow/Snakefile"


# an include keeps the included file's default target to itself: `snakemake` alone builds `all`
workflow.default_target = "all"
