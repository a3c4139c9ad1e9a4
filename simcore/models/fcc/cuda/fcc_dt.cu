// Two-layer double tiling of the fcc Kawasaki rule (kelling2012 sec. 3.2): one launch per
// block set, one thread block per lattice block and sample, the block's window in shared
// memory (simcore/models/fcc/window.py), one thread per cell group, 256 single-hit rounds.
// The CPU twin is simcore/models/fcc/decomposed.py; conventions: simcore/models/fcc/__init__.py.
// Compile-time: LL (lattice side), WPR (uint64 words per row), B (block side), BOTH (0/1).
#include "philox.cuh"

#define NG (B / 8)
#define NT (NG * NG * NG)
#define WIN (B + 4)
#define NBITS (WIN / 2)
#define HL (LL / 2)
#define NB (LL / B)
#define HB (NB / 2)
#define GL (LL / 8)
#define HITS 256
#define STREAM_SET 0x43u
#define STREAM_DT 0x44u

// Bits kstart .. kstart + NBITS - 1 (mod L/2) of a lattice row, bit 0 first.
__device__ __forceinline__ u64 row_bits(const u64 *row, int kstart) {
  u64 out = 0;
  int j = 0;
  while (j < NBITS) {
    int k = ((kstart + j) % HL + HL) % HL;
    int off = k & 63;
    int m = min(min(64 - off, HL - k), NBITS - j);
    u64 bits = row[k >> 6] >> off;
    if (m < 64) bits &= (1ull << m) - 1ull;
    out |= bits << j;
    j += m;
  }
  return out;
}

// XOR the window row's changes into the lattice row (other blocks of the set may change
// other bits of the same words at the same time).
__device__ __forceinline__ void row_xor(u64 *row, int kstart, u64 diff) {
  int j = 0;
  while (j < NBITS) {
    int k = ((kstart + j) % HL + HL) % HL;
    int off = k & 63;
    int m = min(min(64 - off, HL - k), NBITS - j);
    u64 bits = diff >> j;
    if (m < 64) bits &= (1ull << m) - 1ull;
    if (bits) atomicXor(&row[k >> 6], bits << off);
    j += m;
  }
}

__device__ __forceinline__ int wbit(const u64 (*win)[WIN], int x, int y, int z) {
  return (int)((win[z][y] >> (x >> 1)) & 1ull);
}

__device__ __forceinline__ int wpair(u64 w, int s) { return __popcll((w >> s) & 3ull); }

// B neighbours of a window site (simcore/models/fcc/window.py: window_neighbours).
__device__ __forceinline__ int wcount(const u64 (*win)[WIN], int x, int y, int z) {
  int s = (x >> 1) - 1 + ((y + z) & 1);
  return wpair(win[z][y - 1], s) + wpair(win[z][y + 1], s) + wpair(win[z - 1][y], s) +
         wpair(win[z + 1][y], s) + wbit(win, x, y - 1, z - 1) + wbit(win, x, y + 1, z - 1) +
         wbit(win, x, y - 1, z + 1) + wbit(win, x, y + 1, z + 1);
}

__constant__ int DXc[12] = {1, 1, -1, -1, 1, 1, -1, -1, 0, 0, 0, 0};
__constant__ int DYc[12] = {1, -1, 1, -1, 0, 0, 0, 0, 1, 1, -1, -1};
__constant__ int DZc[12] = {0, 0, 0, 0, 1, -1, 1, -1, 1, -1, 1, -1};

// All blocks of one set, all samples: grid (HB^3, samples), NT threads.
// order: (samples, 8) set order of this MCS; phase: index into it.
extern "C" __global__ void __launch_bounds__(NT)
    dt_phase(u64 *lat, const int *order, int phase, u32 t, u32 sample0, u32 k0, u32 k1,
             const u64 *thr_g, long long *dbb_out, long long *moves_out) {
  __shared__ u64 win[WIN][WIN];
  __shared__ unsigned char sets[HITS];
  __shared__ u64 thr[13];
  __shared__ long long red[2];
  const int js = blockIdx.y;
  const u32 sample = sample0 + js;
  const int sigma = order[js * 8 + phase];
  const int q = blockIdx.x;
  const int bx = 2 * (q % HB) + (sigma & 1);
  const int by = 2 * ((q / HB) % HB) + ((sigma >> 1) & 1);
  const int bz = 2 * (q / (HB * HB)) + ((sigma >> 2) & 1);
  u64 *L0 = lat + (size_t)js * LL * LL * WPR;
  const u32 block_id = (u32)((bz * NB + by) * NB + bx);
  const int x0 = bx * B - 2, y0 = by * B - 2, z0 = bz * B - 2;

  for (int r = threadIdx.x; r < WIN * WIN; r += NT) {
    int zl = r / WIN, yl = r % WIN;
    int z = (z0 + zl + LL) % LL, y = (y0 + yl + LL) % LL;
    win[zl][yl] = row_bits(L0 + ((size_t)z * LL + y) * WPR, x0 / 2);
  }
  for (int i = threadIdx.x; i < HITS / 4; i += NT) {
    P4 r = philox(block_id, t, sample, (STREAM_SET << 24) | (u32)i, k0, k1);
#pragma unroll
    for (int c = 0; c < 4; c++) sets[4 * i + c] = (unsigned char)(r.v[c] >> 29);
  }
  for (int i = threadIdx.x; i < 13; i += NT) thr[i] = thr_g[i];
  for (int i = threadIdx.x; i < 2; i += NT) red[i] = 0;
  __syncthreads();

  const int j = threadIdx.x;
  const int gx = j % NG, gy = (j / NG) % NG, gz = j / (NG * NG);
  const u32 g = (u32)(((bz * NG + gz) * GL + by * NG + gy) * GL + bx * NG + gx);
  long long dbb = 0, moves = 0;
  P4 r;
  for (int h = 0; h < HITS; h++) {
    if ((h & 1) == 0) r = philox(g, t, sample, (STREAM_DT << 24) | (u32)(h >> 1), k0, k1);
    const u32 a = (h & 1) ? r.v[2] : r.v[0];
    const u32 u = (h & 1) ? r.v[3] : r.v[1];
    const int s = sets[h];
    const int y = 8 * gy + 4 * ((s >> 1) & 1) + 2 + (int)((a >> 29) & 3u);
    const int z = 8 * gz + 4 * ((s >> 2) & 1) + 2 + (int)((a >> 27) & 3u);
    const int x = 8 * gx + 4 * (s & 1) + 2 + 2 * (int)(a >> 31) + ((y + z) & 1);
    const int d = (int)(((u64)(a & 0x07FFFFFFu) * 12ull) >> 27);
    const int fx = x + DXc[d], fy = y + DYc[d], fz = z + DZc[d];
    const int si = wbit(win, x, y, z), sf = wbit(win, fx, fy, fz);
    if (si != sf && (BOTH || si)) {  // rule.proposed
      const int ni = wcount(win, x, y, z), nf = wcount(win, fx, fy, fz);
      const int nb = si ? ni : nf, na = si ? nf - 1 : ni - 1;  // rule.accepted
      if (na >= nb || (u64)u < thr[nb - na]) {
        atomicXor(&win[z][y], 1ull << (x >> 1));
        atomicXor(&win[fz][fy], 1ull << (fx >> 1));
        dbb += na - nb;
        moves += 1;
      }
    }
    __syncthreads();
  }

  for (int rr = threadIdx.x; rr < WIN * WIN; rr += NT) {
    int zl = rr / WIN, yl = rr % WIN;
    int z = (z0 + zl + LL) % LL, y = (y0 + yl + LL) % LL;
    u64 *row = L0 + ((size_t)z * LL + y) * WPR;
    u64 diff = win[zl][yl] ^ row_bits(row, x0 / 2);
    if (diff) row_xor(row, x0 / 2, diff);
  }
  atomicAdd((unsigned long long *)&red[0], (unsigned long long)dbb);
  atomicAdd((unsigned long long *)&red[1], (unsigned long long)moves);
  __syncthreads();
  if (threadIdx.x == 0) {
    atomicAdd((unsigned long long *)&dbb_out[js], (unsigned long long)red[0]);
    atomicAdd((unsigned long long *)&moves_out[js], (unsigned long long)red[1]);
  }
}
