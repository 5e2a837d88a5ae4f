// Device properties (asc/runtime/device.h).
#include "asc/runtime/device.h"

#include "bindings.h"

namespace pyasc {

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
}

}  // namespace pyasc
