// Operator libraries: C++ operators that pyasc loads at run time (asc.load_op_library(path)).
//
//   #include "asc/op_library.h"
//
//   ASC_REGISTER_OP("ScaledAdd")
//       .Input("x").Input("y").Output("z")
//       .Attr("alpha: float")
//       .Doc("z = x + alpha * y (float32)")
//       .InferShape([](asc::oplib::InferContext& c) {
//         c.set_output(0, c.input_shape(0), c.input_dtype(0));
//       })
//       .Kernel([](asc::oplib::KernelContext& c) {
//         auto x = c.input(0).data<float>(); ...
//       });
//
// Build the library with `pyasc-cc -shared -fPIC lib.cpp -o libmyops.so` (or
// asc.utils.cpp_extension.load(..., is_python_module=False)); `asc.load_op_library("./libmyops.so")`
// then publishes asc.ops.ScaledAdd. Kernels may launch Ascend C kernels (kernel_operator.h).
//
// Design: the library and pyasc meet through a small C ABI (the extern "C" asc_oplib_* functions
// below, defined weak in this header so any number of translation units may include it), read by
// pyasc with ctypes. No C++ type crosses the boundary, so a library built with another compiler
// version works, nothing of pybind11 is needed, and dlclose() can unload it (hot reload). Inputs
// reach a kernel C-contiguous (pyasc copies non-contiguous views first); outputs are pool memory
// of the shapes and dtypes InferShape set, allocated before the kernel runs. A kernel reports a
// failure by throwing (std::exception or asc::Error); the message reaches Python as an
// AscendRuntimeError naming the op.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#define ASC_OPLIB_ABI_VERSION 1
#define ASC_OPLIB_MAX_DIMS 8

extern "C" {
// Element types (numbering of the ABI; pyasc maps them to NumPy dtypes).
enum AscOpDType : int32_t {
  ASC_OP_FLOAT32 = 0, ASC_OP_FLOAT16 = 1, ASC_OP_FLOAT64 = 2, ASC_OP_INT32 = 3, ASC_OP_INT64 = 4,
  ASC_OP_UINT8 = 5, ASC_OP_INT8 = 6, ASC_OP_BOOL = 7, ASC_OP_BFLOAT16 = 8, ASC_OP_INT16 = 9,
};

// One C-contiguous tensor: data, rank, shape, dtype.
struct AscOpTensor {
  void* data;
  int64_t ndim;
  int64_t shape[ASC_OPLIB_MAX_DIMS];
  int32_t dtype;
};

// One attribute value, in the order of the op's Attr declarations (kind: 0 float, 1 int, 2 bool,
// 3 string).
struct AscOpAttrValue {
  int32_t kind;
  double f;
  int64_t i;
  const char* s;
};
}

namespace asc {
namespace oplib {

inline int64_t dtype_size(int32_t dt) {
  switch (dt) {
    case ASC_OP_FLOAT64: case ASC_OP_INT64: return 8;
    case ASC_OP_FLOAT32: case ASC_OP_INT32: return 4;
    case ASC_OP_FLOAT16: case ASC_OP_BFLOAT16: case ASC_OP_INT16: return 2;
    default: return 1;
  }
}

using Shape = std::vector<int64_t>;

// A tensor as a kernel sees it (C-contiguous).
class TensorRef {
 public:
  explicit TensorRef(const AscOpTensor* t) : t_(t) {}
  int64_t ndim() const { return t_->ndim; }
  int64_t dim(int i) const { return t_->shape[i < 0 ? i + t_->ndim : i]; }
  Shape shape() const { return Shape(t_->shape, t_->shape + t_->ndim); }
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t i = 0; i < t_->ndim; ++i) n *= t_->shape[i];
    return n;
  }
  int32_t dtype() const { return t_->dtype; }
  int64_t nbytes() const { return numel() * dtype_size(t_->dtype); }
  template <typename T>
  T* data() const { return static_cast<T*>(t_->data); }
  void* raw() const { return t_->data; }

 private:
  const AscOpTensor* t_;
};

struct AttrDecl {
  std::string name;
  int32_t kind;  // 0 float, 1 int, 2 bool, 3 string
};

class OpDef;

// Attribute access shared by the two contexts.
class AttrReader {
 public:
  AttrReader(const OpDef* op, const AscOpAttrValue* vals) : op_(op), vals_(vals) {}
  double get_float(const std::string& name) const;
  int64_t get_int(const std::string& name) const;
  bool get_bool(const std::string& name) const;
  std::string get_string(const std::string& name) const;

 private:
  const AscOpAttrValue& find(const std::string& name, int32_t kind) const;
  const OpDef* op_;
  const AscOpAttrValue* vals_;
};

class InferContext : public AttrReader {
 public:
  InferContext(const OpDef* op, int n_in, const int64_t* ndims, const int64_t* shapes, const int32_t* dtypes,
               const AscOpAttrValue* attrs, int n_out)
      : AttrReader(op, attrs), n_in_(n_in), ndims_(ndims), shapes_(shapes), dtypes_(dtypes),
        out_shapes_(n_out), out_dtypes_(n_out, -1) {}
  int num_inputs() const { return n_in_; }
  Shape input_shape(int i) const {
    return Shape(shapes_ + i * ASC_OPLIB_MAX_DIMS, shapes_ + i * ASC_OPLIB_MAX_DIMS + ndims_[i]);
  }
  int32_t input_dtype(int i) const { return dtypes_[i]; }
  void set_output(int i, Shape shape, int32_t dtype) {
    out_shapes_.at(i) = std::move(shape);
    out_dtypes_.at(i) = dtype;
  }
  const std::vector<Shape>& output_shapes() const { return out_shapes_; }
  const std::vector<int32_t>& output_dtypes() const { return out_dtypes_; }

 private:
  int n_in_;
  const int64_t* ndims_;
  const int64_t* shapes_;
  const int32_t* dtypes_;
  std::vector<Shape> out_shapes_;
  std::vector<int32_t> out_dtypes_;
};

class KernelContext : public AttrReader {
 public:
  KernelContext(const OpDef* op, const AscOpTensor* ins, int n_in, AscOpTensor* outs, int n_out,
                const AscOpAttrValue* attrs)
      : AttrReader(op, attrs), ins_(ins), n_in_(n_in), outs_(outs), n_out_(n_out) {}
  int num_inputs() const { return n_in_; }
  int num_outputs() const { return n_out_; }
  TensorRef input(int i) const { return TensorRef(&ins_[check(i, n_in_, "input")]); }
  TensorRef output(int i) const { return TensorRef(&outs_[check(i, n_out_, "output")]); }

 private:
  static int check(int i, int n, const char* what) {
    if (i < 0 || i >= n) throw std::out_of_range(std::string(what) + " index " + std::to_string(i) + " of " +
                                                 std::to_string(n));
    return i;
  }
  const AscOpTensor* ins_;
  int n_in_;
  AscOpTensor* outs_;
  int n_out_;
};

using InferFn = std::function<void(InferContext&)>;
using KernelFn = std::function<void(KernelContext&)>;

// The builder ASC_REGISTER_OP returns (TensorFlow's REGISTER_OP chain).
class OpDef {
 public:
  explicit OpDef(std::string name) : name_(std::move(name)) {}
  OpDef& Input(const std::string& n) { inputs_.push_back(n); return *this; }
  OpDef& Output(const std::string& n) { outputs_.push_back(n); return *this; }
  // "name: float" | "name: int" | "name: bool" | "name: string"
  OpDef& Attr(const std::string& spec) {
    auto colon = spec.find(':');
    if (colon == std::string::npos) throw std::invalid_argument("Attr(\"" + spec + "\"): expected 'name: type'");
    std::string n = trim(spec.substr(0, colon)), t = trim(spec.substr(colon + 1));
    int32_t kind = t == "float" ? 0 : t == "int" ? 1 : t == "bool" ? 2 : t == "string" ? 3 : -1;
    if (kind < 0) throw std::invalid_argument("Attr(\"" + spec + "\"): type must be float, int, bool or string");
    attrs_.push_back({n, kind});
    return *this;
  }
  OpDef& InferShape(InferFn fn) { infer_ = std::move(fn); return *this; }
  OpDef& Kernel(KernelFn fn) { kernel_ = std::move(fn); return *this; }
  OpDef& Doc(const std::string& d) { doc_ = d; return *this; }

  const std::string& name() const { return name_; }
  const std::vector<std::string>& inputs() const { return inputs_; }
  const std::vector<std::string>& outputs() const { return outputs_; }
  const std::vector<AttrDecl>& attrs() const { return attrs_; }
  const InferFn& infer() const { return infer_; }
  const KernelFn& kernel() const { return kernel_; }
  // "name\tin1,in2\tout1\tattr:kind,...\tdoc" (read by pyasc).
  const std::string& descriptor() {
    desc_ = name_ + "\t" + join(inputs_) + "\t" + join(outputs_) + "\t";
    for (size_t i = 0; i < attrs_.size(); ++i) {
      static const char* kinds[] = {"float", "int", "bool", "string"};
      desc_ += (i ? "," : "") + attrs_[i].name + ":" + kinds[attrs_[i].kind];
    }
    desc_ += "\t" + doc_;
    return desc_;
  }

 private:
  static std::string trim(const std::string& s) {
    size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
    return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
  }
  static std::string join(const std::vector<std::string>& v) {
    std::string r;
    for (size_t i = 0; i < v.size(); ++i) r += (i ? "," : "") + v[i];
    return r;
  }
  std::string name_, doc_, desc_;
  std::vector<std::string> inputs_, outputs_;
  std::vector<AttrDecl> attrs_;
  InferFn infer_;
  KernelFn kernel_;
};

// The library's operators (one list per library: hidden visibility keeps the static out of the
// dynamic symbol table, so two loaded libraries never share it -- a default-visibility static
// of an inline function would be STB_GNU_UNIQUE, merged across libraries and never unloaded).
__attribute__((visibility("hidden"))) inline std::vector<std::unique_ptr<OpDef>>& registry() {
  static std::vector<std::unique_ptr<OpDef>> ops;
  return ops;
}

inline OpDef& register_op(const char* name) {
  registry().emplace_back(new OpDef(name));
  return *registry().back();
}

inline const AscOpAttrValue& AttrReader::find(const std::string& name, int32_t kind) const {
  const auto& decl = op_->attrs();
  for (size_t i = 0; i < decl.size(); ++i) {
    if (decl[i].name == name) {
      if (decl[i].kind != kind) throw std::invalid_argument("attribute '" + name + "' read with the wrong type");
      return vals_[i];
    }
  }
  throw std::invalid_argument("op " + op_->name() + " has no attribute '" + name + "'");
}
inline double AttrReader::get_float(const std::string& n) const { return find(n, 0).f; }
inline int64_t AttrReader::get_int(const std::string& n) const { return find(n, 1).i; }
inline bool AttrReader::get_bool(const std::string& n) const { return find(n, 2).i != 0; }
inline std::string AttrReader::get_string(const std::string& n) const {
  const char* s = find(n, 3).s;
  return s ? s : "";
}

inline void copy_error(const char* msg, char* err, int errlen) {
  if (err && errlen > 0) {
    std::strncpy(err, msg, static_cast<size_t>(errlen) - 1);
    err[errlen - 1] = '\0';
  }
}

}  // namespace oplib
}  // namespace asc

#define ASC_OPLIB_CONCAT_(a, b) a##b
#define ASC_OPLIB_CONCAT(a, b) ASC_OPLIB_CONCAT_(a, b)
// ASC_REGISTER_OP("Name").Input(...)...: a static registration run when the library is loaded.
#define ASC_REGISTER_OP(name)                                                               \
  [[maybe_unused]] static ::asc::oplib::OpDef& ASC_OPLIB_CONCAT(asc_oplib_op_, __COUNTER__) = \
      ::asc::oplib::register_op(name)

// ---- the C ABI (weak: one definition however many translation units include this header) ----
extern "C" {
__attribute__((weak, visibility("default"))) int asc_oplib_abi_version() { return ASC_OPLIB_ABI_VERSION; }

__attribute__((weak, visibility("default"))) int asc_oplib_num_ops() {
  return static_cast<int>(::asc::oplib::registry().size());
}

__attribute__((weak, visibility("default"))) const char* asc_oplib_op_descriptor(int i) {
  auto& r = ::asc::oplib::registry();
  if (i < 0 || i >= static_cast<int>(r.size())) return nullptr;
  return r[static_cast<size_t>(i)]->descriptor().c_str();
}

// Returns 0 on success, -1 with a message in err.
__attribute__((weak, visibility("default"))) int asc_oplib_infer(int op, int n_in, const int64_t* ndims,
                                                                 const int64_t* shapes, const int32_t* dtypes,
                                                                 const AscOpAttrValue* attrs, int n_out,
                                                                 int64_t* out_ndims, int64_t* out_shapes,
                                                                 int32_t* out_dtypes, char* err, int errlen) {
  try {
    auto& def = *::asc::oplib::registry().at(static_cast<size_t>(op));
    ::asc::oplib::InferContext ctx(&def, n_in, ndims, shapes, dtypes, attrs, n_out);
    if (!def.infer()) throw std::runtime_error("op " + def.name() + " has no InferShape function");
    def.infer()(ctx);
    for (int o = 0; o < n_out; ++o) {
      const auto& s = ctx.output_shapes()[static_cast<size_t>(o)];
      if (ctx.output_dtypes()[static_cast<size_t>(o)] < 0)
        throw std::runtime_error("InferShape of " + def.name() + " did not set output " + std::to_string(o));
      if (s.size() > ASC_OPLIB_MAX_DIMS) throw std::runtime_error("output rank above 8");
      out_ndims[o] = static_cast<int64_t>(s.size());
      for (size_t d = 0; d < s.size(); ++d) out_shapes[o * ASC_OPLIB_MAX_DIMS + static_cast<int64_t>(d)] = s[d];
      out_dtypes[o] = ctx.output_dtypes()[static_cast<size_t>(o)];
    }
    return 0;
  } catch (const std::exception& e) {
    ::asc::oplib::copy_error(e.what(), err, errlen);
  } catch (...) {
    ::asc::oplib::copy_error("unknown C++ exception", err, errlen);
  }
  return -1;
}

__attribute__((weak, visibility("default"))) int asc_oplib_run(int op, const AscOpTensor* ins, int n_in,
                                                               AscOpTensor* outs, int n_out,
                                                               const AscOpAttrValue* attrs, char* err, int errlen) {
  try {
    auto& def = *::asc::oplib::registry().at(static_cast<size_t>(op));
    if (!def.kernel()) throw std::runtime_error("op " + def.name() + " has no Kernel function");
    ::asc::oplib::KernelContext ctx(&def, ins, n_in, outs, n_out, attrs);
    def.kernel()(ctx);
    return 0;
  } catch (const std::exception& e) {
    ::asc::oplib::copy_error(e.what(), err, errlen);
  } catch (...) {
    ::asc::oplib::copy_error("unknown C++ exception", err, errlen);
  }
  return -1;
}
}
