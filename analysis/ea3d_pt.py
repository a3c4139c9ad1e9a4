"""Edwards-Anderson spin glass in equilibrium by parallel tempering (ea3d_pt): energy,
overlap moments, Binder ratio, spin-glass susceptibility, second-moment correlation length,
the crossings of the Binder ratios (or of xi_L / L) of successive sizes, and the evidence
of equilibrium.

Analysis (:func:`analyze`) of one aggregated dataset (one size L, one temperature ladder).
``<.>`` is the thermal average of one disorder sample (its bin mean), ``[.]`` the average
over the samples.  The equilibrium values come from the last logarithmic bin, the second
half of the run:

* ``energy_mean/err(T)``: the energy per spin e (both replicas);
* ``q2_mean/err(T)``, ``q4_mean/err(T)``: [<q^2>] and [<q^4>] of the overlap q of the two
  replicas at T;
* ``binder/binder_err(T)``: g = (3 - [<q^4>]/[<q^2>]^2) / 2 (0 for a Gaussian q, 1 for
  q = +-c);
* ``chi_sg/chi_sg_err(T)``: chi_SG = L^3 [<q^2>];
* ``binder_jk(jk_group, T)``: the jackknife replicas of g (g of the samples without group
  k), with the coordinate ``jk_group_size`` (the samples left out): what
  :func:`crossings` needs to give a crossing of two sizes its error without the run files.

Where the run file has ``qk2`` = |q(k_min)|^2 of the overlap field (k_min = 2 pi / L along
each axis; older runs have none, and their analysis is unchanged), the second-moment
correlation length (Ballesteros et al., PRB 62, 14237 (2000); Katzgraber, Koerner, Young,
PRB 73, 224432 (2006)), whose ratio to L crosses at T_c like g:

* ``qk2_mean/err(T)``: [<|q(k_min)|^2>];
* ``xi/xi_err(T)``: xi_L = sqrt(chi(0)/chi(k_min) - 1) / (2 sin(k_min/2)) with chi(0) =
  V [<q^2>], chi(k_min) = V [<|q(k_min)|^2>] (lattice spacings; NaN where chi(0)/chi(k_min)
  <= 1), of the disorder means, as g; ``xi_over_L/xi_over_L_err(T)``: xi_L / L;
* ``xi_over_L_jk(jk_group, T)``: its jackknife replicas, as ``binder_jk``;
* ``binder_bin/binder_bin_err(T, t)``, ``xi_over_L_bin/xi_over_L_bin_err(T, t)``: g and
  xi_L / L of every logarithmic bin (their equilibration).

The evidence of equilibrium:

* ``energy_bin_mean/err(T, t)``, ``q2_bin_mean/err(T, t)``: every logarithmic bin
  (coordinates ``t``, the last sweep of each bin, ``t_first`` and ``measurements`` of the
  file): the last bins agree within errors in equilibrium; ``energy_drift`` and
  ``q2_drift`` (T, t) are each bin minus the last bin per sample, averaged, with the
  errors of that paired difference (the same samples are in every bin, so the
  difference has much smaller errors than either bin);
* ``exchange_acceptance_mean/err(T_pair)``: the accepted fraction of the exchanges of
  each pair of neighbouring temperatures (coordinates ``T_lower``, ``T_upper``);
* ``round_trips_mean/err(walker)``: round trips T_min -> T_max -> T_min of each
  configuration of the ladder (labelled by the temperature it started at), averaged over
  the samples and both replicas; ``round_trips_per_config_mean/err``: averaged over the
  configurations too; ``round_trips_min``: the fewest round trips of any configuration of
  any sample and replica (0: one never travelled the whole ladder and back).

Errors are jackknife errors over groups of whole coded words (:func:`analysis.ea3d.
word_groups`): the 64 samples of a word share their random numbers, so words, not samples,
are independent.  With a single word the groups split it, and the errors ignore that
correlation (the attribute ``jackknife_groups_note`` says so).

Crossings of the Binder ratios (or of xi_L / L) of successive sizes
(:mod:`analysis.ea3d_pt_crossings`; ``python -m analysis.ea3d_pt crossings [--of
xi_over_L] ANALYSIS.nc ...`` prints them as a Markdown table, :func:`main`) and the
campaign figures (:func:`draw_figures`, of :mod:`analysis.ea3d_pt_figures`) are drawn
from the analyses.  This is the model's analysis module (the ea3d_pt spec names it):
:func:`analyze` and :func:`draw_figures`.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from functools import partial
from typing import Any

import numpy as np
import xarray as xr

from analysis.dispatch import fail
from analysis.ea3d import word_groups
from analysis.ea3d_pt_crossings import JK_DIM, QUANTITIES, crossing_table
from analysis.ea3d_pt_figures import draw_figures
from analysis.estimates import analysis_attrs
from analysis.stats import JACKKNIFE_DIM, jackknife_replicas, replica_error
from simcore.interrupt import run_main
from simcore.io.dataset import unit_attributes

__all__ = ["REQUIRED", "XI_VARIABLES", "analyze", "correlation_length", "draw_figures", "main"]

#: Variables of the run file the analysis needs.
REQUIRED = ("energy", "q2", "q4", "exchange_acceptance", "round_trips")
#: Coordinates of the run file the analysis needs.
_COORDINATES = ("T", "T_pair", "t", "t_first")


# ----------------------------------------------------------------------------- analysis


#: What the analysis adds where the run file has ``qk2`` (the module doc).
XI_VARIABLES = (
    "qk2_mean", "qk2_err", "xi", "xi_err", "xi_over_L", "xi_over_L_err", "xi_over_L_jk",
    "binder_bin", "binder_bin_err", "xi_over_L_bin", "xi_over_L_bin_err",
)  # fmt: skip
#: The outputs that are functions of the disorder means (no ``_mean`` suffix).
_DERIVED = ("binder", "chi_sg", "xi", "xi_over_L", "binder_bin", "xi_over_L_bin")


def correlation_length(q2: xr.DataArray, qk2: xr.DataArray, L: int) -> xr.DataArray:
    """The second-moment correlation length xi_L = sqrt([q2]/[qk2] - 1) / (2 sin(k_min/2)),
    k_min = 2 pi / L, of the disorder means [<q^2>] and [<|q(k_min)|^2>] (chi(0)/chi(k_min)
    = [q2]/[qk2]); NaN where that ratio is <= 1 (no finite xi_L)."""
    ratio = q2 / qk2
    return np.sqrt((ratio - 1.0).where(ratio > 1.0)) / (2.0 * np.sin(np.pi / L))


def _derived(m: xr.Dataset, L: int) -> xr.Dataset:
    """The sample means with the Binder ratio and chi_SG of the last bin added, and where
    ``qk2`` is there xi_L, xi_L / L (last bin) and g and xi_L / L per bin."""
    q2, q4 = m["q2"], m["q4"]
    out = m.assign(binder=0.5 * (3.0 - q4 / q2**2), chi_sg=float(L) ** 3 * q2)
    if "qk2" not in m:
        return out
    xi = correlation_length(q2, m["qk2"], L)
    return out.assign(
        xi=xi,
        xi_over_L=xi / L,
        binder_bin=0.5 * (3.0 - m["q4_bin"] / m["q2_bin"] ** 2),
        xi_over_L_bin=correlation_length(m["q2_bin"], m["qk2_bin"], L) / L,
    )


def _set(out: xr.Dataset, name: str, value: Any, long_name: str, units: dict, **extra: Any) -> None:
    """``out[name] = value`` with its CF attributes."""
    out[name] = value.variable if isinstance(value, xr.DataArray) else value
    out[name].attrs = {"long_name": long_name, **units, **extra}


def _check(ds: xr.Dataset) -> None:
    """``ValueError`` naming what is missing for a dataset that is not ea3d_pt's."""
    missing = [v for v in (*REQUIRED, *_COORDINATES) if v not in ds.variables]
    if "L" not in ds.attrs:
        missing.append("attribute L")
    if missing:
        raise ValueError(f"not an ea3d_pt dataset: missing {', '.join(missing)}")


def _groups(n: int, n_groups: int | None) -> tuple[int, str]:
    """The jackknife groups of ``n`` samples (whole coded words, or ``n_groups``) and the
    note on them; ``ValueError`` for fewer than 2 or more than ``n``."""
    if n_groups is None:
        groups, note = word_groups(n)
    else:
        groups, note = int(n_groups), "groups set by the caller"
    if not 2 <= groups <= n:
        raise ValueError(f"the jackknife needs 2 to {n} groups (the samples), got {groups}")
    return groups, note


def _per_sample(ds: xr.Dataset) -> xr.Dataset:
    """The per-sample quantities the jackknife averages: every bin, the drift of every bin
    from the last, the last bin, and the exchange diagnostics."""
    last = ds.isel(t=-1, drop=True)
    per_sample = xr.Dataset(
        {
            "energy_bin": ds["energy"],
            "q2_bin": ds["q2"],
            "energy_drift": ds["energy"] - last["energy"],
            "q2_drift": ds["q2"] - last["q2"],
            "energy": last["energy"],
            "q2": last["q2"],
            "q4": last["q4"],
            "exchange_acceptance": ds["exchange_acceptance"],
            "round_trips": ds["round_trips"].mean("replica"),
            "round_trips_per_config": ds["round_trips"].mean(("replica", "walker")),
        }
    )
    if "qk2" in ds:
        per_sample = per_sample.assign(
            q4_bin=ds["q4"], qk2_bin=ds["qk2"], qk2=last["qk2"]
        )  # fmt: skip
    per_sample = per_sample.astype(np.float64)
    return per_sample.drop_vars([c for c in per_sample.coords if c != "sample"])


def _coords(ds: xr.Dataset, groups: int, sizes: np.ndarray) -> dict[str, Any]:
    """The coordinates of the analysis: the ladder and its pairs, the jackknife groups
    (``sizes``: the samples of each) and the bins of ``ds``."""
    T = ds["T"]
    coords: dict[str, Any] = {
        "T": ("T", T.values, dict(T.attrs)),
        "T_pair": ("T_pair", ds["T_pair"].values, dict(ds["T_pair"].attrs)),
        "T_lower": ("T_pair", T.values[:-1], {**unit_attributes(T.attrs),
                    "long_name": "lower temperature T_i of the exchange pair"}),
        "T_upper": ("T_pair", T.values[1:], {**unit_attributes(T.attrs),
                    "long_name": "upper temperature T_(i+1) of the exchange pair"}),
        JK_DIM: (JK_DIM, np.arange(groups), {"long_name": "jackknife group left out",
                                             "units": "1"}),
        "jk_group_size": (JK_DIM, sizes.astype(np.int64),
                          {"long_name": "disorder samples in the group left out",
                           "units": "1"}),
    }  # fmt: skip
    for c in ("t", "t_first", "measurements", "walker"):
        if c in ds.variables:
            coords[c] = (ds[c].dims, ds[c].values, dict(ds[c].attrs))
    return coords


def _quantities(e_units: dict, eq: dict) -> dict[str, tuple[str, str, dict, dict]]:
    """Per estimate of the jackknife: (output name, long name, units, extra attributes);
    ``eq``: the attributes of the equilibrium values (the last bin)."""
    one = {"units": "1"}
    return {  # name in est: (output name, long name, units, extra attributes)
        "energy": ("energy", "energy per spin e, [<e>]", e_units, eq),
        "q2": ("q2", "[<q^2>] of the overlap of the two replicas", one, eq),
        "q4": ("q4", "[<q^4>] of the overlap of the two replicas", one, eq),
        "binder": ("binder", "Binder ratio g = (3 - [<q^4>]/[<q^2>]^2) / 2", one, eq),
        "chi_sg": ("chi_sg", "spin-glass susceptibility chi_SG = L^3 [<q^2>]", one, eq),
        "energy_bin": ("energy_bin", "energy per spin e, [<e>], per logarithmic bin",
                       e_units, {}),
        "q2_bin": ("q2_bin", "[<q^2>] per logarithmic bin", one, {}),
        "energy_drift": ("energy_drift", "e of the bin minus e of the last bin, per "
                         "sample, averaged (paired: the errors of the difference)", e_units,
                         {}),
        "q2_drift": ("q2_drift", "<q^2> of the bin minus <q^2> of the last bin, per sample, "
                     "averaged (paired: the errors of the difference)", one, {}),
        "exchange_acceptance": ("exchange_acceptance", "accepted fraction of the exchanges "
                                "between T_i and T_(i+1), mean over samples", one, {}),
        "round_trips": ("round_trips", "round trips T_min -> T_max -> T_min of each "
                        "configuration, mean over samples and replicas", one, {}),
        "round_trips_per_config": ("round_trips_per_config", "round trips T_min -> T_max "
                                   "-> T_min per configuration, mean over configurations, "
                                   "samples and replicas", one, {}),
    }  # fmt: skip


def _xi_quantities(eq: dict) -> dict[str, tuple[str, str, dict, dict]]:
    """As :func:`_quantities`, those of the correlation length (a run file with ``qk2``)."""
    one = {"units": "1"}
    xi = "second-moment correlation length xi_L = sqrt(chi(0)/chi(k_min) - 1) / (2 sin(k_min/2))"
    lattice = {**eq, "comment": f"{eq['comment']}; in lattice spacings; chi(0) = V [<q^2>], "
               "chi(k_min) = V [<|q(k_min)|^2>], k_min = 2 pi / L; NaN where chi(0)/chi(k_min) "
               "<= 1"}  # fmt: skip
    return {
        "qk2": ("qk2", "[<|q(k_min)|^2>] of the overlap field of the two replicas, k_min = "
                "2 pi / L (mean over x, y, z)", one, eq),
        "xi": ("xi", xi, one, lattice),
        "xi_over_L": ("xi_over_L", "xi_L / L, the second-moment correlation length over L",
                      one, lattice),
        "binder_bin": ("binder_bin", "Binder ratio g per logarithmic bin", one, {}),
        "xi_over_L_bin": ("xi_over_L_bin", "xi_L / L per logarithmic bin", one, {}),
    }  # fmt: skip


def analyze(ds: xr.Dataset, n_groups: int | None = None) -> xr.Dataset:
    """Means and jackknife errors of the equilibrium observables, the per-bin means and the
    exchange diagnostics of one ea3d_pt dataset (see the module doc); ``n_groups``
    overrides the groups of whole coded words.  Raises ``ValueError`` naming what is
    missing for a dataset that is not ea3d_pt's."""
    _check(ds)
    ds = ds.sortby("sample")
    L = int(ds.attrs["L"])
    groups, note = _groups(int(ds.sizes["sample"]), n_groups)
    derived = partial(_derived, L=L)
    est, reps, sizes = jackknife_replicas(
        _per_sample(ds), derived, dim="sample", n_groups=groups, vectorized=True
    )
    err = replica_error(est, reps, sizes)
    binder_jk = reps["binder"].rename({JACKKNIFE_DIM: JK_DIM})
    out = xr.Dataset(coords=_coords(ds, groups, sizes))

    first, final = (int(ds[c].values[-1]) for c in ("t_first", "t"))
    eq = {"comment": f"last logarithmic bin, sweeps {first} to {final} (the second half of "
                     "the run)"}  # fmt: skip
    one = {"units": "1"}
    quantities = _quantities(unit_attributes(ds["energy"].attrs), eq)
    if "qk2" in ds:
        quantities.update(_xi_quantities(eq))
    for var, (name, long_name, units, extra) in quantities.items():
        mean = name if name in _DERIVED else f"{name}_mean"
        _set(out, mean, est[var], long_name, units, **extra)
        _set(out, f"{name}_err", err[var], f"jackknife standard error of {long_name}",
             units, **extra)  # fmt: skip
    _set(out, "round_trips_min", np.int64(ds["round_trips"].min()),
         "fewest round trips of any configuration of any sample and replica", one)  # fmt: skip
    _set(out, "binder_jk", binder_jk.transpose(JK_DIM, "T"),
         "jackknife replicas of the Binder ratio g: the samples without group jk_group", one,
         **eq)  # fmt: skip
    if "qk2" in ds:
        xi_jk = reps["xi_over_L"].rename({JACKKNIFE_DIM: JK_DIM}).transpose(JK_DIM, "T")
        _set(out, "xi_over_L_jk", xi_jk, "jackknife replicas of xi_L / L: the samples "
             "without group jk_group", one, **eq)  # fmt: skip
    out.attrs = analysis_attrs(
        ds,
        "spin-glass equilibrium observables by parallel tempering",
        "jackknife over groups of coded words (analysis.ea3d_pt)",
        groups,
        jackknife_groups_note=note,
        equilibrium_bin_first=first,
        equilibrium_bin_last=final,
    )
    return out


# ----------------------------------------------------------------------------- CLI


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry point; returns the exit status (0 ok, 2 bad input)."""
    parser = argparse.ArgumentParser(
        prog="python -m analysis.ea3d_pt",
        description="Campaign-level results of ea3d_pt analyses.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    cross = sub.add_parser(
        "crossings",
        description=(
            "Print a Markdown table of the temperatures where the Binder ratios (or, with "
            "--of xi_over_L, xi_L/L) of successive sizes on one temperature ladder cross "
            "(linear interpolation between ladder temperatures, jackknife errors of both "
            "sizes added), or why they do not."
        ),
    )
    cross.add_argument(
        "--of", choices=QUANTITIES, default="binder", dest="quantity",
        help="the quantity whose crossings are found: the Binder ratio g (default) or the "
        "second-moment correlation length over L (analyses of runs with qk2)",
    )  # fmt: skip
    cross.add_argument("inputs", nargs="+", metavar="ANALYSIS.nc", help="ea3d_pt analyses")
    args = parser.parse_args(argv)
    prog = f"{parser.prog} {args.command}"
    try:
        table = crossing_table(args.inputs, args.quantity)
    except (OSError, ValueError, KeyError) as exc:
        return fail(prog, exc)
    print(table)
    return 0


if __name__ == "__main__":
    run_main(main, "python -m analysis.ea3d_pt")
