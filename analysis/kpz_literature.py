"""The literature values of the KPZ growth exponent beta, kept here once (:data:`BETA`),
and the scales of a kpz point they set: the dynamic exponent z = 2 / (1 + beta) and the
time from which a system of size L leaves the growth law (:func:`saturation_onset`).

The analysis (:mod:`analysis.kpz`) records the reference beta of its dimension and ends
its beta fit at the saturation onset (:mod:`analysis.kpz_fits`), the campaign figures
(:mod:`analysis.kpz_figures`) draw both, and :mod:`analysis.kelling2017` draws the
asymptotic value of its Fig. 6.
"""

from __future__ import annotations

import xarray as xr

from analysis.literature import LiteratureValue

__all__ = [
    "BETA",
    "REFERENCE_BETA",
    "SATURATION_ONSET",
    "dim_of",
    "dynamic_exponent",
    "reference_beta",
    "saturation_onset",
]

#: The literature values of the KPZ growth exponent beta (the one table of them).
BETA: dict[str, LiteratureValue] = {
    "1d": LiteratureValue(1.0 / 3.0, 0.0, "1/3", "exact 1+1-dimensional KPZ value beta = 1/3"),
    # kelling2017 sec. 2.1 (after eq. 4): "the currently most precise estimate", from its
    # ref. [13], simulations with the implementation kelling2017 presents
    "2d": LiteratureValue(
        0.2414,
        0.0002,
        "0.2414(2)",
        "beta = 0.2414(2): Kelling, Odor, Gemming, 'Dynamical universality classes of simple "
        "growth and lattice gas models', arXiv (2017), as quoted in Kelling, Odor, Gemming, "
        "Comput. Phys. Commun. 220, 205 (2017), sec. 2.1 (its ref. [13])",
    ),
    # kelling2017 Fig. 6 and sec. 4.2: the asymptotic value of its ref. [19] (GPU runs with
    # cDB at device and single-hit DB at block level), drawn as the orange band
    "2d_kelling2011": LiteratureValue(
        0.2415,
        0.0015,
        "0.2415(15)",
        "asymptotic beta = 0.2415(15): Kelling, Odor, Phys. Rev. E 84, 061150 (2011), as shown "
        "in Kelling, Odor, Gemming, Comput. Phys. Commun. 220, 205 (2017), Fig. 6 (its ref. [19])",
    ),
}

#: The reference growth exponent of each substrate dimension d: recorded by
#: :func:`analysis.kpz.analyze` (``reference_beta``) and dashed in the ``beta_eff`` figure.
REFERENCE_BETA: dict[int, LiteratureValue] = {1: BETA["1d"], 2: BETA["2d"]}

#: W^2 of a system of size L departs from the growth law from about this fraction of
#: t_x = L^z on (the default campaign: L = 128 leaves L = 256 by more than two errors
#: from t ~ 0.1 L^z): the figures mark the finite-size regime from there.
SATURATION_ONSET = 0.1


def reference_beta(dim: int | None) -> float | None:
    """Reference KPZ growth exponent for substrate dimension ``dim`` (None if unknown)."""
    if dim is None:
        return None
    ref = REFERENCE_BETA.get(int(dim))
    return None if ref is None else ref.value


def dim_of(ds: xr.Dataset) -> int | None:
    """The substrate dimension of a kpz dataset (its attribute ``dim``; None without it)."""
    try:
        return int(ds.attrs["dim"])
    except (KeyError, TypeError, ValueError):
        return None


def dynamic_exponent(dim: int | None) -> float | None:
    """The KPZ dynamic exponent z of substrate dimension ``dim``, from the reference beta
    and the scaling relations alpha + z = 2, beta = alpha / z: z = 2 / (1 + beta) (3/2 in
    d = 1, 1.61 in d = 2); None where no beta is known."""
    ref = REFERENCE_BETA.get(dim) if dim is not None else None
    return None if ref is None else 2.0 / (1.0 + ref.value)


def saturation_onset(ds: xr.Dataset) -> float | None:
    """The time ``SATURATION_ONSET * L^z`` from which a point's W^2 bends towards its
    saturation value W^2 ~ L^(2 alpha) (t_x ~ L^z); None without L or a known z."""
    z = dynamic_exponent(dim_of(ds))
    try:
        L = float(ds.attrs["L"])
    except (KeyError, TypeError, ValueError):
        return None
    return None if z is None else SATURATION_ONSET * L**z
