// Parameter checkpoints: ad::ParamArrays through the `.npz` reader and writer of hhlo/core/npz.h
// and the safetensors ones of hhlo/core/safetensors.h.
#include "hhlo/nn/checkpoint.h"

#include "hhlo/core/npz.h"
#include "hhlo/core/safetensors.h"

namespace hhlo::nn {
namespace {

ad::ParamArrays to_params(NpzArrays arrays) {
  ad::ParamArrays out;
  for (auto& [name, array] : arrays) out.set(name, std::move(array));
  return out;
}

}  // namespace

void save_npz(const std::string& path, const ad::ParamArrays& params) {
  NpzArrays arrays;
  for (const auto& [name, array] : params) arrays.emplace(name, array);
  write_npz(path, arrays);
}

ad::ParamArrays load_npz(const std::string& path) { return to_params(read_npz(path)); }

ad::ParamArrays parse_npz(std::span<const std::byte> bytes, const std::string& what) {
  return to_params(hhlo::parse_npz(bytes, what));
}

void save_safetensors(const std::string& path, const ad::ParamArrays& params) {
  std::vector<std::pair<std::string, Array>> tensors;
  for (const auto& [name, array] : params) tensors.emplace_back(name, array);
  write_safetensors(path, tensors);
}

ad::ParamArrays load_safetensors(const std::string& path) {
  ad::ParamArrays out;
  for (auto& [name, array] : read_safetensors(path).tensors) out.set(name, std::move(array));
  return out;
}

bool is_safetensors_path(const std::string& path) { return path.ends_with(".safetensors"); }

void save_params(const std::string& path, const ad::ParamArrays& params) {
  is_safetensors_path(path) ? save_safetensors(path, params) : save_npz(path, params);
}

ad::ParamArrays load_params(const std::string& path) {
  return is_safetensors_path(path) ? load_safetensors(path) : load_npz(path);
}

}  // namespace hhlo::nn
