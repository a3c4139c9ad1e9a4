// The tile algorithm of darkins2024 on the GPU: the twin of simcore/models/kmc2d/tiles.py
// and events.py (numba), bit for bit.  One thread advances one tile's patch (its 3 x 3-tile
// neighbourhood, outer ring fixed) held in shared memory; the next event comes from an
// 8-ary min-tree over the patch (leaf groups of 8 cells, then groups of 8 groups, then a
// scan), ties to the smaller global cell index as in the serial integrator.
//
// Compile-time constants: B (tile side), MODEL (0 sos, 1 ising), NCLS (rate classes),
// DIAG (1: rates depend on the diagonal neighbours), DPB (patches = threads per block).
// Global arrays are tile-major per sample: cell k = a B + b of tile T of sample s is
// element (s B^2 + k) ntiles + T, so neighbouring threads touch neighbouring words.
#include "exponential.cuh"
#include "philox.cuh"

#define S (3 * B)
#define NC (S * S)
#define NG1 (NC / 8)
#define NG2 ((NG1 + 7) / 8)
#define STREAM_KMC 0x30u
#define STATE_MIX 0x9E3779B97F4A7C15ull
#define INF __longlong_as_double(0x7ff0000000000000ll)

typedef unsigned char u8;
typedef unsigned short u16;

// -- the rate model (simcore/models/kmc2d/rates.py) ------------------------------------
__device__ __forceinline__ int rate_class(int c, int n, int s, int w, int e, int nw, int ne,
                                          int sw, int se) {
#if MODEL == 0
  int level = c + 1;
  return (n >= level) + (s >= level) + (w >= level) + (e >= level);
#else
  return 5 * (c > 0) + (n + s + w + e + 4) / 2;
#endif
}

__device__ __forceinline__ int new_state(int c) {
#if MODEL == 0
  return c + 1;
#else
  return -c;
#endif
}

// -- one patch in shared memory, element k of patch d at [k DPB + d] ------------------
struct Patch {
  double *tau;
  int *x;
  u32 *cnt;
  u8 *cls;
  double *t1;  // level 1: min time of each leaf group
  u16 *i1;     //          and its leaf
  double *t2;  // level 2
  u16 *i2;
  unsigned long long *sums;  // 16 checksums
  int d;
  __device__ __forceinline__ int &X(int k) { return x[k * DPB + d]; }
  __device__ __forceinline__ double &TAU(int k) { return tau[k * DPB + d]; }
};

struct Ctx {
  const double *inv, *ratio;
  int oi, oj, L;
  u32 sample, k0, k1;
};

__device__ __forceinline__ u32 global_index(const Ctx &c, int a, int b) {
  return (u32)(((c.oi + a) % c.L) * c.L + (c.oj + b) % c.L);
}

__device__ __forceinline__ int patch_class(Patch &p, int a, int b) {
  int k = a * S + b;
  return rate_class(p.X(k), p.X(k - S), p.X(k + S), p.X(k - 1), p.X(k + 1), p.X(k - S - 1),
                    p.X(k - S + 1), p.X(k + S - 1), p.X(k + S + 1));
}

// Waiting time of a cell of class cls drawn at time t (infinity, no draw, for rate 0).
__device__ __forceinline__ double new_time(const Ctx &c, Patch &p, double t, int cls, int a,
                                           int b) {
  double inv = c.inv[cls];
  if (inv == INF) return INF;
  int k = a * S + b;
  u32 n = p.cnt[k * DPB + p.d];
  p.cnt[k * DPB + p.d] = n + 1;
  P4 r = philox(global_index(c, a, b), n, c.sample, STREAM_KMC << 24, c.k0, c.k1);
  return __dadd_rn(t, __dmul_rn(exp_variate(r.v[0], r.v[1]), inv));
}

// Is leaf q earlier than leaf p (ties: the smaller global index; infinities never fire)?
__device__ __forceinline__ bool earlier(const Ctx &c, double tq, int q, double tp, int p) {
  if (tq < tp) return true;
  if (tq == tp && tp < INF) return global_index(c, q / S, q % S) < global_index(c, p / S, p % S);
  return false;
}

__device__ __forceinline__ void group1(const Ctx &c, Patch &p, int g) {
  int best = 8 * g;
  double tb = p.TAU(best);
#pragma unroll
  for (int j = 1; j < 8; j++) {
    int q = 8 * g + j;
    double tq = p.TAU(q);
    if (earlier(c, tq, q, tb, best)) {
      tb = tq;
      best = q;
    }
  }
  p.t1[g * DPB + p.d] = tb;
  p.i1[g * DPB + p.d] = (u16)best;
}

__device__ __forceinline__ void group2(const Ctx &c, Patch &p, int h) {
  int lo = 8 * h, hi = min(8 * h + 8, NG1);
  int best = p.i1[lo * DPB + p.d];
  double tb = p.t1[lo * DPB + p.d];
  for (int g = lo + 1; g < hi; g++) {
    int q = p.i1[g * DPB + p.d];
    double tq = p.t1[g * DPB + p.d];
    if (earlier(c, tq, q, tb, best)) {
      tb = tq;
      best = q;
    }
  }
  p.t2[h * DPB + p.d] = tb;
  p.i2[h * DPB + p.d] = (u16)best;
}

// Checksum bands (events.py _account): own border facing d (0..7), halo in direction d (8..15).
__device__ __forceinline__ int side(int a) { return a < B ? -1 : (a >= 2 * B ? 1 : 0); }

__device__ __forceinline__ void account(Patch &p, int a, int b, unsigned long long term,
                                        u32 &central) {
  int sa = side(a), sb = side(b);
  unsigned long long *s = p.sums;
  if (sa == 0 && sb == 0) {
    central++;
    bool top = a == B, bottom = a == 2 * B - 1, left = b == B, right = b == 2 * B - 1;
    if (top) s[0 * DPB + p.d] += term;
    if (bottom) s[1 * DPB + p.d] += term;
    if (left) s[2 * DPB + p.d] += term;
    if (right) s[3 * DPB + p.d] += term;
    if (top && left) s[4 * DPB + p.d] += term;
    if (top && right) s[5 * DPB + p.d] += term;
    if (bottom && left) s[6 * DPB + p.d] += term;
    if (bottom && right) s[7 * DPB + p.d] += term;
    return;
  }
  bool ra = sa == 0 || a == (sa < 0 ? B - 1 : 2 * B);
  bool rb = sb == 0 || b == (sb < 0 ? B - 1 : 2 * B);
  if (!(ra && rb)) return;
  // direction index of (sa, sb): U D L R UL UR DL DR
  int d = sb == 0 ? (sa < 0 ? 0 : 1)
                  : (sa == 0 ? (sb < 0 ? 2 : 3) : 4 + (sa > 0) * 2 + (sb > 0));
  s[(8 + d) * DPB + p.d] += term;
}

__device__ __forceinline__ long long gidx(int s, int k, int T, int ntiles) {
  return ((long long)s * B * B + k) * ntiles + T;
}

// Algorithm 2 for every tile of every active sample: front buffer (parity[s]) -> back.
extern "C" __global__ void __launch_bounds__(DPB)
    kmc2d_advance(int *x0, int *x1, double *tau0, double *tau1, u32 *cnt0, u32 *cnt1,
                  const int *parity, const int *active, const double *t_now,
                  const double *t_end, const double *inv_g, const double *ratio_g,
                  unsigned long long *sums_g, u32 *central_g, int L, u32 k0, u32 k1) {
  extern __shared__ __align__(16) unsigned char smem[];
  double *tau = (double *)smem;
  double *t1 = tau + NC * DPB;
  double *t2 = t1 + NG1 * DPB;
  unsigned long long *sums = (unsigned long long *)(t2 + NG2 * DPB);
  double *inv = (double *)(sums + 16 * DPB);
  double *ratio = inv + NCLS;
  int *xs = (int *)(ratio + NCLS * NCLS);
  u32 *cnt = (u32 *)(xs + NC * DPB);
  u16 *i1 = (u16 *)(cnt + NC * DPB);
  u16 *i2 = i1 + NG1 * DPB;
  u8 *cls = (u8 *)(i2 + NG2 * DPB);

  for (int i = threadIdx.x; i < NCLS; i += DPB) inv[i] = inv_g[i];
  for (int i = threadIdx.x; i < NCLS * NCLS; i += DPB) ratio[i] = ratio_g[i];
  __syncthreads();

  const int nt = L / B, ntiles = nt * nt;
  const int T = blockIdx.x * DPB + threadIdx.x;
  const int s = blockIdx.y;
  if (T >= ntiles || !active[s]) return;
  const int *xf = parity[s] ? x1 : x0;
  const double *tauf = parity[s] ? tau1 : tau0;
  const u32 *cntf = parity[s] ? cnt1 : cnt0;
  int *xb = parity[s] ? x0 : x1;
  double *taub = parity[s] ? tau0 : tau1;
  u32 *cntb = parity[s] ? cnt0 : cnt1;

  Patch p{tau, xs, cnt, cls, t1, i1, t2, i2, sums, (int)threadIdx.x};
  const int ti = T / nt, tj = T % nt;
  Ctx c{inv, ratio, ((ti - 1 + nt) % nt) * B, ((tj - 1 + nt) % nt) * B, L, (u32)s, k0, k1};

  // load the patch (ring: state only, time infinity)
  for (int a = 0; a < S; a++) {
    int gi = (c.oi + a) % L;
    for (int b = 0; b < S; b++) {
      int gj = (c.oj + b) % L;
      int k = a * S + b;
      long long g = gidx(s, (gi % B) * B + gj % B, (gi / B) * nt + gj / B, ntiles);
      p.X(k) = xf[g];
      bool live = a > 0 && a < S - 1 && b > 0 && b < S - 1;
      p.TAU(k) = live ? tauf[g] : INF;
      cnt[k * DPB + p.d] = live ? cntf[g] : 0u;
    }
  }
  for (int a = 1; a < S - 1; a++)
    for (int b = 1; b < S - 1; b++) cls[(a * S + b) * DPB + p.d] = (u8)patch_class(p, a, b);
  for (int j = 0; j < 16; j++) sums[j * DPB + p.d] = 0ull;
  for (int g = 0; g < NG1; g++) group1(c, p, g);
  for (int h = 0; h < NG2; h++) group2(c, p, h);

  const double tend = t_end[s];
  u32 central = 0;
  while (true) {
    int best = p.i2[p.d];
    double tb = p.t2[p.d];
    for (int h = 1; h < NG2; h++) {
      int q = p.i2[h * DPB + p.d];
      double tq = p.t2[h * DPB + p.d];
      if (earlier(c, tq, q, tb, best)) {
        tb = tq;
        best = q;
      }
    }
    if (!(tb < tend)) break;
    const double t = tb;
    const int a = best / S, b = best % S;
    // the event (events.py fire)
    int xn = new_state(p.X(best));
    p.X(best) = xn;
    int cf = patch_class(p, a, b);
    cls[best * DPB + p.d] = (u8)cf;
    p.TAU(best) = new_time(c, p, t, cf, a, b);
    unsigned rows = 0;  // bit 3 r + (db + 1): cell (a + r - 1, b + db) changed
    rows |= 1u << 4;
#pragma unroll
    for (int da = -1; da <= 1; da++) {
#pragma unroll
      for (int db = -1; db <= 1; db++) {
        if (da == 0 && db == 0) continue;
        if (!DIAG && da != 0 && db != 0) continue;
        int aa = a + da, bb = b + db;
        if (aa < 1 || aa >= S - 1 || bb < 1 || bb >= S - 1) continue;
        int q = aa * S + bb;
        int cn = patch_class(p, aa, bb);
        int co = cls[q * DPB + p.d];
        if (cn == co) continue;
        cls[q * DPB + p.d] = (u8)cn;
        double tq;
        if (inv[co] == INF)
          tq = new_time(c, p, t, cn, aa, bb);
        else if (inv[cn] == INF)
          tq = INF;
        else
          tq = __dadd_rn(t, __dmul_rn(__dadd_rn(p.TAU(q), -t), ratio[co * NCLS + cn]));
        p.TAU(q) = tq;
        rows |= 1u << (3 * (da + 1) + db + 1);
      }
    }
    unsigned long long tbits = (unsigned long long)__double_as_longlong(t);
    account(p, a, b, tbits + STATE_MIX * (unsigned long long)(u32)xn, central);
    // restore the tree over the changed cells
    unsigned long long g2 = 0;  // level-2 nodes to redo (NG2 <= 64 for B <= 16)
#pragma unroll
    for (int r = 0; r < 3; r++) {
      unsigned m = (rows >> (3 * r)) & 7u;
      if (!m) continue;
      int row = (a + r - 1) * S;
      int lo = row + b + ((m & 1u) ? -1 : ((m & 2u) ? 0 : 1));
      int hi = row + b + ((m & 4u) ? 1 : ((m & 2u) ? 0 : -1));
      int ga = lo >> 3, gb = hi >> 3;
      group1(c, p, ga);
      g2 |= 1ull << (ga >> 3);
      if (gb != ga) {
        group1(c, p, gb);
        g2 |= 1ull << (gb >> 3);
      }
    }
    while (g2) {
      int h = __ffsll((long long)g2) - 1;
      g2 &= g2 - 1;
      group2(c, p, h);
    }
  }

  // the central tile into the back buffer, checksums and the central event count
  for (int a = B; a < 2 * B; a++)
    for (int b = B; b < 2 * B; b++) {
      int k = a * S + b;
      long long g = gidx(s, (a - B) * B + (b - B), T, ntiles);
      xb[g] = p.X(k);
      taub[g] = p.TAU(k);
      cntb[g] = cnt[k * DPB + p.d];
    }
  for (int j = 0; j < 16; j++) sums_g[((long long)s * 16 + j) * ntiles + T] = sums[j * DPB + p.d];
  central_g[(long long)s * ntiles + T] = central;
}

// Eqs. 3-4: every halo sum equals its owner's border sum; mismatches and the step's
// central events per sample.
extern "C" __global__ void kmc2d_check(const int *active, const unsigned long long *sums,
                                       const u32 *central, int *mismatch,
                                       unsigned long long *step_events, int nt) {
  const int ntiles = nt * nt;
  const int T = blockIdx.x * blockDim.x + threadIdx.x;
  const int s = blockIdx.y;
  if (!active[s]) return;
  u32 ev = 0;
  if (T < ntiles) {
    const int ti = T / nt, tj = T % nt;
    const int DA[8] = {-1, 1, 0, 0, -1, -1, 1, 1}, DB[8] = {0, 0, -1, 1, -1, 1, -1, 1};
    const int OPP[8] = {1, 0, 3, 2, 7, 6, 5, 4};
    bool bad = false;
#pragma unroll
    for (int d = 0; d < 8; d++) {
      int U = ((ti + DA[d] + nt) % nt) * nt + (tj + DB[d] + nt) % nt;
      bad |= sums[((long long)s * 16 + 8 + d) * ntiles + T] !=
             sums[((long long)s * 16 + OPP[d]) * ntiles + U];
    }
    if (bad) atomicOr(&mismatch[s], 1);
    ev = central[(long long)s * ntiles + T];
  }
  unsigned long long tot = ev;
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) tot += __shfl_down_sync(0xffffffffu, tot, o);
  if ((threadIdx.x & 31) == 0 && tot) atomicAdd(&step_events[s], tot);
}

// Algorithm 1 per sample (tiles.py StepControl): settle the step just taken (settle != 0),
// then plan the next one up to target, or retire the sample when it got there.
extern "C" __global__ void kmc2d_control(int samples, int settle, double target, int *active,
                                         int *parity, double *t_now, double *dt, double *t_end,
                                         int *cut, int *rejected_once, int *mismatch,
                                         unsigned long long *step_events,
                                         unsigned long long *events,
                                         unsigned long long *accepted,
                                         unsigned long long *rejected, double *hist_dt,
                                         int *hist_ok, int hist_cap) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= samples || !active[s]) return;
  if (settle) {
    bool ok = mismatch[s] == 0;
    double t = t_now[s], te = t_end[s];
    unsigned long long n = accepted[s] + rejected[s];
    if (n < (unsigned long long)hist_cap) {
      hist_dt[(long long)s * hist_cap + n] = __dadd_rn(te, -t);
      hist_ok[(long long)s * hist_cap + n] = ok;
    }
    if (ok) {
      accepted[s] += 1;
      t_now[s] = te;
      parity[s] ^= 1;
      events[s] += step_events[s];
      if (!cut[s]) dt[s] = __dmul_rn(dt[s], rejected_once[s] ? 1.03 : 10.0);
    } else {
      rejected[s] += 1;
      dt[s] = __dmul_rn(__dadd_rn(te, -t), 0.5);
      rejected_once[s] = 1;
    }
    mismatch[s] = 0;
    step_events[s] = 0;
  }
  double t = t_now[s];
  if (!(t < target)) {
    active[s] = 0;
    return;
  }
  double te = __dadd_rn(t, dt[s]);
  if (te >= target) {
    t_end[s] = target;
    cut[s] = 1;
  } else {
    t_end[s] = te;
    cut[s] = 0;
  }
}
