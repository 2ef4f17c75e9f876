#include "exec_util.h"

#include <gtest/gtest.h>

#include <iostream>
#include <set>

#include "hhlo/ir/ops.h"
#include "hhlo/ir/printer.h"
#include "hhlo/ir/verifier.h"
#include "hhlo/program/compile.h"
#include "hhlo/runtime/client.h"
#include "hhlo/session.h"

namespace hhlo::test {

// Op names of every module executed by this test binary, for the coverage check below.
static std::set<std::string>& executed_ops() {
  static std::set<std::string> s;
  return s;
}

// Ops of the modules expect_refused_by_plugin saw refused.
static std::set<std::string>& refused_ops() {
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
    std::vector<std::string> refused;
    for (std::string_view op : ops) {
      if (executed_ops().count(std::string(op))) continue;
      if (refused_ops().count(std::string(op)))
        refused.emplace_back(op);
      else
        missing.emplace_back(op);
    }
    std::cout << "[ coverage ] " << ops.size() - missing.size() - refused.size() << " of "
              << ops.size() << " ops executed on the CPU plugin\n";
    for (const auto& op : refused)
      std::cout << "[ coverage ] refused by the CPU plugin (asserted by a test): " << op << "\n";
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

std::vector<std::vector<Array>> run_per_device(const Module& m, const CompileOptions& options,
                                               const std::vector<std::vector<Array>>& args) {
  verify(m);
  for (const auto& f : m.funcs()) record(f->body());
  const Client& client = default_session().client();
  LoadedExecutable exe = compile(client, m, options);
  std::vector<Device> devs = exe.devices();
  if (devs.size() != args.size())
    throw Error("run_per_device: " + std::to_string(args.size()) + " argument lists for " +
                std::to_string(devs.size()) + " devices");
  std::vector<std::vector<Buffer>> buffers(devs.size());
  std::vector<std::vector<const Buffer*>> ptrs(devs.size());
  for (size_t d = 0; d < devs.size(); ++d) {
    for (const Array& a : args[d]) buffers[d].push_back(client.buffer_from_host(a, devs[d]));
    for (const Buffer& b : buffers[d]) ptrs[d].push_back(&b);
  }
  std::vector<std::vector<Array>> out;
  for (const auto& per_device : exe.execute_replicated(ptrs)) {
    out.emplace_back();
    for (const Buffer& b : per_device) out.back().push_back(b.to_host());
  }
  return out;
}

void expect_refused_by_plugin(const Module& m, const CompileOptions& options,
                              const std::string& why) {
  verify(m);
  try {
    compile(default_session().client(), m, options);
    ADD_FAILURE() << "the CPU plugin compiled a program expected to be refused (" << why
                  << "): update docs/facts.md and execute it instead";
  } catch (const PjrtError& e) {
    EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    for (const auto& f : m.funcs())
      for (const auto& op : f->body().ops()) refused_ops().insert(op->name());
  }
}

std::vector<double> values(const Array& a) {
  std::vector<double> v;
  for (int64_t i = 0; i < a.num_elements(); ++i) v.push_back(a.element_as_double(i));
  return v;
}

}  // namespace hhlo::test
