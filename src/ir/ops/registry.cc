// The op registry: the descriptors of every op family (op_descriptor.h), gathered once.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "../op_descriptor.h"

namespace hhlo::detail {
namespace {

// The families, listed here rather than registered by static initialisers (whose order across the
// translation units of a static library is unspecified, and which the linker may drop).
constexpr std::span<const OpDescriptor> (*kFamilies[])() = {
    elementwise_ops, gather_ops, pad_ops, shape_ops, slice_ops,
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
