# The release of each gold standard (docs/methods.md section 12): the data files a paper's readers
# load, the dataset card and the Croissant metadata, one folder per dataset, and beside them the
# run's model scores. Every file is declared: a directory output would leave Snakemake's marker file
# in the folder that is uploaded. A release's files depend on the dataset's kind
# (simgold.io.paths.RELEASE_DATA), so there is one rule per kind the config has.
for kind in sorted({STAGES.kinds[d] for d in RELEASED}):

    rule:
        name:
            release_rule(kind)
        input:
            unpack(release_inputs),
        output:
            release_files("{dataset}", kind),
        log:
            RELEASE_LOG,  # its warnings are repeated at the end of the run (simgold.workflow.routing)
        wildcard_constraints:
            # not a dataset kept out by its licence (redistribute: false): it gets no release
            dataset=alternatives([d for d in RELEASED if STAGES.kinds[d] == kind]),
        conda:
            "../envs/models.yaml"
        threads: 1
        resources:
            mem_mb=1000,
            runtime=10,
        params:
            spec=dataset_spec,
            confidence=CONFIG["scoring"]["confidence"],
            date=CONFIG["archive"]["date"],  # the publication date: fixed, so the files' bytes are
            # the card links the scores file beside it where models score the dataset; it does not wait for them
            scored=lambda wildcards: wildcards.dataset in SCORED_BY,
        script:
            "../scripts/release.py"


# The run's model scores on a released dataset, with their CIs, the human ceiling and the minimum
# significant difference: a file beside the card, made once the models have run.
rule release_scores:
    input:
        scores=lambda wildcards: [
            result("scores", dataset=wildcards.dataset, model=m) for m in SCORED_BY[wildcards.dataset]
        ],
        msd=RESULTS["msd"],
    output:
        RESULTS["release_scores"],
    log:
        "logs/release/{dataset}.scores.log",
    wildcard_constraints:
        dataset=alternatives(released_and_scored(STAGES)),  # not a dataset kept out by its licence
    conda:
        "../envs/models.yaml"  # its script is the release's (simgold.report.release)
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        models=lambda wildcards: {m: CONFIG["models"][m] for m in SCORED_BY[wildcards.dataset]},
    script:
        "../scripts/release.py"
