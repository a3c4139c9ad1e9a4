"""Grouped (blocked) jackknife over independent samples.

Why a jackknife: the quantities we report are nonlinear functions of sample means
(``beta_eff`` is a difference of logarithms of ``sqrt(<W2>)``; ``lambda/z`` likewise of
``<C>``).  Their errors cannot be obtained by averaging per-sample exponents (a single
sample's ``W2`` can be tiny or its ``C`` negative), but the jackknife handles any smooth
function of the mean and propagates the correlations between times and waiting times
for free.

Why grouped: ``func`` is evaluated once per group, so cost grows with the number of
groups, not with the number of samples.  The samples are split, in the order they
appear along ``dim``, into ``n_groups`` contiguous groups whose sizes differ by at most
one.  Since samples are independent, contiguous groups are as
good as random ones.  For unequal group sizes the weighted delete-m_g jackknife of
Busing, Meijer & van der Leeden (Stat. Comput. 9, 3 (1999)) is used; for equal sizes
it reduces to the textbook formula ``var = (G-1)/G * sum_g (f_g - mean_g f_g)**2``.
With one sample per group and ``func`` the identity, the error is exactly
``std(ddof=1) / sqrt(n)``.

The estimate returned is ``func(mean over all samples)`` (not bias-corrected): the
jackknife bias is O(1/n) and far below the statistical error for the sample counts of
the campaigns, and ``func(mean)`` is what a reader would compute from the averaged data.

Missing values: means are taken with ``skipna=False``, so a NaN in any sample (for
example ``C(t, s)`` where ``t < s``, which is NaN in every sample) stays NaN.  A replica
for which ``func`` gives NaN while the full estimate is finite makes the error NaN,
which is the honest answer (the noise reaches, for example, ``C <= 0``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple, TypeVar

import numpy as np
import xarray as xr

__all__ = [
    "DEFAULT_MAX_GROUPS",
    "JACKKNIFE_DIM",
    "JackknifeResult",
    "default_groups",
    "group_slices",
    "jackknife",
    "jackknife_replicas",
    "replica_error",
]

#: Default upper bound on the number of jackknife groups.
DEFAULT_MAX_GROUPS = 32

T = TypeVar("T", xr.DataArray, xr.Dataset, np.ndarray)

#: Name of the extra dimension holding the leave-group-out replicas (``vectorized=True``).
JACKKNIFE_DIM = "_jackknife_group"
_JK_DIM = JACKKNIFE_DIM


class JackknifeResult(NamedTuple):
    """Estimate ``func(mean)`` and its jackknife standard error (same type and shape)."""

    estimate: Any
    error: Any


def default_groups(n_samples: int) -> int:
    """The default number of groups, ``min(n_samples, 32)``."""
    return max(1, min(int(n_samples), DEFAULT_MAX_GROUPS))


def group_slices(n_samples: int, n_groups: int) -> list[slice]:
    """Contiguous slices splitting ``range(n_samples)`` into ``n_groups`` near-equal groups."""
    if n_samples < 1:
        raise ValueError(f"need at least one sample, got {n_samples}")
    if not 1 <= n_groups <= n_samples:
        raise ValueError(f"n_groups must be in [1, n_samples={n_samples}], got {n_groups}")
    edges = np.linspace(0, n_samples, n_groups + 1).round().astype(int)
    # rounded equally spaced edges: sizes differ by at most one
    return [slice(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:], strict=True)]


def _identity(x: T) -> T:
    return x


def _is_xarray(x: object) -> bool:
    return isinstance(x, xr.DataArray | xr.Dataset)


def _stack(values: list[Any]) -> Any:
    if _is_xarray(values[0]):
        return xr.concat(values, dim=_JK_DIM, coords="minimal", compat="override", join="outer")
    return np.stack([np.asarray(v, dtype=float) for v in values], axis=0)


def _weights(w: np.ndarray, like: Any) -> Any:
    """``w`` (one value per group) shaped to broadcast against the stacked replicas."""
    if _is_xarray(like):
        return xr.DataArray(w, dims=_JK_DIM)
    return w.reshape((-1,) + (1,) * (np.ndim(like) - 1))


def _sum_groups(x: Any) -> Any:
    if _is_xarray(x):
        return x.sum(_JK_DIM, skipna=False)
    return x.sum(axis=0)


def jackknife(
    data: T,
    func: Callable[[Any], Any] | None = None,
    *,
    dim: str = "sample",
    n_groups: int | None = None,
    vectorized: bool = False,
) -> JackknifeResult:
    """Jackknife estimate and standard error of ``func(mean of data over dim)``.

    Parameters
    ----------
    data:
        ``xr.DataArray`` or ``xr.Dataset`` with dimension ``dim``, or a numpy array whose
        axis 0 is the sample axis.
    func:
        Function of the sample mean (same type as ``data`` without ``dim``) returning a
        DataArray, Dataset or array; its output shape must not depend on the values.
        Defaults to the identity (error of the mean).
    dim:
        The sample dimension (xarray inputs only).
    n_groups:
        Number of jackknife groups; default ``min(n_samples, 32)``.
    vectorized:
        xarray inputs only.  If True, ``func`` is called once on all leave-group-out
        means stacked along the extra dimension :data:`JACKKNIFE_DIM` instead of once per
        group; it must then treat that dimension elementwise (xarray code that addresses
        dimensions by name does).  Same result, much less xarray overhead.

    Returns
    -------
    JackknifeResult
        ``(estimate, error)``.  With a single sample the error is NaN everywhere.
    """
    estimate, reps, sizes = jackknife_replicas(
        data, func, dim=dim, n_groups=n_groups, vectorized=vectorized
    )
    return JackknifeResult(estimate, replica_error(estimate, reps, sizes))


def jackknife_replicas(
    data: T,
    func: Callable[[Any], Any] | None = None,
    *,
    dim: str = "sample",
    n_groups: int | None = None,
    vectorized: bool = False,
) -> tuple[Any, Any, np.ndarray]:
    """``func(mean)``, its leave-one-group-out replicas (stacked along
    :data:`JACKKNIFE_DIM` for xarray output, on axis 0 for arrays; None for fewer than two
    groups) and the group sizes: what :func:`jackknife` makes its error of, for callers
    that need the replicas themselves (arguments as for :func:`jackknife`)."""
    f = _identity if func is None else func
    xarray_input = _is_xarray(data)
    if xarray_input:
        if dim not in data.dims:
            raise ValueError(f"data has no dimension {dim!r} (dims: {tuple(data.dims)})")
        n = int(data.sizes[dim])
    else:
        data = np.asarray(data, dtype=float)
        if data.ndim < 1:
            raise ValueError("numpy input needs a sample axis (axis 0)")
        n = int(data.shape[0])
    g = default_groups(n) if n_groups is None else int(n_groups)
    slices = group_slices(n, g)

    def total(x: Any) -> Any:
        if xarray_input:
            return x.sum(dim, skipna=False)
        return x.sum(axis=0)

    def part(sl: slice) -> Any:
        return data.isel({dim: sl}) if xarray_input else data[sl]

    full_sum = total(data)
    estimate = f(full_sum / n)
    sizes = np.array([sl.stop - sl.start for sl in slices], dtype=float)
    if g < 2:
        return estimate, None, sizes
    if vectorized:
        if not xarray_input:
            raise ValueError("vectorized=True needs xarray input")
        group_sums = _stack([total(part(sl)) for sl in slices])
        reps = f((full_sum - group_sums) / xr.DataArray(n - sizes, dims=_JK_DIM))
    else:
        replicas = [
            f((full_sum - total(part(sl))) / (n - m)) for sl, m in zip(slices, sizes, strict=True)
        ]
        reps = _stack(replicas)
    return estimate, reps, sizes


def replica_error(estimate: Any, reps: Any, sizes: np.ndarray) -> Any:
    """The jackknife standard error of ``estimate`` from its leave-one-group-out replicas
    ``reps`` (along :data:`JACKKNIFE_DIM`, or axis 0 for arrays) of groups of ``sizes``
    samples: the weighted delete-m_g jackknife (Busing et al. 1999; the textbook formula
    for equal groups).  NaN everywhere for fewer than two groups (``reps`` None)."""
    sizes = np.asarray(sizes, dtype=float)
    g = sizes.size
    if reps is None or g < 2:
        if _is_xarray(estimate):
            return estimate * np.nan
        shape = np.shape(estimate) if reps is None else np.broadcast_shapes(
            np.shape(estimate), np.shape(reps)[1:])  # fmt: skip
        return np.full(shape, np.nan)
    n = sizes.sum()
    # h_g = n / m_g
    h = n / sizes
    hw = _weights(h, reps)
    pseudo = hw * estimate - (hw - 1.0) * reps
    theta_j = g * estimate - _sum_groups(_weights(1.0 - sizes / n, reps) * reps)
    var = _sum_groups((pseudo - theta_j) ** 2 / (hw - 1.0)) / g
    error = var**0.5
    if _is_xarray(error):
        error = error.drop_vars(_JK_DIM, errors="ignore")
    return error
