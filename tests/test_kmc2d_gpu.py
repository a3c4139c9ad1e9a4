"""The GPU tile algorithm against its CPU twin, bit for bit (``pytest -m gpu``), and a
compile check of the CUDA source wherever nvcc is installed.

The kernel skips patches that cannot fire an event before the step's end (no tile of the
patch has a waiting time below it); the twin runs every patch.  The skip tests run at
phi = 2 and 3, where blocks of patches mix run and skipped ones, and count the patches
the kernel ran against the same test applied to the twin's state before each step.  A
block whose tiles lie in one row of tiles loads each distinct tile once, others load per
patch; lattices of five tiles per row have both kinds and columns that wrap."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from conftest import nvcc_ptx, run_steps
from test_kpz_gpu import needs_gpu

from simcore.models.kmc2d.gpu import (
    COMPILE_EXTRA,
    CUDA_SOURCE,
    HISTORY,
    compile_defines,
    default_list_start,
)
from simcore.models.kmc2d.rates import ISING, SOS, rate_tables
from simcore.models.kmc2d.serial import initial_times
from simcore.models.kmc2d.tiles import StepControl, TileIntegrator, first_dt

K0, K1 = 0x1234, 0xABCD


def test_list_start_is_shorter_where_a_step_is_one_wave_of_blocks() -> None:
    """132 SMs (an H100) hold 792 blocks at once: n = 256 with tiles of 8 and 4 patches per
    block is 256 blocks for one sample (list start 32), 512 for two, 1024 for four (64),
    and n = 1024 is 4096 blocks (64)."""
    assert default_list_start((256 // 8) ** 2 // 4, 132) == 32
    assert default_list_start(2 * 256, 132) == 32
    assert default_list_start(4 * 256, 132) == 64
    assert default_list_start((1024 // 8) ** 2 // 4, 132) == 64


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
@pytest.mark.parametrize(
    ("B", "model", "dpb", "nt", "halo"),
    [(4, SOS, 8, 128, None), (8, SOS, 4, 128, None), (8, ISING, 2, 64, None),
     (8, SOS, 1, 32, None), (8, SOS, 8, 128, None), (16, SOS, 4, 128, 7),
     (16, ISING, 2, 64, 7), (8, SOS, 4, 128, 3)],
)  # fmt: skip
def test_cuda_source_compiles(tmp_path, B: int, model: int, dpb: int, nt: int, halo) -> None:
    """nvcc -arch=sm_90 --ptx accepts the kernels for each tile size (4, 8, 16), halo
    (B - 1, the 3 x 3-tile patch, or thinner, whose patches need a level-2 group of 16 at
    B = 16), rate model, patches per block and threads per block (one warp: it also copies
    skipped tiles)."""
    defines = compile_defines(B, model, dpb, nt, halo=halo)
    ptx = nvcc_ptx(tmp_path, CUDA_SOURCE, defines, COMPILE_EXTRA)
    assert "kmc2d_advance" in ptx and "kmc2d_control" in ptx and "kmc2d_check" in ptx
    assert "fma.rn.f64" not in ptx  # waiting times must round as on the CPU


def _starts(model: int, L: int, samples: int) -> np.ndarray:
    if model == SOS:
        return np.zeros((samples, L, L), dtype=np.int32)
    rng = np.random.default_rng(L)
    return rng.choice(np.array([-1, 1], dtype=np.int32), size=(samples, L, L))


def _run_patches(tau: np.ndarray, B: int, t_end: float) -> np.ndarray:
    """The kernel's skip test on a (L, L) state: per tile (row-major, the kernel's tile
    order), whether some tile of its 3 x 3-tile patch has a waiting time below t_end."""
    nt = tau.shape[0] // B
    low = tau.reshape(nt, B, nt, B).min(axis=(1, 3)) < t_end
    run = np.zeros_like(low)
    for di in (-1, 0, 1):
        for dj in (-1, 0, 1):
            run |= np.roll(low, (di, dj), axis=(0, 1))
    return run.ravel()


class _CountingTwin(TileIntegrator):
    """The CPU twin, counting before each step (accepted or not) the patches the kernel
    runs (``runs``) and the blocks of ``dpb`` tiles that mix run and skipped patches."""

    def __init__(self, *args, dpb: int = 4, **kw):
        super().__init__(*args, **kw)
        self.dpb, self.runs, self.mixed_blocks = dpb, 0, 0

    def try_step(self, t_end: float) -> tuple[bool, int]:
        run = _run_patches(self.tau, self.B, t_end)
        self.runs += int(run.sum())
        pad = -run.size % self.dpb  # the last block's tiles past the end do not run
        blocks = np.concatenate([run, np.zeros(pad, dtype=bool)]).reshape(-1, self.dpb)
        self.mixed_blocks += int(np.sum(blocks.any(axis=1) & ~blocks.all(axis=1)))
        return super().try_step(t_end)


def _twins(model, params, x0, B: int, dpb: int = 4, halo=None) -> list[_CountingTwin]:
    """One CPU twin per sample (same seed, sample index = its row of x0) from t = 0, with
    ``halo`` cells of halo (None: B - 1)."""
    inv, ratio = rate_tables(model, params)
    twins = []
    for s in range(x0.shape[0]):
        tau, cnt = initial_times(x0[s], model, inv, s, K0, K1)
        ctl = StepControl(t=0.0, dt=first_dt(tau, 0.0))
        twins.append(
            _CountingTwin(
                x0[s].copy(), tau, cnt, B, model, inv, ratio, s, K0, K1, ctl, halo, dpb=dpb
            )
        )
    return twins


def _kernel_like(model, params, twins, dpb: int, nt: int = 128, **kw):
    """A GPU kernel for the twins' samples, loaded with their state (they are at t = 0)."""
    from simcore.models.kmc2d.gpu import TileKernel

    tw0 = twins[0]
    inv, ratio = rate_tables(model, params)
    L, samples = tw0.x.shape[0], len(twins)
    kern = TileKernel(
        L, tw0.B, model, inv, ratio, samples, K0, K1, dpb=dpb, nt=nt, halo=tw0.halo, **kw
    )
    zeros = np.zeros(samples)
    kern.upload(
        np.stack([tw.x for tw in twins]),
        np.stack([tw.tau for tw in twins]),
        np.stack([tw.cnt for tw in twins]),
        zeros,
        [tw.control.dt for tw in twins],
        zeros,
        zeros,
        zeros,
        zeros,
    )
    return kern


def _gpu_state(kern) -> list[dict]:
    """Per sample: lattice, waiting times, draw counters (front buffers), time, dt,
    events, accepted and rejected steps and the dt history so far."""
    x, tau, cnt = (kern.front(k).get() for k in ("x", "tau", "cnt"))
    out = []
    for s in range(kern.samples):
        n = min(int(kern.accepted[s]) + int(kern.rejected[s]), HISTORY)
        out.append(
            {
                "x": x[s],
                "tau": tau[s],
                "cnt": cnt[s],
                "t": float(kern.t[s]),
                "dt": float(kern.dt[s]),
                "rejected_once": int(kern.rejected_once[s]),
                "events": int(kern.events[s]),
                "accepted": int(kern.accepted[s]),
                "rejected": int(kern.rejected[s]),
                "hist_dt": kern.hist_dt[s, :n].get(),
                "hist_ok": kern.hist_ok[s, :n].get(),
            }
        )
    return out


def _twin_state(tw: TileIntegrator) -> dict:
    """The twin's state in the form of :func:`_gpu_state` (copies)."""
    c = tw.control
    return {
        "x": tw.x.copy(),
        "tau": tw.tau.copy(),
        "cnt": tw.cnt.copy(),
        "t": c.t,
        "dt": c.dt,
        "rejected_once": int(c.rejected_once),
        "events": tw.events,
        "accepted": c.accepted,
        "rejected": c.rejected,
        "hist_dt": np.array([h[0] for h in c.history[:HISTORY]]),
        "hist_ok": np.array([int(h[1]) for h in c.history[:HISTORY]]),
    }


def _assert_same(gpu: dict, cpu: dict, where) -> None:
    for key, value in cpu.items():
        assert np.array_equal(gpu[key], value), (key, where)


def _upload_state(kern, states: list[dict]) -> None:
    """Set the kernel from host states of :func:`_gpu_state` (a resume)."""
    st = {k: np.stack([s[k] for s in states]) for k in states[0] if not k.startswith("hist")}
    hist_dt = np.zeros((len(states), kern.hist_dt.shape[1]))
    hist_ok = np.zeros(hist_dt.shape, dtype=np.int32)
    for i, s in enumerate(states):
        n = s["hist_dt"].size
        hist_dt[i, :n], hist_ok[i, :n] = s["hist_dt"], s["hist_ok"]
    kern.upload_state(st, hist_dt, hist_ok)


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize(
    ("model", "params", "L", "B", "dpb", "halo"),
    [
        (SOS, (1.0, 1.0), 64, 8, 4, None),
        (SOS, (1.0, 0.0), 48, 8, 4, None),
        (SOS, (1.0, 2.0), 64, 8, 1, None),
        (SOS, (1.0, 2.0), 40, 8, 4, None),  # five tiles per row: blocks in one row and two
        (SOS, (1.0, 1.0), 24, 8, 4, None),  # three tiles: the patch covers the torus
        (SOS, (1.0, 0.5), 40, 4, 8, None),  # L not a power of two
        (SOS, (0.7, 1.0), 48, 4, 2, None),
        (ISING, (1.0, 0.1, 2.0), 32, 8, 4, None),
        (ISING, (1.0, 0.0, 1.5), 32, 4, 8, None),
        (ISING, (1.0, 0.0, 0.01), 32, 8, 4, None),  # rate 0 for dE = 8: neighbours draw
        # a halo thinner than the tile: patches of 32 x 32 cells (a level-2 group of 16 in
        # tree mode), partial neighbour tiles loaded, six tiles per row at L = 96
        (SOS, (1.0, 1.0), 64, 16, 4, 7),
        (SOS, (1.0, 0.0), 48, 16, 4, 7),
        (SOS, (1.0, 2.0), 96, 16, 4, 7),
        (SOS, (1.0, 2.0), 40, 8, 4, 3),
        (ISING, (1.0, 0.1, 2.0), 48, 16, 2, 7),
    ],
)
def test_gpu_tiles_equal_the_cpu_twin(model, params, L: int, B: int, dpb: int, halo) -> None:
    """Three samples in lockstep on the GPU, each against the CPU twin with the same seed
    and sample index: after every sampling time the lattice, waiting times, draw counters,
    central event count, accepted and rejected steps and the dt history are identical."""
    samples, times = 3, (0.5, 3.0, 12.0, 40.0)
    twins = _twins(model, params, _starts(model, L, samples), B, dpb, halo)
    kern = _kernel_like(model, params, twins, dpb)
    for t in times:
        kern.run_to(t)
        for s, (got, tw) in enumerate(zip(_gpu_state(kern), twins, strict=True)):
            tw.run_to(t)
            assert tw.control.t == t
            _assert_same(got, _twin_state(tw), (t, s))
    assert sum(tw.events for tw in twins) > 0


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize(
    ("phi", "L", "B", "dpb", "nt", "times", "halo"),
    [
        (3.0, 64, 8, 4, 128, (300.0, 1000.0, 3000.0), None),
        (2.0, 64, 8, 4, 128, (50.0, 200.0, 500.0), None),
        (3.0, 64, 8, 8, 128, (300.0, 1000.0), None),
        (3.0, 64, 8, 1, 32, (300.0, 1000.0), None),  # one warp: it runs, then copies
        (3.0, 48, 4, 8, 64, (300.0, 1000.0, 3000.0), None),
        # five tiles per row: blocks within one row of tiles (their first or last column
        # wraps around) and blocks that span two rows, both with skipped patches
        (3.0, 40, 8, 4, 128, (300.0, 1000.0), None),
        (3.0, 128, 16, 4, 128, (300.0, 1000.0), 7),  # the skip test is still 3 x 3 tiles
        (2.0, 96, 16, 2, 64, (50.0, 200.0), 7),
    ],
)
def test_gpu_skips_event_free_patches_bit_for_bit(phi, L, B, dpb, nt, times, halo) -> None:
    """SOS growth from a flat surface at phi = 2 and 3, three samples: hundreds of steps,
    some rejected, whose blocks mix patches that run and patches the kernel skips.  After
    every sampling time the GPU state equals the twin's bit for bit, and the kernel ran
    exactly the patches its skip test selects on the twin's state before each step."""
    samples, params = 3, (1.0, phi)
    twins = _twins(SOS, params, _starts(SOS, L, samples), B, dpb, halo)
    kern = _kernel_like(SOS, params, twins, dpb, nt)
    for t in times:
        kern.run_to(t)
        for s, (got, tw) in enumerate(zip(_gpu_state(kern), twins, strict=True)):
            tw.run_to(t)
            _assert_same(got, _twin_state(tw), (t, s))
            assert int(kern.live_patches[s]) == tw.runs, (t, s)
    steps = sum(tw.control.accepted + tw.control.rejected for tw in twins)
    assert sum(tw.control.rejected for tw in twins) > 0
    assert 0 < sum(tw.runs for tw in twins) < steps * kern.ntiles  # some run, some skipped
    assert sum(tw.events for tw in twins) > 0
    if dpb > 1:
        assert sum(tw.mixed_blocks for tw in twins) > 0


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize(
    ("phi", "list_cap", "times", "B", "halo"),
    [(1.0, 1, (5.0, 20.0), 8, None), (2.0, 2, (50.0, 200.0), 8, None),
     (2.0, 8, (50.0, 200.0), 8, None), (1.0, 1, (5.0, 20.0), 16, 7),
     (2.0, 8, (50.0, 200.0), 16, 7)],
)  # fmt: skip
def test_gpu_list_and_tree_modes_bit_for_bit(phi: float, list_cap: int, times, B, halo) -> None:
    """A patch whose leaves before the step's end fit its list fires them from the list;
    one with more builds its tree and fires from that; a list that fills up while its events
    fire builds the tree then and goes on.  Lists of 1, 2 and 8 leaves at phi = 1 and 2
    (where a patch fires a few to tens of events a step) make all three common; the GPU
    state equals the twin's bit for bit after every sampling time."""
    samples, params = 3, (1.0, phi)
    twins = _twins(SOS, params, _starts(SOS, 64, samples), B, 4, halo)
    kern = _kernel_like(SOS, params, twins, 4, list_cap=list_cap)
    for t in times:
        kern.run_to(t)
        for s, (got, tw) in enumerate(zip(_gpu_state(kern), twins, strict=True)):
            tw.run_to(t)
            _assert_same(got, _twin_state(tw), (t, s))
    assert sum(tw.events for tw in twins) > 0


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize(("B", "dpb"), [(8, 4), (4, 8)])
def test_gpu_skipping_survives_an_upload_mid_run(B: int, dpb: int) -> None:
    """Upload is a resume from host arrays: the kernel rebuilds its tile minima and makes
    every skipped tile copy its front once.  Run to t1 (keep the state on the host), on to
    t2, upload the t1 state into the same kernel (its back buffers and flags now hold
    other times), run to t2 again and on to t3: both passes through t2 and the end equal
    the twin bit for bit."""
    samples, params, (t1, t2, t3) = 2, (1.0, 3.0), (300.0, 1000.0, 2000.0)
    twins = _twins(SOS, params, _starts(SOS, 64, samples), B, dpb)
    kern = _kernel_like(SOS, params, twins, dpb)
    kern.run_to(t1)
    at_t1 = _gpu_state(kern)
    kern.run_to(t2)
    first = _gpu_state(kern)
    at_t2 = []
    for s, tw in enumerate(twins):
        tw.run_to(t1)  # a sampling time cuts a step, as on the GPU
        tw.run_to(t2)
        at_t2.append(_twin_state(tw))
        _assert_same(first[s], at_t2[s], ("first pass", s))
    _upload_state(kern, at_t1)
    kern.run_to(t2)
    for s, got in enumerate(_gpu_state(kern)):
        _assert_same(got, at_t2[s], ("after the upload", s))
    kern.run_to(t3)
    for s, (got, tw) in enumerate(zip(_gpu_state(kern), twins, strict=True)):
        tw.run_to(t3)
        _assert_same(got, _twin_state(tw), ("end", s))
    steps_since_upload = sum(tw.control.accepted + tw.control.rejected for tw in twins) - sum(
        st["accepted"] + st["rejected"] for st in at_t1
    )
    assert 0 < int(kern.live_patches.sum()) < kern.ntiles * steps_since_upload


def _job(backend: str, **kw) -> dict:
    cfg = dict(
        model="kmc2d",
        rates="sos",
        L=48,
        k2=1.0,
        phi=1.0,
        scheme="tiles",
        tile=8,
        backend=backend,
        start="flat",
        samples=3,
        seed=11,
        t_max=30,
        points_per_decade=4,
        sample_offset=0,
    )
    cfg.update(kw)
    return cfg


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize(
    "kw", [{}, {"rates": "ising", "T": 2.0, "start": "random"}, {"tile": 16, "halo": 7}]
)
def test_gpu_job_equals_cpu_job_and_resumes(kw) -> None:
    """The whole job (KMC2DGPUSimulation) gives the CPU tile job's run file: same
    observables, events, steps and dt history, same snapshot (also with a halo thinner than
    the tile, which both pass to their integrators); stopping after two sampling times,
    moving the state to the host and on into a new job (a checkpoint) changes nothing."""
    from simcore.models import make_simulation
    from simcore.models.kmc2d.simulation import KMC2DGPUSimulation

    if kw.get("rates") == "ising":
        kw = {**kw, "phi": None}
    cpu_cfg = {k: v for k, v in _job("cpu", **kw).items() if v is not None}
    gpu_cfg = {k: v for k, v in _job("gpu", **kw).items() if v is not None}
    if "T" in kw:
        cpu_cfg.pop("k2")
        gpu_cfg.pop("k2")
        cpu_cfg.update(J=1.0, h=0.0)
        gpu_cfg.update(J=1.0, h=0.0)
    cpu = make_simulation(cpu_cfg)
    assert not isinstance(cpu, KMC2DGPUSimulation)
    ds_cpu = cpu.to_dataset(run_steps(cpu))
    gpu = make_simulation(gpu_cfg)
    assert isinstance(gpu, KMC2DGPUSimulation) and gpu.device_name()
    ds_gpu = gpu.to_dataset(run_steps(gpu))
    for name in ds_cpu.data_vars:
        if name == "wall_time":
            continue
        assert np.array_equal(ds_cpu[name].values, ds_gpu[name].values, equal_nan=True), name
    first = make_simulation(gpu_cfg)
    st = first.to_host(run_steps(first, stop_after=2))
    again = make_simulation(gpu_cfg)
    ds_res = again.to_dataset(run_steps(again, again.from_host({k: v for k, v in st.items()})))
    for name in ds_cpu.data_vars:
        if name != "wall_time":
            assert np.array_equal(ds_res[name].values, ds_cpu[name].values, equal_nan=True), name
