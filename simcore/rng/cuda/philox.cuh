// Philox4x32-10 for CUDA kernels: the same function as simcore/rng/philox.py (numba),
// so a GPU kernel and its CPU twin draw the same numbers from the same counters.
// Conventions of key and counter: simcore/rng/__init__.py.
#pragma once

typedef unsigned int u32;
typedef unsigned long long u64;

struct P4 {
  u32 v[4];
};

__device__ __forceinline__ P4 philox(u32 c0, u32 c1, u32 c2, u32 c3, u32 k0, u32 k1) {
#pragma unroll
  for (int i = 0; i < 10; i++) {
    if (i > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    u32 hi0 = __umulhi(0xD2511F53u, c0), lo0 = 0xD2511F53u * c0;
    u32 hi1 = __umulhi(0xCD9E8D57u, c2), lo1 = 0xCD9E8D57u * c2;
    u32 n0 = hi1 ^ c1 ^ k0, n2 = hi0 ^ c3 ^ k1;
    c0 = n0;
    c1 = lo1;
    c2 = n2;
    c3 = lo0;
  }
  P4 r;
  r.v[0] = c0;
  r.v[1] = c1;
  r.v[2] = c2;
  r.v[3] = c3;
  return r;
}

__device__ __forceinline__ u32 pick(const P4 &r, int i) {
  // a register array indexed at run time would go to local memory
  return i == 0 ? r.v[0] : i == 1 ? r.v[1] : i == 2 ? r.v[2] : r.v[3];
}
