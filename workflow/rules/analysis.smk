# Exponents per point, then the campaign figures from all points.


rule exponents:
    """Effective exponents and fits of one point's dataset."""
    input:
        "results/{campaign}/datasets/{point}.nc",
    output:
        "results/{campaign}/analysis/{point}.nc",
    log:
        "results/{campaign}/logs/exponents/{point}.log",
    resources:
        runtime=30,
        mem_mb=lambda wildcards, input: 1024 + 3 * int(input.size_mb),
    shell:
        "python -m analysis.exponents {input:q} --out {output:q} > {log:q} 2>&1"


rule figures:
    """The campaign figures, every point in each: W2, beta_eff, C_h, C_s, lambda_eff."""
    input:
        campaign_analyses,
    output:
        expand(
            "results/{{campaign}}/figures/{name}.{ext}",
            name=FIGURE_NAMES,
            ext=FIGURE_FORMATS,
        ),
    log:
        "results/{campaign}/logs/figures.log",
    params:
        out_dir=lambda wildcards: f"results/{wildcards.campaign}/figures",
    resources:
        runtime=30,
        mem_mb=lambda wildcards, input: 2048 + 3 * int(input.size_mb),
    shell:
        "python -m analysis.figures --out-dir {params.out_dir:q} {input:q} > {log:q} 2>&1"
