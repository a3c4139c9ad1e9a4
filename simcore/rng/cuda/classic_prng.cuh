// Classic per-generator PRNGs for CUDA kernels: MINSTD, Parisi-Rapuano + 64-bit LCG (pr64)
// and MT19937.  The same functions and the same state layout as simcore/rng/classic.py
// (numba), so a GPU kernel and its CPU twin that draw from generator g in the same order get
// the same bits.  Definitions, layout and seeding: the docstrings of classic.py.
//
// Layout ("strided state", Lulli et al. 2015, sec. 3): word m of generator g is
// state[m * G + g], so the threads of a warp (consecutive g) read consecutive addresses;
// aux[g] is the 64-bit LCG of pr64 (unused by the others).  Word counts: minstd 1, pr64 63
// (62 ring words, then the ring position), mt19937 625 (624 words, then the position).
//
// Plain CUDA C++ with no includes, for NVRTC; index arithmetic is 64-bit so that
// 625 * G may exceed 2^31.  The ring and twist indices wrap with selects, not branches.
#pragma once

// MINSTD: R <- 16807 R mod (2^31 - 1), returns the new R.  Carta's method in 32-bit
// arithmetic: with R = h 2^16 + l, 16807 R = 16807 l + (16807 h) 2^16, and the bits of
// (16807 h) 2^16 above bit 31 are worth 1 each (2^31 = 1 mod 2^31 - 1).  The sum stays
// below 2^32 and one fold gives the exact residue (never 0, never 2^31 - 1).
__device__ __forceinline__ unsigned int minstd_next(unsigned int *state, unsigned long long *aux,
                                                    int G, int g) {
  (void)aux;
  (void)G;
  const unsigned int s = state[g];
  unsigned int lo = 16807u * (s & 0xFFFFu);  // < 2^31
  const unsigned int hi = 16807u * (s >> 16);  // < 2^30
  lo += (hi & 0x7FFFu) << 16;
  lo += hi >> 15;
  lo = (lo & 0x7FFFFFFFu) + (lo >> 31);
  state[g] = lo;
  return lo;
}

// pr64: x_n = x_{n-24} + x_{n-55}, r_n = x_n ^ x_{n-61} (Parisi-Rapuano, 62-word ring, ring
// word k holds x_j for j = k mod 62, word 62 the position p = n mod 62 of the next write),
// z_n = 6364136223846793005 z_{n-1} + 1442695040888963407 mod 2^64 (aux[g] = z_{n-1});
// returns r_n + (z_n >> 32) mod 2^32.
__device__ __forceinline__ unsigned int pr64_next(unsigned int *state, unsigned long long *aux,
                                                  int G, int g) {
  unsigned int *s = state + g;
  const unsigned long long stride = (unsigned long long)G;
  const unsigned int p = s[62ull * stride];
  unsigned int i24 = p + 38u;  // n - 24 mod 62
  i24 = (i24 >= 62u) ? i24 - 62u : i24;
  unsigned int i55 = p + 7u;  // n - 55 mod 62
  i55 = (i55 >= 62u) ? i55 - 62u : i55;
  unsigned int i61 = p + 1u;  // n - 61 mod 62, and the next position
  i61 = (i61 == 62u) ? 0u : i61;
  const unsigned int x = s[i24 * stride] + s[i55 * stride];
  const unsigned int r = x ^ s[i61 * stride];
  s[p * stride] = x;
  s[62ull * stride] = i61;
  const unsigned long long z = aux[g] * 6364136223846793005ull + 1442695040888963407ull;
  aux[g] = z;
  return r + (unsigned int)(z >> 32);
}

// MT19937, one word per draw: x_{k+624} = x_{k+397} ^ twist(x_k, x_{k+1}) replaces word
// i = state[624 G + g] and is returned tempered; the standard MT19937 output sequence.
__device__ __forceinline__ unsigned int mt19937_next(unsigned int *state, unsigned long long *aux,
                                                     int G, int g) {
  (void)aux;
  unsigned int *s = state + g;
  const unsigned long long stride = (unsigned long long)G;
  const unsigned int i = s[624ull * stride];
  unsigned int i1 = i + 1u;
  i1 = (i1 == 624u) ? 0u : i1;
  unsigned int im = i + 397u;
  im = (im >= 624u) ? im - 624u : im;
  const unsigned int y = (s[i * stride] & 0x80000000u) | (s[i1 * stride] & 0x7FFFFFFFu);
  unsigned int x = s[im * stride] ^ (y >> 1) ^ ((0u - (y & 1u)) & 0x9908B0DFu);
  s[i * stride] = x;
  s[624ull * stride] = i1;
  x ^= x >> 11;
  x ^= (x << 7) & 0x9D2C5680u;
  x ^= (x << 15) & 0xEFC60000u;
  x ^= x >> 18;
  return x;
}
