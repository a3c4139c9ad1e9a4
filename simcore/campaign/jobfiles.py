"""The text of a job's run config (``results/<campaign>/jobs/<point>/b<block>.yaml``)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import yaml


@lru_cache(maxsize=4096)
def _yaml_scalar(value: Any) -> str:
    """One scalar as PyYAML writes it (cached: a campaign has few distinct floats)."""
    return yaml.safe_dump(value, default_flow_style=True).removesuffix("\n...\n").strip()


def _yaml_value(value: Any) -> str:
    if isinstance(value, bool) or value is None or isinstance(value, float):
        return _yaml_scalar(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)  # a double-quoted JSON string is a YAML string
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_yaml_value(v) for v in value) + "]"
    raise TypeError(f"cannot render {value!r} in a job config")


def job_config_yaml(job: Mapping[str, Any]) -> str:
    """A run config as YAML text, keys in the order given (what the job file holds).

    Written line by line rather than by ``yaml.safe_dump``, which is 100x slower: a
    campaign of 10,000 jobs renders every job's text while Snakemake builds the DAG.
    """
    return "".join(f"{key}: {_yaml_value(value)}\n" for key, value in job.items())
