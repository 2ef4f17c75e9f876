// Plain MLIR bytecode of StableHLO (what `write_bytecode` of a JAX lowering, TensorFlow's
// `stablehlo_serialized` and torch_xla's `forward.bytecode` hold, as opposed to a VHLO portable
// artifact): the stablehlo dialect's own attribute and type encodings
// (stablehlo/dialect/StablehloBytecode.cpp, enums AttributeCode and TypeCode), CHLO's
// (ChloBytecode.cpp), attributes written as their text, and the attributes of plain ops as
// parse_module makes them from the text MLIR prints for the same module.
#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "../attribute_text.h"
#include "../text/parser_internal.h"
#include "bytecode_internal.h"

namespace hhlo::bc {

// ---------------------------------------------------------------- texts StableHLO prints

namespace {

/// An f64 as MLIR's printFloatValue writes it: six significant digits padded to six decimals
/// (`1.000000e-05`) where that reads back to the same value, else the shortest text that does
/// (`0.1234567`); NaN and infinities as their bits in hex.
std::string mlir_double(double v) {
  if (!std::isfinite(v))  // MLIR prints NaN and infinities as their bits
    return fmt::format("0x{:016X}", std::bit_cast<uint64_t>(v));
  std::string e = fmt::format("{:.5e}", v);
  e.insert(e.find('e'), "0");
  if (std::strtod(e.c_str(), nullptr) == v) return e;
  return fmt::format("{}", v);
}

std::string int_list(const std::vector<int64_t>& v) {
  return fmt::format("{}", fmt::join(v, ", "));
}

}  // namespace

std::string result_accuracy_text(double atol, double rtol, int64_t ulps, int64_t mode) {
  static constexpr const char* kModes[] = {"DEFAULT", "HIGHEST", "TOLERANCE"};
  std::string s = "#stablehlo.result_accuracy<";
  if (atol != 0) s += fmt::format("atol = {}, ", mlir_double(atol));
  if (rtol != 0) s += fmt::format("rtol = {}, ", mlir_double(rtol));
  if (ulps != 0) s += fmt::format("ulps = {}, ", ulps);
  return s + fmt::format("mode = #stablehlo.result_accuracy_mode<{}>>", kModes[mode]);
}

std::string output_operand_alias_text(const std::vector<int64_t>& outputs, int64_t operand,
                                      const std::vector<int64_t>& operand_indices) {
  return fmt::format(
      "#stablehlo.output_operand_alias<output_tuple_indices = [{}], operand_index = {}, "
      "operand_tuple_indices = [{}]>",
      int_list(outputs), operand, int_list(operand_indices));
}

void check_conv_dims(const ConvDimensionNumbers& d, const Cursor& c, size_t at) {
  auto permutation = [&](std::string_view what, int64_t a, int64_t b,
                         const std::vector<int64_t>& sp) {
    std::vector<int64_t> all = sp;
    all.push_back(a);
    all.push_back(b);
    std::vector<bool> seen(all.size());
    for (int64_t x : all) {
      if (x < 0 || x >= static_cast<int64_t>(all.size()) || seen[static_cast<size_t>(x)])
        c.fail_at(at,
                  fmt::format("convolution {} dimensions that are a permutation of 0..{}", what,
                              all.size() - 1),
                  fmt::format("dimension {}", x));
      seen[static_cast<size_t>(x)] = true;
    }
  };
  permutation("input", d.input_batch_dimension, d.input_feature_dimension,
              d.input_spatial_dimensions);
  permutation("kernel", d.kernel_input_feature_dimension, d.kernel_output_feature_dimension,
              d.kernel_spatial_dimensions);
  permutation("output", d.output_batch_dimension, d.output_feature_dimension,
              d.output_spatial_dimensions);
}

// ---------------------------------------------------------------- the stablehlo dialect

namespace {

/// StablehloBytecode.cpp's AttributeCode names, by code (0 is obsolete).
constexpr std::string_view kStablehloAttrs[] = {"ArgResultAliasAttr (obsolete)",
                                                "ChannelHandleAttr",
                                                "ComparisonDirectionAttr",
                                                "ComparisonTypeAttr",
                                                "ConvDimensionNumbersAttr",
                                                "DotDimensionNumbersAttr",
                                                "FftTypeAttr",
                                                "GatherDimensionNumbersAttr",
                                                "PrecisionAttr",
                                                "RngAlgorithmAttr",
                                                "RngDistributionAttr",
                                                "ScatterDimensionNumbersAttr",
                                                "TransposeAttr",
                                                "TypeExtensionsAttr",
                                                "OutputOperandAliasAttr",
                                                "DotAlgorithmAttr",
                                                "ResultAccuracyModeAttr",
                                                "ResultAccuracyAttr",
                                                "ReplicaGroupMeshAxesAttr",
                                                "SubAxisInfoAttr",
                                                "AxisRefAttr",
                                                "MeshAxisAttr",
                                                "MeshAttr"};

/// readSignedVarInts: a count, then that many signed varints.
std::vector<int64_t> svarints(Cursor& c) {
  uint64_t n = c.varint();
  if (n > c.remaining()) c.fail(fmt::format("{} integers", n), "a shorter entry");
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int64_t& x : v) x = c.svarint();
  return v;
}

/// readBool: one byte, 0 or 1.
bool read_bool(Cursor& c) {
  size_t at = c.offset();
  uint8_t b = c.byte();
  if (b > 1) c.fail_at(at, "a boolean byte 0 or 1", fmt::format("{}", b));
  return b != 0;
}

BcAttr typed(Attribute v) {
  BcAttr a = make_attr(BcAttr::Kind::typed);
  a.value = std::move(v);
  return a;
}

BcAttr opaque(std::string text) {
  BcAttr a = make_attr(BcAttr::Kind::opaque);
  a.s = std::move(text);
  return a;
}

}  // namespace

BcType Reader::read_stablehlo_type(Cursor& c) {
  size_t at = c.offset();
  uint64_t code = c.varint();
  if (code == 0) return element_type(DType::token);
  if (code == 1) {  // FutureType: element type
    const BcType& t = type(c);
    return other_type(fmt::format("!stablehlo.future<{}>", type_text(t)));
  }
  c.fail_at(at, "a stablehlo type read here (token, future)",
            fmt::format("stablehlo type code {}, newer than the newest this reader knows (1, "
                        "FutureType)",
                        code));
}

BcAttr Reader::read_stablehlo_attr(Cursor& c) {
  size_t at = c.offset();
  uint64_t code = c.varint();
  auto enumeration = [&](const char* kind) {
    return enum_attr(kind, static_cast<int64_t>(c.varint()));
  };
  switch (code) {
    case 1: {
      int64_t handle = c.svarint(), type = c.svarint();
      return typed(ChannelHandle{handle, type});
    }
    case 2:
      return enumeration("comparison_direction");
    case 3:
      return enumeration("comparison_type");
    case 4: {
      ConvDimensionNumbers d;
      d.input_batch_dimension = c.svarint();
      d.input_feature_dimension = c.svarint();
      d.input_spatial_dimensions = svarints(c);
      d.kernel_input_feature_dimension = c.svarint();
      d.kernel_output_feature_dimension = c.svarint();
      d.kernel_spatial_dimensions = svarints(c);
      d.output_batch_dimension = c.svarint();
      d.output_feature_dimension = c.svarint();
      d.output_spatial_dimensions = svarints(c);
      check_conv_dims(d, c, at);
      return typed(std::move(d));
    }
    case 5: {
      DotDimensionNumbers d;
      d.lhs_batching_dimensions = svarints(c);
      d.rhs_batching_dimensions = svarints(c);
      d.lhs_contracting_dimensions = svarints(c);
      d.rhs_contracting_dimensions = svarints(c);
      return typed(std::move(d));
    }
    case 6:
      return enumeration("fft_type");
    case 7: {
      GatherDimensionNumbers d;
      d.offset_dims = svarints(c);
      d.collapsed_slice_dims = svarints(c);
      d.operand_batching_dims = svarints(c);
      d.start_indices_batching_dims = svarints(c);
      d.start_index_map = svarints(c);
      d.index_vector_dim = c.svarint();
      return typed(std::move(d));
    }
    case 8:
      return enumeration("precision");
    case 9:
      return enumeration("rng_algorithm");
    case 10:
      return enumeration("rng_distribution");
    case 11: {
      ScatterDimensionNumbers d;
      d.update_window_dims = svarints(c);
      d.inserted_window_dims = svarints(c);
      d.input_batching_dims = svarints(c);
      d.scatter_indices_batching_dims = svarints(c);
      d.scatter_dims_to_operand_dims = svarints(c);
      d.index_vector_dim = c.svarint();
      return typed(std::move(d));
    }
    case 12:
      return enumeration("transpose");
    case 13: {  // TypeExtensionsAttr: bounds (a tensor type's encoding)
      std::string s;
      for (int64_t b : svarints(c))
        s += (s.empty() ? "" : ", ") + (b == kDynamic ? "?" : fmt::format("{}", b));
      return opaque("#stablehlo.bounds<" + s + ">");
    }
    case 14: {  // OutputOperandAliasAttr
      std::vector<int64_t> outputs = svarints(c);
      int64_t operand = c.svarint();
      std::vector<int64_t> operands = svarints(c);
      return opaque(output_operand_alias_text(outputs, operand, operands));
    }
    case 15: {  // DotAlgorithmAttr: 3 types, 3 signed varints, a bool
      const BcType& lhs = type(c);
      const BcType& rhs = type(c);
      const BcType& acc = type(c);
      int64_t lc = c.svarint(), rc = c.svarint(), ops = c.svarint();
      bool imprecise = read_bool(c);
      return opaque(
          fmt::format("#stablehlo.dot_algorithm<lhs_precision_type = {}, rhs_precision_type = {}, "
                      "accumulation_type = {}, lhs_component_count = {}, rhs_component_count = {}, "
                      "num_primitive_operations = {}, allow_imprecise_accumulation = {}>",
                      type_text(lhs), type_text(rhs), type_text(acc), lc, rc, ops, imprecise));
    }
    case 16:
      return enumeration("result_accuracy_mode");
    case 17:  // ResultAccuracyAttr: atol, rtol (f64 as APFloat), ulps, mode
      return read_result_accuracy(c, at);
    // Mesh-axes replica groups, kept as the text StableHLO prints; the op's reader flattens them
    // into explicit groups from the module's mesh (op_defaults.h).
    case 18: {  // ReplicaGroupMeshAxesAttr: mesh, then a count of axes
      const BcAttr& mesh = attr(c);
      uint64_t n = c.varint();
      if (n > c.remaining()) c.fail(fmt::format("{} axes", n), "a shorter entry");
      std::string axes;
      for (uint64_t k = 0; k < n; ++k) axes += (k ? ", " : "") + attr(c).s;
      if (mesh.kind == BcAttr::Kind::symbol || mesh.kind == BcAttr::Kind::string)
        return opaque(fmt::format("#stablehlo.replica_group_mesh_axes<mesh = @{}, axes = [{}]>",
                                  mesh.s, axes));
      return opaque(fmt::format(
          "#stablehlo.replica_group_mesh_axes<mesh = #stablehlo.mesh<...>, axes = [{}]>", axes));
    }
    case 19: {  // SubAxisInfoAttr: pre-size, size
      int64_t pre = c.svarint(), size = c.svarint();
      return opaque(fmt::format("({}){}", pre, size));
    }
    case 20: {  // AxisRefAttr: name, a bool, the sub-axis info when true
      std::string s =
          fmt::format("#stablehlo.axis_ref<name = {}", detail::escape_string(string(c)));
      if (read_bool(c)) s += ", sub_axis_info = " + attr(c).s;
      return opaque(s + ">");
    }
    case 21: {  // MeshAxisAttr: name, size
      string(c);
      c.svarint();
      BcAttr a = make_attr(BcAttr::Kind::other);
      a.what = "#stablehlo.mesh_axis";
      return a;
    }
    case 22: {  // MeshAttr: axes, a bool, the device ids when true
      attr(c);
      if (read_bool(c)) attr(c);
      BcAttr a = make_attr(BcAttr::Kind::other);
      a.what = "an inline mesh (#stablehlo.mesh)";
      return a;
    }
    default:
      c.fail_at(at, "a stablehlo attribute read here",
                fmt::format("stablehlo attribute code {}{}", code,
                            code < std::size(kStablehloAttrs)
                                ? fmt::format(" ({})", kStablehloAttrs[code])
                                : std::string(", newer than the newest this reader knows (22, "
                                              "MeshAttr): written by a newer StableHLO")));
  }
}

// ---------------------------------------------------------------- chlo, and attributes as text

BcAttr Reader::read_chlo_attr(Cursor& c) {
  static constexpr std::string_view kDirections[] = {"EQ", "NE", "GE", "GT", "LE", "LT"};
  static constexpr std::string_view kTypes[] = {"NOTYPE", "FLOAT", "TOTALORDER", "SIGNED",
                                                "UNSIGNED"};
  size_t at = c.offset();
  uint64_t code = c.varint();
  if (code > 1)
    c.fail_at(at, "a chlo attribute read here (comparison direction or type)",
              fmt::format("chlo attribute code {}, newer than the newest this reader knows (1, "
                          "ComparisonTypeAttr)",
                          code));
  size_t value_at = c.offset();
  uint64_t v = c.varint();
  if ((code == 0 && v >= std::size(kDirections)) || (code == 1 && v >= std::size(kTypes)))
    c.fail_at(value_at, code == 0 ? "a chlo comparison direction" : "a chlo comparison type",
              fmt::format("{}", v));
  // CHLO's enums print as `#chlo<comparison_direction EQ>`, which the text parser keeps as text.
  std::string text = code == 0 ? fmt::format("#chlo<comparison_direction {}>", kDirections[v])
                               : fmt::format("#chlo<comparison_type {}>", kTypes[v]);
  return read_text_attr(text, c);
}

BcAttr Reader::read_text_attr(std::string_view text, const Cursor& c) {
  try {
    return typed(parse::parse_attribute_text(text));
  } catch (const ParseError& e) {
    c.fail(fmt::format("an attribute the text parser reads ({})", e.expected()),
           fmt::format("'{}'", text.substr(0, 120)));
  }
}

// ---------------------------------------------------------------- plain ops' attributes

namespace {

/// True when `a` is the attribute an ODS default's text `d` denotes (bytecode_stablehlo_props.cc).
bool is_default(const BcAttr& a, std::string_view d) {
  if (d == "DEFAULT") return a.kind == BcAttr::Kind::opaque && a.i == 1;  // result_accuracy
  if (d == "false" || d == "true") return a.kind == BcAttr::Kind::boolean && a.i == (d == "true");
  if (d == "\"\"") return a.kind == BcAttr::Kind::string && a.s.empty();
  if (d == "{}") return a.kind == BcAttr::Kind::dict && a.entries.empty();
  if (d == "[]") return a.kind == BcAttr::Kind::array && a.elems.empty();
  char* end = nullptr;
  std::string s(d);
  long long v = std::strtoll(s.c_str(), &end, 10);
  return end && *end == 0 && a.kind == BcAttr::Kind::integer && a.i == v;
}

/// `operand_layouts` / `result_layouts`: a list of 1-D index tensors is a LayoutsAttr, as the
/// text parser reads those two names (attrs/layouts.cc); nullopt for another list.
std::optional<Attribute> layouts(const BcAttr& a, const Cursor& c, std::string_view name) {
  if (a.kind != BcAttr::Kind::array) return std::nullopt;
  LayoutsAttr l;
  for (const BcAttr* e : a.elems) {
    if (e->kind != BcAttr::Kind::tensor || !e->type->index_elements || e->type->dims.size() != 1)
      return std::nullopt;
    l.layouts.push_back(i64s(*e, c, name));
  }
  return l;
}

}  // namespace

std::vector<NamedAttr> plain_attrs(std::string_view full, const NamedBcAttrs& named,
                                   const std::vector<PropAttr>* props, const Cursor& c) {
  if (!props) props = plain_prop_any(full);  // bytecode before version 5: no properties
  std::vector<NamedAttr> out;
  for (const auto& [n, v] : named) {
    bool dropped = false;
    if (props)
      for (const PropAttr& p : *props)
        if (p.name == n && !p.default_text.empty()) dropped = is_default(*v, p.default_text);
    if (dropped) continue;
    if (n == "operand_layouts" || n == "result_layouts")
      if (std::optional<Attribute> l = layouts(*v, c, n)) {
        out.push_back({std::string(n), std::move(*l)});
        continue;
      }
    out.push_back({std::string(n), to_attribute(*v, c, n)});
  }
  return out;
}

}  // namespace hhlo::bc
