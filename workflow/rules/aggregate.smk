# One dataset per point: all blocks' runs concatenated along `sample`.


rule aggregate_stage:
    """Concatenate one stage of a point's runs (campaign key aggregate_stage_size blocks).

    Points with many jobs are aggregated in two stages, so that no process opens
    thousands of files and the stages run in parallel; the result is the same dataset.
    """
    input:
        stage_runs,
    output:
        "results/{campaign}/datasets/stages/{point}/s{stage}.nc",
    log:
        "results/{campaign}/logs/aggregate/{point}_s{stage}.log",
    resources:
        runtime=30,
        mem_mb=lambda wildcards, input: 1024 + 3 * int(input.size_mb),
    conda:
        "../envs/simcore.yaml"
    shell:
        "python -m analysis.aggregate --out {output:q} {input:q} > {log:q} 2>&1"


rule aggregate:
    """Concatenate the runs of a point (refuses mismatched parameters or repeated samples).

    Its input is the list of the point's blocks, so adding samples reruns it.
    """
    input:
        point_runs,
    output:
        "results/{campaign}/datasets/{point}.nc",
    log:
        "results/{campaign}/logs/aggregate/{point}.log",
    resources:
        runtime=30,
        mem_mb=lambda wildcards, input: 1024 + 3 * int(input.size_mb),
    conda:
        "../envs/simcore.yaml"
    shell:
        "python -m analysis.aggregate --out {output:q} {input:q} > {log:q} 2>&1"
