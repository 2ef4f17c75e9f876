// jit of C++ functions (JAX's jax.jit): a C++ callable on Tensors becomes a function on host
// Arrays and device Buffers. On the first call with a new argument signature (dtypes, dims and
// the static arguments) the callable is traced into a module (`@main` over arguments of those
// types), compiled once through the Session's executable cache, and remembered; later calls with
// that signature only compute the signature, look it up and execute.
//
//   auto f = hhlo::jit([](const std::vector<hhlo::Tensor>& x) {
//     return std::vector<hhlo::Tensor>{hhlo::np::tanh(x[0]) * x[1]};
//   });
//   std::vector<hhlo::Array> y = f({a, b});   // traces + compiles; the next call only executes
//
// The callable may use every transform (ad::grad, ad::jvp, ad::vmap, ...) inside: they build
// ordinary IR, so `jit(vmap(grad(loss)))` is a callable that calls the three.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <variant>
#include <vector>

#include "hhlo/core/array.h"
#include "hhlo/ops/tensor.h"
#include "hhlo/runtime/buffer.h"
#include "hhlo/runtime/executable.h"

namespace hhlo {

class Session;
Session& default_session();

/// One static argument of a jitted function (JAX's static_argnums): part of the signature, so a
/// new value retraces. The callable reads it while tracing (a loop count, a flag, an axis).
using StaticArg = std::variant<int64_t, double, bool, std::string>;

/// The traced body: builds the results from the arguments (values of the function being traced)
/// and the static arguments.
using JitFn =
    std::function<std::vector<Tensor>(const std::vector<Tensor>&, const std::vector<StaticArg>&)>;
/// A body without static arguments.
using JitFnNoStatic = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

/// A jitted function: callable on host Arrays or device Buffers, with a per-signature cache of
/// traced modules and compiled executables. Thread-safe; cheap to move, not copyable.
class Jitted {
 public:
  /// Wraps `fn`; compiles through `session` (which must outlive this object).
  Jitted(JitFn fn, Session& session);
  Jitted(Jitted&&) noexcept;
  Jitted& operator=(Jitted&&) noexcept;
  ~Jitted();

  /// Copies `args` to the session's device 0, runs the executable for their signature (tracing
  /// and compiling it first when new) and copies the results back.
  /// Throws hhlo::Error when tracing fails (the callable's own error, prefixed with "jit: tracing
  /// for signature (...)"), hhlo::PjrtError when compilation or execution fails.
  std::vector<Array> operator()(const std::vector<Array>& args,
                                const std::vector<StaticArg>& statics = {});
  /// The same on device buffers (of the session's client); results stay on the device.
  std::vector<Buffer> operator()(const std::vector<const Buffer*>& args,
                                 const std::vector<StaticArg>& statics = {});
  /// `f({&a, &b})`: the buffer form for a braced list (a vector<Array> could otherwise be made
  /// from two pointers as an iterator range).
  std::vector<Buffer> operator()(std::initializer_list<const Buffer*> args,
                                 const std::vector<StaticArg>& statics = {}) {
    return (*this)(std::vector<const Buffer*>(args), statics);
  }

  /// The executable for a signature (traced and compiled when new), e.g. to time or inspect it.
  const LoadedExecutable& executable(const std::vector<TensorType>& arg_types,
                                     const std::vector<StaticArg>& statics = {});
  /// MLIR text of the module traced for a signature (traced when new).
  std::string mlir(const std::vector<TensorType>& arg_types,
                   const std::vector<StaticArg>& statics = {});

  /// Number of traces (= distinct signatures seen) and of calls served from the cache.
  std::size_t traces() const;
  std::size_t cache_hits() const;

 private:
  struct Entry;
  struct State;
  const Entry* find(const std::vector<int64_t>& key, bool count_hit);
  const Entry& trace(const std::vector<int64_t>& key, const std::vector<TensorType>& types,
                     const std::vector<StaticArg>& statics);
  const Entry& lookup(const std::vector<TensorType>& types, const std::vector<StaticArg>& statics,
                      bool count_hit);
  std::unique_ptr<State> s_;
};

/// JAX's `jax.jit(fn)`: a Jitted over `fn` compiling through `session` (the process-wide CPU
/// session by default). Throws nothing; errors come at the first call.
Jitted jit(JitFn fn, Session& session = default_session());
/// `jit` of a body without static arguments.
Jitted jit(JitFnNoStatic fn, Session& session = default_session());

}  // namespace hhlo
