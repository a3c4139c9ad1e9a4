# Jobs: one run config and one `simcore run` per (point, block).


rule job_config:
    """Write the run config of one job (keys as in ARCHITECTURE.md).

    The config is a param: Snakemake's params trigger reruns exactly the jobs whose
    config changed; adding samples or points leaves the other configs (and runs) alone.
    A shell `printf` of the pre-rendered YAML, not a `run:` block: a `run:` job costs a
    whole Snakemake start-up (seconds), too much for thousands of jobs.
    """
    output:
        "results/{campaign}/jobs/{point}/b{block}.yaml",
    params:
        job=job_params,
        text=job_yaml,
    localrule: True
    shell:
        "printf '%s' {params.text:q} > {output:q}"


rule simulate:
    """Run the engine on one job config: one netCDF run file (ARCHITECTURE.md layout).

    Resources come from simcore.campaign.job_resources (runtime from L^dim * t_max *
    samples site updates, mem_mb from the lattice and result sizes; doubled per retry).
    """
    input:
        "results/{campaign}/jobs/{point}/b{block}.yaml",
    output:
        "results/{campaign}/runs/{point}/b{block}.nc",
    log:
        "results/{campaign}/logs/simulate/{point}/b{block}.log",
    threads: job_threads
    resources:
        runtime=job_resource("runtime"),
        mem_mb=job_resource("mem_mb"),
        gpu=job_resource("gpu"),
    shell:
        "NUMBA_NUM_THREADS={threads} OMP_NUM_THREADS={threads} "
        "simcore run {input:q} --out {output:q} > {log:q} 2>&1"
