"""Classic generators (MINSTD, pr64, MT19937): known answers, an independent pr64 reference,
the strided state layout and seeding, a statistics smoke test, and the CUDA header (built
with nvcc everywhere it is installed, run on the host with g++, and on a GPU with
``pytest -m gpu``) against the numba twins."""

from __future__ import annotations

import shutil
import subprocess
from collections import deque

import numpy as np
import pytest
from test_kpz_gpu import needs_gpu

from simcore.rng.classic import (
    MINSTD_M,
    N_WORDS,
    NEXT_U32,
    PR64_LCG_A,
    PR64_LCG_C,
    PRNGS,
    distinct_seeds,
    draw,
    draw_all,
    init_state,
    minstd_from_states,
    mt19937_from_seeds,
    pr64_from_words,
    seed_words,
)
from simcore.rng.gpu_classic import CUDA_HEADER, kernel_source

KINDS = ("minstd", "pr64", "mt19937")
M32 = (1 << 32) - 1
M64 = (1 << 64) - 1


def test_tables_agree() -> None:
    """Every stateful generator has a word count and a next function; philox comes first."""
    assert PRNGS[0] == "philox"
    assert set(PRNGS[1:]) == set(N_WORDS) == set(NEXT_U32)
    assert N_WORDS == {"minstd": 1, "pr64": 63, "mt19937": 625}
    for kind in KINDS:
        state, aux = init_state(kind, 1, 3)
        assert state.dtype == np.uint32 and state.shape == (N_WORDS[kind], 3)
        assert state.flags.c_contiguous
        assert aux.dtype == np.uint64 and aux.shape == (3,)
    with pytest.raises(ValueError):
        init_state("philox", 1, 3)
    with pytest.raises(ValueError):
        init_state("minstd", -1, 3)


# ---------------------------------------------------------------------------- known answers
def test_minstd_known_answer() -> None:
    """Park & Miller (1988): from state 1 the 10000th output is 1043618065."""
    state, aux = minstd_from_states([1])
    out = draw("minstd", state, aux, 0, 10000)
    assert [int(v) for v in out[:3]] == [16807, 282475249, 1622650073]
    assert int(out[-1]) == 1043618065
    assert int(state[0, 0]) == 1043618065


def test_minstd_step_is_the_modular_product() -> None:
    """One draw is 16807 s mod (2^31 - 1) for edge states and 10^5 random ones."""
    rng = np.random.default_rng(3)
    edges = [1, 2, 127773, 127774, 2**16 - 1, 2**16, 2**30, MINSTD_M - 2, MINSTD_M - 1]
    states = np.concatenate([edges, rng.integers(1, MINSTD_M, 100_000)])
    state, aux = minstd_from_states(states)
    got = draw_all("minstd", state, aux, 1)[0]
    expect = (states.astype(np.uint64) * np.uint64(16807)) % np.uint64(MINSTD_M)
    assert np.array_equal(got.astype(np.uint64), expect)


MT5489_FIRST = [3499211612, 581869302, 3890346734, 3586334585, 545404204, 4161255391]


def test_mt19937_known_answer() -> None:
    """init_genrand(5489): the reference first outputs, and 4123659995 as the 10000th output
    (required of std::mt19937 by the C++ standard)."""
    state, aux = mt19937_from_seeds([5489])
    assert int(state[624, 0]) == 0
    out = draw("mt19937", state, aux, 0, 10000)
    assert [int(v) for v in out[:6]] == MT5489_FIRST
    assert int(out[-1]) == 4123659995


@pytest.mark.parametrize("seed", [5489, 0, 1, 2**32 - 1, 123456789])
def test_mt19937_matches_numpy(seed: int) -> None:
    """Same init_genrand words as numpy's legacy integer seeding, and the same outputs as
    numpy's MT19937 given that state (three regenerations' worth of draws)."""
    state, aux = mt19937_from_seeds([seed])
    key = state[:624, 0].copy()
    assert np.array_equal(key, np.random.RandomState(seed).get_state()[1])
    bitgen = np.random.MT19937()
    bitgen.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": 624}}
    expect = bitgen.random_raw(3 * 624 + 5)
    got = draw("mt19937", state, aux, 0, 3 * 624 + 5)
    assert np.array_equal(got.astype(np.uint64), expect)


# ---------------------------------------------------------------------------- pr64
def pr64_reference(ring: list[int], z: int, n: int) -> list[int]:
    """pr64 straight from its definition: the last 62 Fibonacci words in a deque."""
    hist = deque(ring, maxlen=62)  # hist[-k] = x_{n-k}
    out = []
    for _ in range(n):
        x = (hist[-24] + hist[-55]) & M32
        r = x ^ hist[-61]
        hist.append(x)
        z = (PR64_LCG_A * z + PR64_LCG_C) & M64
        out.append((r + (z >> 32)) & M32)
    return out


def test_pr64_matches_reference() -> None:
    """Five generators, 2000 draws each, drawn in an interleaved order: the reference values."""
    state, aux = init_state("pr64", 20240917, 5)
    rings = [[int(w) for w in state[:62, g]] for g in range(5)]
    lcgs = [int(z) for z in aux]
    got = np.empty((2000, 5), dtype=np.uint32)
    for k in range(0, 2000, 250):
        for g in (3, 0, 4, 1, 2):
            got[k : k + 250, g] = draw("pr64", state, aux, g, 250)
    for g in range(5):
        assert [int(v) for v in got[:, g]] == pr64_reference(rings[g], lcgs[g], 2000)


def test_pr64_lags() -> None:
    """Less the LCG's high word, the outputs are r_n = x_n ^ x_{n-61} with
    x_n = x_{n-24} + x_{n-55}; afterwards ring word k holds the newest x_j, j = k mod 62."""
    n = 2000
    state, aux = init_state("pr64", 77, 2)
    xs = [int(w) for w in state[:62, 1]]
    z = int(aux[1])
    out = draw("pr64", state, aux, 1, n)
    for v in out:
        z = (PR64_LCG_A * z + PR64_LCG_C) & M64
        r = (int(v) - (z >> 32)) & M32
        x = r ^ xs[-61]
        assert x == (xs[-24] + xs[-55]) & M32
        xs.append(x)
    assert int(state[62, 1]) == n % 62
    assert int(aux[1]) == z
    for j in range(n, n + 62):
        assert int(state[j % 62, 1]) == xs[j]


def test_pr64_ring_needs_an_odd_word() -> None:
    """An all-even ring (x_7..x_61) would shorten the period: refused."""
    ring = np.full((62, 1), 2, dtype=np.uint32)
    ring[0:7] = 1  # x_0..x_6 only feed the XOR, not the recursion
    with pytest.raises(ValueError):
        pr64_from_words(ring, [5])
    ring[30] = 3
    state, aux = pr64_from_words(ring, [5])
    assert int(state[62, 0]) == 0 and int(aux[0]) == 5


# ---------------------------------------------------------------------------- layout, seeding
@pytest.mark.parametrize("kind", KINDS)
def test_draws_touch_only_their_column(kind: str) -> None:
    """Drawing 700 numbers from generator 2 leaves every other generator's state alone."""
    state, aux = init_state(kind, 99, 6)
    before, aux_before = state.copy(), aux.copy()
    draw(kind, state, aux, 2, 700)
    others = [0, 1, 3, 4, 5]
    assert np.array_equal(state[:, others], before[:, others])
    assert np.array_equal(aux[others], aux_before[others])
    assert not np.array_equal(state[:, 2], before[:, 2])


@pytest.mark.parametrize("kind", KINDS)
def test_seeding(kind: str) -> None:
    """Deterministic in (seed, G); generator g's state does not depend on G; different
    generators and different seeds give different streams."""
    s1, a1 = init_state(kind, 2024, 4)
    s2, a2 = init_state(kind, 2024, 4)
    assert np.array_equal(s1, s2) and np.array_equal(a1, a2)
    s3, a3 = init_state(kind, 2024, 11)
    assert np.array_equal(s3[:, :4], s1) and np.array_equal(a3[:4], a1)
    assert np.array_equal(draw_all(kind, s2, a2, 50), draw_all(kind, s3, a3, 50)[:, :4])
    s4, a4 = init_state(kind, 2025, 4)
    out = draw_all(kind, s4, a4, 50)
    ref = draw_all(kind, *init_state(kind, 2024, 4), 50)
    assert np.all(np.any(out != ref, axis=0))
    cols = {tuple(ref[:, g]) for g in range(4)}
    assert len(cols) == 4
    if kind == "minstd":
        assert np.all((s1 >= 1) & (s1 <= MINSTD_M - 1))
    if kind == "mt19937":
        assert np.array_equal(s1, mt19937_from_seeds(seed_words(2024, 4, 1)[0])[0])
    if kind == "pr64":
        words = seed_words(2024, 4, 64)
        assert np.array_equal(s1[:62], words[:62])
        assert np.array_equal(a1, words[62] | (words[63].astype(np.uint64) << np.uint64(32)))


@pytest.mark.parametrize(("span", "offset"), [(1 << 32, 0), (MINSTD_M - 1, 1)])
def test_distinct_seeds(span: int, offset: int) -> None:
    """With 2^17 generators some 32-bit Philox words collide; those generators are redrawn,
    every other one keeps its first word."""
    G, seed = 1 << 17, 11
    raw = offset + seed_words(seed, G, 1)[0].astype(np.int64) % span
    _, first = np.unique(raw, return_index=True)
    assert first.size < G  # the case this guards against does occur at this size
    seeds = distinct_seeds(seed, G, span, offset)
    assert np.unique(seeds).size == G
    assert np.array_equal(seeds[first], raw[first])
    assert seeds.min() >= offset and seeds.max() < offset + span


@pytest.mark.parametrize("kind", KINDS)
def test_mean_smoke(kind: str) -> None:
    """Mean of 10^5 outputs (100 generators x 1000) scaled to [0, 1) within 5 sigma of 1/2."""
    state, aux = init_state(kind, 31337, 100)
    out = draw_all(kind, state, aux, 1000).astype(np.float64)
    out /= float(MINSTD_M) if kind == "minstd" else 2.0**32
    sigma = 1.0 / np.sqrt(12.0 * out.size)
    assert abs(out.mean() - 0.5) < 5 * sigma


# ---------------------------------------------------------------------------- CUDA header
TEST_KERNEL = r"""
#include "classic_prng.cuh"

extern "C" __global__ void classic_all(unsigned int *s1, unsigned int *s2, unsigned int *s3,
                                       unsigned long long *aux, unsigned int *out, int G) {
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= G) return;
  out[g] = minstd_next(s1, aux, G, g) ^ pr64_next(s2, aux, G, g) ^ mt19937_next(s3, aux, G, g);
}
"""


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
@pytest.mark.parametrize("which", ["include", "harness"])
def test_cuda_header_compiles(tmp_path, which: str) -> None:
    """nvcc -arch=sm_90 --ptx accepts a kernel including the header, and the harness source."""
    src = tmp_path / "k.cu"
    src.write_text(TEST_KERNEL if which == "include" else kernel_source())
    out = tmp_path / "k.ptx"
    cmd = ["nvcc", "-arch=sm_90", "--ptx", "-std=c++17", f"-I{CUDA_HEADER.parent}"]
    res = subprocess.run([*cmd, str(src), "-o", str(out)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    names = ["classic_all"] if which == "include" else [f"draw_{k}" for k in KINDS]
    ptx = out.read_text()
    assert all(name in ptx for name in names)


HOST_HARNESS = r"""
#define __device__
#define __forceinline__ inline
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "classic_prng.cuh"

int main(int argc, char **argv) {
  const int kind = atoi(argv[1]), G = atoi(argv[2]), n = atoi(argv[3]), words = atoi(argv[4]);
  std::vector<unsigned int> state((size_t)words * G), out((size_t)n * G);
  std::vector<unsigned long long> aux(G);
  FILE *f = fopen(argv[5], "rb");
  if (fread(state.data(), 4, state.size(), f) != state.size()) return 2;
  if (fread(aux.data(), 8, aux.size(), f) != aux.size()) return 2;
  fclose(f);
  for (int g = G - 1; g >= 0; g--)
    for (int k = 0; k < n; k++)
      out[(size_t)k * G + g] = kind == 1   ? minstd_next(state.data(), aux.data(), G, g)
                               : kind == 2 ? pr64_next(state.data(), aux.data(), G, g)
                                           : mt19937_next(state.data(), aux.data(), G, g);
  f = fopen(argv[6], "wb");
  fwrite(out.data(), 4, out.size(), f);
  fwrite(state.data(), 4, state.size(), f);
  fwrite(aux.data(), 8, aux.size(), f);
  fclose(f);
  return 0;
}
"""


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_cuda_header_on_host_equals_numba(tmp_path) -> None:
    """The header's arithmetic, built as host C++ (g++), gives the numba outputs and states."""
    src = tmp_path / "host.cpp"
    src.write_text(HOST_HARNESS)
    exe = tmp_path / "host"
    cmd = ["g++", "-O2", "-std=c++17", "-Wall", f"-I{CUDA_HEADER.parent}", str(src), "-o"]
    res = subprocess.run([*cmd, str(exe)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    G, n = 37, 700
    for code, kind in enumerate(KINDS, start=1):
        state, aux = init_state(kind, 4242, G)
        (tmp_path / "in.bin").write_bytes(state.tobytes() + aux.tobytes())
        args = [str(exe), str(code), str(G), str(n), str(N_WORDS[kind])]
        res = subprocess.run([*args, str(tmp_path / "in.bin"), str(tmp_path / "out.bin")])
        assert res.returncode == 0
        raw = (tmp_path / "out.bin").read_bytes()
        got = np.frombuffer(raw, dtype=np.uint32, count=n * G).reshape(n, G)
        got_state = np.frombuffer(raw, np.uint32, state.size, 4 * n * G).reshape(state.shape)
        got_aux = np.frombuffer(raw, np.uint64, G, 4 * (n * G + state.size))
        expect = draw_all(kind, state, aux, n)
        assert np.array_equal(got, expect), kind
        assert np.array_equal(got_state, state) and np.array_equal(got_aux, aux), kind


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("kind", KINDS)
def test_gpu_equals_numba(kind: str) -> None:
    """G = 1000 generators, 700 draws each (MT19937 wraps its 624 words): the same bits and
    the same final states on the GPU and in numba."""
    from simcore.rng.gpu_classic import draw_gpu

    state, aux = init_state(kind, 8675309, 1000)
    g_state, g_aux = state.copy(), aux.copy()
    got = draw_gpu(kind, g_state, g_aux, 700)
    expect = draw_all(kind, state, aux, 700)
    assert got.shape == (700, 1000)
    assert np.array_equal(got, expect)
    assert np.array_equal(g_state, state) and np.array_equal(g_aux, aux)
