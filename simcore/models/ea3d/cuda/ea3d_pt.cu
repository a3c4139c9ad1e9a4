// Parallel tempering of the EA3D spin glass (model ea3d_pt): the multispin sweep of every
// temperature slot, the swap of configurations between slots, and the per-sample counts
// the host needs (satisfied bonds for the energies, agreeing spins for the overlaps, and
// |q(k_min)|^2 of the overlap field).
//
// The GPU twins of simcore/models/ea3d/pt_kernels.py, of satisfied_bonds / agreeing_spins
// in simcore/models/ea3d/observables.py and of overlap_qk2 in
// simcore/models/ea3d/planes.py; conventions in
// simcore/models/ea3d/pt_spec.py.  Arrays: S[slot, c, w, j] (NSLOT, 2, K, HALF), slot =
// 2 i + r; J[c, d, w, j] (2, 6, K, HALF); thr[3 i + 0..2] = (T4, T8, T12) of temperature i.
//
// Compile-time (-D): L, K, LAYOUT, LOG2L as for ea3d_amsc.cu; NSLOT = 2 n_T; NPLANES
// (the host launches the counting kernels so that no thread counts beyond 2^NPLANES - 1);
// QBITS, the bit planes of a lattice plane's counter (L^2 < 2^QBITS).

#include "ea3d_site.cuh"  // geometry, neighbours(), site_at(), satisfied_count(), flip_mask()

#ifndef NSLOT
#define NSLOT 4
#endif
#define NPAIR (NSLOT / 2 - 1)
#define TAG_PT (STREAM_EA_PT_METROPOLIS << 24)
#ifndef NPLANES
#define NPLANES 12  // bit planes of a thread's vertical counter: counts < 2^NPLANES
#endif
#ifndef QBITS
#define QBITS 7  // bit planes of a lattice plane's counter (L = 8: 64 sites < 2^7)
#endif

__device__ __forceinline__ size_t at(int slot, int c, u32 w, u32 j) {
  return ((size_t)(slot * 2 + c) * K + w) * HALF + j;
}

// One colour c of sweep t of every slot: thread (j, w) updates site j of colour c, word w,
// in all slots, drawing one Philox call per four slots (pt_kernels._update_site).
extern "C" __global__ void ea3d_pt_colour(u64 *__restrict__ S, const u64 *__restrict__ J, int c,
                                          u32 t, u32 k0, u32 k1, const u64 *__restrict__ thr) {
  u32 j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= HALF) return;
  u32 n[6], p;
  neighbours(c, j, n, p, 0);
  const int o = 1 - c;
  for (u32 w = blockIdx.y; w < K; w += gridDim.y) {
    u64 jd[6];
#pragma unroll
    for (int d = 0; d < 6; d++) jd[d] = __ldg(&J[((size_t)(c * 6 + d) * K + w) * HALF + j]);
    for (int g = 0; g < (NSLOT + 3) / 4; g++) {
      P4 r = philox(p, w, t, TAG_PT | ((u32)g << 1) | (u32)c, k0, k1);
#pragma unroll
      for (int a = 0; a < 4; a++) {
        const int slot = 4 * g + a;
        if (slot < NSLOT) {
          const int i = slot >> 1;
          u64 nb[6];
#pragma unroll
          for (int d = 0; d < 6; d++) nb[d] = S[at(slot, o, w, n[d])];
          const size_t me = at(slot, c, w, j);
          const u64 s = S[me];
          S[me] = s ^ flip_mask(s, nb, jd, pick(r, a), __ldg(&thr[3 * i]),
                                __ldg(&thr[3 * i + 1]), __ldg(&thr[3 * i + 2]));
        }
      }
    }
  }
}

// Exchange of configurations (pt_kernels.swap_slots): thread (cj, w) handles site cj of
// both colours (c = cj / HALF); masks[(r * NPAIR + i) * K + w].
extern "C" __global__ void ea3d_pt_swap(u64 *__restrict__ S, const u64 *__restrict__ masks) {
  u32 cj = blockIdx.x * blockDim.x + threadIdx.x;
  if (cj >= 2 * HALF) return;
  const int c = cj / HALF;
  const u32 j = cj % HALF;
  for (u32 w = blockIdx.y; w < K; w += gridDim.y) {
    for (int r = 0; r < 2; r++) {
      for (int i = 0; i < NPAIR; i++) {
        const u64 m = __ldg(&masks[((size_t)r * NPAIR + i) * K + w]);
        if (m) {
          const size_t a = at(2 * i + r, c, w, j), b = at(2 * (i + 1) + r, c, w, j);
          const u64 d = (S[a] ^ S[b]) & m;
          S[a] ^= d;
          S[b] ^= d;
        }
      }
    }
  }
}

// planes += word << level, per bit position (observables._add)
__device__ __forceinline__ void add_planes(u64 planes[NPLANES], u64 word, int level) {
  u64 carry = word;
#pragma unroll
  for (int i = 0; i < NPLANES; i++) {
    if (i >= level) {
      const u64 t = planes[i] & carry;
      planes[i] ^= carry;
      carry = t;
    }
  }
}

// Zero the block's shared counters and the thread's bit planes (the start of a counting
// kernel; the barrier orders the zeroing before any flush_planes of the block).
__device__ __forceinline__ void start_counts(unsigned long long *cnt, u64 planes[NPLANES]) {
  if (threadIdx.x < 64) cnt[threadIdx.x] = 0;
#pragma unroll
  for (int i = 0; i < NPLANES; i++) planes[i] = 0;
  __syncthreads();
}

// The thread's vertical counts added to out[0..63] through the block's shared counters.
__device__ __forceinline__ void flush_planes(const u64 planes[NPLANES], unsigned long long *cnt,
                                             unsigned long long *out) {
  for (int b = 0; b < 64; b++) {
    unsigned long long v = 0;
#pragma unroll
    for (int i = 0; i < NPLANES; i++) v += (unsigned long long)((planes[i] >> b) & 1ull) << i;
    if (v) atomicAdd(&cnt[b], v);
  }
  __syncthreads();
  if (threadIdx.x < 64 && cnt[threadIdx.x]) atomicAdd(&out[threadIdx.x], cnt[threadIdx.x]);
}

// Satisfied bonds of every slot, word and sample bit (observables.satisfied_bonds):
// block (slot, x, w) counts the bonds of red sites x * blockDim.x + tid, + gridDim.y *
// blockDim.x, ... (each bond joins a red and a blue site) into out[(slot * K + w) * 64 + b].
// The slot is the fastest block index, so the blocks of one chunk of sites run together
// and read its couplings from L2 once for all slots.
extern "C" __global__ void ea3d_pt_satisfied(const u64 *__restrict__ S, const u64 *__restrict__ J,
                                             unsigned long long *__restrict__ out) {
  __shared__ unsigned long long cnt[64];
  u64 planes[NPLANES];
  start_counts(cnt, planes);
  const int slot = blockIdx.x;
  const u32 w = blockIdx.z;
  for (u32 j = blockIdx.y * blockDim.x + threadIdx.x; j < HALF; j += gridDim.y * blockDim.x) {
    u32 n[6], p;
    neighbours(0, j, n, p, 0);
    u64 nb[6], jd[6];
#pragma unroll
    for (int d = 0; d < 6; d++) {
      nb[d] = S[at(slot, 1, w, n[d])];
      jd[d] = __ldg(&J[((size_t)d * K + w) * HALF + j]);
    }
    u64 b2, b1, b0;
    satisfied_count(S[at(slot, 0, w, j)], nb, jd, b2, b1, b0);
    add_planes(planes, b0, 0);
    add_planes(planes, b1, 1);
    add_planes(planes, b2, 2);
  }
  flush_planes(planes, cnt, &out[((size_t)slot * K + w) * 64]);
}

// Sites where the two replicas at temperature i agree (observables.agreeing_spins with
// the pairs (2 i, 2 i + 1)): block (x, i, w) over the sites of both colours, into
// out[(i * K + w) * 64 + b].
extern "C" __global__ void ea3d_pt_agreeing(const u64 *__restrict__ S,
                                            unsigned long long *__restrict__ out) {
  __shared__ unsigned long long cnt[64];
  u64 planes[NPLANES];
  start_counts(cnt, planes);
  const int i = blockIdx.y;
  const u32 w = blockIdx.z;
  for (u32 cj = blockIdx.x * blockDim.x + threadIdx.x; cj < 2 * HALF;
       cj += gridDim.x * blockDim.x) {
    const int c = cj / HALF;
    const u32 j = cj % HALF;
    add_planes(planes, ~(S[at(2 * i, c, w, j)] ^ S[at(2 * i + 1, c, w, j)]), 0);
  }
  flush_planes(planes, cnt, &out[((size_t)i * K + w) * 64]);
}

// Carry-save add per bit position: acc + u + v = acc' + 2 carry
__device__ __forceinline__ void csa(u64 &acc, u64 u, u64 v, u64 &carry) {
  const u64 s = acc ^ u;
  carry = (acc & u) | (s & v);
  acc = s ^ v;
}

// A_d(c) <= L^2 in the shared counts of ea3d_pt_qk2
#if L <= 255
typedef unsigned short plane_count_t;
#else
typedef unsigned int plane_count_t;
#endif

// |q(k_min)|^2 of the two replicas at temperature i (planes.overlap_qk2), block (w, i):
// thread p < 3 L (looping by blockDim.x) counts the agreeing sites of plane p = d L + c
// (coordinate d of the site equal to c) in bit-sliced counters, four sites at a time, and
// stores each bit's count A_d(c) in the dynamic shared memory cnt[p * 64 + b] (3 L 64
// plane_count_t); then thread b < 64 forms the integer C(r) = sum_p P(p) P(p + r along its axis), P = 2 A - L^2,
// of sample bit b, and the float sum over r = 0..L/2 of wgt[r] C(r), divided by norm,
// with no FMA (the numba order), into out[(i * K + w) * 64 + b].  blockDim.x >= 64.
extern "C" __global__ void ea3d_pt_qk2(const u64 *__restrict__ S, const double *__restrict__ wgt,
                                       double norm, double *__restrict__ out) {
  extern __shared__ plane_count_t cnt[];
  const u32 w = blockIdx.x;
  const int i = blockIdx.y;
  for (u32 p = threadIdx.x; p < 3 * L; p += blockDim.x) {
    const u32 d = p / L, c = p % L;
    u64 planes[QBITS];
#pragma unroll
    for (int q = 0; q < QBITS; q++) planes[q] = 0;
    for (u32 uv = 0; uv < L * L; uv += 4) {  // L^2 is a multiple of 4
      u64 g[4];
#pragma unroll
      for (int m = 0; m < 4; m++) {
        const u32 u = (uv + m) % L, v = (uv + m) / L;
        const u32 x = d == 0 ? c : u, y = d == 1 ? c : (d == 0 ? u : v), z = d == 2 ? c : v;
        int col;
        u32 j;
        site_at(x, y, z, col, j);
        g[m] = ~(S[at(2 * i, col, w, j)] ^ S[at(2 * i + 1, col, w, j)]);
      }
      // the four words into the counter: two carry-save adds at level 0, one at level 1,
      // then a ripple carry from level 2
      u64 c0, c1, carry;
      csa(planes[0], g[0], g[1], c0);
      csa(planes[0], g[2], g[3], c1);
      csa(planes[1], c0, c1, carry);
#pragma unroll
      for (int q = 2; q < QBITS; q++) {
        const u64 t = planes[q] & carry;
        planes[q] ^= carry;
        carry = t;
      }
    }
    for (int b = 0; b < 64; b++) {
      u32 a = 0;
#pragma unroll
      for (int q = 0; q < QBITS; q++) a |= (u32)((planes[q] >> b) & 1ull) << q;
      cnt[p * 64 + b] = (plane_count_t)a;
    }
  }
  __syncthreads();
  if (threadIdx.x >= 64) return;
  const u32 b = threadIdx.x;
  double acc = 0.0;
  for (u32 r = 0; r <= L / 2; r++) {
    long long C = 0;
    for (u32 p = 0; p < 3 * L; p++) {
      const u32 c = p % L, p2 = p - c + (c + r) % L;
      C += (2ll * cnt[p * 64 + b] - L * L) * (2ll * cnt[p2 * 64 + b] - L * L);
    }
    acc = __dadd_rn(acc, __dmul_rn(__ldg(&wgt[r]), __ll2double_rn(C)));
  }
  out[((size_t)i * K + w) * 64 + b] = __ddiv_rn(acc, norm);
}
