# Exponents per point, then the campaign figures from all points.


rule analyze:
    """Means, jackknife errors and effective exponents of one point's dataset, by the
    analysis module of its model (analysis.<model>, found through the registry)."""
    input:
        "results/{campaign}/datasets/{point}.nc",
    output:
        "results/{campaign}/analysis/{point}.nc",
    log:
        "results/{campaign}/logs/analyze/{point}.log",
    resources:
        runtime=30,
        mem_mb=lambda wildcards, input: 1024 + 3 * int(input.size_mb),
    conda:
        "../envs/simcore.yaml"
    shell:
        "python -m analysis.analyze {input:q} --out {output:q} > {log:q} 2>&1"


rule figure:
    """One campaign figure, every point in it: the model's spec names the figures and says
    what each shows (its report caption), its analysis module draws them.  One job per
    figure, so that `snakemake --report` gives each figure its own caption."""
    input:
        campaign_analyses,
    output:
        report(
            expand("results/{{campaign}}/figures/{{name}}.{ext}", ext=FIGURE_FORMATS),
            caption="../report/figure.rst",
            category="Campaign figures",
        ),
    log:
        "results/{campaign}/logs/figure_{name}.log",
    wildcard_constraints:
        name="|".join(re.escape(name) for name in FIGURE_NAMES) or "(?!)",
    params:
        out_dir=lambda wildcards: f"results/{wildcards.campaign}/figures",
        caption=figure_caption,
    resources:
        runtime=30,
        mem_mb=lambda wildcards, input: 2048 + 3 * int(input.size_mb),
    conda:
        "../envs/simcore.yaml"
    shell:
        "python -m analysis.figures --out-dir {params.out_dir:q} --figure {wildcards.name:q} "
        "{input:q} > {log:q} 2>&1"


rule paper_figure:
    """A comparison figure of the papers (campaign key `paper_figures`), from the analyses
    of the points it selects or from the tables of its benchmark kernels (the registry's
    table of paper figures says which; `simcore models --figures` lists it), drawn with
    the entry's `options` (`--set KEY=VALUE` each; a changed option redraws it)."""
    input:
        paper_figure_input,
    output:
        report(
            expand("results/{{campaign}}/figures/paper_{{fig}}.{ext}", ext=FIGURE_FORMATS),
            caption="../report/paper_figure.rst",
            category="Paper comparisons",
        ),
    log:
        "results/{campaign}/logs/paper_{fig}.log",
    wildcard_constraints:
        fig="|".join(re.escape(fig.name) for fig in CAMPAIGN.paper_figures) or "(?!)",
    params:
        figure=lambda wildcards: CAMPAIGN.paper_figure(wildcards.fig).figure.name,
        out_dir=lambda wildcards: f"results/{wildcards.campaign}/figures",
        summary=paper_figure_summary,
        options=paper_figure_options,
    resources:
        runtime=30,
    conda:
        "../envs/simcore.yaml"
    shell:
        "python -m analysis.papers {params.figure} --out-dir {params.out_dir:q} "
        "--name paper_{wildcards.fig} {params.options:q} {input:q} > {log:q} 2>&1"


rule benchmark:
    """The campaign's `benchmarks` lines of one `simcore bench` kernel that a paper figure
    draws (its defaults where no line names it), one CSV row per measurement.

    It has the machine to itself, or it would time the simulate jobs beside it as well:
    it takes every core Snakemake may use (`all_cores`), so no other job runs while it
    does (every job takes at least one core), and Snakemake caps threads at --cores, so it
    never waits for more cores than there are.  Under the Slurm profile it gets a whole
    node instead (set-resources: `slurm_extra: --exclusive`)."""
    output:
        "results/{campaign}/bench/{kernel}.csv",
    log:
        "results/{campaign}/logs/bench_{kernel}.log",
    wildcard_constraints:
        kernel="|".join(re.escape(k) for k in CAMPAIGN.bench_kernels) or "(?!)",
    params:
        lines=lambda wildcards: CAMPAIGN.bench_lines(wildcards.kernel),
    threads: all_cores
    resources:
        gpu=1,
        runtime=60,
    conda:
        "../envs/simcore.yaml"
    script:
        "../scripts/benchmark.py"
