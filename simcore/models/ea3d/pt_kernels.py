"""Parallel tempering on the CPU (numba): the multispin sweep of every temperature slot and
the exchange of configurations between slots, the bit-identical twins of the GPU kernels
(``cuda/ea3d_pt.cu``).

Slots (conventions of :mod:`simcore.models.ea3d.pt_spec`): slot 2 i + r holds replica
r = 0, 1 at temperature T_i, for all 64 samples of each coded word; temperatures stay
with the slots and configurations move between them, one sample (bit) at a time.
"""

from __future__ import annotations

import numba
import numpy as np

from simcore.models.ea3d.kernels import metropolis_word, site_bonds
from simcore.rng.philox import philox4x32
from simcore.rng.streams import STREAM_EA_PT_METROPOLIS

#: Slots per Philox call: its four outputs are the random numbers of four slots.
SLOTS_PER_DRAW = 4


@numba.njit(inline="always", cache=True)
def _update_site(S, J, nbr, c, w, j, p, t, k0, k1, thr):
    """Metropolis update of every slot's word at site (c, j), word w, sweep t."""
    n_slots = S.shape[0]
    n, jw = site_bonds(J, nbr, c, w, j)
    for g in range((n_slots + SLOTS_PER_DRAW - 1) // SLOTS_PER_DRAW):
        tag = (STREAM_EA_PT_METROPOLIS << 24) | (g << 1) | c
        r0, r1, r2, r3 = philox4x32(p, w, t, tag, k0, k1)
        for a in range(SLOTS_PER_DRAW):
            slot = SLOTS_PER_DRAW * g + a
            if slot < n_slots:
                i = slot >> 1
                r = r0 if a == 0 else (r1 if a == 1 else (r2 if a == 2 else r3))
                metropolis_word(S, slot, c, w, j, n, jw, r, thr[i, 0], thr[i, 1], thr[i, 2])


@numba.njit(parallel=True, cache=True)
def sweeps_pt(S, J, nbr, phys, t_from, n, k0, k1, thr):
    """``n`` sweeps (red, then blue) of every slot from sweep ``t_from``; ``thr[i]`` are
    the thresholds (T4, T8, T12) of temperature i (:func:`simcore.models.ea3d.rule.thresholds`)."""
    k, half = S.shape[2], S.shape[3]
    for t in range(t_from, t_from + n):
        for c in range(2):
            for j in numba.prange(half):
                p = phys[c, j]
                for w in range(k):
                    _update_site(S, J, nbr, c, w, j, p, t, k0, k1, thr)


@numba.njit(parallel=True, cache=True)
def swap_slots(S, masks):
    """Exchange configurations: for replica r and i = 0, 1, ..., n_T - 2 in this order,
    the samples (bits) of ``masks[r, i, w]`` swap their spins between slots 2 i + r and
    2 (i + 1) + r (the order composes the exchange decisions, which were taken in it)."""
    n_slots, _, k, half = S.shape
    n_pairs = masks.shape[1]
    for cj in numba.prange(2 * half):
        c, j = cj // half, cj % half
        for w in range(k):
            for r in range(2):
                for i in range(n_pairs):
                    m = masks[r, i, w]
                    if m != 0:
                        a, b = 2 * i + r, 2 * (i + 1) + r
                        d = (S[a, c, w, j] ^ S[b, c, w, j]) & m
                        S[a, c, w, j] ^= d
                        S[b, c, w, j] ^= d


def pair_slots(n_T: int) -> tuple[np.ndarray, np.ndarray]:
    """The slots of the two replicas at each temperature (for the overlaps q)."""
    i = np.arange(n_T, dtype=np.int64)
    return 2 * i, 2 * i + 1
