#include "hhlo/train/demo.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <ostream>

#include "hhlo/core/error.h"
#include "hhlo/core/paths.h"
#include "hhlo/core/percentile.h"
#include "hhlo/core/sharding.h"
#include "hhlo/nn/checkpoint.h"
#include "hhlo/nn/digits.h"
#include "hhlo/nn/init.h"
#include "hhlo/nn/layers.h"
#include "hhlo/nn/models.h"
#include "hhlo/train/trainer.h"

namespace hhlo::demo {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Rows `idx` of a [n, ...] array.
Array gather_rows(const Array& a, const std::vector<int64_t>& idx, size_t from, size_t count) {
  Dims d = a.dims();
  int64_t row = a.byte_size() / static_cast<size_t>(d[0]);
  d[0] = static_cast<int64_t>(count);
  Array out(a.dtype(), d);
  for (size_t i = 0; i < count; ++i)
    std::memcpy(static_cast<char*>(out.data()) + i * static_cast<size_t>(row),
                static_cast<const char*>(a.data()) + static_cast<size_t>(idx[from + i] * row),
                static_cast<size_t>(row));
  return out;
}

double accuracy(const Array& logits, const Array& labels) {
  auto l = logits.to_vector<float>();
  auto y = labels.to_vector<int32_t>();
  int64_t n = logits.dims()[0], c = logits.dims()[1], right = 0;
  for (int64_t i = 0; i < n; ++i) {
    auto begin = l.begin() + i * c;
    if (std::max_element(begin, begin + c) - begin == y[static_cast<size_t>(i)]) ++right;
  }
  return static_cast<double>(right) / static_cast<double>(n);
}

std::string bar(int64_t done, int64_t total, int width = 30) {
  auto filled = static_cast<int>(width * done / std::max<int64_t>(total, 1));
  return "[" + std::string(static_cast<size_t>(filled), '#') +
         std::string(static_cast<size_t>(width - filled), '.') + "]";
}

}  // namespace

/// The checkpoint `path` (--load) read and checked against the model's parameters: the same
/// names, and each of the model's dtype and shape. Throws hhlo::IoError naming the file and the
/// first parameter that differs (e.g. a float64 array saved by NumPy where the model has f32).
ad::ParamArrays load_checkpoint(const std::string& path, const ad::ParamArrays& model) {
  ad::ParamArrays loaded = nn::load_params(path);
  for (const std::string& name : model.names()) {
    if (!loaded.contains(name))
      throw IoError(fmt::format("--load '{}' has no parameter '{}' of this model (it has: {})",
                                path, name, fmt::join(loaded.names(), ", ")));
    const TensorType got = loaded.at(name).type(), want = model.at(name).type();
    if (got != want)
      throw IoError(fmt::format("--load '{}': parameter '{}' is {}, the model's is {}", path, name,
                                got.to_string(), want.to_string()));
  }
  for (const std::string& name : loaded.names())
    if (!model.contains(name))
      throw IoError(
          fmt::format("--load '{}' has parameter '{}', which this model does not have "
                      "(a checkpoint of another --model?)",
                      path, name));
  return loaded;
}

Result run(const Options& o, std::ostream& all_out) {
  auto t0 = Clock::now();
  std::ostream silent(nullptr);  // ranks other than 0 print nothing
  std::ostream& out = o.rank == 0 ? all_out : silent;
  if (o.batch < 1)
    throw Error(fmt::format("--batch {}: the batch needs at least one image", o.batch));
  if (o.devices < 1) throw Error(fmt::format("--devices {}: at least one device", o.devices));
  if (o.processes < 1)
    throw Error(fmt::format("{} MPI processes: at least one process", o.processes));
  if (o.rank < 0 || o.rank >= o.processes)
    throw Error(fmt::format("rank {} is not a rank of {} processes (0 .. {})", o.rank, o.processes,
                            o.processes - 1));
  if (o.batch % o.processes != 0)
    throw ShardingError(
        0, "batch",
        fmt::format("{} MPI processes do not divide --batch {}: data-parallel training splits "
                    "each batch evenly over the processes; run a process count that divides the "
                    "batch, or a batch that is a multiple of {}",
                    o.processes, o.batch, o.processes));
  if ((o.batch / o.processes) % o.devices != 0)  // each process's share is split over "batch"
    throw ShardingError(
        0, "batch",
        o.processes > 1
            ? fmt::format("--devices {} does not divide the share of each of the {} MPI processes "
                          "({} of --batch {}): choose a batch that is a multiple of {}",
                          o.devices, o.processes, o.batch / o.processes, o.batch,
                          o.devices * o.processes)
            : fmt::format("--devices {} does not divide --batch {}: data-parallel training splits "
                          "each batch evenly over the devices; choose a device count that divides "
                          "the batch, or a batch that is a multiple of {}",
                          o.devices, o.batch, o.devices));
  if (!o.save.empty()) {  // refused before training, not after it
    std::filesystem::path folder = std::filesystem::path(o.save).parent_path();
    std::error_code ec;
    if (!folder.empty() && !std::filesystem::is_directory(folder, ec))
      throw IoError(
          fmt::format("--save '{}': the folder '{}' does not exist", o.save, folder.string()));
  }
  const nn::Model model = nn::digits_model(o.model, o.seed);
  int epochs = o.epochs > 0 ? o.epochs : model.default_epochs;
  double lr = o.lr > 0 ? o.lr : model.default_lr;
  // share/hhlo/data of the installed package, or the build tree's link to the set-up folder.
  std::string data = o.data;
  if (data.empty()) data = find_share_file("data/digits.csv.gz");
  if (data.empty()) data = "share/hhlo/data/digits.csv.gz";
  nn::Digits d = nn::load_digits(data, 360, 0);
  ad::ParamArrays init = o.load.empty() ? model.init : load_checkpoint(o.load, model.init);
  int64_t ntrain = d.x_train.dims()[0], B = o.batch, nb = ntrain / B;
  out << fmt::format(
      "hhlo demo: {} on UCI digits ({} train / {} test images), batch {}, Adam lr {}, {} epochs\n",
      model.description, ntrain, d.x_test.dims()[0], B, lr, o.evaluate_only ? 0 : epochs);

  const int64_t local = B / o.processes;  // this process's share of each batch
  std::vector<TensorType> batch_types = {{DType::f32, {local, 64}}, {DType::i32, {local}}};
  nn::BatchLossFn loss = [&model](const ad::Params& p, const std::vector<Value>& b) {
    return Value(nn::softmax_cross_entropy(model.forward(p, b[0]), b[1]));
  };
  Session& session = o.session ? *o.session : default_session();
  nn::Trainer trainer(loss, init, nn::adam(lr), batch_types,
                      nn::DataParallel{.devices = o.devices, .processes = o.processes}, session);
  if (session.onednn().any())
    out << fmt::format("oneDNN's kernels for the {}\n", session.onednn().describe());
  if (o.processes > 1)
    out << fmt::format(
        "data-parallel over {} MPI processes: batch split {} per process, gradients averaged by "
        "MPI allreduce inside the compiled step\n",
        o.processes, local);
  if (o.devices > 1)
    out << fmt::format(
        "data-parallel over {} devices: batch split {} per device, parameters and Adam state "
        "replicated, gradients summed by XLA's SPMD partitioner\n",
        o.devices, local / o.devices);
  nn::BatchFn logits = [&model](const ad::Params& p, const std::vector<Value>& b) {
    return std::vector<Value>{model.forward(p, b[0])};
  };
  nn::Evaluator eval_test(logits, init, {{DType::f32, d.x_test.dims()}}, session);
  nn::Evaluator eval_train(logits, init, {{DType::f32, d.x_train.dims()}}, session);
  if (!o.evaluate_only)
    out << fmt::format(
        "compiled the training step (forward + backward + Adam, one executable) in {:.2f} s\n",
        since(t0));

  Result r;
  bool tty = o.rank == 0 && o.progress && isatty(STDOUT_FILENO);
  std::vector<double> step_times;
  for (int e = 0; e < (o.evaluate_only ? 0 : epochs); ++e) {
    auto te = Clock::now();
    std::vector<int64_t> order =
        nn::permutation(ntrain, o.seed * 1000003 + static_cast<uint64_t>(e) + 1);
    double sum = 0;
    for (int64_t i = 0; i < nb; ++i) {
      const auto from = static_cast<size_t>(i * B + o.rank * local);
      Array xb = gather_rows(d.x_train, order, from, static_cast<size_t>(local));
      Array yb = gather_rows(d.y_train, order, from, static_cast<size_t>(local));
      auto ts = Clock::now();
      const float l = trainer.step({xb, yb});
      sum += l;
      r.losses.push_back(l);
      step_times.push_back(since(ts));
      if (tty && (i % 4 == 0 || i + 1 == nb)) {
        out << fmt::format("\repoch {:>3}/{} {} {:>3}/{} loss {:.4f}", e + 1, epochs,
                           bar(i + 1, nb), i + 1, nb, sum / static_cast<double>(i + 1))
            << std::flush;
      }
    }
    EpochStats s;
    s.loss = sum / static_cast<double>(nb);
    s.train_accuracy = accuracy(eval_train.run(trainer.param_buffers(), {d.x_train})[0], d.y_train);
    s.test_accuracy = accuracy(eval_test.run(trainer.param_buffers(), {d.x_test})[0], d.y_test);
    s.seconds = since(te);
    r.epochs.push_back(s);
    out << fmt::format(
        "{}epoch {:>3}/{} {}loss {:.4f}  train acc {:.2f}%  test acc {:.2f}%  ({:.2f} s)\n",
        tty ? "\r" : "", e + 1, epochs, o.progress ? bar(nb, nb) + " " : "", s.loss,
        100 * s.train_accuracy, 100 * s.test_accuracy, s.seconds);
  }
  r.test_accuracy = accuracy(eval_test.run(trainer.param_buffers(), {d.x_test})[0], d.y_test);
  if (!step_times.empty()) r.step_seconds = median(step_times);
  if (!o.save.empty() && o.rank == 0) {
    nn::save_params(o.save, trainer.params());
    out << "saved the trained parameters to " << o.save << "\n";
  }
  r.wall_seconds = since(t0);
  std::string step =
      step_times.empty() ? "" : fmt::format("; median step {:.3f} ms", 1e3 * r.step_seconds);
  out << fmt::format("final test accuracy: {:.2f}% ({} images){}; wall time {:.2f} s\n",
                     100 * r.test_accuracy, d.x_test.dims()[0], step, r.wall_seconds);
  return r;
}

}  // namespace hhlo::demo
