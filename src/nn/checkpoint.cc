// Parameter checkpoints: ad::ParamArrays through the `.npz` reader and writer of hhlo/core/npz.h.
#include "hhlo/nn/checkpoint.h"

#include "hhlo/core/npz.h"

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

}  // namespace hhlo::nn
