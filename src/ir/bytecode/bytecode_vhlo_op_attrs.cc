// The VHLO ops the bytecode reader knows and the order in which each op's properties (bytecode
// version 5 and later) hold its attributes, one attribute index each (ODS's generated
// readProperties: the attribute names sorted), built from the op declarations
// (op_attributes.cc). tests/ir/vhlo_table_test.cc checks every op and order against
// stablehlo/dialect/VhloOps.td.
#include <fmt/format.h>

#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "../op_attributes.h"
#include "bytecode_internal.h"

namespace hhlo::bc {
namespace {

struct NameHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
using Orders =
    std::unordered_map<std::string, std::vector<std::string_view>, NameHash, std::equal_to<>>;

/// `name_vN` -> its property order, for every version of every VHLO op declared.
const Orders& orders() {
  static const Orders table = [] {
    Orders t;
    for (const detail::OpDecl& o : detail::op_declarations())
      for (int v = 1; v <= o.vhlo; ++v)
        t[fmt::format("{}_v{}", o.op, v)] =
            detail::vhlo_property_order(detail::declared_attrs(o.op), o.op, v);
    return t;
  }();
  return table;
}

}  // namespace

const std::vector<std::string_view>* vhlo_attr_names(std::string_view op) {
  auto it = orders().find(op);
  return it == orders().end() ? nullptr : &it->second;
}

std::vector<std::string_view> vhlo_op_names() {
  std::vector<std::string_view> out;
  for (const auto& [name, order] : orders()) out.push_back(name);
  return out;
}

int newest_vhlo_version(std::string_view base) {
  const detail::OpDecl* o = detail::declared_op(base);
  return o ? o->vhlo : 0;
}

}  // namespace hhlo::bc
