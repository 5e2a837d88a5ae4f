// Atomic GM writes (asc/kernel/atomic.h): the per-block mode and the
// compare-and-swap combining behind DataCopy / DataCopyPad local -> GM.
#include "asc/kernel/atomic.h"

#include <cmath>
#include <cstring>
#include <string>

#include "asc/core/status.h"
#include "asc/kernel/context.h"
#include "asc/kernel/elide.h"

namespace asc::kernel::atomic {

thread_local Mode t_mode;

void set(Op op, Type type) noexcept {
  t_mode.op = op;
  t_mode.type = op == Op::kNone ? Type::kNone : type;
  t_mode.serial = runtime::block_serial();
}

void set_type(Type type) noexcept {
  if (t_mode.serial != runtime::block_serial()) t_mode.op = Op::kNone;  // a previous block's mode
  t_mode.type = type;
  t_mode.serial = runtime::block_serial();
}

Mode current() noexcept {
  if (t_mode.op != Op::kNone && t_mode.serial != runtime::block_serial()) t_mode = Mode{};
  return t_mode;
}

const char* op_name(Op op) noexcept {
  switch (op) {
    case Op::kNone: return "none";
    case Op::kAdd: return "add";
    case Op::kMax: return "max";
    case Op::kMin: return "min";
  }
  return "?";
}

const char* type_name(Type type) noexcept {
  switch (type) {
    case Type::kNone: return "none";
    case Type::kFloat: return "float";
    case Type::kHalf: return "half";
    case Type::kBFloat16: return "bfloat16_t";
    case Type::kInt8: return "int8_t";
    case Type::kInt16: return "int16_t";
    case Type::kInt32: return "int32_t";
  }
  return "?";
}

namespace {

uint32_t type_size(Type t) {
  switch (t) {
    case Type::kInt8: return 1;
    case Type::kHalf:
    case Type::kBFloat16:
    case Type::kInt16: return 2;
    default: return 4;
  }
}

// Float combining in float (see the header for the rounding argument).
inline float combine_float(Op op, float g, float x) {
  switch (op) {
    case Op::kAdd: return g + x;
    case Op::kMax:
      if (std::isnan(g)) return g;
      if (std::isnan(x)) return x;
      if (g == x) return std::signbit(g) ? x : g;  // +0 wins over -0
      return g > x ? g : x;
    case Op::kMin:
      if (std::isnan(g)) return g;
      if (std::isnan(x)) return x;
      if (g == x) return std::signbit(g) ? g : x;  // -0 wins over +0
      return g < x ? g : x;
    case Op::kNone: break;
  }
  return x;
}

template <typename I>
inline I combine_int(Op op, I g, I x) {
  using U = std::make_unsigned_t<I>;
  switch (op) {
    case Op::kAdd: return static_cast<I>(static_cast<U>(static_cast<U>(g) + static_cast<U>(x)));  // wraps
    case Op::kMax: return g > x ? g : x;
    case Op::kMin: return g < x ? g : x;
    case Op::kNone: break;
  }
  return x;
}

// Combines the `bits`-wide lane value `g` (from GM) with `x` (incoming) as `t`.
inline uint32_t combine_lane(Op op, Type t, uint32_t g, uint32_t x) {
  switch (t) {
    case Type::kFloat: {
      float a, b;
      std::memcpy(&a, &g, 4);
      std::memcpy(&b, &x, 4);
      const float r = combine_float(op, a, b);
      uint32_t u;
      std::memcpy(&u, &r, 4);
      return u;
    }
    case Type::kHalf:
      return ::asc::detail::f32_to_f16_bits(combine_float(op, ::asc::detail::f16_bits_to_f32(uint16_t(g)),
                                                          ::asc::detail::f16_bits_to_f32(uint16_t(x))));
    case Type::kBFloat16:
      return ::asc::detail::f32_to_bf16_bits(combine_float(op, ::asc::detail::bf16_bits_to_f32(uint16_t(g)),
                                                           ::asc::detail::bf16_bits_to_f32(uint16_t(x))));
    case Type::kInt8: return uint8_t(combine_int<int8_t>(op, int8_t(uint8_t(g)), int8_t(uint8_t(x))));
    case Type::kInt16: return uint16_t(combine_int<int16_t>(op, int16_t(uint16_t(g)), int16_t(uint16_t(x))));
    case Type::kInt32: return uint32_t(combine_int<int32_t>(op, int32_t(g), int32_t(x)));
    case Type::kNone: break;
  }
  return x;
}

// Combines [src, src + bytes) into GM at dst, one CAS per aligned 32-bit word
// (elements are at most 4 bytes and aligned to their size, so none straddles a
// word; the bytes of a word outside the range are written back unchanged).
void combine_range(Op op, Type t, uint8_t* dst, const uint8_t* src, uint64_t bytes) {
  const uint32_t esize = type_size(t);
  const uint32_t lane_mask = esize == 4 ? 0xFFFFFFFFu : (1u << (esize * 8)) - 1u;
  const uintptr_t lo = reinterpret_cast<uintptr_t>(dst), hi = lo + bytes;
  for (uintptr_t w = lo & ~uintptr_t{3}; w < hi; w += 4) {
    auto* word = reinterpret_cast<uint32_t*>(w);
    uint32_t old = __atomic_load_n(word, __ATOMIC_RELAXED);
    for (;;) {
      uint32_t now = old;
      for (uint32_t k = 0; k < 4; k += esize) {
        const uintptr_t a = w + k;
        if (a < lo || a >= hi) continue;
        uint32_t x = 0;
        std::memcpy(&x, src + (a - lo), esize);  // little-endian lane
        const uint32_t shift = k * 8;
        const uint32_t g = (now >> shift) & lane_mask;
        const uint32_t r = combine_lane(op, t, g, x) & lane_mask;
        now = (now & ~(lane_mask << shift)) | (r << shift);
      }
      // An unchanged word needs no store (max/min that lose): the load was the
      // linearisation point.
      if (now == old) break;
      if (__atomic_compare_exchange_n(word, &old, now, /*weak=*/true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) break;
    }
  }
}

}  // namespace

bool store(const char* op, void* dst, const void* src, uint32_t count, uint64_t burst, uint64_t src_pitch,
           uint64_t dst_pitch) {
  const Mode m = current();
  if (m.op == Op::kNone) return false;
  if (count == 0 || burst == 0) return true;
  const uint32_t esize = type_size(m.type);
  if (burst % esize != 0 || dst_pitch % esize != 0 || reinterpret_cast<uintptr_t>(dst) % esize != 0) {
    fail(ErrorCode::kInvalidParam, op,
         std::string("atomic ") + op_name(m.op) + " of " + type_name(m.type) + " needs GM addresses and lengths in " +
             std::to_string(esize) + "-byte units; got GM address offset " +
             std::to_string(reinterpret_cast<uintptr_t>(dst) % esize) + ", " + std::to_string(burst) +
             "-byte bursts " + std::to_string(dst_pitch) + " bytes apart");
  }
  // The real bytes must be in local memory, and records that read this GM
  // must take their values before it changes.
  const uint64_t src_extent = uint64_t{count - 1} * src_pitch + burst;
  const uint64_t dst_extent = uint64_t{count - 1} * dst_pitch + burst;
  elide::read(src, src_extent);
  elide::gm_write(dst, dst_extent);
  auto* d = static_cast<uint8_t*>(dst);
  const auto* s = static_cast<const uint8_t*>(src);
  for (uint32_t i = 0; i < count; ++i) combine_range(m.op, m.type, d + i * dst_pitch, s + i * src_pitch, burst);
  // Later plain reads of this GM by the block (or after the launch) see it.
  __atomic_thread_fence(__ATOMIC_RELEASE);
  return true;
}

}  // namespace asc::kernel::atomic
