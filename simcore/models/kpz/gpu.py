"""GPU backend of the two-layer DD schemes: the CUDA kernel ``cuda/octahedron_dd.cu``.

CuPy is imported only here, so that everything else runs without a GPU.  The
kernel is compiled once per geometry (sizes are compile-time constants, so the
hit loop unrolls and the shared window has a fixed size) and launched once per
phase for all samples of a job: grid = (domains of the set, samples).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from simcore.backends.cuda import load_module
from simcore.models.kpz.decomposed import certain
from simcore.models.kpz.geometry import BLK_CODE, DEV_CODE, Geometry, round_table

CUDA_SOURCE = Path(__file__).with_name("cuda") / "octahedron_dd.cu"
KERNEL_NAME = "octahedron_dd_phase"


def compile_defines(geo: Geometry, fast: bool, cpt: int = 1, direction: int = 1) -> tuple[str, ...]:
    """The -D options that fix the geometry of one kernel build.

    cpt: thread cells per GPU thread; direction: with ``fast``, +1 for p = 1 (only
    depositions), -1 for q = 1 (only removals).
    """
    vals = {
        "DX": geo.Dx,
        "DY": geo.Dy,
        "CX": geo.cx,
        "CY": geo.cy,
        "BLK": BLK_CODE[geo.block],
        "DEV": DEV_CODE[geo.device],
        "BORDER": geo.border,
        "HITS": geo.hits,
        "FAST": int(fast),
        "CPT": cpt,
        "DIR": direction,
    }
    return tuple(f"-D{k}={v}" for k, v in vals.items())


def _kernel(defines: tuple[str, ...]):
    return load_module(CUDA_SOURCE, defines).get_function(KERNEL_NAME)


def default_cells_per_thread(geo: Geometry) -> int:
    """Thread cells per GPU thread: the measured best, keeping >= 64 threads per block."""
    cpt = CELLS_PER_THREAD[geo.block]
    while cpt > 1 and (geo.threads % cpt or geo.threads // cpt < 64):
        cpt //= 2
    return cpt


#: preferred cells per GPU thread per block layer (measured 1, 2, 4 on an H200, L = 2^16:
#: DT gains about 7% with 2, DB loses about 12%; DBs gains about 4% with 2 on an H100;
#: BENCHMARKS.md)
CELLS_PER_THREAD = {"DT": 2, "DB": 1, "DBs": 2}


class DDKernel:
    """All phases of a DD scheme on the GPU for a batch of samples in lockstep."""

    def __init__(
        self,
        geo: Geometry,
        params: tuple[np.uint64, np.uint64],
        cells_per_thread: int = 0,
        tuning: tuple[str, ...] = (),
    ):
        """``tuning``: extra -D options that change speed only (e.g. -DMINB=8), for experiments."""
        if not geo.block:
            raise ValueError(f"scheme {geo.device} has no block layer: it runs on the CPU only")
        self.geo = geo
        self.params = (np.uint64(params[0]), np.uint64(params[1]))
        self.fast = bool(certain(np.array(self.params, dtype=np.uint64)))
        cpt = cells_per_thread or default_cells_per_thread(geo)
        if geo.threads % cpt:
            raise ValueError(f"{geo.threads} thread cells do not split into {cpt} per thread")
        self.cpt = cpt
        direction = 1 if int(self.params[0]) > 0 else -1
        self.fn = _kernel(compile_defines(geo, self.fast, cpt, direction) + tuple(tuning))
        # the block layers compare 24-bit uniforms with T / 2^8 (decomposed.py)
        self.p24 = np.uint32(int(self.params[0]) >> 8)
        self.q24 = np.uint32(int(self.params[1]) >> 8)
        self.log2L = int(geo.L).bit_length() - 1

    def sweeps(self, lat, net, t0: int, n_steps: int, sample0: int, k0: int, k1: int) -> None:
        """Advance ``lat`` (cupy uint32, samples x words) by ``n_steps`` MCS from ``t0``.

        ``net`` (cupy int64, one per sample) accumulates depositions minus removals.
        """
        import cupy as cp

        g = self.geo
        S = int(lat.shape[0])
        ox, oy, order = round_table(
            t0, n_steps, g.rounds, S, sample0, k0, k1, g.L, DEV_CODE[g.device]
        )
        ox, oy, order = cp.asarray(ox), cp.asarray(oy), cp.asarray(order)
        tx, ty = g.tiles
        grid, block = (tx * ty, S), (g.threads // self.cpt,)
        sets = 4 if g.double_tiling else 1
        for i in range(n_steps):
            t = t0 + i
            for r in range(g.rounds):
                for k in range(sets):
                    c1 = t * g.phases + sets * r + k
                    self.fn(
                        grid,
                        block,
                        (
                            lat, net, ox[i, r], oy[i, r], order[i, r, k],
                            np.int32(self.log2L), np.uint32(c1), np.uint32(sample0),
                            np.uint32(k0), np.uint32(k1), self.p24, self.q24,
                            np.int32(tx),
                        ),
                    )  # fmt: skip
