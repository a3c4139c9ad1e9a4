"""Run datasets on disk: global attributes, compression, atomic netCDF writes."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import xarray as xr
import yaml

from simcore.config import config_hash
from simcore.io.atomic import atomic_path

if TYPE_CHECKING:  # the spec is passed in: io depends on no model code
    from simcore.models.spec import ModelSpec

#: Keys of every run config copied into the global attributes of a run file, after the
#: model's keys.
COMMON_ATTR_KEYS = ("seed", "t_max", "samples", "sample_offset", "campaign", "point", "block",
                    "points_per_decade")  # fmt: skip
#: Keys of every run config that all runs of a point share, besides the model's keys.
COMMON_POINT_CONFIG_KEYS = ("t_max", "points_per_decade", "campaign", "point")


def point_config_keys(spec: ModelSpec) -> tuple[str, ...]:
    """The keys every run of a point shares (the model's keys, backend, t_max, ...): their
    hash names the point's configuration in datasets and figures, and aggregation refuses
    runs that differ in any of them (config_hash is the job's own, seed and block
    included)."""
    return (*spec.point_keys, *(k for k, key in spec.keys.items() if not key.point),
            *COMMON_POINT_CONFIG_KEYS)  # fmt: skip


def sample_coord(cfg: dict, samples: int, **attrs: str) -> tuple:
    """The ``sample`` coordinate of a job's dataset: global sample indices from the config's
    ``sample_offset``, with CF attributes (``attrs`` override or add to them)."""
    offset = int(cfg["sample_offset"])
    return (
        "sample",
        np.arange(offset, offset + samples, dtype=np.int64),
        {"long_name": "sample index", "units": "1", **attrs},
    )


def lockstep_wall_time(wall: np.ndarray, samples: int) -> tuple:
    """The ``wall_time`` variable (sample, time) of a job that advances all its samples
    together: the wall-clock seconds at each sampling time, the same for each sample."""
    return (
        ("sample", "t"),
        np.broadcast_to(wall, (samples, wall.size)).copy(),
        {
            "long_name": "wall-clock time of this sample's job since its start",
            "units": "s",
            "comment": "a job advances all its samples together: the same for each",
        },
    )


def run_attributes(cfg: dict, spec: ModelSpec, prov: dict[str, str], wall_seconds: float) -> dict:
    """Global attributes of a run file: parameters, provenance and the full config as YAML;
    ``point_config_keys`` lists the keys that all runs of the point share."""
    described = " ".join(f"{k}={cfg[k]}" for k in spec.point_keys[1:] if k in cfg)
    attrs: dict = {
        "Conventions": "CF-1.10",
        "title": f"simcore {cfg['model']} run: {described}",
        "institution": "",
        "source": f"simcore {prov.get('simcore_version', '')}",
    }
    shared = point_config_keys(spec)
    for key in dict.fromkeys((*shared, *COMMON_ATTR_KEYS)):
        if key not in cfg:  # a key that does not apply to this run
            continue
        v = cfg[key]
        if v is None:
            v = "default"  # netCDF has no null attribute
        elif key == "seed":
            v = str(v)  # netCDF has no unsigned 64-bit attribute type everywhere
        elif isinstance(v, list):
            v = [int(x) for x in v] if v else ""
        attrs[key] = v
    attrs.update(prov)
    attrs["config_hash"] = config_hash(cfg)
    attrs["point_config_keys"] = " ".join(k for k in shared if k in cfg)
    attrs["point_config_hash"] = config_hash({k: cfg[k] for k in shared if k in cfg})
    attrs["wall_seconds"] = float(wall_seconds)
    attrs["config"] = yaml.safe_dump(cfg, sort_keys=True)
    return attrs


def write_dataset(ds: xr.Dataset, path: str | Path) -> Path:
    """Write ``ds`` as netCDF4 to ``path`` atomically, compressing the float variables.

    Every stage of the pipeline writes through here, so no reader ever sees a
    half-written file (C_h and C_s are mostly NaN below t = s and compress well).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    encoding = {
        name: {"zlib": True, "complevel": 4}
        for name, var in ds.data_vars.items()
        if np.issubdtype(var.dtype, np.floating)
    }
    with atomic_path(path) as tmp:
        ds.to_netcdf(tmp, engine="netcdf4", format="NETCDF4", encoding=encoding)
    return path
