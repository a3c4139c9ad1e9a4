# Jobs: one `simcore run` per (point, block), with its run config written beside it.


rule simulate:
    """Write the run config of one job (keys as in ARCHITECTURE.md) and run the engine on it.

    The config (its YAML text) is the one param: Snakemake's params trigger reruns
    exactly the jobs whose config changed; adding samples or points leaves the other configs (and runs) alone.
    Writing the config in the same job (a shell `printf` of the pre-rendered YAML) keeps
    one Snakemake job per simulation: a campaign of 10,000 runs is a DAG of ~10,000
    jobs, not 20,000.  Resources come from simcore.campaign.job_resources (runtime from
    L^dim * t_max * samples site updates, mem_mb from the lattice and result sizes;
    doubled per retry).  A job that fails or is killed leaves no run file (simcore
    writes atomically, Snakemake removes the outputs of failed jobs), so it is never
    aggregated.  A job stopped by max_wall (exit 3) or Ctrl-C (SIGINT) is a planned stop,
    which simcore/campaign/stops.py tells from a failure by the exit status and job: it
    finds the job by `--out RUN` in the command and by the run file among the outputs, so
    keep both.  The command inlines the run config, the bulk of Snakemake's error blocks,
    and stays so: a changed shell line reruns every finished job (Snakemake's `code`
    rerun trigger).
    """
    output:
        run="results/{campaign}/runs/{point}/b{block}.nc",
        job="results/{campaign}/jobs/{point}/b{block}.yaml",
    log:
        "results/{campaign}/logs/simulate/{point}/b{block}.log",
    params:
        text=job_yaml,
    threads: job_threads
    resources:
        runtime=job_resource("runtime"),
        mem_mb=job_resource("mem_mb"),
        gpu=job_resource("gpu"),
    conda:
        "../envs/simcore.yaml"
    shell:
        "printf '%s' {params.text:q} > {output.job:q} && "
        "NUMBA_NUM_THREADS={threads} OMP_NUM_THREADS={threads} "
        "simcore run {output.job:q} --out {output.run:q} > {log:q} 2>&1"
