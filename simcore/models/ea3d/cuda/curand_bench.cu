// cuRAND's device API for the device-API test of lulli2015 sec. 3 (Table 2): XORWOW
// (curandState), Philox4x32-10 (curandStatePhilox4_32_10_t) and MTGP32
// (curandStateMtgp32).  MT19937 has no device API in cuRAND (only its host generator).
//
// Every count_* kernel has each thread draw n 32-bit numbers with curand() and add the
// odd ones to *odd, the paper's kernel (and the example of the cuRAND manual it cites):
// the count keeps the compiler from dropping the draws.  The state is loaded into
// registers once per launch and stored back, as the manual's examples do; MTGP32 keeps its
// state per block in global memory and every thread of a block draws together (its device
// API takes at most 200 blocks of at most 256 threads: one parameter set per block).
//
// MTGP32 needs host-side set-up in cuRAND (curandMakeMTGP32Constants and
// curandMakeMTGP32KernelState, host code that NVRTC cannot compile): the host uploads the
// 200 parameter sets of curand_mtgp32dc_p_11213.h laid out as mtgp32_kernel_params_t
// (simcore/models/ea3d/prng_curand.py reads them from that header), and mtgp32_init does on
// the GPU what curandMakeMTGP32KernelState does on the host (mtgp32_init_state, with the
// seed (seed ^ seed >> 32) + block + 1 of block `block`).
//
// Needs the CUDA toolkit's curand headers on the include path (-I<CUDA>/include).

#include <curand_kernel.h>

typedef unsigned long long u64;
typedef unsigned int u32;

// sizeof of the state types, for the host's allocations: out[0..3] = curandState,
// curandStatePhilox4_32_10_t, curandStateMtgp32, mtgp32_kernel_params_t.
extern "C" __global__ void state_sizes(u64 *out) {
  out[0] = sizeof(curandState);
  out[1] = sizeof(curandStatePhilox4_32_10_t);
  out[2] = sizeof(curandStateMtgp32);
  out[3] = sizeof(mtgp32_kernel_params_t);
}

extern "C" __global__ void xorwow_init(curandState *states, u64 seed, int G) {
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g < G) curand_init(seed, (u64)g, 0ull, &states[g]);
}

extern "C" __global__ void xorwow_count(curandState *states, u64 *odd, int n, int G) {
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= G) return;
  curandState s = states[g];
  u32 count = 0;
  for (int i = 0; i < n; i++) count += curand(&s) & 1u;
  states[g] = s;
  atomicAdd(odd, (u64)count);
}

extern "C" __global__ void philox_init(curandStatePhilox4_32_10_t *states, u64 seed, int G) {
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g < G) curand_init(seed, (u64)g, 0ull, &states[g]);
}

extern "C" __global__ void philox_count(curandStatePhilox4_32_10_t *states, u64 *odd, int n,
                                        int G) {
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= G) return;
  curandStatePhilox4_32_10_t s = states[g];
  u32 count = 0;
  for (int i = 0; i < n; i++) count += curand(&s) & 1u;
  states[g] = s;
  atomicAdd(odd, (u64)count);
}

// One block per state: thread 0 of block b seeds state b with parameter set b (the host
// launches at most CURAND_NUM_MTGP32_PARAMS blocks), as cuRAND's mtgp32_init_state.
extern "C" __global__ void mtgp32_init(curandStateMtgp32 *states, mtgp32_kernel_params_t *k,
                                       u64 seed) {
  if (threadIdx.x != 0) return;
  const int b = blockIdx.x;
  curandStateMtgp32 *st = &states[b];
  u32 *s = st->s;
  const int size = MTGPDC_MEXP / 32 + 1;
  const u32 hidden = k->param_tbl[b][4] ^ (k->param_tbl[b][8] << 16);
  u32 tmp = hidden;
  tmp += tmp >> 16;
  tmp += tmp >> 8;
  const u32 fill = (tmp & 0xffu) * 0x01010101u;  // memset(state, tmp & 0xff, ...)
  for (int i = 0; i < size; i++) s[i] = fill;
  s[0] = (u32)(seed ^ (seed >> 32)) + (u32)b + 1u;
  s[1] = hidden;
  for (int i = 1; i < size; i++) s[i] ^= 1812433253u * (s[i - 1] ^ (s[i - 1] >> 30)) + (u32)i;
  st->offset = 0;
  st->pIdx = b;
  st->k = k;
}

// Every thread of block b draws from state b (blockDim.x <= 256, gridDim.x <= 200).
extern "C" __global__ void mtgp32_count(curandStateMtgp32 *states, u64 *odd, int n) {
  u32 count = 0;
  for (int i = 0; i < n; i++) count += curand(&states[blockIdx.x]) & 1u;
  atomicAdd(odd, (u64)count);
}
