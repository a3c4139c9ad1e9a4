# Shared state of the rules: the expanded campaign and the helpers the rules call.
# All planning logic lives in simcore/campaign.py (pure Python, unit tested); this file
# only exposes it to Snakemake.

import re

from simcore.campaign import (
    BENCH_FIGURE_KERNEL,
    BENCH_KERNELS,
    COMPUTED_FIGURES,
    NAME_PATTERN,
    job_config_yaml,
    load_campaign,
)

# Validated (semantic checks beyond the schema: L a power of two, p + q <= 1, waiting
# times <= t_max, unique point names) and expanded into points and blocks.
CAMPAIGN = load_campaign(
    config, schema_path=f"{workflow.basedir}/workflow/schemas/config.schema.yaml"
)

#: The campaign figures of its model (simcore.campaign.MODEL_FIGURES: analysis.figures for
#: kpz, analysis.spin_glass for ea3d, analysis.fcc for fcc; analysis.kmc2d for kmc2d, whose
#: figures depend on the rate models of its points).
FIGURE_NAMES = CAMPAIGN.figure_names
FIGURE_FORMATS = ["png", "pdf"]

DATASETS = expand(
    "results/{campaign}/datasets/{point}.nc",
    campaign=CAMPAIGN.name,
    point=CAMPAIGN.point_names,
)
FIGURES = expand(
    "results/{campaign}/figures/{name}.{ext}",
    campaign=CAMPAIGN.name,
    name=FIGURE_NAMES,
    ext=FIGURE_FORMATS,
)


wildcard_constraints:
    # only this campaign's results/<campaign>/ tree is ever produced
    campaign=re.escape(CAMPAIGN.name),
    point=NAME_PATTERN,
    block=r"0|[1-9][0-9]*",
    stage=r"0|[1-9][0-9]*",


def job_yaml(wildcards):
    """The run config of one job as the YAML text of its job file: a changed value
    reruns just this job."""
    return job_config_yaml(CAMPAIGN.job_config(wildcards.point, int(wildcards.block)))


def job_resource(key):
    """Resource ``key`` of a simulate job, from simcore.campaign.job_resources."""

    def get(wildcards, attempt):
        return CAMPAIGN.job_resources(wildcards.point, int(wildcards.block), attempt)[key]

    return get


def job_threads(wildcards):
    """CPU threads of a simulate job: 1, or the campaign's `threads` for CPU DD schemes
    (simcore.campaign.Campaign.job_threads: also ea3d, kmc2d tiles, fcc dt and slabs)."""
    return CAMPAIGN.job_threads(wildcards.point)


PAPER_FIGURES = expand(
    "results/{campaign}/figures/paper_{fig}.{ext}",
    campaign=CAMPAIGN.name,
    fig=[fig.name for fig in CAMPAIGN.paper_figures],
    ext=FIGURE_FORMATS,
)


def _runs(campaign, point, blocks):
    return expand(
        "results/{campaign}/runs/{point}/b{block}.nc", campaign=campaign, point=point, block=blocks
    )


def point_runs(wildcards):
    """What the point's dataset is made of: its run files (one per block, in block
    order), or, for more blocks than aggregate_stage_size, its stages."""
    point = CAMPAIGN.point(wildcards.point)
    size = CAMPAIGN.stage_size
    if point.n_blocks <= size:
        return _runs(wildcards.campaign, point.name, point.blocks)
    return expand(
        "results/{campaign}/datasets/stages/{point}/s{stage}.nc",
        campaign=wildcards.campaign,
        point=point.name,
        stage=range(-(-point.n_blocks // size)),
    )


def stage_runs(wildcards):
    """The run files of one stage of a point."""
    point = CAMPAIGN.point(wildcards.point)
    size, stage = CAMPAIGN.stage_size, int(wildcards.stage)
    blocks = range(stage * size, min(point.n_blocks, (stage + 1) * size))
    return _runs(wildcards.campaign, point.name, blocks)


def bench_csv(wildcards, kernel="dd"):
    """The campaign's benchmark table of one ``simcore bench`` kernel."""
    return f"results/{wildcards.campaign}/bench/{kernel}.csv"


def campaign_analyses(wildcards):
    """The analysis file of every point of the campaign."""
    return _analyses(wildcards.campaign, CAMPAIGN.point_names)


def _analyses(campaign, points):
    return expand("results/{campaign}/analysis/{point}.nc", campaign=campaign, point=points)


def paper_figure_input(wildcards):
    """What a comparison figure is drawn from: the benchmark table (performance, ...),
    nothing (a figure that computes its own data), or the analyses of the points it
    selects."""
    fig = CAMPAIGN.paper_figure(wildcards.fig)
    if fig.figure in BENCH_FIGURE_KERNEL:
        return bench_csv(wildcards, BENCH_FIGURE_KERNEL[fig.figure])
    if fig.figure in COMPUTED_FIGURES:
        return []
    return _analyses(wildcards.campaign, CAMPAIGN.figure_points(fig.name))


def paper_figure_summary(wildcards):
    """Report caption of a comparison figure: its points, or its benchmark lines."""
    fig = CAMPAIGN.paper_figure(wildcards.fig)
    if fig.figure in BENCH_FIGURE_KERNEL:
        kernel = BENCH_FIGURE_KERNEL[fig.figure]
        lines = "; ".join(f"simcore bench {kernel} {line}" for line in CAMPAIGN.bench_lines(kernel))
        return f"Benchmarks: {lines}."
    if fig.figure in COMPUTED_FIGURES:
        return f"{fig.figure}: computed on the CPU by analysis.kmc2d_performance (no points)."
    return CAMPAIGN.summary(CAMPAIGN.figure_points(fig.name))
