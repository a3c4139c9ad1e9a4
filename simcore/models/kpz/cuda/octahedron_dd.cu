// Octahedron model (2D KPZ) under the two-layer domain decompositions of
// kelling2017: one thread block per device-layer domain and sample, single-hit
// DT or DB (delayed borders) at the block layer.
//
// This kernel is the GPU twin of simcore/models/kpz/decomposed.py (numba): the
// schedule, the counter-based draws and the rule are the ones described in
// simcore/schedules/decomposed.py and simcore/models/kpz/rule.py, and the
// tests check the two bit for bit.  The block copies its domain (plus the
// column and row of words its rim updates touch) into shared memory, updates
// it there, and writes back the words that hold sites it may have changed.
// Within one hit the threads touch disjoint bits; they share words, so flips
// are atomicXor in shared memory.
//
// Geometry is fixed at compile time (-D): DX, DY (domain, sites), CX, CY
// (thread cell, sites), BLK (1 DT, 2 DB), DEV (0 DT, 1 DTr, 2 DB, 3 cDB),
// BORDER (dead border, sites), HITS (attempts per thread), FAST (1 if
// acceptance is certain, so no uniform is drawn), CPT (thread cells per GPU thread: a
// thread runs the attempts of CPT cells between two barriers; the cells, their draws and
// so the result are the same for any CPT).

#ifndef DX
#define DX 128
#define DY 128
#define CX 8
#define CY 8
#define BLK 1
#define DEV 1
#define BORDER 0
#define HITS 64
#define FAST 1
#endif

#include "philox.cuh"  // simcore/rng/cuda: P4, philox(), pick(), u32, u64

#define NCX (DX / CX)
#ifndef DIR
#define DIR 1  // with FAST: +1 deposition only (p = 1), -1 removal only (q = 1)
#endif
#ifndef CPT
#define CPT 1  // thread cells per GPU thread (independent attempts between barriers)
#endif
#define NCY (DY / CY)
#define NCELLS (NCX * NCY)
#define RP (NCX + 2)  // row pitch of the per-cell records of DB (a guard cell each side)
#define NTHR (NCELLS / CPT)
#define WW (DX / 4 + 2)  // window words per row: the domain, its touched rim, and one more
#define WH (DY / 4 + 2)  // window rows
#define WS (WW | 1)      // row stride: odd, so that rows start in different banks
#define AX (DX - BORDER)
#define AY (DY - BORDER)
// positions and draws per Philox call (decomposed.py, draw_layout)
#define NPOS (BLK == 1 ? (CX / 2) * (CY / 2) : CX * CY)
#define POSBITS (NPOS <= 256 ? 8 : 16)
#define PER_CALL (FAST ? 128 / POSBITS : (POSBITS == 8 ? 4 : 2))

#define TAG_BLOCKSET (STREAM_BLOCKSET << 24)
#define TAG_THREAD (STREAM_THREAD << 24)

// (24-bit uniform, position) of the j-th attempt of a Philox call (decomposed.py, _thread_draw)
__device__ __forceinline__ void draw(const P4 &r, int j, u32 &u, u32 &pos) {
  if (FAST) {
    u = 0u;
    if (POSBITS == 8)
      pos = (pick(r, j >> 2) >> (8 * (j & 3))) & 0xFFu;
    else
      pos = (pick(r, j >> 1) >> (16 * (j & 1))) & 0xFFFFu;
  } else if (POSBITS == 8) {
    const u32 w = pick(r, j);
    u = w >> 8;
    pos = w & 0xFFu;
  } else {
    u = pick(r, 2 * j) >> 8;
    pos = pick(r, 2 * j + 1) & 0xFFFFu;
  }
}

// The slopes the rule reads at bit b of a site whose word is W0, right word Wx and upper
// word Wy: own (bit 0 its x-slope, bit 1 its y-slope) and nbr (bit 0 the x-slope of its
// right neighbour, bit 1 the y-slope of the neighbour above).  They are gathered
// word-wise: Nx holds at each site's x-bit the x-slope of its right neighbour, Ny at its
// y-bit the y-slope of the neighbour above (rows are bytes).
__device__ __forceinline__ void slopes(u32 W0, u32 Wx, u32 Wy, int b, u32 &own, u32 &nbr) {
  const u32 Nx = ((W0 >> 2) & 0x3F3F3F3Fu) | ((Wx << 6) & 0xC0C0C0C0u);
  const u32 Ny = (W0 >> 8) | (Wy << 24);
  own = (W0 >> b) & 3u;
  nbr = ((Nx >> b) & 1u) | ((Ny >> b) & 2u);
}

// The octahedron rule on the four slopes of a site: a deposition (up) or a removal (down).
__device__ __forceinline__ void rule(u32 own, u32 nbr, u32 u, u32 p24, u32 q24, bool &up,
                                     bool &down) {
  if (FAST) {  // acceptance certain: only the one direction DIR can happen
    up = DIR > 0 && own == 0u && nbr == 3u;
    down = DIR < 0 && own == 3u && nbr == 0u;
  } else {
    up = (own == 0u) & (nbr == 3u) & (u < p24);
    down = (own == 3u) & (nbr == 0u) & (u < q24);
  }
}

// The bits a flip of the site whose x-bit is t (0: no flip) toggles: its own two slopes,
// the x-slope of its right neighbour and the y-slope of the one above, in its word (d0),
// in the word to the right (dx, non-zero only from the last column) and in the word
// above (dy, non-zero only from the last row).
__device__ __forceinline__ void flip_masks(u32 t, u32 &d0, u32 &dx, u32 &dy) {
  d0 = 3u * t | ((t << 2) & 0xFCFCFCFCu) | (t << 9);
  dx = (t >> 6) & 0x03030303u;
  dy = t >> 23;
}

// One DT attempt at bit b of window word w; returns +1, -1 or 0.  Active sub-cells are
// >= 4 sites apart, so no other thread of this hit touches the words of this attempt:
// plain read-modify-write.
__device__ __forceinline__ int attempt(u32 *sh, int w, int b, u32 u, u32 p24, u32 q24) {
  const u32 W0 = sh[w], Wx = sh[w + 1], Wy = sh[w + WS];
  u32 own, nbr;
  slopes(W0, Wx, Wy, b, own, nbr);
  bool up, down;
  rule(own, nbr, u, p24, q24, up, down);
  u32 d0, dx, dy;
  flip_masks((up | down) ? 1u << b : 0u, d0, dx, dy);
  sh[w] = W0 ^ d0;
  if (dx) sh[w + 1] = Wx ^ dx;
  if (dy) sh[w + WS] = Wy ^ dy;
  return (int)up - (int)down;
}

// the barrier between hits: a block of one warp needs only the warp's
__device__ __forceinline__ void hit_barrier() {
  if (NTHR <= 32)
    __syncwarp(NTHR >= 32 ? 0xffffffffu : (1u << NTHR) - 1u);
  else
    __syncthreads();
}

// The site of a DBs attempt: position (px, py) in its cell drawn from pos, its
// window word w and bit b (via the site table tab), and whether it lies outside the dead
// border.
__device__ __forceinline__ void db_site(u32 pos, int wbase, int cellx, int celly,
                                        const int *tab, int &px, int &py, int &w, int &b,
                                        bool &live) {
  px = pos & (CX - 1);
  py = (pos / CX) & (CY - 1);
  const int e = tab[(px & 3) | ((py & 3) << 2)];
  w = wbase + (px >> 2) + (py >> 2) * WS + (e >> 5);
  b = e & 31;
  live = BORDER == 0 || (cellx + px < AX && celly + py < AY);
}

// Flip the site whose x-bit is t (0: none) in the shared window at word w (DBs): neighbouring
// cells' flips of one hit may share words, so XOR atomically; own issues the own word's
// atomic even where it changes nothing (SNAP_UNCOND).
__device__ __forceinline__ void flip_shared(u32 *sh, int w, u32 t, bool own) {
  u32 d0, dx, dy;
  flip_masks(t, d0, dx, dy);
  if (own || d0) atomicXor(&sh[w], d0);
  if (dx) atomicXor(&sh[w + 1], dx);
  if (dy) atomicXor(&sh[w + WS], dy);
}

#ifndef SNAP_UNCOND
// DBs: every lane issues its own word's atomic, XOR 0 where it rejected; the same lattice,
// and 8 % faster on an H100 than a branch around it (391 against 361 attempts/ns,
// BENCHMARKS.md round 4); -DSNAP_UNCOND=0 builds the branch
#define SNAP_UNCOND 1
#endif

#ifndef MINB
#define MINB 1  // blocks per multiprocessor the compiler must fit (register budget)
#endif

extern "C" __global__ void __launch_bounds__(NTHR, MINB)
    octahedron_dd_phase(u32 *__restrict__ lat, long long *__restrict__ net, const int *__restrict__ ox,
                        const int *__restrict__ oy, const int *__restrict__ set, int log2L, u32 c1,
                        u32 sample0, u32 k0, u32 k1, u32 p24, u32 q24, int tx) {
  __shared__ u32 sh[WS * WH];
  const int L = 1 << log2L, WL = L >> 2, m = L - 1;
  const int s = blockIdx.y;
  const u32 sample = sample0 + s;
  const int d = blockIdx.x;
  const int i = d % tx, j = d / tx;
  int X0, Y0;
  if (DEV <= 1) {
    const int st = set[s];
    X0 = (ox[s] + 2 * DX * i + (st & 1) * DX) & m;
    Y0 = (oy[s] + 2 * DY * j + (st >> 1) * DY) & m;
  } else {
    X0 = (ox[s] + DX * i) & m;
    Y0 = (oy[s] + DY * j) & m;
  }
  u32 *L0 = lat + (size_t)s * ((size_t)WL * WL);
  const int wx0 = X0 >> 2, wy0 = Y0 >> 2, sx = X0 & 3, sy = Y0 & 3;
  for (int k = threadIdx.x; k < WW * WH; k += NTHR) {
    int r = k / WW, c = k - r * WW;
    sh[r * WS + c] = L0[(size_t)((wy0 + r) & (WL - 1)) * WL + ((wx0 + c) & (WL - 1))];
  }
  // site (sx + rx, sy + ry) of the window, rx, ry < 4: word offset << 5 | bit offset
  __shared__ int tab[16];
  for (int k = threadIdx.x; k < 16; k += NTHR) {  // blocks of tiny domains have < 16 threads
    const int x = sx + (k & 3), y = sy + (k >> 2);
    tab[k] = (((y >> 2) * WS + (x >> 2)) << 5) | (2 * (((y & 3) << 2) | (x & 3)));
  }
  // DB: the site (x + CX y) in its cell where each cell's bulk or corner attempt of
  // this hit flipped, or -1; cell (cx, cy) at RP (cy + 1) + cx + 1, and a guard ring of -1
  // around the domain's cells
  __shared__ int rec[BLK == 2 ? RP * (NCY + 2) : 1];
  if (BLK == 2)
    for (int k = threadIdx.x; k < RP * (NCY + 2); k += NTHR) rec[k] = -1;
  __syncthreads();

  // the cells of this thread: t, t + NTHR, ...
  int cellx[CPT], celly[CPT], wbase[CPT], rbase[CPT];
  u32 gid[CPT];
#pragma unroll
  for (int k = 0; k < CPT; k++) {
    const int cell = threadIdx.x + k * NTHR;
    cellx[k] = (cell % NCX) * CX;
    celly[k] = (cell / NCX) * CY;
    wbase[k] = (celly[k] / 4) * WS + cellx[k] / 4;  // cells start on word edges + (sx, sy)
    gid[k] = (u32)d * NCELLS + cell;
    rbase[k] = (cell / NCX + 1) * RP + cell % NCX + 1;
  }
  int acc = 0;
  P4 bsw;
  // hits in chunks of one Philox call each, unrolled so that every shift is a constant
  for (int h0 = 0; h0 < HITS; h0 += PER_CALL) {
    if (BLK == 1 && (h0 & 63) == 0) bsw = philox(d, c1, sample, TAG_BLOCKSET | (h0 >> 6), k0, k1);
    P4 buf[CPT];
#pragma unroll
    for (int k = 0; k < CPT; k++)
      buf[k] = philox(gid[k], c1, sample, TAG_THREAD | (h0 / PER_CALL), k0, k1);
    // the block-layer sets of this chunk: 2 bits per hit (PER_CALL divides 16)
    const u32 bsr = BLK == 1 ? pick(bsw, (h0 >> 4) & 3) >> (2 * (h0 & 15)) : 0u;
#pragma unroll
    for (int j = 0; j < PER_CALL; j++) {
      if (HITS % PER_CALL != 0 && h0 + j >= HITS) break;
      if (BLK == 1) {
        const int bs = (bsr >> (2 * j)) & 3;
        const int off = (bs & 1) * (CX / 8) + (bs >> 1) * (CY / 8) * WS;  // sub-cell, words
#pragma unroll
        for (int k = 0; k < CPT; k++) {
          u32 u, pos;
          draw(buf[k], j, u, pos);
          const int px = pos & (CX / 2 - 1), py = (pos / (CX / 2)) & (CY / 2 - 1);
          const int e = tab[(px & 3) | ((py & 3) << 2)];
          const int w = wbase[k] + off + (px >> 2) + (py >> 2) * WS + (e >> 5);
          if (BORDER == 0 || (cellx[k] + (bs & 1) * (CX / 2) + px < AX &&
                              celly[k] + (bs >> 1) * (CY / 2) + py < AY))
            acc += attempt(sh, w, e & 31, u, p24, q24);
        }
        hit_barrier();
      } else if (BLK == 3) {
        // DB with snapshot hits (p = 1, q = 0 or p = 0, q = 1 only): every attempt of the
        // hit reads the lattice as it was before the hit, then the accepted ones flip.
        // With one direction only, two accepted sites are never neighbours (a local
        // minimum's neighbours are higher), so the flips commute and the hit's result is
        // that of any thread order in which the rejected attempts come first.
        int wk[CPT];
        u32 tk[CPT];
#pragma unroll
        for (int k = 0; k < CPT; k++) {
          u32 u, pos;
          draw(buf[k], j, u, pos);
          int px, py, b;
          bool live;
          db_site(pos, wbase[k], cellx[k], celly[k], tab, px, py, wk[k], b, live);
          u32 own, nbr;
          slopes(sh[wk[k]], sh[wk[k] + 1], sh[wk[k] + WS], b, own, nbr);
          bool up, down;
          rule(own, nbr, u, p24, q24, up, down);
          up = up && live;
          down = down && live;
          acc += (int)up - (int)down;
          tk[k] = (up | down) ? 1u << b : 0u;
        }
        hit_barrier();
#pragma unroll
        for (int k = 0; k < CPT; k++) flip_shared(sh, wk[k], tk[k], SNAP_UNCOND);
        hit_barrier();
      } else {
        // DB with delayed borders (decomposed.py: bulk and corners, then the edges) in one
        // rule pass.  Edge sites of different cells are never neighbours, and an edge
        // site's slopes change in the bulk phase only where the bulk or corner attempt
        // of the neighbouring cell across its border flipped (the cells to the right or
        // above; at (CX-1, 0) and (0, CY-1) also the corner of the cell below or to the
        // left).  So every lane reads its slopes before any flip, the bulk lanes record
        // their flips per cell (rec), and after one barrier the edge lanes toggle the
        // slopes their neighbours' recorded flips changed, decide, and all lanes flip.
        // The lattice is the one of the two passes, bit for bit.
        int wk[CPT], pk[CPT];
        u32 ownk[CPT], nbrk[CPT], uk[CPT];
#pragma unroll
        for (int k = 0; k < CPT; k++) {
          u32 pos;
          draw(buf[k], j, uk[k], pos);
          // written out rather than through db_site and flip_shared: the shared helpers
          // cost this path 3.6 % of its speed on an H100 (BENCHMARKS.md, round 4)
          const int px = pos & (CX - 1), py = (pos / CX) & (CY - 1);
          const int e = tab[(px & 3) | ((py & 3) << 2)];
          wk[k] = wbase[k] + (px >> 2) + (py >> 2) * WS + (e >> 5);
          const bool edge = (px == CX - 1) != (py == CY - 1);
          const bool live = BORDER == 0 || (cellx[k] + px < AX && celly[k] + py < AY);
          // the site in the cell, its bit, and whether it is outside the dead border
          pk[k] = (px + py * CX) | (e & 31) << 16 | (int)live << 24;
          slopes(sh[wk[k]], sh[wk[k] + 1], sh[wk[k] + WS], e & 31, ownk[k], nbrk[k]);
          bool up, down;
          rule(ownk[k], nbrk[k], uk[k], p24, q24, up, down);
          const bool flips = live && !edge && (up | down);
          rec[rbase[k]] = flips ? px + py * CX : -1;
        }
        hit_barrier();
#pragma unroll
        for (int k = 0; k < CPT; k++) {
          // branch-free, so that the warp issues each instruction once for all its lanes
          const int q = pk[k] & 0xFFFF;
          const bool right = (q & (CX - 1)) == CX - 1, top = q >= CX * (CY - 1);
          const bool edge = right != top;
          // the cell across the edge (right or above): its flip at (0, py) toggles nbr x,
          // at (px, 0) nbr y; the guard ring holds -1
          const int r1 = rec[rbase[k] + (right ? 1 : RP)];
          const int want1 = edge ? q - (right ? CX - 1 : CX * (CY - 1)) : -2;
          nbrk[k] ^= r1 == want1 ? (right ? 1u : 2u) : 0u;
          // at (CX - 1, 0) the corner of the cell below toggles own y, at (0, CY - 1) the
          // corner of the cell to the left own x
          const int r2 = rec[rbase[k] - (right ? RP : 1)];
          const bool c2 = (q == CX - 1 || q == CX * (CY - 1)) && r2 == CX * CY - 1;
          ownk[k] ^= c2 ? (right ? 2u : 1u) : 0u;
          const bool live = BORDER == 0 || (pk[k] >> 24);
          bool up, down;
          rule(ownk[k], nbrk[k], uk[k], p24, q24, up, down);
          up = up && live;
          down = down && live;
          acc += (int)up - (int)down;
          // neighbouring cells' flips may share the words: XOR in shared memory
          u32 d0, dx, dy;
          flip_masks((up | down) ? 1u << ((pk[k] >> 16) & 31) : 0u, d0, dx, dy);
          if (d0) atomicXor(&sh[wk[k]], d0);
          if (dx) atomicXor(&sh[wk[k] + 1], dx);
          if (dy) atomicXor(&sh[wk[k] + WS], dy);
        }
        hit_barrier();
      }
    }
  }

  // write back the words that hold sites this domain may have changed
  const int last_x = sx + AX, last_y = sy + AY;  // window site of the last touched column / row
  for (int k = threadIdx.x; k < WW * WH; k += NTHR) {
    int r = k / WW, c = k - r * WW;
    if (4 * c <= last_x && 4 * r <= last_y)
      L0[(size_t)((wy0 + r) & (WL - 1)) * WL + ((wx0 + c) & (WL - 1))] = sh[r * WS + c];
  }
  // net events of the block: warp sums, then one atomic per block
  __shared__ int warp_acc[(NTHR + 31) / 32];
  for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
  if ((threadIdx.x & 31) == 0) warp_acc[threadIdx.x >> 5] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    int tot = 0;
    for (int k = 0; k < (NTHR + 31) / 32; k++) tot += warp_acc[k];
    if (tot != 0) atomicAdd((u64 *)&net[s], (u64)(long long)tot);
  }
}
