// VHLO's attribute and type codes in bytecode (stablehlo/dialect/VhloBytecode.cpp, enums
// AttributeCode and TypeCode, at StableHLO 1.20.0; jaxlib 0.12.1's StableHLO 1.25.3 adds no
// attribute) with the mnemonic of each (VhloAttrs.td, VhloEnums.td, VhloTypes.td), read or not:
// errors name what a code is, and a code above the newest is a later attribute or type.
// tests/ir/vhlo_table_test.cc checks every row.
#include <fmt/format.h>

#include <algorithm>

#include "bytecode_internal.h"

namespace hhlo::bc {
namespace {

constexpr VhloCode kAttrCodes[] = {
    {1, "array_v1"},
    {2, "bool_v1"},
    {3, "comparison_direction_v1"},
    {4, "comparison_type_v1"},
    {5, "api_version_v1"},
    {6, "dict_v1"},
    {7, "fft_type_v1"},
    {8, "float_v1"},
    {9, "integer_v1"},
    {10, "output_operand_alias_v1"},
    {11, "precision_v1"},
    {12, "rng_algorithm_v1"},
    {13, "rng_distribution_v1"},
    {14, "string_v1"},
    {15, "tensor_v1"},
    {16, "transpose_v1"},
    {17, "type_v1"},
    {18, "type_extensions_v1"},
    {19, "result_accuracy_mode_v1"},
    {20, "result_accuracy_v1"},
    {21, "sub_axis_info_v1"},
    {22, "axis_ref_v1"},
    {23, "replica_group_mesh_axes_v1"},
    {24, "mesh_axis_v1"},
    {25, "mesh_v1"},
};

constexpr VhloCode kTypeCodes[] = {
    {0, "bool_v1"},
    {1, "complex_v1"},
    {2, "bf16_v1"},
    {3, "f16_v1"},
    {4, "f32_v1"},
    {5, "f64_v1"},
    {6, "f8E4M3FN_v1"},
    {7, "f8E5M2_v1"},
    {8, "func_v1"},
    {9, "index_v1"},
    {10, "i4_v1"},
    {11, "i8_v1"},
    {12, "i16_v1"},
    {13, "i32_v1"},
    {14, "i64_v1"},
    {15, "ui4_v1"},
    {16, "ui8_v1"},
    {17, "ui16_v1"},
    {18, "ui32_v1"},
    {19, "ui64_v1"},
    {20, "tensor_v1"},
    {21, "tensor_v1"},  // with an encoding
    {22, "token_v1"},
    {23, "tuple_v1"},
    {24, "quant_v1"},
    {25, "unranked_tensor_v1"},
    {26, "witness_v1"},
    {27, "f8E4M3FNUZ_v1"},
    {28, "f8E5M2FNUZ_v1"},
    {29, "f8E4M3B11FNUZ_v1"},
    {30, "quant_per_axis_v1"},
    {31, "i2_v1"},
    {32, "ui2_v1"},
    {33, "none_v1"},
    {34, "tf31_v1"},  // TF32 (VhloTypes.td spells its mnemonic so)
    {35, "f8E4M3_v1"},
    {36, "f8E3M4_v1"},
    {37, "f4E2M1FN_v1"},
    {38, "f6E2M3FN_v1"},
    {39, "f6E3M2FN_v1"},
    {40, "f8E8M0FNU_v1"},
    {41, "buffer_v1"},
    {42, "future_v1"},
};

std::string code_text(std::span<const VhloCode> table, std::string_view kind, uint64_t code) {
  const VhloCode* newest = &table[0];
  for (const VhloCode& c : table) {
    if (c.code == code) return fmt::format("{} code {} (vhlo.{})", kind, code, c.name);
    if (c.code > newest->code) newest = &c;
  }
  if (code > newest->code)
    return fmt::format(
        "{} code {}, newer than the newest this reader knows ({}, vhlo.{}): written by a newer "
        "StableHLO",
        kind, code, newest->code, newest->name);
  return fmt::format("{} code {}", kind, code);
}

}  // namespace

std::span<const VhloCode> vhlo_attr_codes() { return kAttrCodes; }
std::span<const VhloCode> vhlo_type_codes() { return kTypeCodes; }

std::string vhlo_attr_code_text(uint64_t code) { return code_text(kAttrCodes, "attribute", code); }
std::string vhlo_type_code_text(uint64_t code) { return code_text(kTypeCodes, "type", code); }

}  // namespace hhlo::bc
