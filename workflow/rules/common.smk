# Shared state of the rules: the expanded campaign and the helpers the rules call.
# All planning lives in simcore.campaign (pure Python, unit tested, no model named); this
# file only exposes it to Snakemake.

import os
import re
import sys

from snakemake.exceptions import WorkflowError

from simcore.campaign import NAME_PATTERN, CampaignError, job_config_yaml, load_campaign
from simcore.campaign.plan import check_campaign_files
from simcore.models.registry import RegistryError
from simcore.walltime import STOP_AT_ENV, campaign_stop_at


def _campaign_files():
    """The campaign file(s), as the user named them (relative below this directory)."""
    names = [os.path.relpath(f) for f in workflow.configfiles]
    return [n if not n.startswith("..") else os.path.abspath(n) for n in names]


def _campaign_source():
    """Where the config came from, as the user named it: the campaign file(s), and
    ``--config`` when single keys were overridden on the command line."""
    names = _campaign_files()
    if workflow.config_settings.config:
        names.append("--config")
    return " + ".join(names)


# Validated (the campaign-wide keys against simcore's schema, then the model's keys and
# checks, found through the registry: every point is a valid run config) and expanded
# into points and blocks.  A bad campaign is one line naming the file, the entry, its
# value and the rule, and exit status 2: SystemExit is the one exception Snakemake lets
# through without its own traceback.  Snakemake's reader keeps the last of a key given
# twice, so the files are checked for that first (the error names the one file).
try:
    check_campaign_files(_campaign_files())
    CAMPAIGN = load_campaign(config)
except CampaignError as exc:
    error = exc if exc.source else exc.in_file(_campaign_source())
    print(f"simcore: error: {error}", file=sys.stderr)
    raise SystemExit(2) from None
except RegistryError as exc:
    print(f"simcore: error: {exc}", file=sys.stderr)
    raise SystemExit(2) from None

# A campaign with max_wall (seconds): every simulate job of this command stops with a
# checkpoint at the same time, max_wall after the command started, and the next identical
# command resumes it.  The time reaches `simcore run` through the environment (the default
# of its --stop-at), not as a job parameter, which would rerun finished jobs.  Under the
# Slurm executor each job evaluates this file again when it starts, so there the limit
# counts from the job's own start.
if CAMPAIGN.max_wall is not None:
    os.environ[STOP_AT_ENV] = repr(campaign_stop_at(CAMPAIGN.max_wall))

#: The campaign figures of its model (the model's spec says which, and its analysis
#: module draws them).
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
    """Resource ``key`` of a simulate job, from simcore.campaign.resources.job_resources."""

    def get(wildcards, attempt):
        return CAMPAIGN.job_resources(wildcards.point, int(wildcards.block), attempt)[key]

    return get


def all_cores(wildcards):
    """Threads of a job that must run alone (the benchmarks): every core this Snakemake
    may use (--cores; `cores: all` in the default profile).  1 where --cores is not set (a
    cluster executor: there the Slurm profile gives the job a whole node instead)."""
    try:
        return workflow.cores
    except WorkflowError:
        return 1


def job_threads(wildcards):
    """CPU threads of a simulate job: the campaign's `threads` where the model's spec says
    the job's schedule runs in parallel on the CPU, else 1."""
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


def campaign_analyses(wildcards):
    """The analysis file of every point of the campaign."""
    return _analyses(wildcards.campaign, CAMPAIGN.point_names)


def _analyses(campaign, points):
    return expand("results/{campaign}/analysis/{point}.nc", campaign=campaign, point=points)


def paper_figure_input(wildcards):
    """What a comparison figure is drawn from: the tables of its benchmark kernels (in
    the figure's order), or the analyses of the points it selects."""
    fig = CAMPAIGN.paper_figure(wildcards.fig)
    if fig.figure.bench:
        return [f"results/{wildcards.campaign}/bench/{k}.csv" for k in fig.figure.bench]
    return _analyses(wildcards.campaign, CAMPAIGN.figure_points(fig.name))


def paper_figure_options(wildcards):
    """The options of a comparison figure's entry as `--set KEY=VALUE` arguments of
    `python -m analysis.papers` (empty where it has none)."""
    return CAMPAIGN.paper_figure(wildcards.fig).set_arguments()


def paper_figure_summary(wildcards):
    """Report caption of a comparison figure: what it shows (with the options it is drawn
    with), and its points or its benchmark lines."""
    fig = CAMPAIGN.paper_figure(wildcards.fig)
    title = f"{fig.figure.paper} {fig.figure.title}."
    if fig.options:
        title += " Options: " + ", ".join(f"{k} = {v}" for k, v in fig.options.items()) + "."
    if fig.figure.bench:
        lines = "; ".join(
            f"simcore bench {kernel} {line}".strip()
            for kernel in fig.figure.bench
            for line in CAMPAIGN.bench_lines(kernel)
        )
        return f"{title} Benchmarks: {lines}."
    return f"{title} {CAMPAIGN.summary(CAMPAIGN.figure_points(fig.name))}"


def figure_caption(wildcards):
    """Report caption of one campaign figure: what it shows (the model's spec says), and
    the campaign's points."""
    return f"{CAMPAIGN.figures[wildcards.name]} {CAMPAIGN.summary()}"
