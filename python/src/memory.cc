// The device memory pool (asc/runtime/memory_pool.h).
#include "asc/runtime/memory_pool.h"

#include <algorithm>
#include <cstdint>
#include <optional>

#include <pybind11/stl.h>

#include "bindings.h"

namespace pyasc {

namespace rt = asc::runtime;

namespace {

py::dict stats_dict(rt::MemoryPool& pool) {
  const rt::MemoryStats s = pool.stats();
  py::dict d;
  d["allocated_bytes"] = s.allocated_bytes;
  d["peak_allocated_bytes"] = s.peak_allocated_bytes;
  d["reserved_bytes"] = s.reserved_bytes;
  d["peak_reserved_bytes"] = s.peak_reserved_bytes;
  d["requested_bytes"] = s.requested_bytes;
  d["allocation_count"] = s.allocation_count;
  d["free_count"] = s.free_count;
  d["cache_hits"] = s.cache_hits;
  d["cache_misses"] = s.cache_misses;
  d["os_allocations"] = s.os_allocations;
  d["os_frees"] = s.os_frees;
  d["retries"] = s.retries;
  d["oom_count"] = s.oom_count;
  d["active_blocks"] = s.active_blocks;
  d["cached_blocks"] = s.cached_blocks;
  d["segments"] = s.segments;
  d["limit_bytes"] = s.limit_bytes;
  return d;
}

/// t's elements copied into pinned host memory (C order), or t itself when
/// its storage is pinned already (torch.Tensor.pin_memory).
asc::Tensor pin_memory(const asc::Tensor& t) {
  if (t.storage()->is_pinned()) return t;
  auto st = asc::Storage::allocate_pinned(std::max<size_t>(t.nbytes(), 1));
  asc::Tensor p = asc::Tensor::view_of(std::move(st), t.dtype(), t.shape(),
                                       asc::contiguous_strides(t.shape(), static_cast<int64_t>(t.itemsize())), 0);
  p.copy_from(t);
  return p;
}

}  // namespace

void init_memory(py::module_& m) {
  m.def("memory_stats", [] { return stats_dict(rt::device_pool()); },
        "Statistics of the device memory pool as a dict (bytes and counts).");
  m.def("host_memory_stats", [] { return stats_dict(rt::pinned_host_pool()); },
        "Statistics of the pinned host memory pool as a dict (the keys of memory_stats).");
  m.def("_pin_memory", &pin_memory, py::arg("x"),
        "A copy of x in pinned host memory (x itself when it is pinned already).");
  m.def("_is_pinned", [](const asc::Tensor& t) { return t.storage()->is_pinned(); }, py::arg("x"),
        "Whether x's storage is in the pinned host pool.");
  m.def(
      "empty_cache",
      [] {
        py::gil_scoped_release nogil;
        rt::device_pool().empty_cache();
      },
      "Returns all cached, unused pool segments to the device.");
  m.def(
      "set_memory_limit",
      [](std::optional<size_t> bytes) { rt::device_pool().set_limit(bytes.value_or(0)); },
      py::arg("bytes"),
      "Caps the pool's reserved bytes; None or 0 removes the limit. Allocations beyond it "
      "fail with an out-of-memory error (RT_MEMORY_ALLOCATION).");
  m.def(
      "get_memory_limit", [] { return rt::device_pool().limit(); },
      "The pool's capacity limit in bytes (0 = none).");
  m.def(
      "reset_peak_memory_stats", [] { rt::device_pool().reset_peak_stats(); },
      "Resets the peak statistics to current values and the counters to 0.");

  // Sub-pools (pyasc.memory.SubPool wraps these; see asc/runtime/memory_pool.h).
  py::class_<rt::SubPool::Scope>(m, "_SubPoolScope")
      .def(
          "end", [](rt::SubPool::Scope& s) { s.end().ThrowIfError(); },
          "Restores the thread's previous routing (same thread, reverse order of entry).");
  py::class_<rt::SubPool, std::shared_ptr<rt::SubPool>>(m, "_SubPool")
      .def(py::init([](std::string name, size_t limit) {
             return rt::SubPool::create(std::move(name), limit, rt::device_pool());
           }),
           py::arg("name"), py::arg("limit_bytes"))
      .def_property_readonly("name", &rt::SubPool::name)
      .def("stats", [](rt::SubPool& s) { return stats_dict(s.pool()); })
      .def("limit", &rt::SubPool::limit)
      .def("set_limit", &rt::SubPool::set_limit, py::arg("bytes"))
      .def("empty_cache", &rt::SubPool::empty_cache, py::call_guard<py::gil_scoped_release>())
      .def("close", &rt::SubPool::close, py::call_guard<py::gil_scoped_release>())
      .def_property_readonly("closed", &rt::SubPool::closed)
      .def_property_readonly("drained", &rt::SubPool::drained)
      .def("enter", [](const std::shared_ptr<rt::SubPool>& s) { return std::make_unique<rt::SubPool::Scope>(s); },
           "Routes this thread's device allocations to the sub-pool until the scope's end().");
  m.def(
      "_sub_pool_count", [] { return rt::device_pool().sub_pool_count(); },
      "Sub-pools registered with the device pool (open, or closed with blocks in use).");

  // Testing API (not public): raw pool blocks, so that tests can exercise the
  // statistics and the limit before tensors exist.
  m.def(
      "_testing_allocate",
      [](size_t nbytes) {
        return reinterpret_cast<uintptr_t>(rt::device_pool().allocate_or_throw(nbytes));
      },
      py::arg("nbytes"),
      "TESTING ONLY: allocates `nbytes` from the device pool; returns the address as an int.");
  m.def(
      "_testing_free",
      [](uintptr_t ptr) { rt::device_pool().free(reinterpret_cast<void*>(ptr)).ThrowIfError(); },
      py::arg("ptr"), "TESTING ONLY: frees an address returned by _testing_allocate.");
}

}  // namespace pyasc
