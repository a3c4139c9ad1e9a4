"""EA3D GPU kernel against its numba twin, bit for bit (``pytest -m gpu``, on a GPU only),
and a compile check of the CUDA source that runs wherever nvcc is installed."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
from test_kpz_gpu import needs_gpu

from simcore.models.ea3d.gpu import CUDA_INCLUDE, CUDA_SOURCE, KERNEL_NAME, compile_defines
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
    out = tmp_path / "k.ptx"
    cmd = ["nvcc", "-arch=sm_90", "--ptx", "-std=c++17", f"-I{CUDA_INCLUDE}"]
    cmd += [*compile_defines(layout, L, 3), str(CUDA_SOURCE), "-o", str(out)]
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert KERNEL_NAME in out.read_text()


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
