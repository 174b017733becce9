# The dataset audit (docs/methods.md section 11.6): what the data say against what was released.


rule audit:
    input:
        unpack(audit_inputs),
    output:
        RESULTS["audit"],
    log:
        "logs/audit/{dataset}.log",
    wildcard_constraints:
        dataset=alternatives(CLEANED),
    conda:
        "../envs/models.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        spec=dataset_spec,
    script:
        "../scripts/audit.py"
