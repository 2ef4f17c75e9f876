// Data-parallel training over MPI processes: `mpirun -np 2 hhlo_example_mpi_data_parallel`.
//
// Every process builds the same model (a two-layer regression net) and the same nn::Trainer
// with DataParallel{.processes = P}; each steps on its own share of every global batch (rows
// rank*B/P .. (rank+1)*B/P), and the compiled step averages the gradients and the loss over the
// processes with an MPI allreduce inside the executable before the Adam update, so the
// parameters stay equal everywhere. Rank 0 prints the losses. Each process also runs the same
// training on the whole global batch alone (no MPI) and checks that both loss trajectories agree
// within 1e-6; exit status 1 otherwise.
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "hhlo/mpi/kernels.h"
#include "hhlo/ops/reductions.h"
#include "hhlo/ops/shape_ops.h"
#include "hhlo/session.h"
#include "hhlo/train/trainer.h"

using namespace hhlo;

namespace {

constexpr int64_t kBatch = 16, kIn = 5, kHidden = 8, kSteps = 30;

/// mean((tanh(x W1 + b1) w2 - y)^2): x [B, 5], y [B, 1].
Value loss(const ad::Params& p, const std::vector<Value>& batch) {
  Tensor h = np::tanh(np::matmul(Tensor(batch[0]), Tensor(p.at("w1"))) + Tensor(p.at("b1")));
  Tensor d = np::matmul(h, Tensor(p.at("w2"))) - Tensor(batch[1]);
  return np::mean(d * d);
}

/// The global batch of step s: y = sin of a weighted sum of x.
std::vector<Array> global_batch(int64_t s) {
  std::vector<float> x(kBatch * kIn), y(kBatch);
  for (int64_t i = 0; i < kBatch; ++i) {
    float t = 0;
    for (int64_t j = 0; j < kIn; ++j) {
      float v = std::cos(0.7f * float(i * kIn + j) + 1.3f * float(s));
      x[static_cast<size_t>(i * kIn + j)] = v;
      t += float(j + 1) * v;
    }
    y[static_cast<size_t>(i)] = std::sin(0.5f * t);
  }
  return {Array::from<float>({kBatch, kIn}, x), Array::from<float>({kBatch, 1}, y)};
}

/// Rows [from, from + count) of a [n, ...] array.
Array rows(const Array& a, int64_t from, int64_t count) {
  Dims d = a.dims();
  const auto row = a.byte_size() / static_cast<size_t>(d[0]);
  d[0] = count;
  Array out(a.dtype(), d);
  std::memcpy(out.data(), static_cast<const char*>(a.data()) + static_cast<size_t>(from) * row,
              static_cast<size_t>(count) * row);
  return out;
}

}  // namespace

int main() {
  Session& session = default_session();
  register_mpi_kernels(session.client());  // initializes MPI: collective, every rank
  mpi::set_checked(true);                  // ranks that disagree on a collective fail, not hang
  const int P = mpi::world_size(), rank = mpi::world_rank();
  if (kBatch % P != 0) {
    if (rank == 0) fmt::print(stderr, "{} processes do not divide the batch {}\n", P, kBatch);
    return 1;
  }
  const int64_t share = kBatch / P;
  std::vector<float> w1(kIn * kHidden), w2(kHidden);
  for (size_t i = 0; i < w1.size(); ++i) w1[i] = 0.3f * std::sin(float(i));
  for (size_t i = 0; i < w2.size(); ++i) w2[i] = 0.3f * std::cos(float(i));
  const ad::ParamArrays init{{"b1", Array::from<float>({kHidden}, std::vector<float>(kHidden))},
                             {"w1", Array::from<float>({kIn, kHidden}, w1)},
                             {"w2", Array::from<float>({kHidden, 1}, w2)}};

  nn::Trainer trainer(loss, init, nn::adam(0.02),
                      {{DType::f32, {share, kIn}}, {DType::f32, {share, 1}}},
                      nn::DataParallel{.processes = P}, session);
  nn::Trainer alone(loss, init, nn::adam(0.02),
                    {{DType::f32, {kBatch, kIn}}, {DType::f32, {kBatch, 1}}}, session);
  double worst = 0;
  for (int64_t s = 0; s < kSteps; ++s) {
    std::vector<Array> batch = global_batch(s);
    float l =
        trainer.step({rows(batch[0], rank * share, share), rows(batch[1], rank * share, share)});
    float want = alone.step(batch);
    worst = std::max(worst, std::abs(double(l) - double(want)));
    if (rank == 0 && (s % 5 == 0 || s + 1 == kSteps))
      fmt::print(
          "step {:>2}: loss {:.6f} over {} processes ({} rows each), {:.6f} in one process\n", s, l,
          P, share, want);
  }
  if (rank == 0) fmt::print("largest loss difference to the one-process run: {:.3g}\n", worst);
  return worst <= 1e-6 ? 0 : 1;
}
