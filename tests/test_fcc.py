"""fcc binary-alloy KMC (kelling2012 sec. 2.2): lattice, the Kawasaki rule of eq. 8 and the
sequential reference, tested against exact enumeration and conservation laws."""

from __future__ import annotations

import itertools

import numba
import numpy as np
import pytest

from simcore.models.fcc.kernels import sequential_sweeps
from simcore.models.fcc.lattice import (
    DX,
    DY,
    DZ,
    b_neighbours,
    bb_bonds,
    count_b,
    empty_lattice,
    flip,
    occupation,
    random_mixture,
    site_xyz,
)
from simcore.models.fcc.rule import thresholds


@numba.njit(cache=True)
def neighbour_counts(lat, L):
    """b_neighbours at every site, in site order."""
    out = np.empty(L**3 // 2, dtype=np.int64)
    for s in range(L**3 // 2):
        x, y, z = site_xyz(s, L)
        out[s] = b_neighbours(lat, x, y, z, L)
    return out


def test_the_fcc_sublattice_and_its_neighbours() -> None:
    """Sites are the simple cubic points with (x xor y xor z) & 1 == 0 (eq. 7), each once;
    the 12 displacements keep that parity, are distinct, and come in opposite pairs."""
    L = 6
    xyz = {site_xyz(s, L) for s in range(L**3 // 2)}
    assert len(xyz) == L**3 // 2
    assert all((x ^ y ^ z) & 1 == 0 for x, y, z in xyz)
    disp = set(zip(DX.tolist(), DY.tolist(), DZ.tolist(), strict=True))
    assert len(disp) == 12 and all(abs(a) + abs(b) + abs(c) == 2 for a, b, c in disp)
    assert all((-a, -b, -c) in disp for a, b, c in disp)


def test_random_mixture_and_bits() -> None:
    """A random mixture has concentration c within 5 sigma, and the packed bits, the
    B count and the simple cubic picture agree (no B on a non-fcc site)."""
    L, c = 16, 0.325
    lat = random_mixture(L, c, 3, 4, 0)
    N, nb = L**3 // 2, count_b(lat)
    assert abs(nb / N - c) < 5 * np.sqrt(c * (1 - c) / N)
    occ = occupation(lat, L)
    assert occ.sum() == nb
    z, y, x = np.nonzero(occ)
    assert np.all(((x ^ y ^ z) & 1) == 0)


@pytest.mark.parametrize("L", [4, 6, 130])
def test_b_neighbours_match_a_count_on_the_picture(L: int) -> None:
    """The row-wise neighbour count of the packed lattice equals the count of B among the
    12 displacements on the simple cubic picture (np.roll), at every site, for L with a
    partial word (6), a word boundary crossed (130: 65 sites per row) and the smallest L."""
    lat = random_mixture(L, 0.4, 11, 0, 0)
    occ = occupation(lat, L).astype(np.int64)
    count = sum(
        np.roll(occ, (-dz, -dy, -dx), axis=(0, 1, 2)) for dx, dy, dz in zip(DX, DY, DZ, strict=True)
    )
    xs, ys, zs = np.array([site_xyz(s, L) for s in range(L**3 // 2)]).T
    got = neighbour_counts(lat, L)
    assert np.array_equal(got, count[zs, ys, xs])


@pytest.mark.parametrize("both", [False, True])
def test_composition_and_bonds_are_kept_exactly(both: bool) -> None:
    """Exchanges conserve the number of B particles, and the incremental change of B-B
    bonds returned by the kernel equals the recount from scratch (the energy of eq. 8),
    over 20 MCS of a quench (L = 16, c = 0.325, epsilon = 1.5)."""
    L = 16
    lat = random_mixture(L, 0.325, 5, 6, 0)
    nb, bb = count_b(lat), bb_bonds(lat, L)
    thr = thresholds(1.5)
    total, moves = 0, 0
    for t in range(0, 20, 5):
        dbb, mv = sequential_sweeps(lat, L, t, 5, 0, 5, 6, thr, both)
        total += dbb
        moves += mv
        assert count_b(lat) == nb and bb + total == bb_bonds(lat, L)
    assert moves > 0 and total > 0  # the quench makes bonds


def _exact_fcc_weights(L: int, nb: int, epsilon: float):
    """Every configuration of nb B particles on the L^3/2 fcc sites with its Boltzmann
    weight exp(epsilon x B-B bonds), normalised."""
    N = L**3 // 2
    coords = [site_xyz(s, L) for s in range(N)]
    index = {xyz: s for s, xyz in enumerate(coords)}
    nbrs = [
        {index[((x + a) % L, (y + b) % L, (z + c) % L)] for a, b, c in zip(DX, DY, DZ, strict=True)}
        for x, y, z in coords
    ]
    configs = list(itertools.combinations(range(N), nb))
    bonds = np.array(
        [sum(q in nbrs[p] for p, q in itertools.combinations(cf, 2)) for cf in configs]
    )
    w = np.exp(epsilon * bonds)
    return {cf: i for i, cf in enumerate(configs)}, w / w.sum(), bonds


@pytest.mark.parametrize("both", [False, True])
def test_detailed_balance_on_a_tiny_box(both: bool) -> None:
    """32 fcc sites (L = 4) with 3 B atoms at epsilon = 0.7: the configuration seen every
    4 MCS over 60000 samples has the exact Boltzmann distribution of its B-B bonds.
    Each of the 4960 configurations: chi^2 per degree of freedom < 1.15 (expected 1 +-
    0.02 for independent samples); the bond classes 0..3: within 5 sigma (sigma from 30
    batch means, since samples 4 MCS apart are still slightly correlated)."""
    L, eps, samples, gap = 4, 0.7, 60000, 4
    index, p, bonds = _exact_fcc_weights(L, 3, eps)
    lat = empty_lattice(L)
    for s in (0, 9, 21):
        flip(lat, *site_xyz(s, L))
    thr = thresholds(eps)
    seen = np.empty(samples, dtype=np.int64)
    sequential_sweeps(lat, L, 0, 50, 0, 17, 19, thr, both)
    for i in range(samples):
        sequential_sweeps(lat, L, 50 + i * gap, gap, 0, 17, 19, thr, both)
        occ = occupation(lat, L)
        sites = sorted(
            s
            for s in range(L**3 // 2)
            if occ[site_xyz(s, L)[2], site_xyz(s, L)[1], site_xyz(s, L)[0]]
        )
        seen[i] = index[tuple(sites)]
    counts = np.bincount(seen, minlength=p.size)
    expected = samples * p
    chi2 = ((counts - expected) ** 2 / expected).sum() / (p.size - 1)
    assert chi2 < 1.15, chi2
    classes = np.stack(
        [np.bincount(bonds[b], minlength=4)[:4] / b.size for b in seen.reshape(30, -1)]
    )
    exact = np.array([p[bonds == k].sum() for k in range(4)])
    freq = classes.mean(axis=0)
    sigma = classes.std(axis=0, ddof=1) / np.sqrt(len(classes))
    assert np.all(np.abs(freq - exact) < 5 * sigma + 1e-4), (freq, exact, sigma)


def test_observables_of_a_random_mixture_and_a_quench() -> None:
    """A random mixture (c = 0.325): open bonds per B within 1% of 12 (1 - c) = 8.1 (eight
    of twelve, kelling2012 Fig. 7), and S(k) flat at c (1 - c) (the shells' mean within
    5%, no shell off by more than 30%).  A quench (epsilon = 1.5) lowers the open bonds
    and the energy, and the domain size grows from 100 to 400 MCS."""
    from simcore.models.fcc.observables import (
        domain_size,
        energy_per_site,
        open_bonds_per_b,
        structure_factor,
    )

    L, c = 32, 0.325
    lat = random_mixture(L, c, 7, 8, 0)
    assert abs(open_bonds_per_b(lat, L) / (12 * (1 - c)) - 1) < 0.01
    k, S = structure_factor(lat, L)
    assert abs(S.mean() / (c * (1 - c)) - 1) < 0.05 and np.all(np.abs(S / (c * (1 - c)) - 1) < 0.3)
    e0, ob0 = energy_per_site(lat, L), open_bonds_per_b(lat, L)
    thr = thresholds(1.5)
    sequential_sweeps(lat, L, 0, 100, 0, 7, 8, thr, False)
    l100 = domain_size(*structure_factor(lat, L))
    sequential_sweeps(lat, L, 100, 300, 0, 7, 8, thr, False)
    assert domain_size(*structure_factor(lat, L)) > l100 > domain_size(k, S)
    assert energy_per_site(lat, L) < e0 and open_bonds_per_b(lat, L) < 0.6 * ob0
