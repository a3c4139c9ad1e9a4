"""Parallel tempering on the GPU against its numba twins, bit for bit (``pytest -m gpu``),
and the CUDA source compiled by nvcc where there is no GPU."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from conftest import nvcc_ptx
from test_kpz_gpu import needs_gpu

from simcore.config import validate_run_config
from simcore.models.ea3d.lattice import (
    LAYOUT_ID,
    init_couplings,
    init_spins,
    neighbour_table,
    physical_table,
)
from simcore.models.ea3d.observables import agreeing_spins, satisfied_bonds
from simcore.models.ea3d.planes import overlap_qk2, qk2_norm, qk2_weights, site_coordinates
from simcore.models.ea3d.pt_gpu import CUDA_SOURCE, KERNELS, pt_defines, qk2_launch
from simcore.models.ea3d.pt_kernels import pair_slots, swap_slots, sweeps_pt
from simcore.models.ea3d.pt_ladder import temperatures
from simcore.models.ea3d.rule import thresholds
from simcore.rng.streams import STREAM_EA_PT_SPINS

K0, K1 = 77, 5
GEOMETRIES = [("standard", 6, 3, 3), ("sliced", 6, 2, 5), ("bitwise", 8, 2, 4),
              ("sliced", 16, 1, 8), ("sliced", 2, 2, 2), ("sliced", 32, 1, 2)]  # fmt: skip


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
@pytest.mark.parametrize(("layout", "L"), [("standard", 6), ("sliced", 6), ("bitwise", 8)])
def test_cuda_source_compiles(tmp_path, layout: str, L: int) -> None:
    """nvcc -arch=sm_90 --ptx accepts the five kernels for each layout."""
    ptx = nvcc_ptx(tmp_path, CUDA_SOURCE, pt_defines(layout, L, 3, 10))
    assert all(name in ptx for name in KERNELS)


def test_qk2_launch_covers_the_planes_and_the_bits() -> None:
    """A thread per lattice plane (3 L, whole warps) and at least the 64 bit threads; the
    shared memory holds the count of each plane and bit, 2 bytes while L^2 < 2^16."""
    assert qk2_launch(2) == (64, 3 * 2 * 64 * 2)
    assert qk2_launch(24) == (96, 3 * 24 * 64 * 2)
    assert qk2_launch(256) == (768, 3 * 256 * 64 * 4)
    assert qk2_launch(512)[0] == 1024


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize(("layout", "L", "k", "n_T"), GEOMETRIES)
def test_kernels_equal_twins(layout: str, L: int, k: int, n_T: int) -> None:
    """Sweeps of every slot, the counts of satisfied bonds and agreeing spins, |q(k_min)|^2
    (float64, bit for bit), and a swap with random masks leave the same words and counts
    on the GPU as in numba."""
    import cupy as cp

    from simcore.models.ea3d.pt_gpu import PTKernels

    lid, n_slots = LAYOUT_ID[layout], 2 * n_T
    S = init_spins(lid, L, k, K0, K1, 0, -1, n_slots, STREAM_EA_PT_SPINS)
    J = init_couplings(lid, L, k, K0, K1)
    thr = np.array([thresholds(T) for T in temperatures(0.6, 2.5, n_T)], dtype=np.uint64)
    kern = PTKernels(layout, L, k, n_slots, thr)
    S_gpu, J_gpu = cp.asarray(S), cp.asarray(J)
    kern.sweeps(S_gpu, J_gpu, 5, 7, K0, K1)
    sweeps_pt(S, J, neighbour_table(lid, L), physical_table(lid, L), 5, 7, K0, K1, thr)
    assert np.array_equal(cp.asnumpy(S_gpu), S)
    np.testing.assert_array_equal(
        kern.satisfied(S_gpu, J_gpu), satisfied_bonds(S, J, neighbour_table(lid, L))
    )
    np.testing.assert_array_equal(kern.agreeing(S_gpu), agreeing_spins(S, *pair_slots(n_T)))
    qk2 = overlap_qk2(S, *pair_slots(n_T), site_coordinates(lid, L), qk2_weights(L), qk2_norm(L))
    qk2_gpu = kern.qk2(S_gpu)
    assert qk2_gpu.dtype == np.float64 and np.array_equal(qk2_gpu, qk2)
    rng = np.random.default_rng(L * k + n_T)
    masks = rng.integers(0, 2**64 - 1, size=(2, n_T - 1, k), dtype=np.uint64)
    kern.swap(S_gpu, masks)
    swap_slots(S, masks)
    assert np.array_equal(cp.asnumpy(S_gpu), S)


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize(("layout", "L", "n_T"), [("sliced", 4, 5), ("bitwise", 8, 4)])
def test_gpu_run_equals_cpu_run(layout: str, L: int, n_T: int) -> None:
    """A whole job (sweeps, exchanges, bins, round trips) on the GPU gives the CPU job's
    dataset, every variable (qk2 included) bit for bit."""
    from simcore.models.ea3d.pt_simulation import PTGPUSimulation, PTSimulation

    out = []
    for backend, cls in (("cpu", PTSimulation), ("gpu", PTGPUSimulation)):
        cfg = validate_run_config({"model": "ea3d_pt", "L": L, "T_min": 0.7, "T_max": 2.0,
                                   "n_T": n_T, "samples": 128, "t_max": 640, "seed": 9,
                                   "layout": layout, "backend": backend})  # fmt: skip
        sim = cls(cfg)
        st = sim.initial_state()
        while not sim.done(st):
            sim.step(st)
        out.append(sim.to_dataset(sim.to_host(st)))
    cpu, gpu = out
    assert "qk2" in cpu.data_vars and float(cpu["qk2"].mean()) > 0
    for name in cpu.data_vars:
        np.testing.assert_array_equal(cpu[name].values, gpu[name].values, err_msg=name)
