"""Parallel tempering of the EA3D spin glass (model ea3d_pt): equilibrium against exact
enumeration, the exchange bookkeeping, resume and bad input."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import xarray as xr
from conftest import run_simcore
from test_ea3d_physics import bond_sums, non_ergodic

from simcore.config import ConfigError, validate_run_config
from simcore.models.ea3d.lattice import LAYOUT_ID
from simcore.models.ea3d.planes import overlap_qk2, qk2_norm, qk2_weights, site_coordinates
from simcore.models.ea3d.pt_ladder import auto_n_temperatures, temperatures
from simcore.models.ea3d.pt_simulation import PTSimulation, log_bin
from simcore.models.ea3d.scalar import scalar_couplings
from simcore.seeding import philox_key

WORD = 64


def _cfg(**over) -> dict:
    raw = {"model": "ea3d_pt", "L": 2, "T_min": 0.5, "T_max": 2.0, "n_T": 6,
           "exchange_every": 1, "samples": 64, "t_max": 64, "seed": 11, **over}  # fmt: skip
    return validate_run_config(raw)


def _run(cfg: dict) -> xr.Dataset:
    sim = PTSimulation(cfg)
    st = sim.initial_state()
    while not sim.done(st):
        sim.step(st)
    return sim.to_dataset(st)


def exact_e_q2_qk2(Jb: np.ndarray, L: int, T: np.ndarray) -> tuple[np.ndarray, ...]:
    """Exact <e>, <q^2> and <|q(k_min)|^2> of two independent replicas, ``[sample, T]``, by
    summing over all 2^V states of each sample's couplings ``Jb[s, axis, p]``: for
    independent replicas <q_x q_y> = <s_x s_y>^2, so <|q(k)|^2> = (1/V^2) sum_{x,y}
    <s_x s_y>^2 cos(k.(x - y)), here averaged over k = 2 pi / L along x, y and z."""
    V = L**3
    states = np.array(list(itertools.product((-1, 1), repeat=V)), dtype=np.int64)
    idx = np.arange(V)
    x, y, z = idx % L, (idx // L) % L, idx // (L * L)
    phase = np.mean([np.cos(2 * np.pi / L * (r[:, None] - r[None, :])) for r in (x, y, z)],
                    axis=0)  # fmt: skip
    ends = [(x + 1) % L + L * (y + L * z), x + L * ((y + 1) % L + L * z),
            x + L * (y + L * ((z + 1) % L))]  # fmt: skip
    pair = np.stack([states * states[:, e] for e in ends], axis=1)  # (2^V, 3, V)
    H = -np.einsum("nap,sap->ns", pair, Jb.astype(np.int64)).astype(float)  # (2^V, S)
    e = np.empty((Jb.shape[0], T.size))
    q2, qk2 = np.empty_like(e), np.empty_like(e)
    for it, temp in enumerate(T):
        w = np.exp(-(H - H.min(axis=0)) / temp)
        p = w / w.sum(axis=0)  # (2^V, S)
        e[:, it] = (H * p).sum(axis=0) / V
        C = np.einsum("ns,ni,nj->sij", p, states, states)  # <sigma_i sigma_j>
        q2[:, it] = (C**2).sum(axis=(1, 2)) / V**2
        qk2[:, it] = (C**2 * phase).sum(axis=(1, 2)) / V**2
    return e, q2, qk2


def fft_qk2(S: np.ndarray, layout: str, L: int) -> np.ndarray:
    """The slow reference of ``qk2[i, w, b]``: each sample's overlap field q_x of slots
    2 i and 2 i + 1 in physical order (bits unpacked through the layout's coordinates),
    |fftn(q)|^2 at (1,0,0), (0,1,0), (0,0,1), averaged, / V^2."""
    n_T, k = S.shape[0] // 2, S.shape[2]
    bits = (S[..., None] >> np.arange(64, dtype=np.uint64)) & np.uint64(1)
    spin = 2 * bits.astype(np.int64) - 1  # [slot, c, w, j, b]
    xyz = site_coordinates(LAYOUT_ID[layout], L).astype(np.int64)
    out = np.empty((n_T, k, 64))
    for i in range(n_T):
        field = np.zeros((k, 64, L, L, L))
        for c in range(2):
            q = spin[2 * i, c] * spin[2 * i + 1, c]  # [w, j, b]
            field[:, :, xyz[c, 0], xyz[c, 1], xyz[c, 2]] = q.transpose(0, 2, 1)
        F = np.abs(np.fft.fftn(field, axes=(2, 3, 4))) ** 2
        out[i] = (F[..., 1, 0, 0] + F[..., 0, 1, 0] + F[..., 0, 0, 1]) / (3 * L**6)
    return out


@pytest.mark.parametrize("layout", ["standard", "sliced"])
@pytest.mark.parametrize("L", [2, 4, 6])
def test_qk2_equals_the_fourier_transform_of_the_overlap_field(layout: str, L: int) -> None:
    """overlap_qk2 (plane sums, bit-sliced counters, integer autocorrelation) equals
    |q(k_min)|^2 from numpy's FFT of the unpacked overlap field to 1e-12 relative, for
    random spins (every bit of every word a sample); at L = 2, k_min = pi and the sums are
    exact integers in both, so zeros match exactly."""
    n_T, k = 3, 2
    rng = np.random.default_rng(L + 10 * LAYOUT_ID[layout])
    S = rng.integers(0, 2**64, size=(2 * n_T, 2, k, L**3 // 2), dtype=np.uint64)
    xyz = site_coordinates(LAYOUT_ID[layout], L)
    slots = 2 * np.arange(n_T)
    got = overlap_qk2(S, slots, slots + 1, xyz, qk2_weights(L), qk2_norm(L))
    assert got.shape == (n_T, k, 64) and got.dtype == np.float64
    ref = fft_qk2(S, layout, L)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-14)
    assert np.ptp(ref) > 0


def test_log_bins_halve_the_run() -> None:
    """Bin 0 is the first measurement, bin j the measurements 2^(j-1) < m <= 2^j."""
    assert [log_bin(m) for m in (1, 2, 3, 4, 5, 8, 9, 16)] == [0, 1, 2, 2, 3, 3, 4, 4]


def test_ladder_is_geometric_and_auto_grows_with_the_volume() -> None:
    """T_0 = T_min, T_{n-1} = T_max, constant ratio; the auto rule gives more temperatures
    for larger L (sqrt(V) ln(T_max/T_min))."""
    T = temperatures(0.5, 2.0, 5)
    assert T[0] == 0.5 and T[-1] == pytest.approx(2.0)
    np.testing.assert_allclose(T[1:] / T[:-1], 2.0**0.5)
    n = [auto_n_temperatures(L, 0.9, 2.0) for L in (4, 8, 12, 16)]
    assert n == sorted(n) and n[0] < n[-1]


def test_pt_equilibrium_equals_exact_enumeration() -> None:
    """L = 2 (2^8 states per replica): the last logarithmic bin (the second half of 2^13
    sweeps, one exchange step per sweep) of e, q^2 and |q(k_min)|^2 at each of 6
    temperatures in [0.5, 2], averaged over 1024 disorder samples, equals the exact
    Boltzmann averages of the same couplings within 3 jackknife errors, over the samples
    whose dynamics is ergodic (> 90%).  Errors: jackknife over the 16 coded words (the 64
    samples of a word share their random numbers, words do not).  The exact qk2 holds for
    independent replicas (exact_e_q2_qk2), and the run's two replicas are (own starts, own
    random numbers); at L = 2 (k_min = pi) it weighs each pair x, y by (-1)^(distance
    along the axis), so it differs from q^2 (about 0.1 against 0.5).  The errors must be
    small (< 0.01; for qk2 they are about 1e-4, 0.1% of its value) so the check can fail."""
    cfg = _cfg(samples=16 * WORD, t_max=2**13, seed=7)
    ds = _run(cfg)
    k0, k1 = philox_key(cfg["seed"])
    Jb = scalar_couplings(2, cfg["samples"], k0, k1)
    e_x, q2_x, qk2_x = exact_e_q2_qk2(Jb, 2, ds["T"].values)
    # samples whose checkerboard dynamics is not ergodic at L = 2 (a cluster where every
    # flip has zero field flips back and forth deterministically) are left out, as in
    # test_ea3d_physics; exchanges move whole configurations and cannot repair that
    ergodic = np.array([not non_ergodic(K) for K in bond_sums(Jb, 2)]).reshape(16, WORD)
    assert ergodic.mean() > 0.9
    for name, exact in (("energy", e_x), ("q2", q2_x), ("qk2", qk2_x)):
        diff = (ds[name].isel(t=-1).values - exact).reshape(16, WORD, -1)  # (word, b, T)
        w = ergodic[:, :, None]
        per_word = (diff * w).sum(axis=1) / w.sum(axis=1)  # (word, T)
        n = per_word.shape[0]
        loo = (per_word.sum(axis=0) - per_word) / (n - 1)
        err = np.sqrt((n - 1) / n * ((loo - loo.mean(axis=0)) ** 2).sum(axis=0))
        mean = per_word.mean(axis=0)
        assert np.all(np.abs(mean) < 3 * err), (name, mean, err)
        assert np.all(err < 0.01), (name, err)  # the test can fail: errors are small


def _reference_exchange(E, betas, m, offset, k0, k1):
    """The module doc's rule, sample by sample in plain Python: the accepted (r, i, s)."""
    from simcore.rng.philox import philox4x32
    from simcore.rng.streams import STREAM_EA_PT_EXCHANGE

    E = E.copy()
    n_T, accepted = betas.size, []
    for s in range(E.shape[1]):
        for r in range(2):
            for i in range(n_T - 1):
                lo, hi = 2 * i + r, 2 * (i + 1) + r
                x = (betas[i] - betas[i + 1]) * float(E[lo, s] - E[hi, s])
                u = philox4x32(offset + s, m, (r << 16) | i, STREAM_EA_PT_EXCHANGE << 24, k0, k1)[0]
                if x >= 0.0 or int(u) < math.floor(math.exp(x) * 4294967296.0):
                    accepted.append((r, i, s))
                    E[lo, s], E[hi, s] = E[hi, s], E[lo, s]
    return sorted(accepted), E


@pytest.mark.parametrize("width", [None, 3])
def test_exchange_decisions_follow_the_rule(width) -> None:
    """exchange_step, with its acceptance table whole or cut to 3 entries (the rest then
    computed in the decision), accepts exactly the exchanges of the rule written out
    sample by sample, on energies with exponents from 0 down to below ln 2^-32 (where
    the threshold is 0 and no draw is needed)."""
    from simcore.models.ea3d.pt_exchange import exchange_step, exchange_tables

    n_T, n = 6, 128
    betas = 1.0 / np.geomspace(0.5, 3.0, n_T)
    rng = np.random.default_rng(5)
    E = rng.integers(-400, 400, size=(2 * n_T, n)).astype(np.int64)
    dbeta, table = exchange_tables(betas)
    assert table.shape[1] > 3 and table[:, -1].max() == 0  # wide enough: ends in zeros
    if width is not None:
        table = table[:, :width].copy()
    want, E_want = _reference_exchange(E, betas, 7, 64, 123, 456)
    masks = np.zeros((2, n_T - 1, n // 64), dtype=np.uint64)
    walker = np.repeat(np.arange(2 * n_T) // 2, n).reshape(2 * n_T, n)
    trips, rt = np.zeros((2, n_T, n), dtype=np.int8), np.zeros((n, 2, n_T), dtype=np.int64)
    acc = np.zeros((n, n_T - 1), dtype=np.int64)
    E_got = E.copy()
    exchange_step(E_got, dbeta, table, masks, walker, trips, rt, acc, 7, 64, 123, 456)
    bits = (masks[:, :, :, None] >> np.arange(64, dtype=np.uint64)) & np.uint64(1)
    r, i, w, b = np.nonzero(bits)
    got = sorted(zip(r.tolist(), i.tolist(), (64 * w + b).tolist(), strict=True))
    assert 0 < len(got) < 2 * (n_T - 1) * n  # some exchanges refused, some accepted
    assert got == want
    np.testing.assert_array_equal(E_got, E_want)
    assert acc.sum() == len(want)


def test_exchanges_are_bookkept() -> None:
    """Acceptances are fractions, each configuration keeps one label (a permutation of
    the ladder per sample and replica), round trips happen at L = 2."""
    ds = _run(_cfg(t_max=256))
    acc = ds["exchange_acceptance"].values
    assert np.all((acc >= 0) & (acc <= 1)) and acc.mean() > 0.2
    assert int(ds["round_trips"].sum()) > 0


def test_bad_keys_name_the_key(tmp_path) -> None:
    """A t_max that is no power of two of exchange steps, T_max <= T_min, a ladder of one
    temperature: one line naming the key."""
    for over, key in (({"t_max": 100, "exchange_every": 10}, "t_max"),
                      ({"T_max": 0.5}, "T_max"), ({"n_T": 1}, "n_T"),
                      ({"samples": 32}, "samples")):  # fmt: skip
        with pytest.raises(ConfigError, match=key):
            _cfg(**over)
    cfg = tmp_path / "bad.yaml"
    cfg.write_text("model: ea3d_pt\nL: 4\nT_min: 1.0\nT_max: 2.0\nsamples: 64\n"
                   "t_max: 100\nseed: 1\n")  # fmt: skip
    res = run_simcore("run", cfg, "--out", tmp_path / "x.nc")
    assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1, res.stderr
    assert "t_max" in res.stderr and not (tmp_path / "x.nc").exists()


def test_resume_is_bit_identical(tmp_path) -> None:
    """A run stopped after every step (--max-wall 0) and resumed equals one run straight
    through, every data variable bit for bit."""
    import yaml

    cfg = tmp_path / "pt.yaml"
    cfg.write_text(yaml.safe_dump({"model": "ea3d_pt", "L": 4, "T_min": 0.8, "T_max": 2.0,
                                   "n_T": 4, "samples": 64, "t_max": 160, "seed": 3,
                                   "exchange_every": 10}))  # fmt: skip
    whole, parts = tmp_path / "whole.nc", tmp_path / "parts.nc"
    assert run_simcore("run", cfg, "--out", whole).returncode == 0
    for _ in range(40):
        res = run_simcore("run", cfg, "--out", parts, "--max-wall", "0")
        if res.returncode == 0:
            break
        assert res.returncode == 3, res.stderr
    a, b = xr.load_dataset(whole), xr.load_dataset(parts)
    assert int(b.attrs["run_segments"]) > 2
    for name in a.data_vars:
        np.testing.assert_array_equal(a[name].values, b[name].values, err_msg=name)


def test_gpu_jobs_get_threads_for_the_host_exchange() -> None:
    """A GPU job of ea3d_pt takes the campaign's threads (its exchange decisions run the
    coded words in parallel on the host); a GPU job of the quench model takes one core."""
    from simcore.campaign import load_campaign

    pt = load_campaign({"campaign": "c", "seed": 1, "model": "ea3d_pt", "backend": "gpu",
                        "threads": 4, "samples": 128, "samples_per_job": 64, "t_max": 640,
                        "points": [{"L": 4, "T_min": 1.0, "T_max": 2.0, "n_T": 4}]})  # fmt: skip
    quench = load_campaign({"campaign": "c", "seed": 1, "model": "ea3d", "backend": "gpu",
                            "threads": 4, "samples": 128, "samples_per_job": 64, "t_max": 640,
                            "points": [{"L": 4, "T": 1.0}]})  # fmt: skip
    assert [pt.job_threads(n) for n in pt.point_names] == [4]
    assert [quench.job_threads(n) for n in quench.point_names] == [1]
