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

// Bits kstart .. kstart + NBITS - 1 (mod L/2) of a lattice row, bit 0 first.  L2 loads
// (__ldcg): under the ahead-of-time schedule another SM may have changed the row since
// this SM's L1 saw it.
__device__ __forceinline__ u64 row_bits(const u64 *row, int kstart) {
  u64 out = 0;
  int j = 0;
  while (j < NBITS) {
    int k = ((kstart + j) % HL + HL) % HL;
    int off = k & 63;
    int m = min(min(64 - off, HL - k), NBITS - j);
    u64 bits = __ldcg(&row[k >> 6]) >> off;
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

// Full update of block (bx, by, bz) of one sample in MCS t (decomposed.block_update): the
// window in shared memory, 256 single-hit rounds, the changes XORed back, the counters
// added to dbb_out / moves_out.  Called by all NT threads of a block.
__device__ __forceinline__ void update_block(u64 *L0, int bx, int by, int bz, u32 t, u32 sample,
                                             u32 k0, u32 k1, const u64 *thr_g,
                                             long long *dbb_out, long long *moves_out) {
  __shared__ u64 win[WIN][WIN];
  __shared__ unsigned char sets[HITS];
  __shared__ u64 thr[13];
  __shared__ long long red[2];
  const u32 block_id = (u32)((bz * NB + by) * NB + bx);
  const int x0 = bx * B - 2, y0 = by * B - 2, z0 = bz * B - 2;

  __syncthreads();  // the shared arrays are free (a persistent block reuses them)
  for (int r = threadIdx.x; r < WIN * WIN; r += NT) {
    int zl = r / WIN, yl = r % WIN;
    int z = (z0 + zl + LL) % LL, y = (y0 + yl + LL) % LL;
    win[zl][yl] = row_bits(L0 + ((size_t)z * LL + y) * WPR, x0 / 2);
  }
  for (int i = threadIdx.x; i < HITS / 4; i += NT) {
    P4 r = philox(block_id, t, sample, (STREAM_FCC_SET << 24) | (u32)i, k0, k1);
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
    if ((h & 1) == 0) r = philox(g, t, sample, (STREAM_FCC_DT << 24) | (u32)(h >> 1), k0, k1);
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
    atomicAdd((unsigned long long *)dbb_out, (unsigned long long)red[0]);
    atomicAdd((unsigned long long *)moves_out, (unsigned long long)red[1]);
  }
}

// Block q of the blocks of set sigma: its coordinates.
__device__ __forceinline__ void block_of(int q, int sigma, int &bx, int &by, int &bz) {
  bx = 2 * (q % HB) + (sigma & 1);
  by = 2 * ((q / HB) % HB) + ((sigma >> 1) & 1);
  bz = 2 * (q / (HB * HB)) + ((sigma >> 2) & 1);
}

// All blocks of one set, all samples: grid (HB^3, samples), NT threads.
// order: (samples, 8) set order of this MCS; phase: index into it.
extern "C" __global__ void __launch_bounds__(NT)
    dt_phase(u64 *lat, const int *order, int phase, u32 t, u32 sample0, u32 k0, u32 k1,
             const u64 *thr_g, long long *dbb_out, long long *moves_out) {
  const int js = blockIdx.y;
  int bx, by, bz;
  block_of(blockIdx.x, order[js * 8 + phase], bx, by, bz);
  update_block(lat + (size_t)js * LL * LL * WPR, bx, by, bz, t, sample0 + js, k0, k1, thr_g,
               dbb_out + js, moves_out + js);
}

// The same block updates for mcs MCS in one persistent launch, each block as soon as it and
// its 26 neighbours have done their previous update ("ahead of time", kelling2012 sec. 3.2):
// no SM waits for the last blocks of a set.  Tasks (MCS, phase, sample, block) are taken
// in that order from a global counter, and a task waits only on tasks taken before it,
// so the launch cannot deadlock.  Each block update reads and writes exactly what it does
// under dt_phase, so the lattice is the same.  order / inv: (mcs, samples, 8) set order
// and its inverse (the phase of each set); done: (samples, NB^3) zeros, next: 0.
extern "C" __global__ void __launch_bounds__(NT)
    dt_ahead(u64 *lat, const int *order, const int *inv, int mcs, u32 t0, int samples,
             u32 sample0, u32 k0, u32 k1, const u64 *thr_g, long long *dbb_out,
             long long *moves_out, unsigned int *next, int *done) {
  __shared__ unsigned int task_s;
  const unsigned int per_set = HB * HB * HB;
  const unsigned int total = (unsigned int)mcs * 8u * (unsigned int)samples * per_set;
  const int nblocks = NB * NB * NB;
  while (true) {
    __syncthreads();
    if (threadIdx.x == 0) task_s = atomicAdd(next, 1u);
    __syncthreads();
    const unsigned int task = task_s;
    if (task >= total) break;
    unsigned int rest = task / per_set;
    const int q = (int)(task % per_set);
    const int js = (int)(rest % (unsigned int)samples);
    rest /= (unsigned int)samples;
    const int i = (int)(rest % 8u), tr = (int)(rest / 8u);
    const int *ord = order + ((size_t)tr * samples + js) * 8;
    int bx, by, bz;
    block_of(q, ord[i], bx, by, bz);
    int *dn = done + (size_t)js * nblocks;
    // the 26 neighbours and the block itself (c = 13): a block last in MCS t and first in
    // t + 1 depends on no neighbour in between
    for (int c = threadIdx.x; c < 27; c += NT) {
      const int nx = (bx + c % 3 - 1 + NB) % NB, ny = (by + (c / 3) % 3 - 1 + NB) % NB;
      const int nz = (bz + c / 9 - 1 + NB) % NB;
      const int sn = (nx & 1) | (ny & 1) << 1 | (nz & 1) << 2;
      const int pos = inv[((size_t)tr * samples + js) * 8 + sn];
      int need = 0;  // its last update before this one, as (MCS x 8 + phase) + 1
      if (pos < i) need = tr * 8 + pos + 1;
      else if (tr > 0) need = (tr - 1) * 8 + inv[((size_t)(tr - 1) * samples + js) * 8 + sn] + 1;
      const volatile int *flag = dn + (nz * NB + ny) * NB + nx;
      while (*flag < need) {
      }
    }
    __syncthreads();
    __threadfence();
    update_block(lat + (size_t)js * LL * LL * WPR, bx, by, bz, t0 + (u32)tr, sample0 + js, k0,
                 k1, thr_g, dbb_out + js, moves_out + js);
    __threadfence();  // every thread's stores reach the device before the flag says done
    __syncthreads();
    if (threadIdx.x == 0) atomicMax(dn + (bz * NB + by) * NB + bx, tr * 8 + i + 1);
  }
}
