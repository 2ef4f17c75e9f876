// A model repository laid out as Triton's (its "Model Repository" documentation):
// `<repo>/<model>/<version>/model.{jax,mlir,mlirbc}`, versions being positive integers, or one
// program file served as a one-model repository.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hhlo::serve {

/// One version of a model: its number and its program file.
struct ModelVersionSource {
  int64_t version = 1;
  std::string path;
};

/// A model found in a repository.
struct ModelSource {
  std::string name;
  /// Its versions, ascending (each holds exactly one program file).
  std::vector<ModelVersionSource> versions;
  /// `<model>/config.pbtxt` when the model has one.
  std::optional<std::string> config_path;
  /// Why the model cannot be served although its folder is there (a version folder with no
  /// program, or with two), "" when it can.
  std::string problem;
};

/// The models at `path`: a program file (`.jax`, `.mlir`, `.mlirbc`) is one model named by the
/// file's stem with version 1; a folder holds one model per subfolder, each with numbered
/// version folders holding `model.jax`, `model.mlir` or `model.mlirbc` (other entries are
/// ignored, as Triton ignores them). Models are sorted by name. Throws hhlo::IoError when
/// `path` does not exist or cannot be read, or is a file of another kind.
std::vector<ModelSource> scan_repository(const std::string& path);

}  // namespace hhlo::serve
