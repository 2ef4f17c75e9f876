// What XLA:CPU guarantees about the order of custom calls (docs/distributed.md, "Ordering"),
// measured on the pinned CPU plugin with a probe handler that records when it runs: in a program
// of more than 9 thunks, has_side_effect custom calls with no data between them run at the same
// time on several threads (ThunkExecutor orders thunks by buffer dependencies only, and
// CustomCallThunk declares no resource use; smaller programs run their thunks in sequence), and
// one reading the other's result runs after it. Runs as one process (ctest mpi.xla_ordering). This
// is why every hhlo::mpi collective reads the previous one's token.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "hhlo/ir/ops.h"
#include "hhlo/runtime/custom_call.h"
#include "hhlo/session.h"
#include "xla/ffi/api/ffi.h"

namespace {

namespace ffi = xla::ffi;
using Clock = std::chrono::steady_clock;

struct Span {
  Clock::time_point start, end;
};
std::mutex mu;
std::vector<Span> spans;

ffi::Error probe(ffi::AnyBuffer, ffi::AnyBuffer, ffi::Result<ffi::AnyBuffer> y,
                 ffi::Result<ffi::AnyBuffer> token) {
  Span s{Clock::now(), {}};
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::memset(y->untyped_data(), 0, y->size_bytes());
  std::memset(token->untyped_data(), 0, token->size_bytes());
  s.end = Clock::now();
  std::lock_guard<std::mutex> lock(mu);
  spans.push_back(s);
  return ffi::Error::Success();
}

}  // namespace

XLA_FFI_DEFINE_HANDLER_SYMBOL(hhlo_test_order_probe, probe,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>());

namespace hhlo {
namespace {

/// Probes per program: above the plugin's threshold for running thunks in sequence (measured: 9
/// independent probes run one after another, 10 run concurrently).
constexpr int kProbes = 16;
/// Runs kProbes probes (x, token) -> (y, token) on a 1 MiB x, as the MPI kernels are called:
/// independent (all read one constant token) or chained (each reads the previous one's tensor<i8>
/// token, the hhlo::mpi chain); returns their spans in start order.
std::vector<Span> run_probes(bool chained) {
  static Session s(Client::create("cpu"), {.enabled = false});
  static bool registered = [] {
    register_custom_call(s.client().plugin(), "hhlo_test_order_probe",
                         reinterpret_cast<void*>(hhlo_test_order_probe));
    return true;
  }();
  (void)registered;
  const TensorType t{DType::f32, {1 << 18}};
  Module m;
  Func& f = m.add_func("main", {t});
  CustomCallOptions o;
  o.has_side_effect = true;
  const TensorType tok{DType::i8, {}};
  Value first = constant(f, Scalar(0), DType::i8), token = first;
  std::vector<Value> outs;
  for (int i = 0; i < kProbes; ++i) {
    std::vector<Value> r =
        custom_call(f, "hhlo_test_order_probe", {f.arg(0), chained ? token : first}, {t, tok}, o);
    outs.push_back(r[0]);
    // Independent: every token is a result, else XLA gives the dead ones one shared buffer,
    // whose writes then order the calls (observed; not a guarantee to rely on either way).
    if (!chained) outs.push_back(r[1]);
    token = r[1];
  }
  f.ret(outs);
  spans.clear();
  s.run(m, {Array(t)});
  std::sort(spans.begin(), spans.end(),
            [](const Span& x, const Span& y) { return x.start < y.start; });
  return spans;
}

TEST(XlaCpuOrdering, IndependentSideEffectingCustomCallsRunConcurrently) {
  std::vector<Span> s = run_probes(/*chained=*/false);
  ASSERT_EQ(s.size(), size_t(kProbes));
  EXPECT_LT(s[1].start, s[0].end) << "the two calls did not overlap";
}

TEST(XlaCpuOrdering, ACallReadingAnothersResultRunsAfterIt) {
  std::vector<Span> s = run_probes(/*chained=*/true);
  ASSERT_EQ(s.size(), size_t(kProbes));
  for (size_t i = 1; i < s.size(); ++i) EXPECT_GE(s[i].start, s[i - 1].end) << "probe " << i;
}

}  // namespace
}  // namespace hhlo
