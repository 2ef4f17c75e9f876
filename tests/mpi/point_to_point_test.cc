// Send and receive in an SPMD program (issue 24, items 1-2): every rank runs the same program, so
// a transfer from rank s to rank t is one op that both run, sendrecv over the pair (s, t) (rank s
// sends, rank t receives, the others do nothing), and its transpose is the sendrecv over (t, s):
// the receiver sends the cotangent back and the sender receives it. There are no separate `send`
// and `recv` ops (docs/distributed.md, "Why no send and recv"): a send alone has no result that
// a cotangent could reach, so the sender's backward pass would never receive what the
// receiver's sends back. This test shows the pair form forward and backward.
#include <gtest/gtest.h>

#include <vector>

#include "hhlo/autodiff/autodiff.h"
#include "hhlo/mpi/collectives.h"
#include "hhlo/mpi/kernels.h"
#include "hhlo/ops/reductions.h"
#include "hhlo/session.h"
#include "mpi_session.h"

namespace hhlo {
namespace {

// Rank 0 sends x = [1, 2] to rank n - 1; each rank's loss is (r + 1) * sum(y). The global loss is
// n * sum(x of rank 0), so rank 0's gradient is n everywhere and every other rank's is 0.
TEST(MpiPointToPoint, ASendIsASendrecvOverOnePairAndItsGradientComesBack) {
  const int n = mpi::world_size(), r = mpi::world_rank();
  Module m;
  Func& f = m.add_func("main", {TensorType{DType::f64, {2}}});
  Value y = mpi::sendrecv(f.arg(0), {{0, n - 1}}, mpi::Comm::world(n));
  Value loss = np::sum(Tensor(y) * Tensor(constant(f, Scalar(double(r + 1)), DType::f64, {2})));
  Value g = ad::grad(loss, {f.arg(0)})[0];
  f.ret({y, g});
  std::vector<Array> got =
      mpi_session().run(m, {Array::from<double>({2}, {double(r + 1), double(r + 2)})});
  const std::vector<double> want =
      r == n - 1 ? std::vector<double>{1, 2} : std::vector<double>{0, 0};
  EXPECT_EQ(got[0].to_vector<double>(), want);
  EXPECT_EQ(got[1].to_vector<double>(), std::vector<double>(2, r == 0 ? double(n) : 0.0));
}

TEST(MpiPointToPoint, ThereAreNoSeparateSendAndRecvTargets) {
  for (const std::string& t : mpi_kernel_targets()) {
    EXPECT_NE(t, "hhlo_mpi_send");
    EXPECT_NE(t, "hhlo_mpi_recv");
  }
  EXPECT_EQ(mpi::builder_targets(), mpi_kernel_targets());
}

}  // namespace
}  // namespace hhlo
