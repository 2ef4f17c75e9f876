#include "exec_util.h"

#include <gtest/gtest.h>

#include <iostream>
#include <set>

#include "hhlo/ir/ops.h"

#include "hhlo/ir/printer.h"
#include "hhlo/ir/verifier.h"
#include "hhlo/runtime/client.h"

namespace hhlo::test {

static const Client& client() {
  static Client c = Client::create("cpu", {{"cpu_device_count", int64_t{1}}});
  return c;
}

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
// At the end of a full run (no --gtest_filter), every op the builder supports must have been
// compiled and executed by some test; prints the coverage either way.
class Coverage : public ::testing::Environment {
 public:
  void TearDown() override {
    auto ops = supported_ops();
    std::vector<std::string> missing;
    for (std::string_view op : ops)
      if (!executed_ops().count(std::string(op))) missing.emplace_back(op);
    std::cout << "[ coverage ] " << ops.size() - missing.size() << " of " << ops.size()
              << " ops executed on the CPU plugin\n";
    if (::testing::GTEST_FLAG(filter) != "*")
      return;
    for (const auto& op : missing) ADD_FAILURE() << "op never executed by tests/ops_exec: " << op;
  }
};
[[maybe_unused]] ::testing::Environment* const coverage =
    ::testing::AddGlobalTestEnvironment(new Coverage);
}  // namespace

std::vector<Array> run(const Module& m, const std::vector<Array>& args) {
  verify(m);
  for (const auto& f : m.funcs()) record(f->body());  // every executed program also passes the verifier
  const Client& c = client();
  LoadedExecutable exe = c.compile(to_mlir(m));
  std::vector<Buffer> in;
  in.reserve(args.size());
  for (const Array& a : args) in.push_back(c.buffer_from_host(a));
  std::vector<const Buffer*> ptrs;
  for (const Buffer& b : in) ptrs.push_back(&b);
  std::vector<Buffer> out = exe.execute(ptrs);
  std::vector<Array> result;
  for (const Buffer& b : out) result.push_back(b.to_host());
  return result;
}

std::vector<double> values(const Array& a) {
  std::vector<double> v;
  for (int64_t i = 0; i < a.num_elements(); ++i) v.push_back(a.element_as_double(i));
  return v;
}

}  // namespace hhlo::test
