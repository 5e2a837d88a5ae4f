// The mask/repeat engine: runs a count-form SIMD loop (from the element-wise or
// lane tables) over the lanes the mask selects in each 256-byte repeat, with
// block and repeat strides (semantics in include/asc/kernel/simd_lane.h).
//
// Fast path: a full mask with unit block strides makes each repeat contiguous,
// so the loop runs straight on the operands (once over everything when the
// repeat strides are 8 blocks too). Otherwise the loop computes each repeat
// into a 256-byte scratch, reading sources with unit block stride in place
// (up to the last selected lane) and gathering the selected lanes of the
// others, and only the selected lanes are written back: masked-off destination
// lanes are never written, and no byte beyond an operand's last selected lane
// is read.
#include <algorithm>
#include <cstring>
#include <string>

#include "asc/core/half.h"
#include "asc/core/status.h"
#include "asc/kernel/cast_repeat.h"
#include "asc/kernel/reduce_ext.h"
#include "kernel/simd/lane_tables.h"
#include "kernel/simd/tables.h"

namespace asc::kernel::simd {

namespace {

struct Lanes {
  uint32_t L;       // lanes per repeat
  uint32_t lpb;     // lanes per block
  uint64_t m[2];    // selected lanes (m[1] is 0 for 32-bit types)
  uint32_t bm[8];   // per block: selected lanes of the block (bit j = lane j of the block)
  uint32_t last[8]; // per block: 1 + last selected lane, 0 when none
  bool full;
  bool any;
};

void check_esize(const char* op, DType dtype) {
  const size_t es = dtype_size(dtype);
  if (es != 2 && es != 4) {
    throw Error(ErrorCode::kInvalidDtype, std::string("[") + op + "] dtype " + dtype_name(dtype) +
                                              " is not supported by the mask/repeat form (16- and 32-bit types)");
  }
}

Lanes lanes_of(const RepeatLayout& l, size_t es) {
  Lanes s{};
  s.L = static_cast<uint32_t>(256 / es);
  s.lpb = static_cast<uint32_t>(32 / es);
  s.m[0] = l.mask[0];
  s.m[1] = s.L > 64 ? l.mask[1] : 0;
  s.full = s.m[0] == ~uint64_t{0} && (s.L == 64 || s.m[1] == ~uint64_t{0});
  const uint32_t block_mask = (s.lpb >= 32) ? ~0u : ((1u << s.lpb) - 1u);
  for (uint32_t k = 0; k < 8; ++k) {
    const uint32_t start = k * s.lpb;
    const uint32_t b = static_cast<uint32_t>(s.m[start / 64] >> (start % 64)) & block_mask;
    s.bm[k] = b;
    s.last[k] = b ? 32u - static_cast<uint32_t>(__builtin_clz(b)) : 0u;
    s.any |= b != 0;
  }
  return s;
}

// Lanes the loop must cover: up to the last selected one (operands read in
// place must not be read further).
inline uint32_t lanes_to_run(const Lanes& s) {
  for (int k = 7; k >= 0; --k) {
    if (s.bm[k]) return static_cast<uint32_t>(k) * s.lpb + s.last[k];
  }
  return 0;
}

inline uint64_t block_off(const RepeatLayout& l, int which, uint32_t r, uint32_t k) {
  return (uint64_t{r} * l.rep[which] + uint64_t{k} * l.blk[which]) * 32;
}

// Copies the selected part of each block of repeat r of `src` (operand
// `which`) into the dense 256-byte scratch `t`.
void gather(const Lanes& s, const RepeatLayout& l, int which, uint32_t r, const uint8_t* src, uint8_t* t,
            size_t es) {
  for (uint32_t k = 0; k < 8; ++k) {
    if (!s.bm[k]) continue;
    if (s.last[k] == s.lpb) {
      std::memcpy(t + k * 32, src + block_off(l, which, r, k), 32);  // fixed size: inlined
    } else {
      std::memcpy(t + k * 32, src + block_off(l, which, r, k), s.last[k] * es);
    }
  }
}

// Where the loop reads repeat r of source operand `which` from: the operand
// itself when its blocks are contiguous (lanes up to the last selected one lie
// inside the checked extent, and unselected lanes' results are discarded), else
// the scratch `t` after gathering.
const uint8_t* source(const Lanes& s, const RepeatLayout& l, int which, uint32_t r, const uint8_t* src,
                      uint8_t* t, size_t es) {
  if (l.blk[which] == 1) return src + block_off(l, which, r, 0);
  gather(s, l, which, r, src, t, es);
  return t;
}

// Writes the selected lanes of the dense scratch `t` to repeat r of `dst`.
void scatter(const Lanes& s, const RepeatLayout& l, uint32_t r, uint8_t* dst, const uint8_t* t, size_t es) {
  const uint32_t all = (s.lpb >= 32) ? ~0u : ((1u << s.lpb) - 1u);
  for (uint32_t k = 0; k < 8; ++k) {
    const uint32_t b = s.bm[k];
    if (!b) continue;
    uint8_t* d = dst + block_off(l, 0, r, k);
    if (b == all) {
      std::memcpy(d, t + k * 32, 32);
      continue;
    }
    for (uint32_t m = b; m; m &= m - 1) {
      const uint32_t j = static_cast<uint32_t>(__builtin_ctz(m));
      std::memcpy(d + j * es, t + k * 32 + j * es, es);
    }
  }
}

// f(dst, a, b, n): the count-form loop. a_used / b_used: operands 1 / 2 are
// tensors laid out by the repeat layout (b otherwise passes through: a scalar
// pointer or null); reads_dst: the loop reads dst too.
template <class F>
void run(size_t es, bool a_used, bool b_used, bool reads_dst, uint8_t* dst, const uint8_t* a, const uint8_t* b,
         const RepeatLayout& l, F f) {
  if (l.repeat == 0) return;
  const Lanes s = lanes_of(l, es);
  if (!s.any) return;
  const bool unit = l.blk[0] == 1 && (!a_used || l.blk[1] == 1) && (!b_used || l.blk[2] == 1);
  if (s.full && unit) {
    if (l.rep[0] == 8 && (!a_used || l.rep[1] == 8) && (!b_used || l.rep[2] == 8)) {
      f(dst, a, b, size_t{l.repeat} * s.L);
      return;
    }
    for (uint32_t r = 0; r < l.repeat; ++r) {
      f(dst + block_off(l, 0, r, 0), a_used ? a + block_off(l, 1, r, 0) : a, b_used ? b + block_off(l, 2, r, 0) : b,
        s.L);
    }
    return;
  }
  alignas(64) uint8_t ta[256] = {};
  alignas(64) uint8_t tb[256] = {};
  alignas(64) uint8_t td[256] = {};
  for (uint32_t r = 0; r < l.repeat; ++r) {
    const uint8_t* pa = a_used ? source(s, l, 1, r, a, ta, es) : a;
    const uint8_t* pb = b_used ? source(s, l, 2, r, b, tb, es) : b;
    if (reads_dst) gather(s, l, 0, r, dst, td, es);
    f(td, pa, pb, lanes_to_run(s));
    scatter(s, l, r, dst, td, es);
  }
}

}  // namespace

void mask_from_count(uint64_t count, uint64_t mask[2]) {
  mask[0] = count >= 64 ? ~uint64_t{0} : ((uint64_t{1} << count) - 1);
  mask[1] = count >= 128 ? ~uint64_t{0} : (count <= 64 ? 0 : ((uint64_t{1} << (count - 64)) - 1));
}

uint64_t repeat_extent(const RepeatLayout& l, int which, size_t esize) {
  if (l.repeat == 0) return 0;
  const Lanes s = lanes_of(l, esize);
  uint64_t end = 0;
  for (uint32_t k = 0; k < 8; ++k) {
    if (!s.bm[k]) continue;
    const uint64_t e = block_off(l, which, l.repeat - 1, k) + s.last[k] * esize;
    // Repeat 0 can end later than the last repeat only with a zero repeat
    // stride, where both are equal.
    if (e > end) end = e;
  }
  return end;
}

void binary_repeat(BinaryOp op, DType dtype, void* dst, const void* a, const void* b, const RepeatLayout& l) {
  const BinaryFn fn = binary_fn(op, dtype);
  check_esize(op_name(op), dtype);
  run(dtype_size(dtype), true, true, false, static_cast<uint8_t*>(dst), static_cast<const uint8_t*>(a),
      static_cast<const uint8_t*>(b), l, [fn](void* d, const void* x, const void* y, size_t n) { fn(d, x, y, n); });
}

void scalar_repeat(ScalarOp op, DType dtype, void* dst, const void* src, const void* scalar, const RepeatLayout& l) {
  const ScalarFn fn = scalar_fn(op, dtype);
  check_esize(op_name(op), dtype);
  run(dtype_size(dtype), true, false, false, static_cast<uint8_t*>(dst), static_cast<const uint8_t*>(src),
      static_cast<const uint8_t*>(scalar), l,
      [fn](void* d, const void* x, const void* y, size_t n) { fn(d, x, y, n); });
}

void unary_repeat(UnaryOp op, DType dtype, void* dst, const void* src, const RepeatLayout& l) {
  const UnaryFn fn = unary_fn(op, dtype);
  check_esize(op_name(op), dtype);
  run(dtype_size(dtype), true, false, false, static_cast<uint8_t*>(dst), static_cast<const uint8_t*>(src), nullptr,
      l, [fn](void* d, const void* x, const void*, size_t n) { fn(d, x, n); });
}

void lane_repeat(LaneOp op, DType dtype, void* dst, const void* a, const void* b, const RepeatLayout& l) {
  const LaneFn fn = lane_fn(op, dtype);
  check_esize(op_name(op), dtype);
  run(dtype_size(dtype), true, lane_reads_b_tensor(op), lane_reads_dst(op), static_cast<uint8_t*>(dst),
      static_cast<const uint8_t*>(a), static_cast<const uint8_t*>(b), l, fn);
}

void duplicate_repeat(DType dtype, void* dst, const void* scalar, const RepeatLayout& l) {
  check_esize("Duplicate", dtype);
  run(dtype_size(dtype), false, false, false, static_cast<uint8_t*>(dst), nullptr,
      static_cast<const uint8_t*>(scalar), l,
      [dtype](void* d, const void*, const void* s, size_t n) { duplicate(dtype, d, s, n); });
}

void compare_repeat(CmpMode mode, DType dtype, uint8_t* bits, const void* a, const void* b, bool b_scalar,
                    const RepeatLayout& l) {
  const CmpFn fn = cmp_fn(mode, dtype, b_scalar);
  check_esize(b_scalar ? "CompareScalar" : "Compare", dtype);
  if (l.repeat == 0) return;
  const size_t es = dtype_size(dtype);
  const Lanes s = lanes_of(l, es);
  if (!s.any) return;
  const uint8_t* pa = static_cast<const uint8_t*>(a);
  const uint8_t* pb = static_cast<const uint8_t*>(b);
  const uint32_t bytes = s.L / 8;  // bits of one repeat
  const bool unit = l.blk[1] == 1 && (b_scalar || l.blk[2] == 1);
  if (s.full && unit && l.rep[1] == 8 && (b_scalar || l.rep[2] == 8)) {
    fn(bits, a, b, size_t{l.repeat} * s.L);
    return;
  }
  alignas(64) uint8_t ta[256] = {};
  alignas(64) uint8_t tb[256] = {};
  uint8_t tbits[16];
  uint8_t keep[16];  // selected lanes, as bytes of the bit mask
  std::memcpy(keep, s.m, 16);
  for (uint32_t r = 0; r < l.repeat; ++r) {
    gather(s, l, 1, r, pa, ta, es);
    if (!b_scalar) gather(s, l, 2, r, pb, tb, es);
    fn(tbits, ta, b_scalar ? b : tb, s.L);
    uint8_t* out = bits + uint64_t{r} * bytes;
    for (uint32_t k = 0; k < bytes; ++k) {
      if (keep[k]) out[k] = static_cast<uint8_t>((out[k] & ~keep[k]) | (tbits[k] & keep[k]));
    }
  }
}

void select_repeat(DType dtype, void* dst, const uint8_t* bits, const void* a, const void* b, bool b_scalar,
                   bool same_bits_each_repeat, const RepeatLayout& l) {
  const SelFn fn = sel_fn(dtype, b_scalar);
  const size_t es = dtype_size(dtype);
  const uint32_t bytes = static_cast<uint32_t>(256 / es / 8);
  uint32_t r = 0;  // the repeat being run (for the selection bits)
  run(es, true, !b_scalar, false, static_cast<uint8_t*>(dst), static_cast<const uint8_t*>(a),
      static_cast<const uint8_t*>(b), l, [&](void* d, const void* x, const void* y, size_t n) {
        if (n > 256 / es) {  // the whole contiguous range in one call
          if (same_bits_each_repeat) {
            for (size_t i = 0; i < n; i += 256 / es) {
              fn(static_cast<uint8_t*>(d) + i * es, bits, static_cast<const uint8_t*>(x) + i * es,
                 b_scalar ? y : static_cast<const uint8_t*>(y) + i * es, 256 / es);
            }
          } else {
            fn(d, bits, x, y, n);
          }
          return;
        }
        fn(d, same_bits_each_repeat ? bits : bits + uint64_t{r} * bytes, x, y, n);
        ++r;
      });
}

// ---------------------------------------------------------------- Cast, mask/repeat form
// Operands of different widths: lane l of an e-byte operand is element
// l % (32 / e) of its block l / (32 / e). Each repeat's selected source lanes
// are gathered into a dense scratch, converted by the count-form SIMD cast up
// to the last selected lane, and the selected lanes scattered to dst.

namespace {

struct CastLanes {
  uint32_t L;
  uint64_t m[2];
  uint32_t last;  // 1 + last selected lane (0: none)
};

CastLanes cast_lanes(size_t e_dst, size_t e_src, const RepeatLayout& l) {
  CastLanes c{};
  c.L = static_cast<uint32_t>(256 / std::max(e_dst, e_src));
  c.m[0] = l.mask[0];
  c.m[1] = c.L > 64 ? l.mask[1] : 0;
  for (uint32_t i = c.L; i > 0; --i) {
    if ((c.m[(i - 1) / 64] >> ((i - 1) % 64)) & 1u) {
      c.last = i;
      break;
    }
  }
  return c;
}

inline bool lane_on(const CastLanes& c, uint32_t i) { return ((c.m[i / 64] >> (i % 64)) & 1u) != 0; }

inline uint64_t lane_off(const RepeatLayout& l, int which, uint32_t r, uint32_t lane, size_t e) {
  const uint32_t per = static_cast<uint32_t>(32 / e);
  return (uint64_t{r} * l.rep[which] + uint64_t{lane / per} * l.blk[which]) * 32 + uint64_t{lane % per} * e;
}

}  // namespace

uint64_t cast_repeat_extent(size_t e_dst, size_t e_src, const RepeatLayout& l, int which) {
  if (l.repeat == 0) return 0;
  const CastLanes c = cast_lanes(e_dst, e_src, l);
  const size_t e = which == 0 ? e_dst : e_src;
  uint64_t end = 0;
  for (uint32_t i = 0; i < c.last; ++i) {
    if (!lane_on(c, i)) continue;
    // The last repeat ends last unless the repeat stride is 0 (then all are equal).
    end = std::max(end, lane_off(l, which, l.repeat - 1, i, e) + e);
  }
  return end;
}

void cast_repeat(DType dst_dtype, DType src_dtype, RoundMode mode, void* dst, const void* src,
                 const RepeatLayout& l) {
  const size_t ed = dtype_size(dst_dtype), es = dtype_size(src_dtype);
  if (ed > 4 || es > 4 || std::max(ed, es) == 1) {
    throw Error(ErrorCode::kInvalidDtype, std::string("[Cast] the mask/repeat form does not cast ") +
                                              dtype_name(src_dtype) + " to " + dtype_name(dst_dtype));
  }
  cast(dst_dtype, src_dtype, mode, nullptr, nullptr, 0);  // validates the pair and the mode
  if (l.repeat == 0) return;
  const CastLanes c = cast_lanes(ed, es, l);
  if (c.last == 0) return;
  auto* d = static_cast<uint8_t*>(dst);
  const auto* s = static_cast<const uint8_t*>(src);
  const bool full = c.last == c.L && c.m[0] == ~uint64_t{0} && (c.L == 64 || c.m[1] == ~uint64_t{0});
  if (full && l.blk[0] == 1 && l.blk[1] == 1) {  // each repeat is contiguous in both operands
    for (uint32_t r = 0; r < l.repeat; ++r) {
      cast(dst_dtype, src_dtype, mode, d + uint64_t{r} * l.rep[0] * 32, s + uint64_t{r} * l.rep[1] * 32, c.L);
    }
    return;
  }
  alignas(64) uint8_t ts[256] = {};  // dense source lanes (unselected: 0, converted and dropped)
  alignas(64) uint8_t td[256];
  for (uint32_t r = 0; r < l.repeat; ++r) {
    for (uint32_t i = 0; i < c.last; ++i) {
      if (lane_on(c, i)) std::memcpy(ts + i * es, s + lane_off(l, 1, r, i, es), es);
    }
    cast(dst_dtype, src_dtype, mode, td, ts, c.last);
    for (uint32_t i = 0; i < c.last; ++i) {
      if (lane_on(c, i)) std::memcpy(d + lane_off(l, 0, r, i, ed), td + i * ed, ed);
    }
  }
}

// ---------------------------------------------------------------- PairReduceSum
// Pair p of a repeat is lanes 2p and 2p+1; float sums are one float32 add,
// half sums are added in float32 (exact enough: 24 >= 2 * 11 + 2 bits, so the
// rounding to half is the correctly rounded half sum) and rounded once.

void pair_reduce_sum(DType dtype, void* dst, const void* src, const RepeatLayout& l, uint32_t dst_rep_stride) {
  if (dtype != DType::kFloat32 && dtype != DType::kFloat16) {
    throw Error(ErrorCode::kInvalidDtype,
                std::string("[PairReduceSum] dtype ") + dtype_name(dtype) + " is not supported (float32, float16)");
  }
  const size_t es = dtype_size(dtype);
  const uint32_t L = static_cast<uint32_t>(256 / es);
  const uint64_t m[2] = {l.mask[0], L > 64 ? l.mask[1] : 0};
  auto on = [&](uint32_t i) { return ((m[i / 64] >> (i % 64)) & 1u) != 0; };
  const uint32_t per = static_cast<uint32_t>(32 / es);
  const auto* s = static_cast<const uint8_t*>(src);
  auto* d = static_cast<uint8_t*>(dst);
  float v[128];
  float out[64];
  for (uint32_t r = 0; r < l.repeat; ++r) {
    // All selected lanes are read before this repeat's results are written.
    for (uint32_t i = 0; i < L; ++i) {
      v[i] = 0.0f;
      if (!on(i)) continue;
      const uint8_t* p = s + (uint64_t{r} * l.rep[1] + uint64_t{i / per} * l.blk[1]) * 32 + uint64_t{i % per} * es;
      if (es == 4) {
        std::memcpy(&v[i], p, 4);
      } else {
        uint16_t h;
        std::memcpy(&h, p, 2);
        v[i] = asc::detail::f16_bits_to_f32(h);
      }
    }
    for (uint32_t pi = 0; pi < L / 2; ++pi) {
      const bool a = on(2 * pi), b = on(2 * pi + 1);
      out[pi] = a && b ? v[2 * pi] + v[2 * pi + 1] : (a ? v[2 * pi] : (b ? v[2 * pi + 1] : 0.0f));
    }
    uint8_t* o = d + uint64_t{r} * dst_rep_stride * (L / 2) * es;
    if (es == 4) {
      std::memcpy(o, out, 128);
    } else {
      for (uint32_t pi = 0; pi < L / 2; ++pi) {
        const uint16_t h = asc::detail::f32_to_f16_bits(out[pi]);
        std::memcpy(o + pi * 2, &h, 2);
      }
    }
  }
}

}  // namespace asc::kernel::simd
