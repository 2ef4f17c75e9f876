// A serialized `jax.export` artifact loaded to be called from C++: JAX's
// `jax.export.deserialize(blob)` and `Exported.call(*args)`, through a Session (compiled once per
// input shapes, cached in memory and on disk). The artifact is read by the program stage
// (hhlo/program/program.h): nothing of it reaches the plugin that our readers did not read.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "hhlo/core/array.h"
#include "hhlo/program/exported.h"
#include "hhlo/session.h"

namespace hhlo {

/// A `jax.export` artifact's function (or one of its VJPs), callable on host arrays.
class ExportedFunction {
 public:
  /// The signature of the function (JAX's `Exported` fields: names, avals with symbolic
  /// dimensions, platforms, shardings, effects; its `module` is empty).
  const Exported& signature() const { return *level_; }
  /// 0 for the exported function, k for its k-th VJP.
  int vjp_order() const { return vjp_order_; }

  /// JAX's `Exported.call`: `args` are the flat inputs in the order of signature().in_names (the
  /// unused ones too; a symbolic dimension takes any size that satisfies the export's
  /// constraints); returns the flat outputs in the order of signature().out_names. Throws
  /// hhlo::Error naming the input whose dtype, rank or static dimension differs from its aval,
  /// hhlo::ShapeAssertionError with JAX's message for a violated shape constraint, hhlo::Error when
  /// the artifact was not exported for the session's platform or has ordered effects, and
  /// hhlo::PjrtError when the plugin fails.
  std::vector<Array> call(const std::vector<Array>& args) const;
  /// call with the inputs by name (signature().in_names, e.g. "args[0]['w']") and the outputs by
  /// name (out_names, e.g. "result['h']"). Throws hhlo::Error naming the missing and the unknown
  /// inputs, and what call throws.
  std::map<std::string, Array> call(const std::map<std::string, Array>& args) const;

  /// The VJP (JAX's `Exported.vjp()`): takes the primal inputs then one cotangent per output and
  /// returns one cotangent per input. Throws hhlo::Error when the artifact was serialized without
  /// it (`Exported.serialize(vjp_order=k)` keeps the VJPs up to order k).
  ExportedFunction vjp() const;

 private:
  friend ExportedFunction load_exported(std::string bytes, Session& session,
                                        std::string source_name);
  ExportedFunction(std::shared_ptr<const std::string> bytes,
                   std::shared_ptr<const Exported> artifact, int vjp_order, Session& session);

  std::shared_ptr<const std::string> bytes_;
  std::shared_ptr<const Exported> artifact_;
  const Exported* level_ = nullptr;
  int vjp_order_ = 0;
  Session* session_ = nullptr;
};

/// Reads a serialized `jax.export` artifact (`Exported.serialize()`, read_exported) to be called
/// through `session` (which must outlive it). `source_name` names it in messages. Throws what
/// read_exported throws: hhlo::ParseError for bytes that are not an artifact (truncated,
/// corrupted, MLIR text or bytecode), hhlo::Error for a serialization version we do not read.
ExportedFunction load_exported(std::string bytes, Session& session = default_session(),
                               std::string source_name = "<jax.export>");

/// load_exported of the file at `path` (read_file: a pipe too). Throws hhlo::IoError when the
/// file is missing, a directory or a socket, or unreadable, and what load_exported throws.
ExportedFunction load_exported_file(const std::string& path, Session& session = default_session());

}  // namespace hhlo
