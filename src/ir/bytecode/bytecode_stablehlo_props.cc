// The properties of the plain (non-VHLO) ops read here: the attributes each op's properties hold
// in MLIR bytecode 5 and later, in the order ODS writes them (mlir-tblgen's OpDefinitionsGen,
// genPropertiesSupportForBytecode: every attribute of the op sorted by name, a required one as an
// attribute index, an optional or default-valued one as MLIR's writeOptionalAttribute).
//
// The stablehlo ops' layouts are built from the op declarations (op_attributes.cc's ODS column,
// plain_property_layouts). The chlo and func ops' are the rows below, from StableHLO's
// ChloOps.td (StableHLO 1.20.0, commit 3c9301c) and MLIR's func dialect, checked against the op
// definitions of the two jaxlib releases the tests generate with: JAX 0.10.2 (StableHLO 1.17.0)
// and JAX 0.12.1 (StableHLO 1.25.3), whose ops differ in chlo.top_k's is_stable and func.func's
// dlti (and stablehlo's custom_call result_tilings, collective_broadcast has_dynamic_root): an op
// with two layouts has two rows, told apart by how many attributes the properties hold. `name?`
// is optional, `name?=TEXT` optional with the ODS default TEXT that the printer elides.
// tests/ir/bytecode_plain_test.cc checks every layout against jaxlib's own op definitions.
#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "../op_attributes.h"
#include "bytecode_internal.h"

namespace hhlo::bc {
namespace {

struct OpProps {
  std::string_view op;
  std::string_view attrs;  // space-separated, sorted
};

constexpr OpProps kChloAndFuncOps[] = {
    {"chlo.broadcast_add", "broadcast_dimensions?"},
    {"chlo.broadcast_and", "broadcast_dimensions?"},
    {"chlo.broadcast_atan2", "broadcast_dimensions?"},
    {"chlo.broadcast_compare", "broadcast_dimensions? compare_type? comparison_direction"},
    {"chlo.broadcast_complex", "broadcast_dimensions?"},
    {"chlo.broadcast_divide", "broadcast_dimensions?"},
    {"chlo.broadcast_maximum", "broadcast_dimensions?"},
    {"chlo.broadcast_minimum", "broadcast_dimensions?"},
    {"chlo.broadcast_multiply", "broadcast_dimensions?"},
    {"chlo.broadcast_next_after", "broadcast_dimensions?"},
    {"chlo.broadcast_or", "broadcast_dimensions?"},
    {"chlo.broadcast_polygamma", "broadcast_dimensions?"},
    {"chlo.broadcast_power", "broadcast_dimensions?"},
    {"chlo.broadcast_remainder", "broadcast_dimensions?"},
    {"chlo.broadcast_shift_left", "broadcast_dimensions?"},
    {"chlo.broadcast_shift_right_arithmetic", "broadcast_dimensions?"},
    {"chlo.broadcast_shift_right_logical", "broadcast_dimensions?"},
    {"chlo.broadcast_subtract", "broadcast_dimensions?"},
    {"chlo.broadcast_xor", "broadcast_dimensions?"},
    {"chlo.broadcast_zeta", "broadcast_dimensions?"},
    {"chlo.constant", "value"},
    {"chlo.constant_like", "value"},
    {"chlo.ragged_dot", "precision_config? ragged_dot_dimension_numbers"},
    {"chlo.top_k", "is_stable?=true k"},
    {"chlo.top_k", "k"},
    {"func.call_indirect", "arg_attrs? res_attrs?"},
    {"func.constant", "value"},
    {"func.call", "arg_attrs? callee no_inline? res_attrs?"},
    // MLIR writes func.func's dlti (added after the others) last, so that older readers read
    // the rest as before.
    {"func.func", "arg_attrs? function_type no_inline? res_attrs? sym_name sym_visibility? dlti?"},
    {"func.func", "arg_attrs? function_type no_inline? res_attrs? sym_name sym_visibility?"},
};

std::vector<PropAttr> parse_row(std::string_view s) {
  std::vector<PropAttr> out;
  while (!s.empty()) {
    size_t sp = s.find(' ');
    std::string_view w = s.substr(0, sp);
    s = sp == std::string_view::npos ? std::string_view{} : s.substr(sp + 1);
    PropAttr a;
    size_t q = w.find('?');
    a.name = w.substr(0, q);
    a.optional = q != std::string_view::npos;
    if (a.optional && q + 1 < w.size() && w[q + 1] == '=') a.default_text = w.substr(q + 2);
    out.push_back(a);
  }
  return out;
}

/// A layout of plain_property_layouts as the reader's PropAttrs.
std::vector<PropAttr> props_of(const std::vector<const detail::AttrDecl*>& layout) {
  std::vector<PropAttr> out;
  for (const detail::AttrDecl* a : layout)
    out.push_back({a->name, a->ods.form == detail::OdsForm::optional, a->ods.elided});
  return out;
}

/// op -> its layouts, in the order plain_prop_table lists them.
using Table = std::map<std::string, std::vector<std::vector<PropAttr>>, std::less<>>;

const Table& table() {
  static const Table t = [] {
    Table t;
    for (const OpProps& o : kChloAndFuncOps) t[std::string(o.op)].push_back(parse_row(o.attrs));
    for (const detail::OpDecl& o : detail::op_declarations()) {
      std::string_view op = o.op;
      for (const auto& layout : detail::plain_property_layouts(detail::declared_attrs(op), op))
        t["stablehlo." + std::string(op)].push_back(props_of(layout));
    }
    return t;
  }();
  return t;
}

}  // namespace

const std::vector<PropAttr>* plain_prop_attrs(std::string_view full, size_t count) {
  auto it = table().find(full);
  if (it == table().end()) return nullptr;
  for (const std::vector<PropAttr>& layout : it->second)
    if (layout.size() == count) return &layout;
  return nullptr;
}

const std::vector<PropAttr>* plain_prop_any(std::string_view full) {
  auto it = table().find(full);
  return it == table().end() ? nullptr : &it->second.front();
}

std::vector<size_t> plain_prop_counts(std::string_view full) {
  std::vector<size_t> out;
  auto it = table().find(full);
  if (it != table().end())
    for (const std::vector<PropAttr>& layout : it->second) out.push_back(layout.size());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::pair<std::string_view, const std::vector<PropAttr>*>> plain_prop_table() {
  std::vector<std::pair<std::string_view, const std::vector<PropAttr>*>> out;
  for (const auto& [op, layouts] : table())
    for (const std::vector<PropAttr>& layout : layouts) out.emplace_back(op, &layout);
  return out;
}

}  // namespace hhlo::bc
