"""Parameter points and their blocks: a campaign's grid entry expanded into points.

Every entry expands to the Cartesian product of its lists (and of the campaign-wide
defaults of the model's keys) into parameter *points*, each with its model's canonical
name; keys that do not apply to a combination are dropped, and every point is checked by
the engine's own run-config validation (:func:`expand_entry`).  A point's samples are
split into *blocks* of ``samples_per_job`` samples, one job each (:class:`Point`).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from simcore.campaign.schema import CampaignError
from simcore.checks import ConfigError, closest
from simcore.config import validate_run_config
from simcore.models.spec import Key, ModelSpec

#: Characters allowed in point and campaign names (also the Snakemake wildcard constraint).
NAME_PATTERN = r"[A-Za-z0-9][A-Za-z0-9_.\-]*"
#: Settings of every point that are not model keys; a point entry may override them.
ENTRY_SETTINGS = ("backend", "t_max", "points_per_decade", "samples", "samples_per_job")
#: Point settings ``select:`` may name besides the model's keys.
SELECT_SETTINGS = ("backend", "t_max", "samples")


def n_blocks(samples: int, samples_per_job: int) -> int:
    """Number of jobs of a point: ``ceil(samples / samples_per_job)``."""
    return -(-int(samples) // int(samples_per_job))


@dataclass(frozen=True)
class Point:
    """One parameter point: the settings every point has, and its model's (``settings``:
    the model's keys of its validated run config, in the spec's order)."""

    name: str
    model: str
    backend: str
    t_max: int
    points_per_decade: int
    samples: int
    samples_per_job: int
    settings: Mapping[str, Any] = field(default_factory=dict)

    def get(self, key: str) -> Any:
        """A setting by name (the common ones or the model's; ``None`` if absent)."""
        if key in ("name", "model", *ENTRY_SETTINGS):
            return getattr(self, key)
        return self.settings.get(key)

    @property
    def n_blocks(self) -> int:
        """Number of jobs (blocks) of this point."""
        return n_blocks(self.samples, self.samples_per_job)

    @property
    def blocks(self) -> range:
        """Block indices ``0 .. n_blocks - 1``."""
        return range(self.n_blocks)

    def block_samples(self, block: int) -> int:
        """Samples in ``block``: ``samples_per_job``, except the last block's remainder."""
        if not 0 <= block < self.n_blocks:
            raise ValueError(f"point {self.name}: block {block} not in [0, {self.n_blocks})")
        return min(self.samples_per_job, self.samples - block * self.samples_per_job)


def as_list(value: Any) -> list[Any]:
    """A list as it is, anything else as a list of one."""
    return list(value) if isinstance(value, list) else [value]


def _alternatives(key: Key, value: Any) -> list[Any]:
    """The values of one key that an entry lists (one point each)."""
    if key.kind == "list":
        return [value]
    if key.kind == "pair":  # one pair, or a list of pairs
        return (
            list(value)
            if value and isinstance(value, list) and isinstance(value[0], list)
            else [value]
        )
    return as_list(value)


def _applying(spec: ModelSpec, settings: Mapping[str, Any], backend: str) -> dict[str, Any]:
    """The settings without the keys that do not apply to them (in the spec's order); a
    key's rule sees the settings before it and the backend (a default may depend on it)."""
    out: dict[str, Any] = {}
    for name in spec.keys:
        if name in settings and spec.applies(name, {**out, "backend": backend}):
            out[name] = settings[name]
    return out


def _probe(where: str, run: dict[str, Any], block_key: str) -> dict[str, Any]:
    """Validate a point's run config with the engine's own checks, naming the entry;
    ``block_key`` is the entry key that set the probe's ``samples``."""
    try:
        return validate_run_config(run)
    except ConfigError as exc:
        key = block_key if exc.key in ("samples", "sample_offset") else exc.key
        raise CampaignError(f"{where}.{key}: {exc.value!r}: {exc.reason}") from None


def expand_entry(
    spec: ModelSpec, cfg: Mapping[str, Any], idx: int, entry: Mapping[str, Any]
) -> list[Point]:
    """The points of one grid entry: the product of its listed values (and of the
    campaign-wide defaults of the model's keys), without the keys that do not apply."""
    where = f"points[{idx}]"
    for key, value in entry.items():
        if key not in spec.keys and key not in ENTRY_SETTINGS:
            known = [*spec.keys, *ENTRY_SETTINGS]
            raise CampaignError(
                f"{where}.{key}: unknown key of model {spec.name}{closest(key, known)} "
                f"(value: {value!r}; keys: {', '.join(known)})"
            )

    def setting(key: str) -> Any:
        if key in entry:
            return entry[key]
        if key in cfg:
            return cfg[key]
        raise CampaignError(f"{where}.{key}: missing (set it here or campaign-wide)")

    common = {
        "t_max": setting("t_max"),
        "points_per_decade": setting("points_per_decade"),
        "samples": setting("samples"),
        "samples_per_job": setting("samples_per_job"),
    }
    for key, value in common.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise CampaignError(f"{where}.{key}: {value!r}: must be an integer >= 1")
    given = {k: entry[k] if k in entry else cfg[k] for k in spec.keys if k in entry or k in cfg}
    names = [*given, "backend"]
    choices = [_alternatives(spec.keys[k], v) for k, v in given.items()]
    choices.append(as_list(setting("backend")))
    samples, per_job = common["samples"], common["samples_per_job"]
    last = samples - (n_blocks(samples, per_job) - 1) * per_job
    probes = [(min(samples, per_job), 0, "samples_per_job" if samples > per_job else "samples")]
    if 0 < last < per_job and samples > per_job:
        probes.append((last, samples - last, "samples"))
    points, seen, used = [], set(), set()
    for combo in itertools.product(*choices):
        chosen = dict(zip(names, combo, strict=True))
        backend = chosen.pop("backend")
        settings = _applying(spec, chosen, backend)
        signature = json.dumps([settings, backend], sort_keys=True, default=str)
        if signature in seen:  # a key that does not apply here made a copy
            continue
        seen.add(signature)
        used.update(settings)
        for block_samples, offset, block_key in probes:
            run = _probe(
                where,
                {
                    "model": spec.name, **settings, "backend": backend, "samples": block_samples,
                    "sample_offset": offset, "seed": 0, "t_max": common["t_max"],
                    "points_per_decade": common["points_per_decade"],
                },
                block_key,
            )  # fmt: skip
        points.append(
            Point(
                name=spec.point_name(run),
                model=spec.name,
                backend=str(backend),
                settings={k: run[k] for k in spec.keys if k in run},
                **common,
            )
        )
    for key in entry:
        if key in spec.keys and key not in used:
            rule = spec.keys[key]
            raise CampaignError(
                f"{where}.{key}: {entry[key]!r}: is a key of {rule.applies_to}, which no point "
                "of this entry is"
            )
    return points
