"""GPU observables (cupy, batch of samples) equal the CPU functions exactly."""

from __future__ import annotations

import numpy as np
import pytest

from simcore.models.kpz.kernels import sequential_sweeps
from simcore.models.kpz.lattice import flat_lattice
from simcore.models.kpz.observables import (
    height_autocorrelation,
    measure_heights,
    slope_autocorrelation,
    width_and_mean,
)
from simcore.rng import uniform_threshold

cp = pytest.importorskip("cupy")


def _has_gpu() -> bool:
    try:
        return cp.cuda.runtime.getDeviceCount() > 0
    except Exception:  # no driver, no device, broken runtime
        return False


pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not _has_gpu(), reason="needs a CUDA GPU"),
]

SEED = 0x0BAD_5EED_1234_5678
SAMPLES = 5


def _advance(lats, nets, L: int, t0: int, n_mcs: int, p: float = 0.9, q: float = 0.2):
    """Run MCS t0 .. t0 + n_mcs of every sample in place (host arrays); add to ``nets``."""
    params = (np.uint64(uniform_threshold(p)), np.uint64(uniform_threshold(q)))
    for i in range(SAMPLES):
        nets[i] += sequential_sweeps(
            lats[i], 2, L, t0, n_mcs, SEED & 0xFFFFFFFF, SEED >> 32, i, params
        )


def _cpu_heights(lats, nets, L):
    return np.stack(
        [
            measure_heights(lat, 2, L, int(net), np.empty(L * L, dtype=np.int64))
            for lat, net in zip(lats, nets, strict=True)
        ]
    )


@pytest.fixture(scope="module", params=[8, 32, 128])
def runs(request):
    """Two times s < t of the same samples, on the host: (L, lat_s, net_s, lat_t, net_t)."""
    L = request.param
    lat_s = np.stack([flat_lattice(2, L) for _ in range(SAMPLES)])
    net_s = np.zeros(SAMPLES, dtype=np.int64)
    _advance(lat_s, net_s, L, 0, 3)
    lat_t, net_t = lat_s.copy(), net_s.copy()
    _advance(lat_t, net_t, L, 3, 4)
    return L, lat_s, net_s, lat_t, net_t


def test_heights_equal_cpu(runs):
    from simcore.models.kpz import gpu_observables as gobs

    L, lat_s, net_s, lat_t, net_t = runs
    for lats, nets in ((lat_s, net_s), (lat_t, net_t)):
        want = _cpu_heights(lats, nets, L)
        # net as host numpy and as cupy
        for net_arg in (nets, cp.asarray(nets)):
            got = gobs.heights(cp.asarray(lats), L, net_arg)
            assert got.dtype == cp.int32 and got.shape == (SAMPLES, L * L)
            assert np.array_equal(got.get().astype(np.int64), want)
    assert not np.array_equal(lat_s, lat_t)


def test_heights_flat_start():
    from simcore.models.kpz import gpu_observables as gobs

    L = 16
    lat = cp.tile(cp.asarray(flat_lattice(2, L)), (3, 1))
    h = gobs.heights(lat, L, np.zeros(3, dtype=np.int64)).get()
    x, y = np.meshgrid(np.arange(L), np.arange(L), indexing="xy")
    assert np.array_equal(h, np.tile(((x + y) % 2).reshape(-1), (3, 1)))


def test_heights_bookkeeping_check(runs):
    from simcore.models.kpz import gpu_observables as gobs

    L, lat_s, net_s, _, _ = runs
    bad = net_s.copy()
    bad[1] += 1
    with pytest.raises(RuntimeError, match="bookkeeping"):
        gobs.heights(cp.asarray(lat_s), L, bad)


def test_width_and_mean_equal_cpu(runs):
    from simcore.models.kpz import gpu_observables as gobs

    L, lat_s, net_s, lat_t, net_t = runs
    for lats, nets in ((lat_s, net_s), (lat_t, net_t)):
        h_cpu = _cpu_heights(lats, nets, L)
        h = gobs.heights(cp.asarray(lats), L, nets)
        w2, mean = gobs.width_and_mean(h)
        assert isinstance(w2, np.ndarray) and w2.dtype == np.float64 and w2.shape == (SAMPLES,)
        assert isinstance(mean, np.ndarray) and mean.dtype == np.float64
        want = [width_and_mean(row) for row in h_cpu]
        assert w2.tolist() == [w for w, _ in want]
        assert mean.tolist() == [m for _, m in want]
        # int64 heights give the same numbers
        w2_64, mean_64 = gobs.width_and_mean(h.astype(cp.int64))
        assert w2_64.tolist() == w2.tolist() and mean_64.tolist() == mean.tolist()


def test_height_autocorrelation_equal_cpu(runs):
    from simcore.models.kpz import gpu_observables as gobs

    L, lat_s, net_s, lat_t, net_t = runs
    hs_cpu = _cpu_heights(lat_s, net_s, L)
    ht_cpu = _cpu_heights(lat_t, net_t, L)
    h_s = gobs.heights(cp.asarray(lat_s), L, net_s)
    h_t = gobs.heights(cp.asarray(lat_t), L, net_t)
    got = gobs.height_autocorrelation(h_t, h_s)
    assert isinstance(got, np.ndarray) and got.dtype == np.float64 and got.shape == (SAMPLES,)
    want = [
        height_autocorrelation(a, b.astype(np.int32)) for a, b in zip(ht_cpu, hs_cpu, strict=True)
    ]
    assert got.tolist() == want
    # C_h(s, s) = W^2(s)
    same = gobs.height_autocorrelation(h_s, h_s)
    assert same.tolist() == [height_autocorrelation(b, b) for b in hs_cpu]
    # mixed int32 / int64 inputs
    assert gobs.height_autocorrelation(h_t.astype(cp.int64), h_s).tolist() == want


def test_slope_autocorrelation_equal_cpu(runs):
    from simcore.models.kpz import gpu_observables as gobs

    _, lat_s, _, lat_t, _ = runs
    got = gobs.slope_autocorrelation(cp.asarray(lat_t), cp.asarray(lat_s))
    assert isinstance(got, np.ndarray) and got.dtype == np.float64 and got.shape == (SAMPLES,)
    assert got.tolist() == [slope_autocorrelation(a, b) for a, b in zip(lat_t, lat_s, strict=True)]
    same = gobs.slope_autocorrelation(cp.asarray(lat_s), cp.asarray(lat_s))
    assert same.tolist() == [slope_autocorrelation(b, b) for b in lat_s]
    assert same.tolist() == [0.25] * SAMPLES


def test_snapshot_slices(runs):
    """Rows of a bigger (ns, S, n) snapshot array, as gpu_simulation stores them, work too."""
    from simcore.models.kpz import gpu_observables as gobs

    L, lat_s, net_s, lat_t, net_t = runs
    h_t = gobs.heights(cp.asarray(lat_t), L, net_t)
    snap_h = cp.zeros((2, SAMPLES, L * L), dtype=cp.int32)
    snap_lat = cp.zeros((2, SAMPLES, lat_s.shape[1]), dtype=cp.uint32)
    snap_h[1] = gobs.heights(cp.asarray(lat_s), L, net_s)
    snap_lat[1] = cp.asarray(lat_s)
    hs_cpu = _cpu_heights(lat_s, net_s, L)
    ht_cpu = h_t.get().astype(np.int64)
    assert gobs.height_autocorrelation(h_t, snap_h[1]).tolist() == [
        height_autocorrelation(a, b.astype(np.int32)) for a, b in zip(ht_cpu, hs_cpu, strict=True)
    ]
    assert gobs.slope_autocorrelation(cp.asarray(lat_t), snap_lat[1]).tolist() == [
        slope_autocorrelation(a, b) for a, b in zip(lat_t, lat_s, strict=True)
    ]
