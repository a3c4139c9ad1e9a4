"""The ``slabs`` schedule of the fcc KMC (kelling2012 sec. 3.2, dead border decomposition
along z): confinement of every attempt to its slab, independence of the thread count and
of the slab order, the plane exchange of the MPI driver (simulated without MPI, and run
under mpirun where mpi4py is installed), conservation laws and the statistics of eq. 8."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys

import numba
import numpy as np
import pytest

from simcore.models.fcc.lattice import (
    bb_bonds,
    count_b,
    empty_lattice,
    flip,
    random_mixture,
    site_xyz,
)
from simcore.models.fcc.mpi import exchange_segments, neighbours, window_contains
from simcore.models.fcc.rule import thresholds
from simcore.models.fcc.slabs import check_slabs, slab_origin, slab_round, slab_sweeps

K0, K1 = 11, 12


def _poison(lat: np.ndarray, planes: list[int], rng: np.random.Generator) -> None:
    """Overwrite the given z planes with random words (every bit, used or not)."""
    for p in planes:
        lat[p] = rng.integers(0, 2**64, size=lat[p].shape, dtype=np.uint64)


def test_check_slabs() -> None:
    """check_slabs accepts P slabs of Lz = L / P >= 8 planes and names the bad value
    otherwise (P < 1, L not a multiple of P, Lz < 8)."""
    check_slabs(64, 8)
    check_slabs(8, 1)
    for L, P, word in [(64, 0, "P = 0"), (64, 3, "P = 3"), (64, 16, "L / P = 4")]:
        with pytest.raises(ValueError, match=word):
            check_slabs(L, P)


@pytest.mark.parametrize("both", [False, True])
def test_an_attempt_stays_in_its_slab(both: bool) -> None:
    """One round of slab r (L = 32, P = 4, Lz = 8, epsilon = 1.5) for several origins,
    wrap-around included: the planes outside i = 1 .. Lz - 2 of the slab are unchanged
    (writes stay inside), and filling every plane outside the slab with random words
    changes neither the slab's planes afterwards nor the returned bond change and move
    count (reads stay inside).  Exact equality."""
    L, P = 32, 4
    lz = L // P
    thr = thresholds(1.5)
    rng = np.random.default_rng(1)
    start = random_mixture(L, 0.325, K0, K1, 0)
    for t, o in enumerate([0, lz - 1, 3]):
        for r in range(P):
            slab = [(o + r * lz + i) % L for i in range(lz)]
            outside = [p for p in range(L) if p not in slab]
            clean, dirty = start.copy(), start.copy()
            _poison(dirty, outside, rng)
            poison = dirty.copy()
            res_clean = slab_round(clean, L, P, r, o, t, 0, K0, K1, thr, both)
            res_dirty = slab_round(dirty, L, P, r, o, t, 0, K0, K1, thr, both)
            assert res_clean == res_dirty and res_clean[1] > 0
            assert np.array_equal(clean[slab], dirty[slab])
            assert np.array_equal(dirty[outside], poison[outside])
            frozen = [*outside, slab[0], slab[-1]]
            assert np.array_equal(clean[frozen], start[frozen])


@pytest.mark.parametrize("both", [False, True])
def test_threads_and_slab_order_do_not_matter(both: bool) -> None:
    """slab_sweeps (L = 32, P = 4, 6 MCS, epsilon = 1.5) gives the same lattice, bond
    change and move count with 1 and 2 numba threads, and so does running the slabs of
    each round one after the other in reverse order with slab_round.  Exact equality."""
    L, P, mcs = 32, 4, 6
    thr = thresholds(1.5)
    start = random_mixture(L, 0.325, K0, K1, 0)
    n_threads = min(2, numba.config.NUMBA_NUM_THREADS)
    if n_threads < 2:
        pytest.skip("numba has a single thread")
    saved = numba.get_num_threads()
    results = []
    try:
        for n in (1, n_threads):
            numba.set_num_threads(n)
            lat = start.copy()
            results.append((lat, *slab_sweeps(lat, L, P, 0, mcs, 0, K0, K1, thr, both)))
    finally:
        numba.set_num_threads(saved)
    lat, dbb, moves = start.copy(), 0, 0
    for t in range(mcs):
        o = slab_origin(L, P, t, 0, K0, K1)
        for r in reversed(range(P)):
            d, m = slab_round(lat, L, P, r, o, t, 0, K0, K1, thr, both)
            dbb, moves = dbb + d, moves + m
    results.append((lat, dbb, moves))
    for other in results[1:]:
        assert np.array_equal(results[0][0], other[0]) and results[0][1:] == other[1:]
    assert results[0][2] > 0


def _simulated_ranks(
    start: np.ndarray, L: int, P: int, mcs: int, thr: np.ndarray, both: bool
) -> np.ndarray:
    """The MPI driver's protocol with P lattice copies in one process: each copy runs its
    slab, then receives from its neighbours the planes given by exchange_segments; every
    plane outside a copy's window is overwritten with random words before each round, so
    a plane that the protocol fails to keep current would change the result.  Returns the
    lattice assembled from planes [r Lz, (r + 1) Lz) of copy r, as the driver gathers it."""
    lz = L // P
    rng = np.random.default_rng(2)
    copies = [start.copy() for _ in range(P)]
    for t in range(mcs):
        for r, lat in enumerate(copies):
            _poison(lat, [p for p in range(L) if not window_contains(L, P, r, p)], rng)
        o = int(slab_origin(L, P, t, 0, K0, K1))
        for r, lat in enumerate(copies):
            slab_round(lat, L, P, r, o, t, 0, K0, K1, thr, both)
        for r, lat in enumerate(copies):
            for q in neighbours(P, r):
                for a, b in exchange_segments(L, P, o, q, r):
                    lat[a:b] = copies[q][a:b]
    out = np.empty_like(start)
    for r, lat in enumerate(copies):
        out[r * lz : (r + 1) * lz] = lat[r * lz : (r + 1) * lz]
    return out


@pytest.mark.parametrize(("L", "P"), [(16, 1), (16, 2), (48, 3), (32, 4), (64, 8)])
def test_windows_and_plane_exchange_equal_slab_sweeps(L: int, P: int) -> None:
    """The plane exchange of simcore.models.fcc.mpi, simulated with P lattice copies whose
    planes outside their windows are garbage (10 MCS, epsilon = 1.5, both = True): the
    assembled lattice equals slab_sweeps' exactly.  Also, each rank receives from a
    neighbour only planes outside its own slab's writes (messages never overlap)."""
    thr = thresholds(1.5)
    start = random_mixture(L, 0.325, K0, K1, 0)
    twin = start.copy()
    slab_sweeps(twin, L, P, 0, 10, 0, K0, K1, thr, True)
    assert np.array_equal(_simulated_ranks(start, L, P, 10, thr, True), twin)
    lz = L // P
    for o in range(lz):
        for r in range(P):
            own = {(o + r * lz + i) % L for i in range(1, lz - 1)}
            got = [
                p
                for q in neighbours(P, r)
                for a, b in exchange_segments(L, P, o, q, r)
                for p in range(a, b)
            ]
            assert len(got) == len(set(got)) and not own & set(got)


@pytest.mark.parametrize("both", [False, True])
def test_composition_and_bonds_are_kept_exactly(both: bool) -> None:
    """slab_sweeps (L = 32, P = 4, 4 x 5 MCS of a quench at epsilon = 1.5) conserves the
    number of B particles, and the bond count plus the returned changes equals the recount
    bb_bonds after every call; the quench makes bonds.  Exact equality."""
    L, P = 32, 4
    lat = random_mixture(L, 0.325, K0, K1, 0)
    nb, bb = count_b(lat), bb_bonds(lat, L)
    thr = thresholds(1.5)
    total, moves = 0, 0
    for t in range(0, 20, 5):
        dbb, mv = slab_sweeps(lat, L, P, t, 5, 0, K0, K1, thr, both)
        total, moves = total + dbb, moves + mv
        assert count_b(lat) == nb and bb + total == bb_bonds(lat, L)
    assert moves > 0 and total > 0


@pytest.mark.parametrize(
    "both",
    [
        pytest.param(
            False,
            marks=pytest.mark.xfail(
                strict=True,
                reason="B active only breaks detailed balance at the slab edges: a B atom may "
                "hop from the outermost active plane into the dead border but not back in the "
                "same round (moves about -9% at Lz = 8, and the equilibrium is biased)",
            ),
        ),
        True,
    ],
)
def test_every_exchange_is_accepted_at_epsilon_zero(both: bool) -> None:
    """At epsilon = 0 every proposed A-B exchange is accepted, and each attempt's kernel
    keeps the uniform distribution of a random mixture, so an attempt moves with
    probability exactly p = nb (N - nb) / (N (N - 1)) (twice that with both species
    active).  L = 32, P = 4, c = 0.325, 200 MCS in 40 batches of 5: the moves per attempt
    lie within 5 sigma of p, sigma from the batch means (about 5e-4 relative)."""
    L, P, batches, per = 32, 4, 40, 5
    lat = random_mixture(L, 0.325, K0, K1, 0)
    N, nb = L**3 // 2, count_b(lat)
    thr = thresholds(0.0)
    rate = np.array(
        [slab_sweeps(lat, L, P, j * per, per, 0, K0, K1, thr, both)[1] for j in range(batches)]
    ) / (N * per)
    p = nb * (N - nb) / (N * (N - 1)) * (2 if both else 1)
    sigma = rate.std(ddof=1) / np.sqrt(batches)
    assert abs(rate.mean() - p) < 5 * sigma, (rate.mean(), p, sigma)


@numba.njit(cache=True)
def _bond_series(lat, L, t0, rounds, k0, k1, thr, both):
    """B-B bond count after each of ``rounds`` rounds of the one-slab schedule (P = 1)."""
    out = np.empty(rounds, dtype=np.int64)
    bb = bb_bonds(lat, L)
    for j in range(rounds):
        o = slab_origin(L, 1, t0 + j, 0, k0, k1)
        d, _ = slab_round(lat, L, 1, 0, o, t0 + j, 0, k0, k1, thr, both)
        bb += d
        out[j] = bb
    return out


def test_two_b_atoms_bind_with_the_boltzmann_weight() -> None:
    """Detailed balance of the slabs schedule with both species active (the paper's GPU
    rule): two B atoms in an L = 8 box (one slab, Lz = 8, 4 active planes) at
    epsilon = 2 are nearest neighbours with the exact probability 6 N e^eps / (6 N e^eps
    + N (N - 1) / 2 - 6 N) = 0.2673, over 300000 MCS after 1000 MCS of burn-in: within 5
    sigma (sigma about 0.003, from 50 batch means).  With B active only the same run
    gives about 0.249 (-6 sigma; see the xfail above), so it is not tested."""
    L, eps, rounds, batches = 8, 2.0, 300_000, 50
    N = L**3 // 2
    lat = empty_lattice(L)
    for s in (0, 100):
        flip(lat, *site_xyz(s, L))
    thr = thresholds(eps)
    _bond_series(lat, L, 0, 1000, K0, K1, thr, True)
    bonded = _bond_series(lat, L, 1000, rounds, K0, K1, thr, True)
    assert bonded.max() <= 1 and bb_bonds(lat, L) == bonded[-1]
    w = 6 * N * np.exp(eps)
    p = w / (w + N * (N - 1) / 2 - 6 * N)
    means = bonded.reshape(batches, -1).mean(axis=1)
    sigma = means.std(ddof=1) / np.sqrt(batches)
    assert abs(means.mean() - p) < 5 * sigma, (means.mean(), p, sigma)


def _mpi_ready() -> bool:
    return shutil.which("mpirun") is not None and importlib.util.find_spec("mpi4py") is not None


@pytest.mark.skipif(not _mpi_ready(), reason="needs mpirun and mpi4py")
@pytest.mark.parametrize(("n", "L"), [(2, 32), (4, 64)])
def test_mpi_ranks_equal_the_twin(n: int, L: int) -> None:
    """mpirun -np n python -m simcore.models.fcc.mpi --check (5 MCS, both values of
    --active): rank 0's gathered lattice, bond change and move count equal slab_sweeps on one
    process (the driver prints one line and exits 1 otherwise)."""
    cmd = ["mpirun", "--allow-run-as-root", "-np", str(n)]
    if n > (os.cpu_count() or 1):
        cmd.append("--oversubscribe")
    cmd += [sys.executable, "-m", "simcore.models.fcc.mpi", "--L", str(L), "--mcs", "5", "--check"]
    for extra in ([], ["--active", "B"]):
        res = subprocess.run([*cmd, *extra], capture_output=True, text=True, timeout=300)
        assert res.returncode == 0, res.stdout + res.stderr
        assert res.stdout.count("slabs MPI == twin: True") == 1, res.stdout
