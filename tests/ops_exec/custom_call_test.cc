// Execution: custom_call in every api_version, with string and dictionary backend_config and
// layouts. The stock CPU plugin resolves only targets registered in its own registries; the
// compiler-handled target "Sharding" (an identity annotation with one partition) compiles with
// any api_version, so it proves the printed forms are accepted. Typed FFI handlers registered
// through the runtime are covered by the runtime's custom-call tests.
#include <gtest/gtest.h>

#include "exec_util.h"
#include "hhlo/ir/ops.h"

namespace hhlo {
namespace {

using test::run;
using test::values;

TEST(CustomCallExec, EveryApiVersionCompilesAndRuns) {
  for (int api = 1; api <= 4; ++api) {
    Module m;
    Func& f = m.add_func("main", {{DType::f32, {2, 2}}});
    CustomCallOptions o{.api_version = api,
                        .has_side_effect = api == 2,
                        .operand_layouts = {{1, 0}},
                        .result_layouts = {{1, 0}}};
    if (api < 4)
      o.backend_config = std::string("opaque \"bytes\"");
    else
      o.backend_config =
          DictAttr{{{"alpha", FloatAttr{0.5, DType::f32}}, {"name", StringAttr{"x"}}}};
    f.ret(custom_call(f, "Sharding", {f.arg(0)}, {{DType::f32, {2, 2}}}, o));
    auto out = run(m, {Array::from<float>({2, 2}, {1, 2, 3, 4})});
    EXPECT_EQ(values(out[0]), (std::vector<double>{1, 2, 3, 4})) << "api_version " << api;
  }
}

TEST(CustomCallExec, UnknownTargetIsACompileError) {
  Module m;
  Func& f = m.add_func("main", {{DType::f32, {2}}});
  f.ret(custom_call(f, "hhlo_test_no_such_target", {f.arg(0)}, {{DType::f32, {2}}}));
  try {
    run(m, {Array::from<float>({2}, {1, 2})});
    FAIL() << "compiled an unknown custom call target";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("hhlo_test_no_such_target"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace hhlo
