"""EA3D engine: layouts, the multispin rule against a one-spin-per-byte reference, and
observables.  Exact equalities only; the statistical checks are in test_ea3d_physics.py."""

from __future__ import annotations

import numpy as np
import pytest

from simcore.models.ea3d.kernels import sweeps_philox
from simcore.models.ea3d.lattice import (
    LAYOUT_ID,
    init_couplings,
    init_spins,
    layout_index,
    layout_site,
    neighbour_table,
    physical_table,
    to_physical,
)
from simcore.models.ea3d.observables import PAIRS, energy_per_spin, overlaps
from simcore.models.ea3d.rule import thresholds
from simcore.models.ea3d.scalar import (
    scalar_couplings,
    scalar_energy,
    scalar_spins,
    scalar_sweeps,
)

K0, K1 = 0x1234567, 0x89ABCDE


def unpack(P: np.ndarray) -> np.ndarray:
    """``P[a, w, p]`` coded words -> ``sigma[a, s, p]`` (+-1, s = 64 w + b)."""
    n_rep, k, V = P.shape
    bits = (P[:, :, None, :] >> np.arange(64, dtype=np.uint64)[None, None, :, None]) & 1
    return (2 * bits.astype(np.int8) - 1).reshape(n_rep, k * 64, V)


def multispin_run(layout: str, L: int, k: int, T: float, sweeps: int) -> dict:
    lid = LAYOUT_ID[layout]
    S = init_spins(lid, L, k, K0, K1)
    J = init_couplings(lid, L, k, K0, K1)
    nbr, phys = neighbour_table(lid, L), physical_table(lid, L)
    sweeps_philox(S, J, nbr, phys, 0, sweeps, K0, K1, *thresholds(T))
    return {"S": S, "J": J, "nbr": nbr, "P": to_physical(S, lid, L)}


@pytest.mark.parametrize(("layout", "L"), [("standard", 2), ("standard", 6), ("sliced", 2),
                                           ("sliced", 6), ("bitwise", 8)])  # fmt: skip
def test_layout_is_a_bijection_per_colour(layout: str, L: int) -> None:
    """Every site gets one (colour, index) pair; the inverse map returns it; colours alternate."""
    lid = LAYOUT_ID[layout]
    seen = set()
    for z in range(L):
        for y in range(L):
            for x in range(L):
                c, j = layout_index(lid, L, x, y, z)
                assert c == (x + y + z) & 1 and 0 <= j < L**3 // 2
                assert layout_site(lid, L, c, j) == (x, y, z)
                seen.add((c, j))
    assert len(seen) == L**3
    nbr = neighbour_table(lid, L)
    for c in range(2):
        for d in range(6):
            back = d ^ 1  # the opposite direction
            assert np.array_equal(nbr[1 - c, back, nbr[c, d]], np.arange(L**3 // 2))


def test_sliced_planes_are_one_coloured() -> None:
    """lulli2015 eq. 4: in the sliced coordinates a z' plane holds one colour."""
    L = 6
    for z in range(L):
        for y in range(L):
            for x in range(L):
                zp = (x - y + z) % L
                assert zp % 2 == (x + y + z) % 2


def test_each_bond_is_stored_at_both_ends() -> None:
    """J[c, d, w, j] equals the neighbour's coupling in the opposite direction."""
    for layout in ("standard", "sliced"):
        lid = LAYOUT_ID[layout]
        J = init_couplings(lid, 4, 2, K0, K1)
        nbr = neighbour_table(lid, 4)
        for c in range(2):
            for d in range(6):
                assert np.array_equal(J[c, d], J[1 - c, d ^ 1][:, nbr[c, d]])
    # half of the bits are antiferromagnetic, within 5 sigma
    frac = np.unpackbits(J.view(np.uint8)).mean()
    assert abs(frac - 0.5) < 5 * 0.5 / np.sqrt(J.size * 64)


@pytest.mark.parametrize("T", [0.4, 1.1, 3.0])
@pytest.mark.parametrize(("layout", "L"), [("standard", 4), ("sliced", 2), ("sliced", 4),
                                           ("bitwise", 4)])  # fmt: skip
def test_multispin_equals_one_spin_per_byte(layout: str, L: int, T: float) -> None:
    """The bit-sliced update of 128 coded samples gives the same spins, bit for bit, as
    the plain +-1 Metropolis code fed the same random numbers (T below, near and above
    Tc = 1.10, so every dE class is accepted and rejected)."""
    k, sweeps = 2, 12
    got = multispin_run(layout, L, k, T, sweeps)
    sig = scalar_spins(L, 64 * k, K0, K1)
    Jb = scalar_couplings(L, 64 * k, K0, K1)
    start = sig.copy()
    scalar_sweeps(sig, Jb, L, 0, sweeps, K0, K1, *thresholds(T))
    assert not np.array_equal(sig, start)  # the dynamics did something
    assert np.array_equal(unpack(got["P"]), sig)


def test_layouts_give_the_same_lattice() -> None:
    """standard, sliced and bitwise layouts: identical physical spins after 20 sweeps."""
    layouts = ("standard", "sliced", "bitwise")
    runs = [multispin_run(layout, 8, 1, 1.0, 20)["P"] for layout in layouts]
    assert np.array_equal(runs[0], runs[1]) and np.array_equal(runs[0], runs[2])


def test_energy_and_overlaps_from_words() -> None:
    """Bit-sliced vertical counts == sums over unpacked +-1 spins."""
    L, k = 4, 2
    got = multispin_run("sliced", L, k, 1.5, 5)
    sig = unpack(got["P"])
    Jb = scalar_couplings(L, 64 * k, K0, K1)
    np.testing.assert_allclose(energy_per_spin(got["S"], got["J"], got["nbr"]),
                               scalar_energy(sig, Jb, L), rtol=0, atol=1e-12)  # fmt: skip
    q = overlaps(got["S"])
    for i, (a, b) in enumerate(PAIRS):
        np.testing.assert_allclose(q[i], (sig[a] * sig[b]).mean(axis=1), rtol=0, atol=1e-12)
    assert np.all(np.abs(q) <= 1)


@pytest.mark.parametrize("prng", ["minstd", "pr64", "mt19937"])
@pytest.mark.parametrize("layout", ["standard", "sliced"])
def test_stateful_generators_multispin_equals_one_spin_per_byte(prng: str, layout: str) -> None:
    """With a battery of stateful generators (generator g serves the site-word items
    g, g + G, ... of each colour, four draws each), the multispin lattice equals the
    plain code fed the same numbers, replayed in that order from a copy of the state."""
    from simcore.models.ea3d.kernels import PRNG_CODE, n_generators, sweeps_stateful
    from simcore.models.ea3d.scalar import scalar_sweeps_table
    from simcore.rng.classic import draw, init_state

    L, k, sweeps, T = 4, 2, 3, 1.1
    lid = LAYOUT_ID[layout]
    S = init_spins(lid, L, k, K0, K1)
    J = init_couplings(lid, L, k, K0, K1)
    G = n_generators(L, k)
    state, aux = init_state(prng, 123, G)
    rstate, raux = state.copy(), aux.copy()
    phys, half = physical_table(lid, L), L**3 // 2
    tables = []
    for _ in range(sweeps):
        per_colour = []
        for c in range(2):
            R = np.zeros((4, k, L**3), dtype=np.uint32)
            for g in range(G):
                for u in range(g, k * half, G):
                    w, j = divmod(u, half)
                    R[:, w, phys[c, j]] = draw(prng, rstate, raux, g, 4)
            per_colour.append(R)
        tables.append(per_colour)
    sweeps_stateful(S, J, neighbour_table(lid, L), PRNG_CODE[prng], state, aux, sweeps,
                    *thresholds(T))  # fmt: skip
    sig = scalar_spins(L, 64 * k, K0, K1)
    scalar_sweeps_table(sig, scalar_couplings(L, 64 * k, K0, K1), L, tables, *thresholds(T))
    assert np.array_equal(unpack(to_physical(S, lid, L)), sig)
    assert np.array_equal(state, rstate) and np.array_equal(aux, raux)
