"""Campaigns: a campaign file's schema and validation (:mod:`.schema`), its points and
jobs (:mod:`.plan`, which loads a campaign: its entries expanded into points by
:mod:`.points`, numbers read by :mod:`.numbers`, comparison figures and benchmark lines
by :mod:`.paper_figures`), their resource requests (:mod:`.resources`) and the text of
the job files (:mod:`.jobfiles`), and what a command that stopped early says last
(:mod:`.stops`).  Pure Python: the Snakemake rules only ask this package."""

from simcore.campaign.jobfiles import job_config_yaml
from simcore.campaign.plan import (
    NAME_PATTERN,
    Campaign,
    CampaignFigure,
    Point,
    load_campaign,
    n_blocks,
)
from simcore.campaign.resources import job_resources
from simcore.campaign.schema import SCHEMA_PATH, CampaignError, validate_config
from simcore.campaign.stops import CampaignStops, JobCounts, count_jobs

__all__ = [
    "NAME_PATTERN",
    "SCHEMA_PATH",
    "Campaign",
    "CampaignError",
    "CampaignFigure",
    "CampaignStops",
    "JobCounts",
    "Point",
    "count_jobs",
    "job_config_yaml",
    "job_resources",
    "load_campaign",
    "n_blocks",
    "validate_config",
]
