// The op registry: the descriptors of every op family (op_descriptor.h), gathered once, and
// supported_ops() (hhlo/ir/ops.h), their names.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "../op_descriptor.h"
#include "hhlo/ir/ops.h"

namespace hhlo::detail {
namespace {

// The families, listed here rather than registered by static initialisers (whose order across the
// translation units of a static library is unspecified, and which the linker may drop).
constexpr std::span<const OpDescriptor> (*kFamilies[])() = {
    batch_norm_ops,    bitcast_ops,      call_ops,        collective_ops,    compare_ops,
    constant_ops,      control_flow_ops, convolution_ops, custom_call_ops,   dot_general_ops,
    dynamic_slice_ops, elementwise_ops,  fft_ops,         gather_ops,        linalg_ops,
    map_ops,           pad_ops,          reduce_ops,      reduce_window_ops, rng_ops,
    scatter_ops,       shape_ops,        slice_ops,       sort_ops,
};

}  // namespace

const std::vector<OpDescriptor>& op_descriptors() {
  static const std::vector<OpDescriptor> all = [] {
    std::vector<OpDescriptor> v;
    for (auto family : kFamilies) {
      std::span<const OpDescriptor> ops = family();
      v.insert(v.end(), ops.begin(), ops.end());
    }
    std::sort(v.begin(), v.end(),
              [](const OpDescriptor& a, const OpDescriptor& b) { return a.name < b.name; });
    auto dup = std::adjacent_find(v.begin(), v.end(),
                                  [](const auto& a, const auto& b) { return a.name == b.name; });
    if (dup != v.end())
      throw std::logic_error("op registry: two descriptors of " + std::string(dup->name));
    return v;
  }();
  return all;
}

const OpDescriptor* find_op_descriptor(std::string_view name) {
  static const std::unordered_map<std::string_view, const OpDescriptor*> index = [] {
    std::unordered_map<std::string_view, const OpDescriptor*> m;
    for (const OpDescriptor& d : op_descriptors()) m.emplace(d.name, &d);
    return m;
  }();
  auto it = index.find(name);
  return it == index.end() ? nullptr : it->second;
}

}  // namespace hhlo::detail

namespace hhlo {

std::vector<std::string_view> supported_ops() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> v;
    for (const detail::OpDescriptor& d : detail::op_descriptors()) v.push_back(d.name);
    return v;
  }();
  return names;
}

}  // namespace hhlo
