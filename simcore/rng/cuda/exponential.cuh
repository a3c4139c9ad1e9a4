// Exponential variates that equal simcore/rng/exponential.py (numba) bit for bit:
// the same constants (hexadecimal literals, checked by tests/test_kmc2d.py), the same
// operations in the same order, each rounded on its own (__d*_rn: no fused multiply-add).
#pragma once

#define EXPV_LN2 0x1.62e42fefa39efp-1
#define EXPV_SQRT2 0x1.6a09e667f3bcdp+0
#define EXPV_C0 0x1.8618618618618p-5
#define EXPV_C1 0x1.af286bca1af28p-5
#define EXPV_C2 0x1.e1e1e1e1e1e1ep-5
#define EXPV_C3 0x1.1111111111111p-4
#define EXPV_C4 0x1.3b13b13b13b14p-4
#define EXPV_C5 0x1.745d1745d1746p-4
#define EXPV_C6 0x1.c71c71c71c71cp-4
#define EXPV_C7 0x1.2492492492492p-3
#define EXPV_C8 0x1.999999999999ap-3
#define EXPV_C9 0x1.5555555555555p-2

// Exp(1) variate -ln(u), u = (top 53 bits of (r0, r1) + 1) / 2^53.
__device__ __forceinline__ double exp_variate(unsigned int r0, unsigned int r1) {
  unsigned long long v = ((((unsigned long long)r0) << 21) | (r1 >> 11)) + 1ull;
  int e;
  double f = frexp((double)v, &e);
  f = __dmul_rn(f, 2.0);
  e -= 1;
  if (f > EXPV_SQRT2) {
    f = __dmul_rn(f, 0.5);
    e += 1;
  }
  double s = __ddiv_rn(__dadd_rn(f, -1.0), __dadd_rn(f, 1.0));
  double z = __dmul_rn(s, s);
  double p = EXPV_C0;
  p = __dadd_rn(__dmul_rn(p, z), EXPV_C1);
  p = __dadd_rn(__dmul_rn(p, z), EXPV_C2);
  p = __dadd_rn(__dmul_rn(p, z), EXPV_C3);
  p = __dadd_rn(__dmul_rn(p, z), EXPV_C4);
  p = __dadd_rn(__dmul_rn(p, z), EXPV_C5);
  p = __dadd_rn(__dmul_rn(p, z), EXPV_C6);
  p = __dadd_rn(__dmul_rn(p, z), EXPV_C7);
  p = __dadd_rn(__dmul_rn(p, z), EXPV_C8);
  p = __dadd_rn(__dmul_rn(p, z), EXPV_C9);
  double s2 = __dadd_rn(s, s);
  double lnf = __dadd_rn(s2, __dmul_rn(s2, __dmul_rn(z, p)));
  return __dadd_rn(__dmul_rn((double)(53 - e), EXPV_LN2), -lnf);
}
