// Mask/repeat reductions: WholeReduceSum/Max/Min (one result per repeat),
// BlockReduceSum/Max/Min (one per 32-byte block) and the mask/repeat form of
// ReduceSum/Max/Min (one result over all repeats). Semantics in
// include/asc/kernel/reduce_ext.h.
//
// A repeat has at most 128 lanes, so each repeat's selected lanes are read
// into float32 once and reduced in a simple loop: sums in double, rounded to
// float32 and then to the element type at the end (results do not depend on
// lane order or the SIMD target), Max/Min with NaN propagation and first-occurrence indices.
#include "asc/kernel/reduce_ext.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "asc/core/half.h"
#include "asc/core/status.h"

namespace asc::kernel::simd {

namespace {

void check_dtype(const char* op, DType dtype) {
  if (dtype != DType::kFloat32 && dtype != DType::kFloat16) {
    throw Error(ErrorCode::kInvalidDtype,
                std::string("[") + op + "] dtype " + dtype_name(dtype) + " is not supported (float32, float16)");
  }
}

float load(DType dtype, const uint8_t* p) {
  if (dtype == DType::kFloat32) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  uint16_t h;
  std::memcpy(&h, p, 2);
  return asc::detail::f16_bits_to_f32(h);
}

void store(DType dtype, uint8_t* p, double v) {
  if (dtype == DType::kFloat32) {
    const float f = static_cast<float>(v);
    std::memcpy(p, &f, 4);
  } else {
    // Through float32 (as the hardware's float32 accumulators would).
    const uint16_t h = asc::detail::f32_to_f16_bits(static_cast<float>(v));
    std::memcpy(p, &h, 2);
  }
}

void store_index(DType dtype, uint8_t* p, uint32_t index) {
  if (dtype == DType::kFloat32) {
    std::memcpy(p, &index, 4);
  } else {
    const uint16_t i = static_cast<uint16_t>(index);
    std::memcpy(p, &i, 2);
  }
}

struct Sel {
  uint32_t lanes, lpb;
  uint64_t m[2];
  bool on(uint32_t lane) const { return (m[lane / 64] >> (lane % 64)) & 1u; }
};

Sel sel_of(const RepeatLayout& l, size_t es) {
  Sel s;
  s.lanes = static_cast<uint32_t>(256 / es);
  s.lpb = static_cast<uint32_t>(32 / es);
  s.m[0] = l.mask[0];
  s.m[1] = s.lanes > 64 ? l.mask[1] : 0;
  return s;
}

// Byte offset of lane `lane` of repeat r of the source (operand 1).
inline uint64_t lane_off(const RepeatLayout& l, const Sel& s, uint32_t r, uint32_t lane, size_t es) {
  const uint32_t k = lane / s.lpb, j = lane % s.lpb;
  return (uint64_t{r} * l.rep[1] + uint64_t{k} * l.blk[1]) * 32 + j * es;
}

// Running reduction over lanes.
struct Acc {
  ReduceOp op;
  double sum = 0;
  float best = 0;
  uint32_t index = 0;
  bool any = false;
  bool nan = false;
  void add(float v, uint32_t i) {
    if (op == ReduceOp::kSum) {
      sum += v;
      any = true;
      return;
    }
    if (nan) return;
    if (std::isnan(v)) {
      nan = true;
      best = v;
      index = i;
      any = true;
      return;
    }
    if (!any || (op == ReduceOp::kMax ? v > best : v < best)) {
      best = v;
      index = i;
    }
    any = true;
  }
  double value() const {
    if (op == ReduceOp::kSum) return sum;
    if (!any) return op == ReduceOp::kMax ? -std::numeric_limits<double>::infinity()
                                          : std::numeric_limits<double>::infinity();
    return best;
  }
};

}  // namespace

void whole_reduce(ReduceOp op, DType dtype, void* dst, const void* src, const RepeatLayout& l,
                  uint32_t dst_rep_stride, ReduceOrderValue order) {
  const char* name = op == ReduceOp::kSum ? "WholeReduceSum" : op == ReduceOp::kMax ? "WholeReduceMax" : "WholeReduceMin";
  check_dtype(name, dtype);
  const size_t es = dtype_size(dtype);
  const Sel s = sel_of(l, es);
  const uint8_t* ps = static_cast<const uint8_t*>(src);
  uint8_t* pd = static_cast<uint8_t*>(dst);
  for (uint32_t r = 0; r < l.repeat; ++r) {
    Acc a{op};
    for (uint32_t lane = 0; lane < s.lanes; ++lane) {
      if (s.on(lane)) a.add(load(dtype, ps + lane_off(l, s, r, lane, es)), lane);
    }
    if (op == ReduceOp::kSum) {
      store(dtype, pd + uint64_t{r} * dst_rep_stride * es, a.value());
      continue;
    }
    switch (order) {
      case ReduceOrderValue::kValueIndex: {
        uint8_t* o = pd + uint64_t{r} * dst_rep_stride * 2 * es;
        store(dtype, o, a.value());
        store_index(dtype, o + es, a.index);
        break;
      }
      case ReduceOrderValue::kIndexValue: {
        uint8_t* o = pd + uint64_t{r} * dst_rep_stride * 2 * es;
        store_index(dtype, o, a.index);
        store(dtype, o + es, a.value());
        break;
      }
      case ReduceOrderValue::kOnlyValue: store(dtype, pd + uint64_t{r} * dst_rep_stride * es, a.value()); break;
      case ReduceOrderValue::kOnlyIndex: {
        const uint32_t i = a.index;
        std::memcpy(pd + uint64_t{r} * dst_rep_stride * 4, &i, 4);
        break;
      }
    }
  }
}

void block_reduce(ReduceOp op, DType dtype, void* dst, const void* src, const RepeatLayout& l,
                  uint32_t dst_rep_stride) {
  const char* name = op == ReduceOp::kSum ? "BlockReduceSum" : op == ReduceOp::kMax ? "BlockReduceMax" : "BlockReduceMin";
  check_dtype(name, dtype);
  const size_t es = dtype_size(dtype);
  const Sel s = sel_of(l, es);
  const uint8_t* ps = static_cast<const uint8_t*>(src);
  uint8_t* pd = static_cast<uint8_t*>(dst);
  for (uint32_t r = 0; r < l.repeat; ++r) {
    for (uint32_t k = 0; k < 8; ++k) {
      Acc a{op};
      for (uint32_t j = 0; j < s.lpb; ++j) {
        const uint32_t lane = k * s.lpb + j;
        if (s.on(lane)) a.add(load(dtype, ps + lane_off(l, s, r, lane, es)), lane);
      }
      store(dtype, pd + (uint64_t{r} * dst_rep_stride * 8 + k) * es, a.value());
    }
  }
}

void reduce_repeat(ReduceOp op, DType dtype, void* dst, const void* src, const RepeatLayout& l, bool with_index) {
  check_dtype(op_name(op), dtype);
  const size_t es = dtype_size(dtype);
  const Sel s = sel_of(l, es);
  const uint8_t* ps = static_cast<const uint8_t*>(src);
  Acc a{op};
  for (uint32_t r = 0; r < l.repeat; ++r) {
    for (uint32_t lane = 0; lane < s.lanes; ++lane) {
      if (!s.on(lane)) continue;
      const uint64_t off = lane_off(l, s, r, lane, es);
      a.add(load(dtype, ps + off), static_cast<uint32_t>(off / es));
    }
  }
  uint8_t* pd = static_cast<uint8_t*>(dst);
  store(dtype, pd, a.value());
  if (with_index) store_index(dtype, pd + es, a.index);
}

}  // namespace asc::kernel::simd
