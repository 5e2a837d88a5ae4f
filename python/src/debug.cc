// The kernel checker's switch and reports (asc/kernel/checker.h, asc/kernel/debug.h).
#include <string>

#include "asc/kernel/checker.h"
#include "asc/kernel/debug.h"
#include "bindings.h"

namespace pyasc {

void init_debug(py::module_& m) {
  py::module_ d = m.def_submodule("_debug", "Kernel checker controls (use pyasc.debug).");
  d.def(
      "check_kernels", [](bool on) { asc::kernel::debug::request_kernel_checks(on); }, py::arg("on") = true,
      "Turns the kernel checker on or off for launches that start from now on (process-wide).");
  d.def("kernel_checks_requested", &asc::kernel::debug::kernel_checks_requested,
        "Whether launches are checked (ASCEND_DEBUG=1, pyasc-cc --check or check_kernels(True)).");
  d.def(
      "check_reports",
      [] {
        py::list out;
        for (const asc::kernel::check::Report& r : asc::kernel::check::reports()) {
          py::dict e;
          e["finding"] = asc::kernel::check::finding_name(r.finding);
          e["kernel"] = r.kernel;
          e["block"] = r.block;
          e["block_num"] = r.block_num;
          e["instruction"] = r.instruction;
          e["detail"] = r.detail;
          e["text"] = r.text;
          out.append(std::move(e));
        }
        return out;
      },
      "The checker's reports since the last clear, oldest first, as dicts with keys finding, kernel, block, "
      "block_num, instruction, detail and text (the line printed to stderr).");
  d.def("clear_check_reports", &asc::kernel::check::clear_reports, "Forgets the reports kept so far.");
  d.def("set_print_check_reports", &asc::kernel::check::set_print_reports, py::arg("on"),
        "Whether reports are also written to stderr (default True).");
}

}  // namespace pyasc
