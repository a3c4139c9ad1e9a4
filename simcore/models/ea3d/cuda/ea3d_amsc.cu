// 3D Edwards-Anderson +-J model, checkerboard Metropolis with asynchronous multispin
// coding (lulli2015 sec. 4): one thread updates one site of one colour for one coded
// word (64 disorder samples) in all four replicas, drawing one Philox call whose four
// outputs are the replicas' random numbers.
//
// The GPU twin of simcore/models/ea3d/kernels.py (numba); conventions (layouts, array
// shapes, Philox counters) in simcore/models/ea3d/__init__.py.  The rule is
// simcore/models/ea3d/rule.py (satisfied_count, flip_mask), written here once more in
// CUDA and checked against it bit for bit (tests/test_ea3d_gpu.py).
//
// Compile-time (-D): L (even), K (coded words), LAYOUT (0 standard, 1 sliced,
// 2 bitwise; bitwise needs L = 2^LOG2L and LOG2L); a thread updates words w,
// w + gridDim.y, ... of its site.
//
// SLAB = NZ (sliced layout only): the arrays hold one GPU's slab of NZ z'-plane pairs
// (zh = z' >> 1) plus a ghost plane pair below and above (local zh 0 and NZ + 1), for
// the multi-GPU schedule of lulli2015 sec. 5 (simcore/models/ea3d/multigpu.py).  The
// kernel then updates the local planes [plane0, plane0 + nplanes) and keys its random
// numbers by the global plane zh = zbase + local zh - 1; neighbours in z' never wrap
// (the ghosts hold the neighbouring GPUs' planes).

#include "ea3d_site.cuh"  // geometry, neighbours(), flip_mask(); philox.cuh

#ifndef PRNG
#define PRNG 0  // 0 Philox (counter based); 1 minstd, 2 pr64, 3 mt19937 with NGEN generators
#endif
#define TAG_METROPOLIS (STREAM_EA_METROPOLIS << 24)

// The Metropolis update of site j (colour c), word w, in all four replicas, with the
// replicas' random numbers r.v[0..3]; ghost: see ea3d_colour.
__device__ __forceinline__ void update_site(u64 *__restrict__ S, const u64 *__restrict__ J,
                                            int c, u32 w, u32 j, const u32 n[6], P4 r, u64 t4,
                                            u64 t8, u64 t12, u64 *__restrict__ ghost,
                                            int ghost_shift) {
  const int o = 1 - c;
  u64 jd[6];
#pragma unroll
  for (int d = 0; d < 6; d++) jd[d] = __ldg(&J[((size_t)(c * 6 + d) * K + w) * HALF + j]);
#pragma unroll
  for (int a = 0; a < 4; a++) {
    const u64 *other = S + ((size_t)(a * 2 + o) * K + w) * HALF;
    u64 *mine = S + ((size_t)(a * 2 + c) * K + w) * HALF;
    u64 nb[6];
#pragma unroll
    for (int d = 0; d < 6; d++) nb[d] = other[n[d]];
    u64 s = mine[j];
    u64 s_new = s ^ flip_mask(s, nb, jd, pick(r, a), t4, t8, t12);
    mine[j] = s_new;
#ifdef SLAB
    if (ghost) ghost[((size_t)(a * 2 + c) * K + w) * HALF + (j + ghost_shift)] = s_new;
#endif
  }
}

// One colour c of sweep t: S[a, c, w, j] (4, 2, K, HALF), J[c, d, w, j] (2, 6, K, HALF).
// Sites j in [j0, j0 + nsites): all of them (j0 = 0, nsites = HALF), or some planes of a
// slab; zbase: the global zh of local plane 1 (SLAB only).  ghost (SLAB only, may be
// null): a neighbouring GPU's spin array (CUDA IPC), into which every updated word is
// also written at index j + ghost_shift: its ghost plane, read by its next colour.
// tdev (may be null): a sweep count in device memory added to t, so that a captured CUDA
// graph of sweeps (t = the sweep within the graph) can be replayed at any count (the
// multi-GPU schedule).
extern "C" __global__ void ea3d_colour(u64 *__restrict__ S, const u64 *__restrict__ J, int c,
                                       u32 t, u32 k0, u32 k1, u64 t4, u64 t8, u64 t12, u32 j0,
                                       u32 nsites, u32 zbase, u64 *__restrict__ ghost,
                                       int ghost_shift, const u32 *__restrict__ tdev) {
  u32 jj = blockIdx.x * blockDim.x + threadIdx.x;
  if (jj >= nsites) return;
  if (tdev) t += *tdev;
  u32 j = j0 + jj;
  u32 n[6], p;
  neighbours(c, j, n, p, zbase);
  for (u32 w = blockIdx.y; w < K; w += gridDim.y) {
    P4 r = philox(p, w, t, TAG_METROPOLIS | (u32)c, k0, k1);
    update_site(S, J, c, w, j, n, r, t4, t8, t12, ghost, ghost_shift);
  }
}

#ifdef SLAB
#include "slab_sync.cuh"  // wait_flag, set_flag

// One colour c of sweep t of a slab in one launch (the fused exchange of
// simcore/models/ea3d/slab.py).  The planes go boundary plane first (the only one that
// reads a ghost, and the one that goes to the neighbour), so that its blocks are dispatched
// first.  A block with boundary sites waits until flags[1 - c] has reached t + c (the
// neighbour's plane of the other colour, of sweep t - 1 for red and t for blue, is in our
// ghost, and the neighbour is done reading the ghost we write), updates its sites, writing
// each new boundary word into the neighbour's ghost too (ghost, ghost_shift as in
// ea3d_colour), and the last such block to finish sets the neighbour's flag of colour c to
// t + 1 (flags[4 + c] counts the blocks; that block resets it for the next launch).  The
// bulk blocks read no ghost and neither wait nor signal: the exchange hides behind them,
// and a colour is one kernel.  flags[2]: set if a wait timed out; tdev as in ea3d_colour.
extern "C" __global__ void ea3d_colour_slab(u64 *__restrict__ S, const u64 *__restrict__ J, int c,
                                            u32 t, u32 k0, u32 k1, u64 t4, u64 t8, u64 t12,
                                            u32 zbase, u64 *__restrict__ ghost, int ghost_shift,
                                            const u32 *__restrict__ tdev, int *flags,
                                            int *peer_flag, u64 timeout_ns) {
  constexpr u32 AREA = L * L;  // sites of one colour in a plane pair
  const bool edge = blockIdx.x * blockDim.x < AREA;  // the block has boundary sites
  if (tdev) t += *tdev;
  if (edge) {
    if (threadIdx.x == 0) wait_flag(flags + 1 - c, (int)t + c, timeout_ns, flags + 2);
    __syncthreads();
  }
  const u32 jj = blockIdx.x * blockDim.x + threadIdx.x;
  if (jj < SLAB * AREA) {
    const u32 r = jj / AREA;  // 0: the boundary plane
    const u32 j = (c == 0 ? 1 + r : SLAB - r) * AREA + jj % AREA;
    u32 n[6], p;
    neighbours(c, j, n, p, zbase);
    for (u32 w = blockIdx.y; w < K; w += gridDim.y) {
      P4 rn = philox(p, w, t, TAG_METROPOLIS | (u32)c, k0, k1);
      update_site(S, J, c, w, j, n, rn, t4, t8, t12, r == 0 ? ghost : nullptr, ghost_shift);
    }
  }
  if (!edge) return;
  __threadfence_system();  // this thread's ghost words, before the block is counted
  __syncthreads();
  if (threadIdx.x == 0) {
    const u32 blocks = (AREA + blockDim.x - 1) / blockDim.x * gridDim.y;
    if (atomicAdd((unsigned int *)flags + 4 + c, 1u) == blocks - 1) {
      flags[4 + c] = 0;
      set_flag(peer_flag, (int)t + 1);
    }
  }
}
#endif

#if PRNG > 0
// Stateful generators (simcore/rng/cuda/classic_prng.cuh): NGEN generators; generator g
// updates the items u = g, g + NGEN, ... (u = w HALF + j) in that order, four draws each
// (one per replica), like the CPU twin simcore/models/ea3d/kernels.py:sweeps_stateful.
#include "classic_prng.cuh"

__device__ __forceinline__ u32 next_u32(unsigned int *state, unsigned long long *aux, int g) {
#if PRNG == 1
  return minstd_next(state, aux, NGEN, g);
#elif PRNG == 2
  return pr64_next(state, aux, NGEN, g);
#else
  return mt19937_next(state, aux, NGEN, g);
#endif
}

extern "C" __global__ void ea3d_colour_stateful(u64 *__restrict__ S, const u64 *__restrict__ J,
                                                int c, unsigned int *state,
                                                unsigned long long *aux, u64 t4, u64 t8,
                                                u64 t12) {
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= NGEN) return;
  for (size_t u = g; u < (size_t)K * HALF; u += NGEN) {
    const u32 w = u / HALF, j = u % HALF;
    u32 n[6], p;
    neighbours(c, j, n, p, 0);
    P4 r;
#pragma unroll
    for (int a = 0; a < 4; a++) r.v[a] = next_u32(state, aux, g);
    update_site(S, J, c, w, j, n, r, t4, t8, t12, nullptr, 0);
  }
}
#endif
