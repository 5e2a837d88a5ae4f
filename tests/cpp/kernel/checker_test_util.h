// Shared by the kernel-checker tests: a fixture that turns the checker on
// (reports collected, not printed), hands out device memory freed after the
// test, and compares reports and launch statuses exactly.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "asc/kernel/checker.h"
#include "asc/runtime/device.h"
#include "asc/runtime/memory_pool.h"
#include "kernel_test_util.h"

namespace ckt {

namespace chk = asc::kernel::check;

/// The status code of a launch the checker failed.
constexpr auto kCheckCode = asc::ErrorCode::kRtAicoreException;

/// Report lines recorded so far.
inline std::vector<std::string> report_lines() {
  std::vector<std::string> v;
  for (const chk::Report& r : chk::reports()) v.push_back(r.text);
  return v;
}

/// Checker on (reports collected, not printed) for the guard's lifetime; the
/// previous request is restored after.
class ChecksOn {
 public:
  ChecksOn() : was_requested_(asc::kernel::debug::kernel_checks_requested()) {
    asc::kernel::debug::request_kernel_checks(true);
    chk::set_print_reports(false);
    chk::clear_reports();
  }
  ~ChecksOn() {
    asc::kernel::debug::request_kernel_checks(was_requested_);
    chk::set_print_reports(true);
    chk::clear_reports();
  }
  ChecksOn(const ChecksOn&) = delete;
  ChecksOn& operator=(const ChecksOn&) = delete;

 private:
  bool was_requested_;
};

/// Checker on for the test (the previous request restored after); `Base` may
/// be another fixture whose SetUp/TearDown run around it.
template <typename Base = ::testing::Test>
class CheckerFixture : public Base {
 protected:
  void SetUp() override {
    Base::SetUp();
    checks_.emplace();
  }
  void TearDown() override {
    checks_.reset();
    for (void* p : gm_) (void)asc::runtime::device_pool().free(p);
    gm_.clear();
    Base::TearDown();
  }
  /// Zeroed device memory (freed after the test).
  template <typename T>
  T* gm(size_t bytes) {
    void* p = asc::runtime::device_pool().allocate_or_throw(bytes);
    std::memset(p, 0, bytes);
    gm_.push_back(p);
    return static_cast<T*>(p);
  }
  static std::vector<std::string> lines() { return report_lines(); }
  /// A finding that stops the block: the launch fails with the report.
  static void expect_fatal(const asc::Status& st, const std::string& report) {
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.code(), kCheckCode) << st.ToString();
    const std::string& m = st.message();
    ASSERT_GE(m.size(), report.size()) << m;
    EXPECT_EQ(m.substr(m.size() - report.size()), report) << m;
    EXPECT_EQ(lines(), std::vector<std::string>{report});
  }
  /// Findings recorded while the kernel ran on: the launch fails at its end.
  static void expect_reported(const asc::Status& st, const std::string& kernel,
                              const std::vector<std::string>& reports) {
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.code(), kCheckCode) << st.ToString();
    const size_t n = reports.size();
    EXPECT_EQ(st.message(), "[" + kernel + "] kernel check: " + std::to_string(n) +
                                (n == 1 ? " finding" : " findings") + "; first: " + reports.at(0));
    EXPECT_EQ(lines(), reports);
  }

 private:
  std::optional<ChecksOn> checks_;
  std::vector<void*> gm_;
};

}  // namespace ckt
