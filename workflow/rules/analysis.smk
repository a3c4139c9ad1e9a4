# Exponents per point, then the campaign figures from all points.


rule exponents:
    """Means, errors and effective exponents of one point's dataset (kpz), or its energy,
    overlap moments and Binder ratio (ea3d), or its surface width, beta_eff, energy,
    magnetization, step density and event rate (kmc2d), or its open bonds, energy, domain
    size, S(k, t) and coarsening exponent x_eff (fcc)."""
    input:
        "results/{campaign}/datasets/{point}.nc",
    output:
        "results/{campaign}/analysis/{point}.nc",
    log:
        "results/{campaign}/logs/exponents/{point}.log",
    resources:
        runtime=30,
        mem_mb=lambda wildcards, input: 1024 + 3 * int(input.size_mb),
    conda:
        "../envs/simcore.yaml"
    shell:
        "python -m analysis.exponents {input:q} --out {output:q} > {log:q} 2>&1"


rule figures:
    """The campaign figures, every point in each: W2, beta_eff, C_h, C_s, lambda_eff
    (kpz), or energy, q2, binder (ea3d), or W2, beta_eff (sos points), energy,
    magnetization (ising points), step_density, events_rate (kmc2d), or domain_size,
    x_eff, open_bonds, structure_factor, slice (fcc)."""
    input:
        campaign_analyses,
    output:
        report(
            expand(
                "results/{{campaign}}/figures/{name}.{ext}",
                name=FIGURE_NAMES,
                ext=FIGURE_FORMATS,
            ),
            caption="../report/figure.rst",
            category="Campaign figures",
        ),
    log:
        "results/{campaign}/logs/figures.log",
    params:
        out_dir=lambda wildcards: f"results/{wildcards.campaign}/figures",
        summary=lambda wildcards: CAMPAIGN.summary(),
    resources:
        runtime=30,
        mem_mb=lambda wildcards, input: 2048 + 3 * int(input.size_mb),
    conda:
        "../envs/simcore.yaml"
    shell:
        "python -m analysis.figures --out-dir {params.out_dir:q} {input:q} > {log:q} 2>&1"


rule paper_figure:
    """A comparison figure of the papers (campaign key `paper_figures`) from its points.

    fig3b: C_s(t, s) vs t/s per scheme; fig4: C_h and lambda_eff per scheme and TC;
    fig6: beta_eff with kelling2017's asymptotic beta; performance: from the dd
    benchmarks; psflip_k, psflip_L, psflip_prng (lulli2015 Figs. 4, 5, 9): from the
    ea3d benchmarks; strong_scaling, scaling_collapse (Figs. 12, 13): from the mgpu
    benchmarks; darkins2024_fig3: from the kmc2d benchmarks; darkins2024_fig2: no input,
    its CPU run is done by the drawing function.
    """
    input:
        paper_figure_input,
    output:
        report(
            expand("results/{{campaign}}/figures/paper_{{fig}}.{ext}", ext=FIGURE_FORMATS),
            caption="../report/figure.rst",
            category="Paper comparisons",
        ),
    log:
        "results/{campaign}/logs/paper_{fig}.log",
    wildcard_constraints:
        fig="|".join(re.escape(fig.name) for fig in CAMPAIGN.paper_figures) or "(?!)",
    params:
        figure=lambda wildcards: CAMPAIGN.paper_figure(wildcards.fig).figure,
        out_dir=lambda wildcards: f"results/{wildcards.campaign}/figures",
        summary=paper_figure_summary,
    resources:
        runtime=30,
    conda:
        "../envs/simcore.yaml"
    shell:
        "python -m analysis.paper_figures {params.figure} --out-dir {params.out_dir:q} "
        "--name paper_{wildcards.fig} {input:q} > {log:q} 2>&1"


rule benchmark:
    """The campaign's `benchmarks` lines of one `simcore bench` kernel (dd, ea3d, mgpu:
    the strong scaling over all GPUs of the host, via mpirun, or kmc2d: the GPU tile
    algorithm and serial BKL), one CSV row per repeat or configuration."""
    output:
        "results/{campaign}/bench/{kernel}.csv",
    log:
        "results/{campaign}/logs/bench_{kernel}.log",
    wildcard_constraints:
        kernel="|".join(BENCH_KERNELS),
    params:
        lines=lambda wildcards: CAMPAIGN.bench_lines(wildcards.kernel),
    resources:
        gpu=1,
        runtime=60,
    conda:
        "../envs/simcore.yaml"
    script:
        "../scripts/benchmark.py"
