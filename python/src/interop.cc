// Interoperability of ndarray: DLPack export (__dlpack__, __dlpack_device__)
// and import (from_dlpack), the facts behind ndarray.flags, and
// asc.reuse_buffer's hook. NumPy protocols written in Python
// (__array_ufunc__, __array_function__, __array_namespace__) live in
// python/pyasc/_interop.py.
//
// DLPack: the structs below are the DLPack ABI (v1.x; the unversioned
// DLManagedTensor for consumers that do not ask for max_version >= (1, 0)).
// An exported capsule owns a manager that holds the tensor (so the memory
// stays alive) plus its shape and element strides; the capsule's destructor
// calls the deleter unless a consumer renamed it to "used_dltensor*". An
// imported tensor wraps the producer's memory without a copy; its storage
// calls the producer's deleter (with the GIL held) when the last view dies.
#include <pybind11/numpy.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "asc/ops/registry.h"
#include "asc/ops/reuse_buffer.h"
#include "bindings.h"

namespace pyasc {

namespace {

using asc::DType;
using asc::Error;
using asc::Status;
using asc::Tensor;

// ------------------------------------------------------------------ DLPack ABI

enum DLDeviceType : int32_t { kDLCPU = 1, kDLCUDAHost = 3 };
struct DLDevice {
  int32_t device_type;
  int32_t device_id;
};
enum DLDataTypeCode : uint8_t { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4, kDLComplex = 5, kDLBool = 6 };
struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};
struct DLPackVersion {
  uint32_t major;
  uint32_t minor;
};
struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(DLManagedTensorVersioned* self);
  uint64_t flags;
  DLTensor dl_tensor;
};
constexpr uint64_t kDLFlagReadOnly = 1;
constexpr uint64_t kDLFlagIsCopied = 2;

/// One export of a storage (Storage::add_export) while a capsule's consumer
/// holds the address.
struct ExportCount {
  std::shared_ptr<asc::Storage> storage;
  ~ExportCount() {
    if (storage) storage->release_export();
  }
};

/// What an exported capsule owns.
struct Manager {
  Tensor tensor;
  ExportCount export_count;
  std::vector<int64_t> shape, strides;
  DLManagedTensor legacy{};
  DLManagedTensorVersioned versioned{};
};

DLDataType dl_dtype(DType d) {
  const auto& tr = asc::dtype_traits(d);
  DLDataType t{kDLFloat, static_cast<uint8_t>(tr.size * 8), 1};
  switch (tr.kind) {
    case asc::DTypeKind::kBool: t.code = kDLBool; break;
    case asc::DTypeKind::kSignedInt: t.code = kDLInt; break;
    case asc::DTypeKind::kUnsignedInt: t.code = kDLUInt; break;
    case asc::DTypeKind::kFloat: t.code = d == DType::kBFloat16 ? kDLBfloat : kDLFloat; break;
    case asc::DTypeKind::kComplex: t.code = kDLComplex; break;
  }
  return t;
}

DType from_dl_dtype(const DLDataType& t) {
  if (t.lanes != 1) throw Error(Status::TypeError("from_dlpack", "vector (lanes != 1) dtypes are not supported"));
  switch (t.code) {
    case kDLBool:
      if (t.bits == 8) return DType::kBool;
      break;
    case kDLInt:
      if (t.bits == 8) return DType::kInt8;
      if (t.bits == 16) return DType::kInt16;
      if (t.bits == 32) return DType::kInt32;
      if (t.bits == 64) return DType::kInt64;
      break;
    case kDLUInt:
      if (t.bits == 8) return DType::kUInt8;
      if (t.bits == 16) return DType::kUInt16;
      if (t.bits == 32) return DType::kUInt32;
      if (t.bits == 64) return DType::kUInt64;
      break;
    case kDLFloat:
      if (t.bits == 16) return DType::kFloat16;
      if (t.bits == 32) return DType::kFloat32;
      if (t.bits == 64) return DType::kFloat64;
      break;
    case kDLBfloat:
      if (t.bits == 16) return DType::kBFloat16;
      break;
    case kDLComplex:
      if (t.bits == 64) return DType::kComplex64;
      if (t.bits == 128) return DType::kComplex128;
      break;
    default: break;
  }
  throw Error(Status::TypeError("from_dlpack", "unsupported DLPack dtype (code " + std::to_string(t.code) + ", " +
                                                   std::to_string(t.bits) + " bits)"));
}

void fill_dl_tensor(Manager* m, DLTensor* dl) {
  const Tensor& t = m->tensor;
  dl->data = t.data();
  t.storage()->add_export();
  m->export_count.storage = t.storage();
  dl->device = {kDLCPU, 0};
  dl->ndim = static_cast<int32_t>(t.ndim());
  dl->dtype = dl_dtype(t.dtype());
  dl->shape = m->shape.data();
  dl->strides = m->strides.data();
  dl->byte_offset = 0;
}

void legacy_deleter(DLManagedTensor* self) { delete static_cast<Manager*>(self->manager_ctx); }
void versioned_deleter(DLManagedTensorVersioned* self) { delete static_cast<Manager*>(self->manager_ctx); }

void legacy_capsule_destructor(PyObject* cap) {
  if (PyCapsule_IsValid(cap, "dltensor")) {  // never consumed
    auto* mt = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, "dltensor"));
    if (mt && mt->deleter) mt->deleter(mt);
  }
  PyErr_Clear();
}

void versioned_capsule_destructor(PyObject* cap) {
  if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
    auto* mt = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(cap, "dltensor_versioned"));
    if (mt && mt->deleter) mt->deleter(mt);
  }
  PyErr_Clear();
}

py::object to_dlpack(const Tensor& t_in, py::object max_version, py::object dl_device, py::object copy) {
  if (!dl_device.is_none()) {
    auto dev = dl_device.cast<std::pair<int32_t, int32_t>>();
    if (dev.first != kDLCPU || dev.second != 0)
      throw py::buffer_error("[__dlpack__] pyasc arrays live on the CPU device (1, 0); cannot export to (" +
                             std::to_string(dev.first) + ", " + std::to_string(dev.second) + ")");
  }
  const bool do_copy = !copy.is_none() && copy.cast<bool>();
  auto m = std::make_unique<Manager>();
  m->tensor = do_copy ? t_in.clone() : t_in;
  const Tensor& t = m->tensor;
  const int64_t item = static_cast<int64_t>(t.itemsize());
  m->shape.assign(t.shape().begin(), t.shape().end());
  for (int64_t s : t.strides()) {
    if (s % item != 0) throw py::buffer_error("[__dlpack__] strides are not a multiple of the item size");
    m->strides.push_back(s / item);
  }
  bool versioned = false;
  if (!max_version.is_none()) {
    auto v = max_version.cast<std::pair<int64_t, int64_t>>();
    versioned = v.first >= 1;
  }
  // NumPy's rule: a read-only array goes out only with the versioned ABI's
  // read-only flag (the legacy struct cannot say it).
  if (!t.writeable() && !versioned)
    throw py::buffer_error("[__dlpack__] cannot export a read-only array without the DLPack read-only flag "
                           "(ask for max_version >= (1, 0))");
  Manager* raw = m.get();
  if (versioned) {
    raw->versioned.version = {1, 0};
    raw->versioned.manager_ctx = raw;
    raw->versioned.deleter = &versioned_deleter;
    raw->versioned.flags = (do_copy ? kDLFlagIsCopied : 0) | (t.writeable() ? 0 : kDLFlagReadOnly);
    fill_dl_tensor(raw, &raw->versioned.dl_tensor);
    PyObject* cap = PyCapsule_New(&raw->versioned, "dltensor_versioned", &versioned_capsule_destructor);
    if (!cap) throw py::error_already_set();
    m.release();
    return py::reinterpret_steal<py::object>(cap);
  }
  raw->legacy.manager_ctx = raw;
  raw->legacy.deleter = &legacy_deleter;
  fill_dl_tensor(raw, &raw->legacy.dl_tensor);
  PyObject* cap = PyCapsule_New(&raw->legacy, "dltensor", &legacy_capsule_destructor);
  if (!cap) throw py::error_already_set();
  m.release();
  return py::reinterpret_steal<py::object>(cap);
}

/// Calls the producer's deleter when the last view of the imported memory dies.
std::shared_ptr<void> dl_owner(void* managed, bool versioned) {
  return std::shared_ptr<void>(managed, [versioned](void* p) {
    if (!interpreter_alive()) return;  // the interpreter is gone: leak rather than crash
    py::gil_scoped_acquire gil;
    if (versioned) {
      auto* mt = static_cast<DLManagedTensorVersioned*>(p);
      if (mt->deleter) mt->deleter(mt);
    } else {
      auto* mt = static_cast<DLManagedTensor*>(p);
      if (mt->deleter) mt->deleter(mt);
    }
  });
}

Tensor from_capsule(py::handle cap) {
  PyObject* c = cap.ptr();
  bool versioned;
  bool read_only = false;
  void* managed;
  DLTensor* dl;
  if (PyCapsule_IsValid(c, "dltensor_versioned")) {
    versioned = true;
    auto* mt = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(c, "dltensor_versioned"));
    if (mt->version.major > 1)
      throw py::buffer_error("[from_dlpack] unsupported DLPack version " + std::to_string(mt->version.major));
    read_only = (mt->flags & kDLFlagReadOnly) != 0;
    managed = mt;
    dl = &mt->dl_tensor;
  } else if (PyCapsule_IsValid(c, "dltensor")) {
    versioned = false;
    auto* mt = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(c, "dltensor"));
    managed = mt;
    dl = &mt->dl_tensor;
  } else {
    throw Error(Status::TypeError("from_dlpack", "expected a DLPack capsule (\"dltensor\"), possibly already consumed"));
  }
  if (dl->device.device_type != kDLCPU && dl->device.device_type != kDLCUDAHost)
    throw py::buffer_error("[from_dlpack] the tensor lives on DLPack device type " +
                           std::to_string(dl->device.device_type) + "; only CPU memory can be imported");
  const DType d = from_dl_dtype(dl->dtype);
  const int64_t item = static_cast<int64_t>(asc::dtype_size(d));
  asc::Shape shape(dl->shape, dl->shape + dl->ndim);
  asc::Strides strides(static_cast<size_t>(dl->ndim));
  const asc::Strides cs = asc::contiguous_strides(shape, item);
  int64_t lo = 0, hi = 0;
  bool empty = false;
  for (int32_t i = 0; i < dl->ndim; ++i) {
    strides[static_cast<size_t>(i)] = dl->strides ? dl->strides[i] * item : cs[static_cast<size_t>(i)];
    if (shape[static_cast<size_t>(i)] == 0) empty = true;
    const int64_t span = (shape[static_cast<size_t>(i)] - 1) * strides[static_cast<size_t>(i)];
    if (span < 0) lo += span;
    else hi += span;
  }
  if (empty) lo = hi = 0;
  auto* base = static_cast<uint8_t*>(dl->data) + dl->byte_offset;
  // Consumed from here on: the storage owns the producer's deleter.
  PyCapsule_SetName(c, versioned ? "used_dltensor_versioned" : "used_dltensor");
  auto storage = asc::Storage::external(base + lo, empty ? 0 : static_cast<size_t>(hi - lo + item),
                                        dl_owner(managed, versioned));
  if (read_only) storage->set_access(asc::Storage::kReadOnly);
  return Tensor::view_of(std::move(storage), d, std::move(shape), std::move(strides), -lo);
}

/// NumPy's flags for an array of this layout: C/F contiguity ignore axes of
/// length 1 and any empty array is both; aligned = address and strides are
/// multiples of the item size.
py::dict layout_flags(const Tensor& t) {
  const int64_t item = static_cast<int64_t>(t.itemsize());
  bool empty = false;
  for (int64_t s : t.shape()) empty |= s == 0;
  auto contiguous = [&](bool c_order) {
    if (empty) return true;
    int64_t acc = item;
    const int64_t nd = t.ndim();
    for (int64_t k = 0; k < nd; ++k) {
      const size_t i = static_cast<size_t>(c_order ? nd - 1 - k : k);
      if (t.shape()[i] == 1) continue;
      if (t.strides()[i] != acc) return false;
      acc *= t.shape()[i];
    }
    return true;
  };
  bool aligned = reinterpret_cast<uintptr_t>(t.data()) % static_cast<uintptr_t>(item) == 0;
  for (size_t i = 0; i < t.shape().size(); ++i)
    if (t.shape()[i] > 1 && t.strides()[i] % item != 0) aligned = false;
  const auto& st = t.storage();
  const bool owns = !st->is_external() && t.offset() == 0 && contiguous(true) && t.nbytes() == st->nbytes();
  py::dict d;
  d["C_CONTIGUOUS"] = contiguous(true);
  d["F_CONTIGUOUS"] = contiguous(false);
  d["OWNDATA"] = owns;
  d["WRITEABLE"] = t.writeable();
  d["ALIGNED"] = aligned;
  return d;
}

/// asc.torch.op's private window (python/pyasc/custom_ops/torch_interop.py). `on`: marks the
/// storage of x, a fresh DLPack import of a torch tensor, Storage::kPrivate so that lazy nodes may
/// read it after their recording call (the composite then fuses: the call owns the window, torch
/// cannot touch the tensor while the forward/backward runs). Returns whether it did: not for pool,
/// immutable or already private memory, nor for memory with live exports (someone else holds a
/// pointer). `!on` ends the window: first runs every pending node that reads or writes the storage
/// (so no deferred read of torch memory outlives the call), then clears the flag -- also when that
/// pending work failed (its error is raised after the flag is cleared).
bool set_private_window(const Tensor& t, bool on) {
  const auto& st = t.storage();
  if (!st) return false;
  if (on) {
    if (!st->is_external() || (st->access() & (asc::Storage::kImmutable | asc::Storage::kPrivate)) != 0 ||
        st->exports() > 0)
      return false;
    st->set_access(static_cast<uint8_t>(st->access() | asc::Storage::kPrivate));
    return true;
  }
  struct Clear {
    asc::Storage* s;
    ~Clear() { s->set_access(static_cast<uint8_t>(s->access() & ~asc::Storage::kPrivate)); }
  } clear{st.get()};
  py::gil_scoped_release nogil;  // the pending batch may be running on a stream worker
  (void)st->read_data();
  return true;
}

}  // namespace

void init_interop(py::module_& m) {
  m.def("_private_window", &set_private_window, py::arg("x"), py::arg("on"),
        "asc.torch.op's private window over an imported tensor's storage: on=True marks it private "
        "(lazy nodes may read it later; False when not applicable), on=False runs the pending work "
        "reading/writing it and clears the mark.");
  m.def("_to_dlpack", &to_dlpack, py::arg("x"), py::arg("max_version") = py::none(),
        py::arg("dl_device") = py::none(), py::arg("copy") = py::none(),
        "A DLPack capsule of x (versioned when max_version >= (1, 0)); no copy unless copy=True.");
  m.def("_from_capsule", &from_capsule, py::arg("capsule"),
        "The tensor a DLPack capsule describes (no copy; the capsule is consumed).");
  m.def("_layout_flags", &layout_flags, py::arg("x"),
        "NumPy's C_CONTIGUOUS, F_CONTIGUOUS, OWNDATA, WRITEABLE, ALIGNED for x.");
  m.def("_set_writeable", [](Tensor& t, bool w) { t.set_writeable(w); }, py::arg("x"), py::arg("writeable"),
        "Sets x's WRITEABLE flag (x.flags.writeable = w); True on read-only memory raises ValueError.");
  m.def("_check_writeable",
        [](const Tensor& t, const std::string& op, const std::string& what) { t.check_writeable(op.c_str(), what.c_str()); },
        py::arg("x"), py::arg("op"), py::arg("what") = "assignment destination is read-only",
        "Raises ValueError '[op] what' unless x is writeable (NumPy's read-only checks before in-place work).");
  m.def("_reuse_buffer_push", [](const Tensor& t) { asc::ops::reuse_buffer_push(t); }, py::arg("buffer"),
        "Makes `buffer` the output of matching ops on this thread (asc.reuse_buffer).");
  m.def("_reuse_buffer_pop", &asc::ops::reuse_buffer_pop, "Ends the innermost reuse_buffer on this thread.");
}

}  // namespace pyasc
