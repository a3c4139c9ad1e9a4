// Generator benchmarks of lulli2015 sec. 3 (Tables 1 and 2) for simcore's own generators:
// MINSTD, Parisi-Rapuano + 64-bit LCG (pr64), MT19937 and Philox4x32-10, drawn with the
// very device functions and state layout the spin-glass kernels use (classic_prng.cuh,
// philox.cuh; ea3d_amsc.cu), one generator instance per thread as in the paper.
//
// Table 1 (the PRAND host-API test): fill_<kind>_f32 fills out[0 .. n) with floats in
// (0, 1); fill_<kind>_u32 writes the raw 32-bit draws instead (the bit-for-bit tests
// against the numba twins in simcore/rng/classic.py and simcore/rng/philox.py).  Thread
// g of G owns generator g and writes the indices g, g + G, g + 2 G, ...: draw i of
// generator g lands at out[i G + g], so the first draws of the fill are the (n / G, G)
// array of simcore.rng.classic.draw_all.  Philox (counter based) writes word a of call c
// of thread g at out[(4 c + a) G + g], call c being philox(g, 0, c, TAG_BENCH, k0, k1).
//
// Table 2 (the device-API test): count_<kind> has every thread draw n numbers from its
// generator and add the odd ones to *odd (the paper's count, which keeps the compiler
// from dropping the draws).  Philox's thread g draws calls c0 .. c0 + n/4 - 1.
//
// The state layout ("strided state") and the seeding are those of simcore/rng/classic.py:
// word m of generator g at state[m G + g], G given at run time here.

#include "classic_prng.cuh"  // minstd_next, pr64_next, mt19937_next (simcore/rng/cuda)
#include "philox.cuh"        // P4, philox(), u32, u64 (simcore/rng/cuda)

#define TAG_BENCH (STREAM_EA_METROPOLIS << 24)

// KIND: 1 minstd, 2 pr64, 3 mt19937 (simcore.models.ea3d.kernels.PRNG_CODE)
template <int KIND>
__device__ __forceinline__ u32 next_u32(unsigned int *state, u64 *aux, int G, int g) {
  if (KIND == 1) return minstd_next(state, aux, G, g);
  if (KIND == 2) return pr64_next(state, aux, G, g);
  return mt19937_next(state, aux, G, g);
}

// A draw as a float in (0, 1), as cuRAND's curand_uniform: r 2^-b + 2^-(b+1), where b is
// the generator's number of bits (31 for MINSTD, whose draws lie in [1, 2^31 - 2]).
template <int KIND>
__device__ __forceinline__ float unit_float(u32 r) {
  const float scale = KIND == 1 ? 4.656612873077393e-10f : 2.3283064365386963e-10f;
  return r * scale + 0.5f * scale;
}

template <int KIND, bool RAW>
__device__ __forceinline__ void fill_stateful(unsigned int *state, u64 *aux, void *out, u64 n,
                                              int G) {
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= G) return;
  for (u64 i = g; i < n; i += (u64)G) {
    const u32 r = next_u32<KIND>(state, aux, G, g);
    if (RAW)
      ((u32 *)out)[i] = r;
    else
      ((float *)out)[i] = unit_float<KIND>(r);
  }
}

template <bool RAW>
__device__ __forceinline__ void fill_philox(void *out, u64 n, int G, u32 k0, u32 k1) {
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= G) return;
  const u64 stride = (u64)G;
  for (u32 c = 0;; c++) {
    const u64 base = 4ull * c * stride + g;
    if (base >= n) break;
    const P4 r = philox((u32)g, 0u, c, TAG_BENCH, k0, k1);
#pragma unroll
    for (int a = 0; a < 4; a++) {
      const u64 i = base + a * stride;
      if (i < n) {
        if (RAW)
          ((u32 *)out)[i] = r.v[a];
        else
          ((float *)out)[i] = unit_float<0>(r.v[a]);
      }
    }
  }
}

template <int KIND>
__device__ __forceinline__ void count_stateful(unsigned int *state, u64 *aux, u64 *odd, int n,
                                               int G) {
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= G) return;
  u32 count = 0;
  for (int i = 0; i < n; i++) count += next_u32<KIND>(state, aux, G, g) & 1u;
  atomicAdd(odd, (u64)count);
}

#define STATEFUL_KERNELS(NAME, KIND)                                                         \
  extern "C" __global__ void fill_##NAME##_f32(unsigned int *state, u64 *aux, float *out,   \
                                               u64 n, int G) {                               \
    fill_stateful<KIND, false>(state, aux, out, n, G);                                       \
  }                                                                                          \
  extern "C" __global__ void fill_##NAME##_u32(unsigned int *state, u64 *aux, u32 *out,     \
                                               u64 n, int G) {                               \
    fill_stateful<KIND, true>(state, aux, out, n, G);                                        \
  }                                                                                          \
  extern "C" __global__ void count_##NAME(unsigned int *state, u64 *aux, u64 *odd, int n,   \
                                          int G) {                                           \
    count_stateful<KIND>(state, aux, odd, n, G);                                             \
  }

STATEFUL_KERNELS(minstd, 1)
STATEFUL_KERNELS(pr64, 2)
STATEFUL_KERNELS(mt19937, 3)

extern "C" __global__ void fill_philox_f32(float *out, u64 n, int G, u32 k0, u32 k1) {
  fill_philox<false>(out, n, G, k0, k1);
}

extern "C" __global__ void fill_philox_u32(u32 *out, u64 n, int G, u32 k0, u32 k1) {
  fill_philox<true>(out, n, G, k0, k1);
}

extern "C" __global__ void count_philox(u64 *odd, int n, u32 c0, u32 k0, u32 k1, int G) {
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= G) return;
  u32 count = 0;
  for (int i = 0; i < n / 4; i++) {
    const P4 r = philox((u32)g, 0u, c0 + (u32)i, TAG_BENCH, k0, k1);
    count += (r.v[0] & 1u) + (r.v[1] & 1u) + (r.v[2] & 1u) + (r.v[3] & 1u);
  }
  atomicAdd(odd, (u64)count);
}
