"""simcore campaign workflow: campaign file -> jobs -> runs -> datasets -> analysis -> figures.

    snakemake --workflow-profile workflow/profiles/default                  # default campaign
    snakemake --workflow-profile workflow/profiles/default --configfile config/other.yaml
    snakemake --workflow-profile workflow/profiles/slurm --configfile config/other.yaml

A `--configfile` given on the command line *replaces* config/config.yaml (no key of the
default campaign leaks into another campaign); `--config key=value` still overrides
single keys of whichever campaign is loaded.  See ARCHITECTURE.md for the data flow and
workflow/rules/*.smk for the rules.
"""

import warnings

from snakemake.logging import logger as snakemake_logger
from snakemake.utils import min_version

from simcore.campaign import CampaignStops

min_version("9.0")

# Snakemake's own warning, not ours (snakemake/snakemake#4280): where a rule's resources
# use `input.size_mb` (aggregate, analyze, figure) and Snakemake evaluates them inside its
# event loop (`--report`), it creates a coroutine it never awaits.  Harmless; ignored by
# its exact message and Snakemake's module (the arguments: action, message, category,
# module), so no other warning is hidden.
warnings.filterwarnings(
    "ignore",
    r"coroutine 'InputFiles\._predicated_size_files\.<locals>\.sizes' was never awaited",
    RuntimeWarning,
    r"snakemake\.",
)


# workflow.basedir: the directory of this Snakefile, so `--directory ELSEWHERE` works too.
if not workflow.overwrite_configfiles:

    configfile: f"{workflow.basedir}/config/config.yaml"


# The campaign is validated (the campaign-wide keys against simcore's schema, the points
# by the model's spec) and planned by simcore.campaign in workflow/rules/common.smk; a
# bad one stops there with one line and exit status 2.


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/simulate.smk"
include: "workflow/rules/aggregate.smk"
include: "workflow/rules/analysis.smk"


# A planned stop (max_wall, Ctrl-C) ends with the jobs finished, stopped with a checkpoint
# and not started, and the command that resumes; a failure stays a failure.  The filter
# shortens the error blocks of planned stops only (simcore/campaign/stops.py).
STOPS = CampaignStops(CAMPAIGN, f"results/{CAMPAIGN.name}").install(snakemake_logger)


onerror:
    STOPS.finish(log, rerun_incomplete=workflow.dag_settings.force_incomplete)


rule all:
    """Everything: one dataset per point and the campaign figures."""
    default_target: True
    localrule: True
    input:
        DATASETS,
        FIGURES,
        PAPER_FIGURES,


rule papers:
    """The campaign's comparison figures of the papers (config/papers.yaml: all of them)."""
    localrule: True
    input:
        PAPER_FIGURES,


rule datasets:
    """Stop after aggregation: one dataset per point (no analysis, no figures)."""
    localrule: True
    input:
        DATASETS,
