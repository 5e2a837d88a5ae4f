// The high-level Matmul (include/asc/kernel/matmul.h): pieces of C computed
// by the cube engine straight from the ND operands into an L0C buffer, and
// written out through Fixpipe.
#include "asc/kernel/matmul.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "asc/core/half.h"
#include "asc/kernel/atomic.h"
#include "asc/kernel/checker.h"
#include "asc/kernel/elide.h"

namespace asc::kernel {

namespace {

std::string num(int64_t v) { return std::to_string(v); }
int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

bool float_input(DType t) { return t == DType::kFloat16 || t == DType::kBFloat16 || t == DType::kFloat32; }

DType acc_dtype(DType a) { return a == DType::kInt8 ? DType::kInt32 : DType::kFloat32; }

float load_float(const void* p, DType t, int64_t i) {
  switch (t) {
    case DType::kFloat16: return static_cast<const asc::float16*>(p)[i];
    case DType::kBFloat16: return static_cast<const asc::bfloat16*>(p)[i];
    default: return static_cast<const float*>(p)[i];
  }
}

void store_float(void* p, DType t, int64_t i, float v) {
  switch (t) {
    case DType::kFloat16: static_cast<asc::float16*>(p)[i] = asc::float16(v); break;
    case DType::kBFloat16: static_cast<asc::bfloat16*>(p)[i] = asc::bfloat16(v); break;
    default: static_cast<float*>(p)[i] = v; break;
  }
}

// enAtomic: 1 add, 2 max, 3 min.
template <typename T>
T combine(T old, T v, uint8_t atomic) {
  switch (atomic) {
    case 2: return old > v ? old : v;
    case 3: return old < v ? old : v;
    default: return old + v;
  }
}

std::mutex& atomic_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace

void MatmulCore::require_init(const char* op) const {
  if (!inited_) {
    fail(ErrorCode::kInvalidParam, op,
         "the Matmul has no tiling: call REGIST_MATMUL_OBJ(&pipe, workspace, mm, &tiling) or mm.Init(&tiling) first");
  }
}

void MatmulCore::init(const ::TCubeTiling* tiling, AscendC::TPipe* pipe, DType a, DType b, DType c, DType bias) {
  const char* op = "Matmul::Init";
  if (tiling == nullptr) fail(ErrorCode::kInvalidParam, op, "the tiling pointer is null");
  const bool types_ok = a == b && ((float_input(a) && (c == DType::kFloat32 || c == DType::kFloat16 ||
                                                        c == DType::kBFloat16) &&
                                    (bias == DType::kFloat32 || bias == DType::kFloat16 || bias == DType::kBFloat16)) ||
                                   (a == DType::kInt8 && c == DType::kInt32 && bias == DType::kInt32));
  if (!types_ok) {
    fail(ErrorCode::kInvalidDtype, op,
         std::string("unsupported types: A ") + dtype_name(a) + ", B " + dtype_name(b) + ", C " + dtype_name(c) +
             ", bias " + dtype_name(bias) +
             " (supported: half/bfloat16/float x same -> float/half/bfloat16 with a float/half/bfloat16 bias, "
             "int8 x int8 -> int32 with an int32 bias)");
  }
  const ::TCubeTiling& t = *tiling;
  if (t.M <= 0 || t.N <= 0 || t.Ka <= 0 || t.Kb <= 0 || t.singleCoreM <= 0 || t.singleCoreN <= 0 ||
      t.singleCoreK <= 0 || t.baseM <= 0 || t.baseN <= 0) {
    fail(ErrorCode::kInvalidParam, op,
         "the tiling has non-positive sizes: M=" + num(t.M) + " N=" + num(t.N) + " Ka=" + num(t.Ka) + " Kb=" +
             num(t.Kb) + " singleCore=" + num(t.singleCoreM) + "x" + num(t.singleCoreN) + "x" + num(t.singleCoreK) +
             " base=" + num(t.baseM) + "x" + num(t.baseN) + " (was GetTiling's result -1?)");
  }
  if (t.baseM % 16 != 0 || t.baseN % 16 != 0) {
    fail(ErrorCode::kInvalidParam, op,
         "baseM and baseN must be multiples of 16, got " + num(t.baseM) + " x " + num(t.baseN));
  }
  if (pipe == nullptr) {
    fail(ErrorCode::kInvalidParam, op, "no TPipe: pass &pipe to REGIST_MATMUL_OBJ (the L0C buffer comes from it)");
  }
  t_ = t;
  a_dtype_ = a;
  b_dtype_ = b;
  c_dtype_ = c;
  bias_dtype_ = bias;
  org_m_ = t.M;
  org_n_ = t.N;
  org_ka_ = t.Ka;
  org_kb_ = t.Kb;
  single_m_ = t.singleCoreM;
  single_n_ = t.singleCoreN;
  single_k_ = t.singleCoreK;
  // The L0C piece: InitBuffer enforces the per-core budget.
  AscendC::TBuf<AscendC::TPosition::CO1> buf;
  const uint32_t bytes = static_cast<uint32_t>(int64_t{t.baseM} * t.baseN * 4);
  pipe->InitBuffer(buf, bytes);
  co1_ = buf.Get<float>().raw();
  co1_elems_ = int64_t{t.baseM} * t.baseN;
  bias_on_ = false;
  cur_ = -1;
  inited_ = true;
}

void MatmulCore::set_org_shape(int32_t m, int32_t n, int32_t ka, int32_t kb) {
  require_init("Matmul::SetOrgShape");
  if (m <= 0 || n <= 0 || ka <= 0 || kb <= 0) {
    fail(ErrorCode::kInvalidParam, "Matmul::SetOrgShape",
         "sizes must be > 0, got " + num(m) + ", " + num(n) + ", " + num(ka) + ", " + num(kb));
  }
  org_m_ = m;
  org_n_ = n;
  org_ka_ = ka;
  org_kb_ = kb;
}

void MatmulCore::set_single_shape(int32_t m, int32_t n, int32_t k) {
  require_init("Matmul::SetSingleShape");
  if (m <= 0 || n <= 0 || k <= 0) {
    fail(ErrorCode::kInvalidParam, "Matmul::SetSingleShape",
         "sizes must be > 0, got " + num(m) + ", " + num(n) + ", " + num(k));
  }
  single_m_ = m;
  single_n_ = n;
  single_k_ = k;
  cur_ = -1;
}

void MatmulCore::set_tail(int32_t m, int32_t n, int32_t k) {
  require_init("Matmul::SetTail");
  if (m > 0) single_m_ = m;
  if (n > 0) single_n_ = n;
  if (k > 0) single_k_ = k;
  cur_ = -1;
}

void MatmulCore::set_a(const void* p, uint64_t size, bool trans, bool gm, const void* bound, uint64_t bound_bytes) {
  if (p == nullptr) fail(ErrorCode::kInvalidParam, "Matmul::SetTensorA", "the tensor has no buffer");
  a_gm_ = gm;
  a_bound_ = bound;
  a_bound_bytes_ = bound_bytes;
  a_ = p;
  a_size_ = size;
  a_trans_ = trans;
  cur_ = -1;
}

void MatmulCore::set_b(const void* p, uint64_t size, bool trans, bool gm, const void* bound, uint64_t bound_bytes) {
  if (p == nullptr) fail(ErrorCode::kInvalidParam, "Matmul::SetTensorB", "the tensor has no buffer");
  b_gm_ = gm;
  b_bound_ = bound;
  b_bound_bytes_ = bound_bytes;
  b_ = p;
  b_size_ = size;
  b_trans_ = trans;
  cur_ = -1;
}

void MatmulCore::set_bias(const void* p, uint64_t size, bool gm, const void* bound, uint64_t bound_bytes) {
  if (p == nullptr) fail(ErrorCode::kInvalidParam, "Matmul::SetBias", "the tensor has no buffer");
  bias_gm_ = gm;
  bias_bound_ = bound;
  bias_bound_bytes_ = bound_bytes;
  bias_ = p;
  bias_size_ = size;
  bias_on_ = true;
}

bool MatmulCore::iterate(bool partial_sum) {
  const char* op = "Matmul::Iterate";
  require_init(op);
  if (a_ == nullptr || b_ == nullptr) fail(ErrorCode::kInvalidParam, op, "call SetTensorA and SetTensorB first");
  const int64_t m_iter = ceil_div(single_m_, t_.baseM);
  const int64_t n_iter = ceil_div(single_n_, t_.baseN);
  if (++cur_ >= m_iter * n_iter) {
    cur_ = -1;
    return false;
  }
  if (t_.iterateOrder == 0) {
    compute(cur_ % m_iter, cur_ / m_iter, partial_sum);
  } else {
    compute(cur_ / n_iter, cur_ % n_iter, partial_sum);
  }
  return true;
}

void MatmulCore::compute(int64_t mi, int64_t ni, bool partial_sum) {
  const char* op = "Matmul::Iterate";
  const int64_t m0 = mi * t_.baseM, n0 = ni * t_.baseN;
  const int64_t mb = std::min<int64_t>(t_.baseM, single_m_ - m0);
  const int64_t nb = std::min<int64_t>(t_.baseN, single_n_ - n0);
  const int64_t k = single_k_;
  if (k > org_ka_ || k > org_kb_) {
    fail(ErrorCode::kInvalidParam, op,
         "singleCoreK " + num(k) + " exceeds Ka " + num(org_ka_) + " or Kb " + num(org_kb_));
  }
  const int64_t ea = dtype_size(a_dtype_), eb = dtype_size(b_dtype_);
  // Extents (elements from the bound address) of what this piece reads.
  const int64_t a_need = a_trans_ ? (k - 1) * org_m_ + m0 + mb : (m0 + mb - 1) * org_ka_ + k;
  const int64_t b_need = b_trans_ ? (n0 + nb - 1) * org_kb_ + k : (k - 1) * org_n_ + n0 + nb;
  if (check::active() && mb > 0 && nb > 0 && k > 0) {
    // The checker's report comes before the size checks' kInvalidParam.
    const auto* a = static_cast<const uint8_t*>(a_);
    const auto* b = static_cast<const uint8_t*>(b_);
    if (a_gm_) {
      if (a_trans_) {  // k rows of mb elements, M apart
        check::gm_access(op, a_bound_, a_bound_bytes_, a + m0 * ea, uint32_t(k), mb * ea, org_m_ * ea, false);
      } else {  // mb rows of k elements, Ka apart
        check::gm_access(op, a_bound_, a_bound_bytes_, a + m0 * org_ka_ * ea, uint32_t(mb), k * ea, org_ka_ * ea,
                         false);
      }
    }
    if (b_gm_) {
      if (b_trans_) {  // nb rows of k elements, Kb apart
        check::gm_access(op, b_bound_, b_bound_bytes_, b + n0 * org_kb_ * eb, uint32_t(nb), k * eb, org_kb_ * eb,
                         false);
      } else {  // k rows of nb elements, N apart
        check::gm_access(op, b_bound_, b_bound_bytes_, b + n0 * eb, uint32_t(k), nb * eb, org_n_ * eb, false);
      }
    }
    if (bias_on_ && !partial_sum && bias_gm_) {
      const int64_t ez = dtype_size(bias_dtype_);
      check::gm_access(op, bias_bound_, bias_bound_bytes_, static_cast<const uint8_t*>(bias_) + n0 * ez, 1,
                       nb * ez, nb * ez, false);
    }
  }
  if (a_size_ != 0 && static_cast<uint64_t>(a_need) > a_size_) fail_size(op, "elements of A", a_need, a_size_);
  if (b_size_ != 0 && static_cast<uint64_t>(b_need) > b_size_) fail_size(op, "elements of B", b_need, b_size_);
  cube::Operand oa, ob;
  oa.dtype = a_dtype_;
  oa.valid = mb;
  if (a_trans_) {  // Ka x M in memory
    oa.layout = cube::Layout::kColMajor;
    oa.ld = org_m_;
    oa.data = static_cast<const uint8_t*>(a_) + m0 * ea;
  } else {
    oa.layout = cube::Layout::kRowMajor;
    oa.ld = org_ka_;
    oa.data = static_cast<const uint8_t*>(a_) + m0 * org_ka_ * ea;
  }
  ob.dtype = b_dtype_;
  ob.valid = nb;
  if (b_trans_) {  // N x Kb in memory
    ob.layout = cube::Layout::kColMajor;
    ob.ld = org_kb_;
    ob.data = static_cast<const uint8_t*>(b_) + n0 * org_kb_ * eb;
  } else {
    ob.layout = cube::Layout::kRowMajor;
    ob.ld = org_n_;
    ob.data = static_cast<const uint8_t*>(b_) + n0 * eb;
  }
  const int64_t mpad = (mb + 15) / 16 * 16;
  const int64_t npad = (nb + 15) / 16 * 16;
  bool accumulate = partial_sum;
  if (bias_on_ && !partial_sum) {
    if (bias_size_ != 0 && static_cast<uint64_t>(n0 + nb) > bias_size_) {
      fail_size(op, "elements of the bias", n0 + nb, bias_size_);
    }
    // Every row starts as the bias (0 in padding columns).
    for (int64_t j = 0; j < npad; ++j) {
      float* col = co1_ + (j / 16) * mpad * 16 + j % 16;
      if (acc_dtype(a_dtype_) == DType::kInt32) {
        const int32_t v = j < nb ? static_cast<const int32_t*>(bias_)[n0 + j] : 0;
        auto* ci = reinterpret_cast<int32_t*>(col);
        for (int64_t i = 0; i < mpad; ++i) ci[i * 16] = v;
      } else {
        const float v = j < nb ? load_float(bias_, bias_dtype_, n0 + j) : 0.0f;
        for (int64_t i = 0; i < mpad; ++i) col[i * 16] = v;
      }
    }
    accumulate = true;
  }
  cube::gemm(mb, nb, k, oa, ob, co1_, acc_dtype(a_dtype_), mpad * 16, accumulate);
  cur_m0_ = m0;
  cur_n0_ = n0;
  cur_mb_ = mb;
  cur_nb_ = nb;
}

void MatmulCore::get_tensor_c(void* dst, uint64_t size, bool gm, uint8_t atomic, bool sequential, const void* bound,
                              uint64_t bound_bytes) {
  const char* op = "Matmul::GetTensorC";
  require_init(op);
  if (cur_ < 0) fail(ErrorCode::kInvalidParam, op, "no piece to write: call Iterate() first (and while it is true)");
  if (atomic > 3) fail(ErrorCode::kInvalidParam, op, "enAtomic must be 0 (none), 1 (add), 2 (max) or 3 (min)");
  const int64_t ec = dtype_size(c_dtype_);
  const bool to_place = gm && !sequential;
  const int64_t stride = to_place ? org_n_ : t_.baseN;
  const int64_t offset = to_place ? cur_m0_ * org_n_ + cur_n0_ : 0;
  const int64_t need = offset + (cur_mb_ - 1) * stride + cur_nb_;
  if (gm && check::active() && cur_mb_ > 0 && cur_nb_ > 0) {
    // cur_mb_ rows of cur_nb_ elements, stride apart; enAtomic writes, and
    // plain ones under the block's SetAtomicAdd/Max/Min (Fixpipe honours it),
    // combine: no gm-write-race.
    const bool combines =
        atomic != 0 || (::asc::kernel::atomic::maybe_active() &&
                        ::asc::kernel::atomic::current().op != ::asc::kernel::atomic::Op::kNone);
    check::gm_access(op, bound, bound_bytes, static_cast<const uint8_t*>(dst) + offset * ec, uint32_t(cur_mb_),
                     cur_nb_ * ec, stride * ec, true, combines);
  }
  if ((size != 0 || !gm) && static_cast<uint64_t>(need) > size) fail_size(op, "elements of C", need, size);
  uint8_t* out = static_cast<uint8_t*>(dst) + offset * ec;
  AscendC::FixpipeParamsV220 p;
  p.mSize = static_cast<uint16_t>(cur_mb_);
  p.nSize = static_cast<uint16_t>(cur_nb_);
  p.srcStride = static_cast<uint16_t>((cur_mb_ + 15) / 16 * 16);
  p.dstStride = static_cast<uint32_t>(stride);
  p.quantPre = c_dtype_ == DType::kFloat16    ? AscendC::QuantMode_t::F322F16
               : c_dtype_ == DType::kBFloat16 ? AscendC::QuantMode_t::F322BF16
                                              : AscendC::QuantMode_t::NoQuant;
  const DType acc = acc_dtype(a_dtype_);
  const uint64_t avail = size == 0 ? 0 : (size - offset) * ec;
  if (atomic == 0) {
    cube::fixpipe(out, avail, c_dtype_, gm, co1_, co1_elems_ * 4, acc, p, AscendC::CO2Layout::ROW_MAJOR, nullptr, 0);
    return;
  }
  // Atomic: the converted piece into a scratch tile, then combined under a lock
  // (other blocks may update the same C).
  thread_local std::vector<uint8_t> tile;
  tile.resize(static_cast<size_t>(cur_mb_ * cur_nb_ * ec));
  p.dstStride = static_cast<uint32_t>(cur_nb_);
  cube::fixpipe(tile.data(), tile.size(), c_dtype_, false, co1_, co1_elems_ * 4, acc, p,
                AscendC::CO2Layout::ROW_MAJOR, nullptr, 0);
  if (gm) {
    elide::gm_write(out, ((cur_mb_ - 1) * stride + cur_nb_) * ec);
  } else {
    elide::access(out, ((cur_mb_ - 1) * stride + cur_nb_) * ec);
  }
  std::lock_guard<std::mutex> lock(atomic_mutex());
  for (int64_t i = 0; i < cur_mb_; ++i) {
    for (int64_t j = 0; j < cur_nb_; ++j) {
      const int64_t di = i * stride + j, si = i * cur_nb_ + j;
      if (c_dtype_ == DType::kInt32) {
        auto* o = reinterpret_cast<int32_t*>(out);
        const int32_t v = reinterpret_cast<const int32_t*>(tile.data())[si];
        o[di] = static_cast<int32_t>(combine<int64_t>(o[di], v, atomic));
      } else {
        const float v = load_float(tile.data(), c_dtype_, si);
        store_float(out, c_dtype_, di, combine<float>(load_float(out, c_dtype_, di), v, atomic));
      }
    }
  }
}

void MatmulCore::iterate_all(void* dst, uint64_t size, uint8_t atomic, const void* bound, uint64_t bound_bytes) {
  require_init("Matmul::IterateAll");
  cur_ = -1;
  while (iterate(false)) get_tensor_c(dst, size, true, atomic, false, bound, bound_bytes);
}

void MatmulCore::end() { cur_ = -1; }

}  // namespace asc::kernel
