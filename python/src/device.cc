// Device properties (asc/runtime/device.h) and build information (SIMD targets).
#include <cstdint>
#include <string>

#include "asc/kernel/simd.h"
#include "asc/ops/linalg.h"
#include "asc/runtime/device.h"
#include "bindings.h"

namespace pyasc {

namespace {

// Names of the Highway targets compiled into libasc, best first.
py::list compiled_simd_targets() {
  py::list names;
  for (py::handle n : py::str(asc::kernel::simd::compiled_targets()).attr("split")()) names.append(n);
  return names;
}

std::string compiler_id() {
#if defined(__clang__)
  return std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  return std::string("gcc ") + __VERSION__;
#else
  return "unknown";
#endif
}

}  // namespace

void init_device(py::module_& m) {
  m.def(
      "get_device_properties",
      [] {
        const asc::runtime::DeviceProperties& p = asc::runtime::current_device().properties();
        py::dict d;
        d["name"] = p.name;
        d["device_id"] = p.device_id;
        d["num_cores"] = p.num_cores;
        d["ub_size"] = p.ub_size;
        d["l1_size"] = p.l1_size;
        d["l0a_size"] = p.l0a_size;
        d["l0b_size"] = p.l0b_size;
        d["l0c_size"] = p.l0c_size;
        d["total_memory"] = p.total_memory;
        return d;
      },
      "Properties of the current device as a dict: name, device_id, num_cores, ub_size, "
      "l1_size, l0a_size, l0b_size, l0c_size, total_memory (sizes in bytes).");

  m.def(
      "build_info",
      [] {
        py::dict d;
        d["version"] = ASC_VERSION_STRING;
        // Choosing the tables applies ASC_SIMD_TARGET (read once, at first use).
        d["simd_target"] = std::string(asc::kernel::simd::target_name());
        d["simd_targets_compiled"] = compiled_simd_targets();
        d["compiler"] = compiler_id();
        // The BLAS libasc calls, asked at run time (openblas_get_config /
        // openblas_get_num_threads through the loaded library, not a build-time string).
        d["blas"] = asc::ops::blas_config();
        d["blas_num_threads"] = asc::ops::blas_num_threads();
        return d;
      },
      "Build information as a dict: version, simd_target (the Highway target the vector instructions "
      "dispatch to, after ASC_SIMD_TARGET), simd_targets_compiled (Highway targets compiled into libasc, "
      "best first; empty when unknown), compiler, blas (the linked BLAS's own build description, read at "
      "run time), blas_num_threads (the threads it uses for one call).");
}

}  // namespace pyasc
