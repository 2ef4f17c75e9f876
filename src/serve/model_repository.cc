// A model repository laid out as Triton's (hhlo/serve/model_repository.h).
#include "hhlo/serve/model_repository.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "hhlo/core/error.h"

namespace hhlo::serve {
namespace fs = std::filesystem;
namespace {

constexpr const char* kProgramNames[] = {"model.jax", "model.mlir", "model.mlirbc"};

bool is_program_file(const fs::path& p) {
  std::string ext = p.extension().string();
  return ext == ".jax" || ext == ".mlir" || ext == ".mlirbc";
}

/// The version number a folder name spells ("1", "17"), or 0 when it is not one.
int64_t version_of(const std::string& name) {
  if (name.empty() || name.size() > 18 ||
      !std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return 0;
  return std::stoll(name);
}

ModelSource scan_model(const fs::path& dir) {
  ModelSource model{dir.filename().string(), {}, std::nullopt, ""};
  std::error_code ec, probe;  // ec: listing the folder; probe: each entry (absent is no error)
  if (fs::is_regular_file(dir / "config.pbtxt", probe))
    model.config_path = (dir / "config.pbtxt").string();
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    int64_t version = version_of(e.path().filename().string());
    if (version <= 0 || !e.is_directory(probe)) continue;
    std::vector<std::string> found;
    for (const char* name : kProgramNames)
      if (fs::is_regular_file(e.path() / name, probe)) found.push_back((e.path() / name).string());
    if (found.size() == 1) {
      model.versions.push_back({version, found[0]});
    } else if (model.problem.empty()) {
      model.problem =
          "version folder " + e.path().string() +
          (found.empty() ? " holds no model.jax, model.mlir or model.mlirbc"
                         : " holds more than one of model.jax, model.mlir, model.mlirbc");
    }
  }
  if (ec) throw IoError("cannot read model folder " + dir.string() + ": " + ec.message());
  std::sort(model.versions.begin(), model.versions.end(),
            [](const auto& a, const auto& b) { return a.version < b.version; });
  if (model.versions.empty() && model.problem.empty())
    model.problem = "model folder " + dir.string() +
                    " has no version folder (<model>/1/model.jax, as Triton lays models out)";
  return model;
}

}  // namespace

std::vector<ModelSource> scan_repository(const std::string& path) {
  std::error_code ec;
  fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status)) throw IoError("model repository '" + path + "' does not exist");
  if (fs::is_regular_file(status)) {
    if (!is_program_file(path))
      throw IoError("'" + path + "' is neither a model repository folder nor a program file " +
                    "(.jax, .mlir, .mlirbc)");
    return {ModelSource{fs::path(path).stem().string(), {{1, path}}, std::nullopt, ""}};
  }
  if (!fs::is_directory(status))
    throw IoError("'" + path + "' is neither a model repository folder nor a program file");
  std::vector<ModelSource> models;
  for (const fs::directory_entry& e : fs::directory_iterator(path, ec)) {
    std::error_code dir_ec;
    if (!e.is_directory(dir_ec) || e.path().filename().string().starts_with('.')) continue;
    models.push_back(scan_model(e.path()));
  }
  if (ec) throw IoError("cannot read model repository '" + path + "': " + ec.message());
  std::sort(models.begin(), models.end(),
            [](const ModelSource& a, const ModelSource& b) { return a.name < b.name; });
  return models;
}

}  // namespace hhlo::serve
