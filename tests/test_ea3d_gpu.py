"""EA3D GPU kernel against its numba twin, bit for bit (``pytest -m gpu``, on a GPU only),
and a compile check of the CUDA source that runs wherever nvcc is installed."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
from conftest import gpu_count, nvcc_ptx
from test_kpz_gpu import needs_gpu

from simcore.models.ea3d.gpu import CUDA_SOURCE, KERNEL_NAME, compile_defines
from simcore.models.ea3d.kernels import sweeps_philox
from simcore.models.ea3d.lattice import (
    LAYOUT_ID,
    init_couplings,
    init_spins,
    neighbour_table,
    physical_table,
)
from simcore.models.ea3d.rule import thresholds

K0, K1 = 77, 0xFEEDBEEF


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
@pytest.mark.parametrize(("layout", "L"), [("standard", 6), ("sliced", 6), ("bitwise", 8)])
def test_cuda_source_compiles(tmp_path, layout: str, L: int) -> None:
    """nvcc -arch=sm_90 --ptx accepts the kernel for each layout."""
    assert KERNEL_NAME in nvcc_ptx(tmp_path, CUDA_SOURCE, compile_defines(layout, L, 3))


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("T", [0.7, 1.1, 2.5])
@pytest.mark.parametrize(
    ("layout", "L", "k"),
    [("standard", 6, 3), ("standard", 8, 2), ("sliced", 6, 3), ("sliced", 16, 1),
     ("bitwise", 8, 2), ("bitwise", 16, 1), ("sliced", 2, 2)],
)  # fmt: skip
def test_gpu_equals_twin(layout: str, L: int, k: int, T: float) -> None:
    """Ten sweeps on the GPU leave every spin word equal to the numba twin's."""
    import cupy as cp

    from simcore.models.ea3d.gpu import EA3DKernel

    lid = LAYOUT_ID[layout]
    S = init_spins(lid, L, k, K0, K1)
    J = init_couplings(lid, L, k, K0, K1)
    thr = thresholds(T)
    S_gpu, J_gpu = cp.asarray(S), cp.asarray(J)
    EA3DKernel(layout, L, k).sweeps(S_gpu, J_gpu, 3, 10, K0, K1, thr)
    sweeps_philox(S, J, neighbour_table(lid, L), physical_table(lid, L), 3, 10, K0, K1, *thr)
    assert np.array_equal(cp.asnumpy(S_gpu), S)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_slab_kernel_compiles(tmp_path) -> None:
    """The multi-GPU (slab) variant of the sliced kernel compiles, with the one-kernel
    colour of the fused exchange."""
    ptx = nvcc_ptx(tmp_path, CUDA_SOURCE, compile_defines("sliced", 16, 2, slab=4))
    assert KERNEL_NAME in ptx and "ea3d_colour_slab" in ptx


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_exchange_flag_kernels_compile(tmp_path) -> None:
    """The flag kernels of the device-signalled multi-GPU exchange compile."""
    from simcore.models.ea3d.slab import FLAGS_SOURCE

    ptx = nvcc_ptx(tmp_path, FLAGS_SOURCE, ())
    assert "slab_signal" in ptx and "slab_wait" in ptx


def test_auto_exchange_follows_the_slab_size() -> None:
    """``--exchange auto`` runs one kernel per colour (fused) for slabs under 2^24 words per
    colour, graphs of two streams above (the crossover measured on 2 H100s lies between
    L = 256 and 512 with k = 1); a named exchange is kept."""
    from simcore.models.ea3d.multigpu import pick_exchange, slab_bounds

    picks = {L: pick_exchange("auto", slab_bounds(L, 2, 0)[1], L, 1) for L in (128, 256, 512)}
    assert picks == {128: "fused", 256: "fused", 512: "graph"}
    assert pick_exchange("auto", 64, 256, 8) == "graph"  # 8 words: 2^25 per colour
    assert pick_exchange("token", 32, 128, 1) == "token"


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize(("L", "k", "n_slabs"), [(8, 1, 2), (16, 2, 2), (16, 2, 4), (24, 1, 3)])
def test_slabs_on_one_gpu_equal_one_lattice(L: int, k: int, n_slabs: int) -> None:
    """The multi-GPU schedule (slabs with ghost planes, one-way exchange per colour,
    boundary and bulk on two streams), run for n slabs on one GPU: bit-identical."""
    from simcore.models.ea3d.multigpu import run_local

    assert run_local(L, k, n_slabs, sweeps=7, T=1.0, seed=99)


@pytest.mark.gpu
@pytest.mark.skipif(gpu_count() < 2 or shutil.which("mpirun") is None, reason="needs 2 GPUs + MPI")
def test_two_gpus_with_mpi_equal_one_gpu() -> None:
    """mpirun -np 2: each rank a GPU, planes exchanged by CUDA IPC or through the host
    with MPI: bit-identical to one GPU."""
    import sys

    cmd = ["mpirun", "--allow-run-as-root", "-np", "2", sys.executable, "-m",
           "simcore.models.ea3d.multigpu", "--check", "--L", "16", "32", "--k", "2",
           "--sweeps", "9"]  # fmt: skip
    # CUDA IPC signalled on the GPUs (the default: one kernel per colour at these sizes;
    # graphs of two streams, kernel by kernel), with an MPI token, then through the host
    for extra in ([], ["--exchange", "graph"], ["--exchange", "flags"], ["--exchange", "token"],
                  ["--host-staging"]):  # fmt: skip
        res = subprocess.run([*cmd, *extra], capture_output=True, text=True, timeout=600)
        assert res.returncode == 0, res.stdout + res.stderr
        assert res.stdout.count("bit-identical to one GPU: True") == 2


@pytest.mark.gpu
@pytest.mark.skipif(gpu_count() < 1 or shutil.which("mpirun") is None, reason="needs a GPU + MPI")
@pytest.mark.parametrize("ranks", [1, 2, 3])
def test_ranks_sharing_one_gpu_equal_one_gpu(ranks: int) -> None:
    """The multi-GPU program with every rank on the same GPU (CUDA IPC between processes
    of one device; one rank is its own neighbour): each exchange gives the single-GPU
    lattice bit for bit.  L = 24 splits into 12 / 6 / 4 plane pairs and L = 12 into
    6 / 3 / 2 (the smallest slab); 20 sweeps are one captured graph of 16 sweeps and one
    of 4, the second replayed at a sweep count the first advanced."""
    import sys

    cmd = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", str(ranks),
           sys.executable, "-m", "simcore.models.ea3d.multigpu", "--check", "--L", "24",
           "12", "--k", "1", "--sweeps", "20"]  # fmt: skip
    for extra in ([], ["--exchange", "graph"], ["--exchange", "flags"], ["--exchange", "token"]):
        res = subprocess.run([*cmd, *extra], capture_output=True, text=True, timeout=600)
        assert res.returncode == 0, res.stdout + res.stderr
        assert res.stdout.count("bit-identical to one GPU: True") == 2


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("prng", ["minstd", "pr64", "mt19937"])
@pytest.mark.parametrize(("layout", "L", "k"), [("sliced", 8, 3), ("standard", 6, 2),
                                                ("bitwise", 16, 1), ("sliced", 32, 1)])  # fmt: skip
def test_stateful_gpu_equals_twin(prng: str, layout: str, L: int, k: int) -> None:
    """Stateful generators: spins and generator states equal the numba twin's after 5 sweeps
    (L = 32 has more items than generators, so generators serve several items)."""
    import cupy as cp

    from simcore.models.ea3d.gpu import EA3DKernel
    from simcore.models.ea3d.kernels import PRNG_CODE, n_generators, sweeps_stateful
    from simcore.rng.classic import init_state

    lid = LAYOUT_ID[layout]
    S = init_spins(lid, L, k, K0, K1)
    J = init_couplings(lid, L, k, K0, K1)
    state, aux = init_state(prng, 8, n_generators(L, k))
    thr = thresholds(1.0)
    S_g, st_g, aux_g = cp.asarray(S), cp.asarray(state), cp.asarray(aux)
    EA3DKernel(layout, L, k, prng=prng).sweeps_stateful(S_g, cp.asarray(J), 5, st_g, aux_g, thr)
    sweeps_stateful(S, J, neighbour_table(lid, L), PRNG_CODE[prng], state, aux, 5, *thr)
    assert np.array_equal(cp.asnumpy(S_g), S)
    assert np.array_equal(cp.asnumpy(st_g), state) and np.array_equal(cp.asnumpy(aux_g), aux)
