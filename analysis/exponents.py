"""Effective exponents with jackknife errors from an aggregated run dataset.

``python -m analysis.exponents DATASET.nc --out ANALYSIS.nc [--groups N]``

Input: one aggregated dataset per parameter point in the ARCHITECTURE.md layout
(dims ``sample``, ``time``, ``s``; ``W2(sample, time)``, ``mean_h(sample, time)``,
``C_h(sample, s, time)``, ``C_s(sample, s, time)``).  Output: sample means and their
errors, the effective growth exponent ``beta_eff`` and the effective autocorrelation
exponents ``lambda_h/z`` and ``lambda_s/z`` (kelling2017, eqs. 5, 6, 8).

Why the effective exponents are computed from means, not per sample: eq. 8 is applied to
``E = W = sqrt(<W2>)`` and ``E = <C>``, the ensemble averages; a single sample's ``C``
can be negative.  All errors come from one grouped jackknife over samples
(:mod:`analysis.stats`) applied to the whole chain ``means -> logs -> slopes``, so the
correlations between neighbouring times (which share samples) are accounted for.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import os
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import xarray as xr

from analysis.stats import default_groups, jackknife
from simcore.io.dataset import write_dataset

__all__ = [
    "AnalysisInputError",
    "REFERENCE_BETA",
    "REQUIRED_VARIABLES",
    "analyze",
    "beta_eff_of",
    "local_slope_of",
    "main",
    "reference_beta",
    "write_atomic",
]

#: Variables the analysis needs, with the dims each must have.
REQUIRED_VARIABLES: dict[str, tuple[str, ...]] = {
    "W2": ("sample", "time"),
    "mean_h": ("sample", "time"),
    "C_h": ("sample", "s", "time"),
    "C_s": ("sample", "s", "time"),
}

#: Reference growth exponents of KPZ: d=1 exact (1/3), d=2 from kelling2017 (0.2414(2)).
REFERENCE_BETA: dict[int, tuple[float, float, str]] = {
    1: (1.0 / 3.0, 0.0, "exact 1+1-dimensional KPZ value beta = 1/3"),
    2: (
        0.2414,
        0.0002,
        "beta = 0.2414(2), Kelling, Odor, Gemming, Comput. Phys. Commun. 220, 205 (2017), sec. 2.1",
    ),
}

MIDPOINT_NOTE = (
    "t_eff is the arithmetic midpoint (t_i + t_j)/2 of two successive sampling times; "
    "kelling2017 eq. 8 prints (t_i - t_j)/2, a misprint for the midpoint"
)

ANALYSIS_METHOD = (
    "Sample means over the 'sample' dim; errors are grouped (blocked) jackknife "
    "standard errors over samples (contiguous groups, n_groups = jackknife_groups, "
    "weighted delete-m_g formula), applied to the whole chain mean -> log -> slope. "
    "beta_eff: kelling2017 eq. 8 with E = W = sqrt(mean W2) between successive sampling "
    "times t_j < t_i, t = 0 skipped. lambda_h_over_z_eff, lambda_s_over_z_eff: minus the "
    "slope of ln(mean C) vs ln(t/s) between successive sampling times, both > s "
    "(kelling2017 eqs. 5, 6, 8); NaN where t <= s or mean C <= 0. " + MIDPOINT_NOTE + "."
)


class AnalysisInputError(ValueError):
    """The input dataset lacks variables or dimensions the analysis needs."""


def reference_beta(dim: int | None) -> float | None:
    """Reference KPZ growth exponent for substrate dimension ``dim`` (None if unknown)."""
    if dim is None:
        return None
    ref = REFERENCE_BETA.get(int(dim))
    return None if ref is None else ref[0]


def _check_input(ds: xr.Dataset) -> None:
    missing = [v for v in REQUIRED_VARIABLES if v not in ds.data_vars]
    if missing:
        raise AnalysisInputError(f"missing variable(s): {', '.join(missing)}")
    for name, dims in REQUIRED_VARIABLES.items():
        if set(ds[name].dims) != set(dims):
            raise AnalysisInputError(
                f"variable {name} has dims {tuple(ds[name].dims)}, expected {dims}"
            )
    if ds.sizes["sample"] < 1:
        raise AnalysisInputError("dataset has no samples")
    times = np.asarray(ds["time"].values)
    if len(np.unique(times)) != len(times):
        raise AnalysisInputError("duplicate values in coordinate 'time'")


def _successive_pairs(times: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Indices (into ``times``, sorted ascending) of successive pairs of positive times."""
    pos = np.flatnonzero(times > 0)
    return pos[:-1], pos[1:]


def _pair_values(x: xr.DataArray, idx: np.ndarray, new_dim: str, mid: np.ndarray) -> xr.DataArray:
    """``x`` at time indices ``idx``, with ``time`` replaced by ``new_dim`` = ``mid``."""
    sel = x.isel(time=idx).drop_vars("time")
    return sel.rename(time=new_dim).assign_coords({new_dim: mid})


def _safe_log(x: xr.DataArray) -> xr.DataArray:
    """Natural log, NaN where ``x <= 0`` or NaN (no warnings)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(x.where(x > 0))


def local_slope_of(E: xr.DataArray, times: np.ndarray, power: float = 1.0) -> xr.DataArray:
    """The effective exponent of kelling2017 eq. 8 for E^power: d ln(E^power) / d ln t
    between successive positive sampling times ``times`` (ascending), on their midpoints
    ``t_eff``; NaN where E <= 0.  Any other dimension of ``E`` (jackknife replicas) passes
    through.  beta_eff (E = W2, power 1/2) and the fcc coarsening exponent x_eff (E = the
    domain size) are both this."""
    lo, hi = _successive_pairs(times)
    mid = 0.5 * (times[lo] + times[hi])
    dlnt = xr.DataArray(np.log(times[hi]) - np.log(times[lo]), dims="t_eff", coords={"t_eff": mid})
    ln_e = _safe_log(E) if power == 1.0 else power * _safe_log(E)
    return (_pair_values(ln_e, hi, "t_eff", mid) - _pair_values(ln_e, lo, "t_eff", mid)) / dlnt


def beta_eff_of(W2: xr.DataArray, times: np.ndarray) -> xr.DataArray:
    """kelling2017 eq. 8 with E = W = sqrt(W2): d ln W / d ln t between successive
    positive sampling times ``times`` (ascending), on their midpoints ``t_eff``; NaN where
    W2 <= 0.  Any other dimension of ``W2`` (jackknife replicas) passes through."""
    return local_slope_of(W2, times, power=0.5)


#: How t_eff of a local slope between positive sampling times is defined (kmc2d, fcc).
POSITIVE_MIDPOINT_NOTE = (
    "t_eff is the arithmetic midpoint (t_i + t_j)/2 of two successive positive sampling "
    "times (kelling2017 eq. 8, as analysis.exponents)"
)


def put_means(out: xr.Dataset, est: xr.Dataset, err: xr.Dataset, names, meta) -> None:
    """``<name>_mean`` and ``<name>_err`` in ``out`` for each name, from a jackknife's
    estimates and errors; ``meta(name)`` gives (long name, units) of the per-sample
    quantity."""
    for name in names:
        long_name, units = meta(str(name))
        out[f"{name}_mean"] = est[name].variable
        out[f"{name}_mean"].attrs = {"long_name": f"sample mean of {long_name}", "units": units}
        out[f"{name}_err"] = err[name].variable
        out[f"{name}_err"].attrs = {
            "long_name": f"jackknife standard error of the sample mean of {long_name}",
            "units": units,
        }


def put_local_slope(
    out: xr.Dataset,
    est: xr.Dataset,
    err: xr.Dataset,
    name: str,
    long_name: str,
    times: np.ndarray,
    unit: str,
) -> xr.Dataset:
    """``out`` with the exponent ``name`` (and ``name_err``) of :func:`local_slope_of` over
    ``t_eff``, with the pair of positive times of each value as ``t_lower``, ``t_upper``."""
    pos = np.flatnonzero(times > 0)
    out = out.assign_coords(
        t_eff=("t_eff", est["t_eff"].values),
        t_lower=("t_eff", times[pos[:-1]]),
        t_upper=("t_eff", times[pos[1:]]),
    )
    out["t_eff"].attrs = {"long_name": f"effective time of {name}", "units": unit,
                          "comment": POSITIVE_MIDPOINT_NOTE}  # fmt: skip
    out["t_lower"].attrs = {"long_name": "earlier time t_j of the pair", "units": unit}
    out["t_upper"].attrs = {"long_name": "later time t_i of the pair", "units": unit}
    out[name] = est[name].variable
    out[name].attrs = {"long_name": long_name, "units": "1", "comment": POSITIVE_MIDPOINT_NOTE}
    out[f"{name}_err"] = err[name].variable
    out[f"{name}_err"].attrs = {"long_name": f"jackknife standard error of {name}", "units": "1"}
    return out


def _derived(m: xr.Dataset) -> xr.Dataset:
    """Every reported quantity as a function of the sample-mean dataset ``m``.

    This is the function the jackknife re-evaluates on the leave-group-out means; it
    addresses dimensions by name only, so extra dimensions (the jackknife replicas)
    pass through elementwise.  ``m.time`` must be sorted ascending.
    """
    times = np.asarray(m["time"].values, dtype=float)
    lo, hi = _successive_pairs(times)
    mid = 0.5 * (times[lo] + times[hi])
    dlnt = xr.DataArray(np.log(times[hi]) - np.log(times[lo]), dims="t_eff", coords={"t_eff": mid})

    beta = beta_eff_of(m["W2"], times)

    dlnt_c = dlnt.rename(t_eff="t_eff_c")
    s_vals = xr.DataArray(np.asarray(m["s"].values, dtype=float), dims="s", coords={"s": m["s"]})
    t_lo_c = xr.DataArray(times[lo], dims="t_eff_c", coords={"t_eff_c": mid})
    valid = t_lo_c > s_vals  # both times of the pair strictly after the waiting time

    out = {
        "W2_mean": m["W2"],
        "mean_h_mean": m["mean_h"],
        "C_h_mean": m["C_h"],
        "C_s_mean": m["C_s"],
        "beta_eff": beta,
    }
    for src, name in (("C_h", "lambda_h_over_z_eff"), ("C_s", "lambda_s_over_z_eff")):
        ln_c = _safe_log(m[src])
        slope = (
            _pair_values(ln_c, hi, "t_eff_c", mid) - _pair_values(ln_c, lo, "t_eff_c", mid)
        ) / dlnt_c
        out[name] = (-slope).where(valid)
    return xr.Dataset(out)


def _attrs_of(ds: xr.Dataset, var: str, default_units: str) -> dict[str, str]:
    units = str(ds[var].attrs.get("units", default_units))
    long_name = str(ds[var].attrs.get("long_name", var))
    return {"units": units, "long_name": long_name}


def analyze(ds: xr.Dataset, n_groups: int | None = None) -> xr.Dataset:
    """Means, jackknife errors and effective exponents of one aggregated dataset.

    Parameters
    ----------
    ds:
        Aggregated (or single-run) dataset in the ARCHITECTURE.md layout.
    n_groups:
        Jackknife groups; default ``min(n_samples, 32)``.

    Returns
    -------
    xr.Dataset
        Variables ``W2_mean, W2_err, mean_h_mean, mean_h_err`` (time);
        ``C_h_mean, C_h_err, C_s_mean, C_s_err`` (s, time);
        ``beta_eff, beta_eff_err`` (t_eff);
        ``lambda_h_over_z_eff(_err), lambda_s_over_z_eff(_err)`` (s, t_eff_c);
        coordinates ``t_lower, t_upper`` (t_eff), ``t_lower_c, t_upper_c`` (t_eff_c) and
        ``t_over_s_mid(s, t_eff_c) = t_eff_c / s``.  Global attributes of ``ds`` are
        copied and ``analysis_method``, ``reference_beta`` (d=1, 2), ``jackknife_groups``
        are added.

    Raises
    ------
    AnalysisInputError
        If a required variable or dimension is missing.
    """
    _check_input(ds)
    data = ds[list(REQUIRED_VARIABLES)].sortby("time").astype(np.float64)
    n_samples = int(data.sizes["sample"])
    groups = default_groups(n_samples) if n_groups is None else int(n_groups)
    est, err = jackknife(data, _derived, dim="sample", n_groups=groups, vectorized=True)

    times = np.asarray(data["time"].values, dtype=float)
    lo, hi = _successive_pairs(times)
    mid = 0.5 * (times[lo] + times[hi])

    out = xr.Dataset(
        coords={
            "time": data["time"].values,
            "s": data["s"].values,
            "t_eff": mid,
            "t_eff_c": mid.copy(),
        }
    )
    out["time"].attrs = {**ds["time"].attrs, "long_name": "time", "units": "MCS"}
    out["s"].attrs = {**ds["s"].attrs, "long_name": "waiting time s", "units": "MCS"}
    out["t_eff"].attrs = {
        "long_name": "effective time of beta_eff (midpoint of successive sampling times)",
        "units": "MCS",
        "comment": MIDPOINT_NOTE,
    }
    out["t_eff_c"].attrs = {
        "long_name": "effective time of lambda/z (midpoint of successive sampling times)",
        "units": "MCS",
        "comment": MIDPOINT_NOTE,
    }
    for dim_name, suffix in (("t_eff", ""), ("t_eff_c", "_c")):
        out = out.assign_coords(
            {
                f"t_lower{suffix}": (dim_name, times[lo]),
                f"t_upper{suffix}": (dim_name, times[hi]),
            }
        )
        out[f"t_lower{suffix}"].attrs = {
            "long_name": "earlier time t_j of the pair",
            "units": "MCS",
        }
        out[f"t_upper{suffix}"].attrs = {"long_name": "later time t_i of the pair", "units": "MCS"}
    s_col = np.asarray(data["s"].values, dtype=float)[:, None]
    out = out.assign_coords(t_over_s_mid=(("s", "t_eff_c"), mid[None, :] / s_col))
    out["t_over_s_mid"].attrs = {
        "long_name": "t/s at the midpoint of the pair, t_eff_c / s",
        "units": "1",
    }

    def put(name: str, value: xr.DataArray, long_name: str, units: str, **extra: str) -> None:
        out[name] = value.variable if isinstance(value, xr.DataArray) else value
        out[name].attrs = {"long_name": long_name, "units": units, **extra}

    for var in ("W2", "mean_h", "C_h", "C_s"):
        a = _attrs_of(ds, var, "1")
        put(f"{var}_mean", est[f"{var}_mean"], f"sample mean of {a['long_name']}", a["units"])
        put(
            f"{var}_err",
            err[f"{var}_mean"],
            f"jackknife standard error of the sample mean of {a['long_name']}",
            a["units"],
        )
    put(
        "beta_eff",
        est["beta_eff"],
        "effective growth exponent beta_eff (kelling2017 eq. 8, E = sqrt(mean W2))",
        "1",
        comment=MIDPOINT_NOTE,
    )
    put("beta_eff_err", err["beta_eff"], "jackknife standard error of beta_eff", "1")
    for kind, word in (("h", "heights"), ("s", "slopes")):
        name = f"lambda_{kind}_over_z_eff"
        put(
            name,
            est[name],
            f"effective autocorrelation exponent lambda_{kind}/z of the {word}: "
            f"-d ln C_{kind} / d ln(t/s) between successive times t > s",
            "1",
            comment=MIDPOINT_NOTE + "; NaN where t <= s or mean C <= 0",
        )
        put(f"{name}_err", err[name], f"jackknife standard error of {name}", "1")

    attrs = dict(ds.attrs)
    attrs.setdefault("n_samples", n_samples)
    point = attrs.get("point", "")
    attrs.update(
        {
            "title": f"simcore analysis: effective exponents{' of ' + str(point) if point else ''}",
            "analysis_method": ANALYSIS_METHOD,
            "analysis_created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
            "jackknife_groups": groups,
            "n_samples_analyzed": n_samples,
        }
    )
    dim_attr = attrs.get("dim")
    try:
        d = int(dim_attr) if dim_attr is not None else None
    except (TypeError, ValueError):
        d = None
    if d in REFERENCE_BETA:
        value, uncertainty, source = REFERENCE_BETA[d]
        attrs["reference_beta"] = value
        attrs["reference_beta_err"] = uncertainty
        attrs["reference_beta_source"] = source
    out.attrs = attrs
    return out


def write_atomic(ds: xr.Dataset, out: str | os.PathLike[str]) -> Path:
    """Write ``ds`` to netCDF at ``out`` atomically (temp file in the same dir + os.replace).

    Why: Snakemake and readers must never see a half-written file; a crash leaves the
    previous file (if any) untouched and no partial output under the final name.
    """
    return write_dataset(ds, out)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry point; returns the exit status (0 ok, 2 bad input, 1 write failure)."""
    parser = argparse.ArgumentParser(
        prog="python -m analysis.exponents",
        description=(
            "Compute sample means, jackknife errors and effective exponents (beta_eff, "
            "lambda_h/z, lambda_s/z; kelling2017 eq. 8) of one aggregated simcore dataset; "
            "for an ea3d dataset, energy, overlap moments and Binder ratio "
            "(analysis.spin_glass); for a kmc2d dataset, its observables and beta_eff "
            "(analysis.kmc2d); for an fcc dataset, open bonds, energy, domain size, S(k, t) "
            "and the coarsening exponent x_eff (analysis.fcc)."
        ),
    )
    parser.add_argument("dataset", metavar="DATASET.nc", help="aggregated dataset (netCDF)")
    parser.add_argument(
        "--out", required=True, metavar="ANALYSIS.nc", help="output netCDF (written atomically)"
    )
    parser.add_argument(
        "--groups",
        type=int,
        default=None,
        metavar="N",
        help="number of jackknife groups (default: min(n_samples, 32))",
    )
    args = parser.parse_args(argv)
    prog = parser.prog

    try:
        with xr.open_dataset(args.dataset, decode_times=False) as f:
            ds = f.load()
    except Exception as exc:
        print(f"{prog}: error: cannot read {args.dataset}: {_one_line(exc)}", file=sys.stderr)
        return 2
    try:
        if ds.attrs.get("model") == "ea3d":
            from analysis.spin_glass import analyze_ea3d

            result = analyze_ea3d(ds, n_groups=args.groups)
        elif ds.attrs.get("model") == "kmc2d":
            from analysis.kmc2d import analyze_kmc2d

            result = analyze_kmc2d(ds, n_groups=args.groups)
        elif ds.attrs.get("model") == "fcc":
            from analysis.fcc import analyze_fcc

            result = analyze_fcc(ds, n_groups=args.groups)
        else:
            result = analyze(ds, n_groups=args.groups)
    except (AnalysisInputError, ValueError) as exc:
        print(f"{prog}: error: {args.dataset}: {_one_line(exc)}", file=sys.stderr)
        return 2
    result.attrs["source_dataset"] = os.fspath(args.dataset)
    try:
        write_atomic(result, args.out)
    except Exception as exc:
        print(f"{prog}: error: cannot write {args.out}: {_one_line(exc)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
