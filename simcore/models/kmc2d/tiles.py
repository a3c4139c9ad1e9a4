"""The tile algorithm of darkins2024 (Algorithms 1 and 2, eqs. 2-5) on the CPU: the twin
of the GPU kernel and a multi-core backend of its own.

The L x L lattice is cut into tiles of B x B cells.  One step advances every tile's
3 x 3-tile neighbourhood (a patch of :mod:`.events`, outer ring fixed) from t to t_end
and keeps its central tile (the back buffer).  Edge checksums detect any influence of
the fixed boundary on a central tile: the patch of tile T sums, per direction d, the
events of its central border facing d (``own[T, d]``) and of its halo cells in direction
d (``halo[T, d]``, the neighbour T_d's border facing back).  Where the boundary reached
no central tile, every halo history equals its owner's, ``halo[T, d] == own[T_d, opp d]``
for all T and d, and the step is exact; otherwise it is rejected (a collision of two
different 64-bit sums is the only way an error passes, as in the paper).  The halo here
includes the four diagonal corner cells, which the paper's four edge sums do not
separate: a rate may depend on all 8 surrounding cells, so a corner's history matters.

Step control (Algorithm 1, sec. 2.2): dt starts at min(tau) - t (eq. 5); an accepted step
multiplies it by alpha (10 until the first rejection, then 1.03), a rejected one by
beta = 0.5.  A step never passes the next sampling time: it is cut to end there (and dt
is kept for the next one).  Accepted steps are exact, so the state at a sampling time is
the serial integrator's, whatever dt did.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numba
import numpy as np

from simcore.models.kmc2d.events import DIR_A, DIR_B, OPPOSITE, patch_class, run_events

ALPHA_START, ALPHA, BETA = 10.0, 1.03, 0.5


@numba.njit(parallel=True, cache=True)
def advance(
    x, tau, cnt, x_out, tau_out, cnt_out, t, t_end, B, model, inv, ratio, sample, k0, k1, sums,
    c0,
):  # fmt: skip
    """Algorithm 2: every tile's patch from t to t_end; central tiles into the ``_out``
    arrays, checksums and central event counts into ``sums`` (tiles x 17, zeroed here).
    A patch is the tile, c0 - 1 cells of halo around it and the fixed ring (c0 = B: the
    3 x 3-tile neighbourhood of the GPU kernel)."""
    L = x.shape[0]
    nt = L // B
    S = B + 2 * c0
    for T in numba.prange(nt * nt):
        ti, tj = T // nt, T % nt
        oi, oj = (ti * B - c0) % L, (tj * B - c0) % L
        xl = np.empty((S, S), dtype=x.dtype)
        taul = np.full((S, S), np.inf)
        cntl = np.zeros((S, S), dtype=np.uint32)
        cls = np.zeros((S, S), dtype=np.int64)
        for a in range(S):
            gi = (oi + a) % L
            for b in range(S):
                gj = (oj + b) % L
                xl[a, b] = x[gi, gj]
                if 0 < a < S - 1 and 0 < b < S - 1:
                    taul[a, b] = tau[gi, gj]
                    cntl[a, b] = cnt[gi, gj]
        for a in range(1, S - 1):
            for b in range(1, S - 1):
                cls[a, b] = patch_class(model, xl, a, b, 1)
        s = sums[T]
        s[:] = 0
        run_events(
            xl,
            taul,
            cntl,
            cls,
            t,
            t_end,
            model,
            inv,
            ratio,
            1,
            oi,
            oj,
            L,
            sample,
            k0,
            k1,
            B,
            s,
            c0,
        )
        for a in range(c0, c0 + B):
            gi = (oi + a) % L
            for b in range(c0, c0 + B):
                gj = (oj + b) % L
                x_out[gi, gj] = xl[a, b]
                tau_out[gi, gj] = taul[a, b]
                cnt_out[gi, gj] = cntl[a, b]


@numba.njit(cache=True)
def checksums_agree(sums, nt):
    """Eqs. 3-4 for all 8 neighbours: every halo sum equals its owner's border sum."""
    for T in range(nt * nt):
        ti, tj = T // nt, T % nt
        for d in range(8):
            U = ((ti + DIR_A[d]) % nt) * nt + (tj + DIR_B[d]) % nt
            if sums[T, 8 + d] != sums[U, OPPOSITE[d]]:
                return False
    return True


@dataclass
class StepControl:
    """Adaptive dt of Algorithm 1 (the GPU's control kernel does the same arithmetic)."""

    t: float = 0.0
    dt: float = 0.0
    rejected_once: bool = False
    accepted: int = 0
    rejected: int = 0
    history: list = field(default_factory=list)  # (dt tried, accepted) per step

    def end_of_step(self, t_target: float) -> tuple[float, bool]:
        """(t_end, cut): the end of the next step and whether it was cut at t_target."""
        if self.t + self.dt >= t_target:
            return t_target, True
        return self.t + self.dt, False

    def settle(self, t_end: float, cut: bool, ok: bool) -> None:
        """Accept (t = t_end, dt grows unless the step was cut) or reject (dt shrinks)."""
        self.history.append((t_end - self.t, ok))
        if ok:
            self.accepted += 1
            self.t = t_end
            if not cut:
                self.dt = self.dt * (ALPHA if self.rejected_once else ALPHA_START)
        else:
            self.rejected += 1
            self.dt = (t_end - self.t) * BETA
            self.rejected_once = True


def first_dt(tau: np.ndarray, t: float) -> float:
    """Eq. 5: the time to the first event (a small positive time if that is 0)."""
    dt = float(np.min(tau)) - t
    if not dt > 0.0:
        return 1e-9
    return dt if np.isfinite(dt) else 1.0


def tile_halo(B: int, halo: int | None) -> int:
    """The cells of halo inside a patch's fixed ring around tile ``B`` (None: B - 1, the
    3 x 3-tile patch); ValueError unless 1 <= halo <= B - 1.  A thinner halo fires fewer
    events per patch and is rejected more often, exact either way: the checksums compare
    only the cells next to the central tile."""
    h = B - 1 if halo is None else int(halo)
    if not 1 <= h <= B - 1:
        raise ValueError(f"halo {h} must lie in 1 .. tile - 1 = {B - 1}")
    return h


class TileIntegrator:
    """One sample under the tile algorithm on the CPU (all cores numba is given)."""

    def __init__(
        self,
        x,
        tau,
        cnt,
        B: int,
        model: int,
        inv,
        ratio,
        sample: int,
        k0: int,
        k1: int,
        control: StepControl,
        halo: int | None = None,
    ):
        L = x.shape[0]
        if L % B or L < 3 * B:
            raise ValueError(f"L = {L} must be a multiple of the tile {B} and at least 3 tiles")
        self.halo = tile_halo(B, halo)
        self.x, self.tau, self.cnt = x, tau, cnt
        self.B, self.model, self.inv, self.ratio = B, model, inv, ratio
        self.sample, self.k0, self.k1 = sample, k0, k1
        self.nt = L // B
        self.sums = np.zeros((self.nt * self.nt, 17), dtype=np.uint64)
        self.back = (np.empty_like(x), np.empty_like(tau), np.empty_like(cnt))
        self.control = control
        self.events = 0

    def try_step(self, t_end: float) -> tuple[bool, int]:
        """Algorithm 2 and the checksum test; (accepted, central events).  On acceptance
        the back buffer becomes the front."""
        xb, taub, cntb = self.back
        advance(
            self.x,
            self.tau,
            self.cnt,
            xb,
            taub,
            cntb,
            self.control.t,
            t_end,
            self.B,
            self.model,
            self.inv,
            self.ratio,
            self.sample,
            self.k0,
            self.k1,
            self.sums,
            self.halo + 1,
        )
        if not checksums_agree(self.sums, self.nt):
            return False, 0
        front = (self.x, self.tau, self.cnt)
        self.x, self.tau, self.cnt = xb, taub, cntb
        self.back = front
        return True, int(self.sums[:, 16].sum())

    def run_to(self, t_target: float) -> None:
        """Steps (Algorithm 1) until t = t_target."""
        c = self.control
        while c.t < t_target:
            t_end, cut = c.end_of_step(t_target)
            ok, events = self.try_step(t_end)
            c.settle(t_end, cut, ok)
            self.events += events
