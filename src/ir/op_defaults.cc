// Defaults our IR keeps explicit (op_defaults.h), shared by the text parser and the bytecode
// reader.
#include "op_defaults.h"

#include <string>
#include <string_view>
#include <vector>

namespace hhlo {

void fill_op_defaults(OpState& st) {
  auto has = [&](std::string_view n) {
    for (const auto& a : st.attrs)
      if (a.name == n) return true;
    return false;
  };
  auto ones = [&](std::string_view n, int64_t count) {
    if (!has(n) && count >= 0)
      st.attrs.push_back(
          {std::string(n), i64_array(std::vector<int64_t>(static_cast<size_t>(count), 1))});
  };
  std::string_view n = st.name;
  int64_t rank = st.operands.empty() ? -1 : st.operands[0].rank();
  if (n == "stablehlo.reduce_window") {
    ones("window_strides", rank);
    ones("base_dilations", rank);
    ones("window_dilations", rank);
  } else if (n == "stablehlo.select_and_scatter") {
    ones("window_strides", rank);
  } else if (n == "stablehlo.convolution") {
    int64_t sp = rank - 2;
    for (const auto& a : st.attrs)
      if (a.name == "dimension_numbers")
        if (auto* d = a.value.get_if<ConvDimensionNumbers>())
          sp = static_cast<int64_t>(d->input_spatial_dimensions.size());
    ones("window_strides", sp);
    ones("lhs_dilation", sp);
    ones("rhs_dilation", sp);
    if (!has("feature_group_count")) st.attrs.push_back({"feature_group_count", i64_attr(1)});
    if (!has("batch_group_count")) st.attrs.push_back({"batch_group_count", i64_attr(1)});
  } else if (n == "stablehlo.sort") {
    if (!has("dimension")) st.attrs.push_back({"dimension", i64_attr(-1)});
  }
}

}  // namespace hhlo
