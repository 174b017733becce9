# The release of each gold standard (docs/methods.md section 12): the data files a paper's readers
# load, the dataset card and the Croissant metadata, one directory per dataset.


rule release:
    input:
        unpack(release_inputs),
    output:
        directory(RESULTS["release"]),
    log:
        RELEASE_LOG,  # its warnings are repeated at the end of the run (simgold.workflow.routing)
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
    script:
        "../scripts/release.py"
