// What every EA3D kernel shares: the compile-time geometry, the neighbours of a site in
// each layout, the array index of a site from its coordinates, and the Metropolis rule of
// simcore/models/ea3d/rule.py (satisfied-bond count planes, then the flip mask), written
// here once for the quench kernel (ea3d_amsc.cu) and the parallel-tempering kernels
// (ea3d_pt.cu) and checked against the numba rule bit for bit (tests/test_ea3d_gpu.py,
// tests/test_ea3d_pt_gpu.py).
#pragma once

#include "philox.cuh"  // simcore/rng/cuda: P4, philox(), pick(), u32, u64

#ifndef L
#define L 8
#define K 1
#define LAYOUT 0
#define LOG2L 3
#endif

#define LH (L / 2)
#ifdef SLAB
#define HALF (L * L * (SLAB + 2))  // words per colour of a slab, ghost planes included
#else
#define HALF (L * L * L / 2)
#endif

// The neighbours (in the other colour's array) of site j of colour c, in direction
// order +x, -x, +y, -y, +z, -z, and the site's physical index p.
__device__ __forceinline__ void neighbours(int c, u32 j, u32 n[6], u32 &p, u32 zbase) {
#if LAYOUT == 1
  // sliced (lulli2015 eq. 4, 5): x' = x, y' = y - x, z' = x - y + z; z' = 2 zh + c
  u32 x = j % L, yp = (j / L) % L, zh = j / (L * L);
  u32 xp1 = x + 1 == L ? 0 : x + 1, xm1 = x == 0 ? L - 1 : x - 1;
  u32 ypp = yp + 1 == L ? 0 : yp + 1, ypm = yp == 0 ? L - 1 : yp - 1;
#ifdef SLAB
  u32 zup = c == 0 ? zh : zh + 1;  // local zh of the plane z' + 1 (a ghost at the top)
  u32 zdn = c == 0 ? zh - 1 : zh;  // local zh of the plane z' - 1 (a ghost at the bottom)
#else
  u32 zup = c == 0 ? zh : (zh + 1 == LH ? 0 : zh + 1);  // zh of the plane z' + 1
  u32 zdn = c == 0 ? (zh == 0 ? LH - 1 : zh - 1) : zh;  // zh of the plane z' - 1
#endif
  n[4] = x + L * (yp + L * zup);     // +z: (x', y', z' + 1)
  n[3] = x + L * (ypm + L * zup);    // -y: (x', y' - 1, z' + 1)
  n[0] = xp1 + L * (ypm + L * zup);  // +x: (x' + 1, y' - 1, z' + 1)
  n[5] = x + L * (yp + L * zdn);     // -z: (x', y', z' - 1)
  n[2] = x + L * (ypp + L * zdn);    // +y: (x', y' + 1, z' - 1)
  n[1] = xm1 + L * (ypp + L * zdn);  // -x: (x' - 1, y' + 1, z' - 1)
#ifdef SLAB
  u32 zp = 2 * (zbase + zh - 1) + c;  // the global z' of this local plane
#else
  u32 zp = 2 * zh + c;
#endif
  u32 y = (yp + x) % L, z = (zp + yp) % L;
  p = x + L * (y + L * z);
#elif LAYOUT == 2
  // bitwise: the standard order with L = 2^LOG2L, index arithmetic by shifts and masks
  u32 xh = j & (LH - 1), y = (j >> (LOG2L - 1)) & (L - 1), z = j >> (2 * LOG2L - 1);
  u32 x = (xh << 1) | ((c ^ y ^ z) & 1);
  u32 row = j - xh;  // index of (0, y, z)
  n[0] = row + (((x + 1) & (L - 1)) >> 1);
  n[1] = row + (((x - 1) & (L - 1)) >> 1);
  n[2] = xh + (((y + 1) & (L - 1)) << (LOG2L - 1)) + (z << (2 * LOG2L - 1));
  n[3] = xh + (((y - 1) & (L - 1)) << (LOG2L - 1)) + (z << (2 * LOG2L - 1));
  n[4] = xh + (y << (LOG2L - 1)) + (((z + 1) & (L - 1)) << (2 * LOG2L - 1));
  n[5] = xh + (y << (LOG2L - 1)) + (((z - 1) & (L - 1)) << (2 * LOG2L - 1));
  p = (j << 1) | (x & 1);
#else
  // standard checkerboard: j = p >> 1, p = x + L (y + L z)
  u32 xh = j % LH, y = (j / LH) % L, z = j / (LH * L);
  u32 x = 2 * xh + ((c + y + z) & 1);
  u32 row = j - xh;
  n[0] = row + (x + 1 == L ? 0 : x + 1) / 2;
  n[1] = row + (x == 0 ? L - 1 : x - 1) / 2;
  n[2] = xh + LH * ((y + 1 == L ? 0 : y + 1) + L * z);
  n[3] = xh + LH * ((y == 0 ? L - 1 : y - 1) + L * z);
  n[4] = xh + LH * (y + L * (z + 1 == L ? 0 : z + 1));
  n[5] = xh + LH * (y + L * (z == 0 ? L - 1 : z - 1));
  p = 2 * j + (x & 1);
#endif
}

// (colour, index j) of site (x, y, z) in the layout: simcore/models/ea3d/lattice.py:
// layout_index (the bitwise layout indexes its sites as the standard one)
__device__ __forceinline__ void site_at(u32 x, u32 y, u32 z, int &c, u32 &j) {
  c = (x + y + z) & 1;
#if LAYOUT == 1
  const u32 yp = (y + L - x) % L, zp = (x + L - y + z) % L;
  j = x + L * (yp + L * (zp >> 1));
#else
  j = (x + L * (y + L * z)) >> 1;
#endif
}

// simcore/models/ea3d/rule.py:satisfied_count: the count (b2, b1, b0) of satisfied bonds
// of the spin word s, in three bit planes
__device__ __forceinline__ void satisfied_count(u64 s, const u64 nb[6], const u64 jd[6], u64 &b2,
                                                u64 &b1, u64 &b0) {
  u64 a = ~(s ^ nb[0] ^ jd[0]), b = ~(s ^ nb[1] ^ jd[1]), c = ~(s ^ nb[2] ^ jd[2]);
  u64 d = ~(s ^ nb[3] ^ jd[3]), e = ~(s ^ nb[4] ^ jd[4]), f = ~(s ^ nb[5] ^ jd[5]);
  u64 s1 = a ^ b ^ c, c1 = (a & b) | (c & (a ^ b));
  u64 s2 = d ^ e ^ f, c2 = (d & e) | (f & (d ^ e));
  b0 = s1 ^ s2;
  u64 k = s1 & s2;
  b1 = c1 ^ c2 ^ k;
  b2 = (c1 & c2) | (k & (c1 ^ c2));
}

// simcore/models/ea3d/rule.py:flip_mask: the bits to flip (eq. 17)
__device__ __forceinline__ u64 flip_mask(u64 s, const u64 nb[6], const u64 jd[6], u32 r,
                                         u64 t4, u64 t8, u64 t12) {
  u64 b2, b1, b0;
  satisfied_count(s, nb, jd, b2, b1, b0);
  u64 ru = r;
  u64 cond4 = ru < t4 ? ~0ull : 0ull;
  u64 cond8 = ru < t8 ? ~0ull : 0ull;
  u64 cond12 = ru < t12 ? ~0ull : 0ull;
  return ~b2 | (b2 & ~b1 & (cond8 | (cond4 & ~b0))) | cond12;
}
