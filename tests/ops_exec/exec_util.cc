#include "exec_util.h"

#include <gtest/gtest.h>

#include <iostream>
#include <set>

#include "hhlo/ir/ops.h"
#include "hhlo/ir/printer.h"
#include "hhlo/ir/verifier.h"
#include "hhlo/session.h"

namespace hhlo::test {

// Op names of every module executed by this test binary, for the coverage check below.
static std::set<std::string>& executed_ops() {
  static std::set<std::string> s;
  return s;
}

static void record(const Block& b) {
  for (const auto& op : b.ops()) {
    executed_ops().insert(op->name());
    for (const auto& r : op->regions()) record(*r);
  }
}

namespace {
// Every op the builder supports (supported_ops()) must be compiled and executed by some test of
// this binary. Asserted after every run that selected all of the binary's tests, whatever the
// filter says: ctest's `ops_exec.coverage` entry (tests/CMakeLists.txt) is such a run, as is the
// compat suite's. A run of fewer tests (ctest's one-test entries) only prints the coverage.
class Coverage : public ::testing::Environment {
 public:
  void TearDown() override {
    auto ops = supported_ops();
    std::vector<std::string> missing;
    for (std::string_view op : ops)
      if (!executed_ops().count(std::string(op))) missing.emplace_back(op);
    std::cout << "[ coverage ] " << ops.size() - missing.size() << " of " << ops.size()
              << " ops executed on the CPU plugin\n";
    const auto& unit = *::testing::UnitTest::GetInstance();
    if (unit.test_to_run_count() + unit.disabled_test_count() < unit.total_test_count()) {
      std::cout << "[ coverage ] not checked: " << unit.test_to_run_count() << " of "
                << unit.total_test_count() << " tests selected\n";
      return;
    }
    for (const auto& op : missing) ADD_FAILURE() << "op never executed by tests/ops_exec: " << op;
  }
};
[[maybe_unused]] ::testing::Environment* const coverage =
    ::testing::AddGlobalTestEnvironment(new Coverage);
}  // namespace

std::vector<Array> run(const Module& m, const std::vector<Array>& args) {
  verify(m);
  for (const auto& f : m.funcs()) record(f->body());
  return hhlo::run(m, args);  // session.h: cached compile on the CPU plugin, run @main
}

std::vector<double> values(const Array& a) {
  std::vector<double> v;
  for (int64_t i = 0; i < a.num_elements(); ++i) v.push_back(a.element_as_double(i));
  return v;
}

}  // namespace hhlo::test
