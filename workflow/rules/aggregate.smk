# One dataset per point: all blocks' runs concatenated along `sample`.


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
