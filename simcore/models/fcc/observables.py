"""Observables of the fcc alloy: open bonds per B particle (kelling2012 Fig. 7), energy,
the spherically averaged structure factor S(k) and the domain size from its first
moment, and 2D slices of the configuration."""

from __future__ import annotations

import numpy as np

from simcore.models.fcc.lattice import bb_bonds, count_b, occupation


def bond_observables(lat: np.ndarray, L: int) -> tuple[float, float]:
    """(open bonds per B, energy per site) from one count of the B-B bonds: see
    :func:`open_bonds_per_b` and :func:`energy_per_site`."""
    nb, bb = count_b(lat), bb_bonds(lat, L)
    return ((12 * nb - 2 * bb) / nb if nb else 0.0), -bb / (L**3 // 2)


def open_bonds_per_b(lat: np.ndarray, L: int) -> float:
    """A-B bonds per B particle, 12 - 2 (B-B bonds) / N_B: about 12 (1 - c) in a random
    mixture (eight of twelve at c = 0.325), falling as the B phase separates."""
    return bond_observables(lat, L)[0]


def energy_per_site(lat: np.ndarray, L: int) -> float:
    """-(B-B bonds) / N in units of the bond energy (epsilon is its ratio to k_B T)."""
    return bond_observables(lat, L)[1]


def shells(L: int, nbins: int | None = None) -> np.ndarray:
    """The |k| of the shells of :func:`structure_factor`: 2 pi / L, 2 (2 pi / L), ... < pi."""
    dk = 2 * np.pi / L
    nb = int(np.pi / dk) if nbins is None else nbins
    return dk * np.arange(1, nb)


def structure_factor(lat: np.ndarray, L: int, nbins: int | None = None):
    """Spherically averaged S(k) of the B concentration on the fcc sites, for
    0 < |k| < pi in shells of width 2 pi / L: ``(k, S)``.  The field is occ - c on fcc
    sites and 0 elsewhere; the shells stop below |k| = pi, where the sublattice's own
    reflection (pi, pi, pi) would enter."""
    occ = occupation(lat, L).astype(np.float64)
    z, y, x = np.indices((L, L, L))
    fcc = ((x ^ y ^ z) & 1) == 0
    c = occ[fcc].mean()
    field = np.where(fcc, occ - c, 0.0)
    power = np.abs(np.fft.fftn(field)) ** 2 / (L**3 // 2)
    q = 2 * np.pi * np.fft.fftfreq(L)
    kx, ky, kz = np.meshgrid(q, q, q, indexing="ij")
    kabs = np.sqrt(kx**2 + ky**2 + kz**2).ravel()
    dk = 2 * np.pi / L
    k = shells(L, nbins)
    nb = k.size + 1
    shell = np.floor(kabs / dk + 0.5).astype(np.int64)
    keep = (shell >= 1) & (shell < nb)
    sums = np.bincount(shell[keep], weights=power.ravel()[keep], minlength=nb)[1:nb]
    counts = np.bincount(shell[keep], minlength=nb)[1:nb]
    with np.errstate(invalid="ignore", divide="ignore"):
        S = np.where(counts > 0, sums / counts, 0.0)
    return k, S


def domain_size(k: np.ndarray, S: np.ndarray) -> float:
    """2 pi / k1 with the first moment k1 = sum k S(k) / sum S(k) over the shells of the
    spherically averaged S (each shell weighted alike: weighting by its ~k^2 modes lets
    the flat large-k background of dispersed particles dominate)."""
    return float(2 * np.pi * S.sum() / (k * S).sum())


def slice_picture(lat: np.ndarray, L: int, z: int = 0) -> np.ndarray:
    """The plane z of the simple cubic picture: 1 for B, 0 for A or a non-fcc site."""
    return occupation(lat, L)[z]
