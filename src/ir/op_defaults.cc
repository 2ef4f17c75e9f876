// Defaults our IR keeps explicit (op_defaults.h), shared by the text parser and the bytecode
// reader.
#include "op_defaults.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "op_attributes.h"

namespace hhlo {

namespace {

bool has_attr(const OpState& st, std::string_view n) {
  for (const auto& a : st.attrs)
    if (a.name == n) return true;
  return false;
}

/// The spatial rank of a convolution: its dimension numbers' (rank - 2 without them).
int64_t spatial_rank(const OpState& st, int64_t rank) {
  for (const auto& a : st.attrs)
    if (a.name == "dimension_numbers")
      if (auto* d = a.value.get_if<ConvDimensionNumbers>())
        return static_cast<int64_t>(d->input_spatial_dimensions.size());
  return rank - 2;
}

/// `count` ones as an i64 array, or nothing for a negative count (no operand to count).
std::optional<Attribute> ones(int64_t count) {
  if (count < 0) return std::nullopt;
  return i64_array(std::vector<int64_t>(static_cast<size_t>(count), 1));
}

/// The value our IR keeps for row `d` where the op lacks it, or nothing.
std::optional<Attribute> default_value(const detail::AttrDecl& d, const OpState& st) {
  int64_t rank = st.operands.empty() ? -1 : st.operands[0].rank();
  switch (d.dflt) {
    case detail::AttrDefault::ones:
      return ones(rank);
    case detail::AttrDefault::spatial_ones:
      return ones(spatial_rank(st, rank));
    case detail::AttrDefault::one:
      return i64_attr(1);
    case detail::AttrDefault::minus_one:
      return i64_attr(-1);
    default:
      return std::nullopt;
  }
}

}  // namespace

void fill_op_defaults(OpState& st) {
  std::string_view n = st.name;
  if (n.starts_with("stablehlo.")) fill_op_defaults(st, detail::declared_attrs(n.substr(10)));
}

void fill_op_defaults(OpState& st, std::span<const detail::AttrDecl> rows) {
  std::string_view n = st.name;
  if (!n.starts_with("stablehlo.")) return;
  for (const detail::AttrDecl& d : rows) {
    if (d.op != n.substr(10) || has_attr(st, d.name)) continue;
    if (std::optional<Attribute> v = default_value(d, st))
      st.attrs.push_back({std::string(d.name), std::move(*v)});
  }
}

}  // namespace hhlo
