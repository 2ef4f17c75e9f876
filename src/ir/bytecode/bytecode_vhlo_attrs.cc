// Attributes of the attribute/type table in VHLO's bytecode encodings (stablehlo/dialect/
// VhloBytecode.cpp, enum AttributeCode): what a StableHLO portable artifact holds besides the
// builtin attributes (bytecode_builtin.cc).
#include <fmt/format.h>

#include <bit>

#include "../attribute_text.h"
#include "bytecode_internal.h"

namespace hhlo::bc {

BcAttr Reader::read_result_accuracy(Cursor& c, size_t at) {
  double atol = std::bit_cast<double>(read_apint(c, 64));
  double rtol = std::bit_cast<double>(read_apint(c, 64));
  int64_t ulps = c.svarint();
  const BcAttr& mode = attr(c);
  if (mode.kind != BcAttr::Kind::enumeration || mode.s != "result_accuracy_mode" || mode.i < 0 ||
      mode.i > 2)
    c.fail_at(at, "a result accuracy mode (DEFAULT, HIGHEST or TOLERANCE)", "another attribute");
  BcAttr a = make_attr(BcAttr::Kind::opaque);
  a.s = result_accuracy_text(atol, rtol, ulps, mode.i);
  a.i = atol == 0 && rtol == 0 && ulps == 0 && mode.i == 0;
  return a;
}

BcAttr Reader::read_vhlo_attr(Cursor& c) {
  size_t at = c.offset();
  uint64_t code = c.varint();
  auto attr_list = [&](std::vector<const BcAttr*>& out) {
    uint64_t n = c.varint();
    if (n > c.remaining()) c.fail(fmt::format("{} attributes", n), "a shorter entry");
    for (uint64_t k = 0; k < n; ++k) out.push_back(&attr(c));
  };
  switch (code) {
    case 1: {
      BcAttr a = make_attr(BcAttr::Kind::array);
      attr_list(a.elems);
      return a;
    }
    case 2: {
      BcAttr a = make_attr(BcAttr::Kind::boolean);
      uint64_t v = c.varint();
      if (v > 1) c.fail_at(at, "a boolean 0 or 1", fmt::format("{}", v));
      a.i = static_cast<int64_t>(v);
      return a;
    }
    case 3:
      return enum_attr("comparison_direction", static_cast<int64_t>(c.varint()));
    case 4:
      return enum_attr("comparison_type", static_cast<int64_t>(c.varint()));
    case 5:
      return enum_attr("custom_call_api_version", static_cast<int64_t>(c.varint()));
    case 6: {
      BcAttr a = make_attr(BcAttr::Kind::dict);
      uint64_t n = c.varint();
      if (n > c.remaining()) c.fail(fmt::format("{} entries", n), "a shorter entry");
      for (uint64_t k = 0; k < n; ++k) {
        const BcAttr* key = &attr(c);
        const BcAttr* value = &attr(c);
        a.entries.emplace_back(key, value);
      }
      return a;
    }
    case 7:
      return enum_attr("fft_type", static_cast<int64_t>(c.varint()));
    case 8:
    case 9: {
      const BcType& t = type(c);
      if (t.kind == BcType::Kind::index) {
        BcAttr a = make_attr(BcAttr::Kind::other);
        a.what = "an index integer (vhlo.integer_v1 of vhlo.index_v1)";
        read_apint(c, 64);
        return a;
      }
      if (t.kind != BcType::Kind::element || (code == 8 && !is_float(t.dtype)) ||
          (code == 9 && !is_integer(t.dtype)))
        c.fail_at(at, code == 8 ? "a float type" : "an integer type", "another type");
      BcAttr a = make_attr(code == 8 ? BcAttr::Kind::floating : BcAttr::Kind::integer);
      a.type = &t;
      uint64_t bits = read_apint(c, bit_width(t.dtype));
      if (code == 8)
        a.f = detail::float_from_bits(t.dtype, bits);
      else
        a.i = sign_fit(bits, t.dtype);
      return a;
    }
    case 10: {  // output tuple indices, operand index, operand tuple indices
      auto list = [&] {
        uint64_t n = c.varint();
        if (n > c.remaining()) c.fail("a shorter list", fmt::format("{} indices", n));
        std::vector<int64_t> out;
        for (uint64_t k = 0; k < n; ++k) out.push_back(c.svarint());
        return out;
      };
      std::vector<int64_t> outputs = list();
      int64_t operand = c.svarint();
      std::vector<int64_t> operands = list();
      BcAttr a = make_attr(BcAttr::Kind::opaque);
      a.s = output_operand_alias_text(outputs, operand, operands);
      return a;
    }
    case 11:
      return enum_attr("precision", static_cast<int64_t>(c.varint()));
    case 12:
      return enum_attr("rng_algorithm", static_cast<int64_t>(c.varint()));
    case 13:
      return enum_attr("rng_distribution", static_cast<int64_t>(c.varint()));
    case 14: {
      BcAttr a = make_attr(BcAttr::Kind::string);
      a.s = std::string(string(c));
      return a;
    }
    case 15: {
      const BcType& t = type(c);
      return read_tensor_data(c, t);
    }
    case 16:
      return enum_attr("transpose", static_cast<int64_t>(c.varint()));
    case 17: {
      BcAttr a = make_attr(BcAttr::Kind::type);
      a.type = &type(c);
      return a;
    }
    case 19:
      return enum_attr("result_accuracy_mode", static_cast<int64_t>(c.varint()));
    case 20:  // atol, rtol (f64), ulps, mode: the text StableHLO prints for it
      return read_result_accuracy(c, at);
    // Mesh-axes replica groups (StableHLO 1.16+), kept as the text StableHLO prints; the op's
    // reader flattens them into explicit groups from the module's mesh (op_defaults.h).
    case 21: {  // SubAxisInfoV1: pre-size, size
      int64_t pre = c.svarint(), size = c.svarint();
      BcAttr a = make_attr(BcAttr::Kind::opaque);
      a.s = fmt::format("({}){}", pre, size);
      return a;
    }
    case 22: {  // AxisRefV1: name, optional sub-axis info
      const BcAttr& name = attr(c);
      if (name.kind != BcAttr::Kind::string)
        c.fail_at(at, "a string axis name", "another attribute");
      BcAttr a = make_attr(BcAttr::Kind::opaque);
      a.s = fmt::format("#stablehlo.axis_ref<name = {}", detail::escape_string(name.s));
      if (c.varint()) a.s += ", sub_axis_info = " + attr(c).s;
      a.s += ">";
      return a;
    }
    case 23: {  // ReplicaGroupMeshAxesV1: mesh (a symbol, or a mesh inline), axes
      const BcAttr& mesh = attr(c);
      const BcAttr& axes = attr(c);
      if (axes.kind != BcAttr::Kind::array) c.fail_at(at, "an array of axes", "another attribute");
      BcAttr a = make_attr(BcAttr::Kind::opaque);
      if (mesh.kind == BcAttr::Kind::symbol || mesh.kind == BcAttr::Kind::string)
        a.s = fmt::format("#stablehlo.replica_group_mesh_axes<mesh = @{}, axes = [", mesh.s);
      else
        a.s = "#stablehlo.replica_group_mesh_axes<mesh = #stablehlo.mesh<...>, axes = [";
      for (size_t k = 0; k < axes.elems.size(); ++k) a.s += (k ? ", " : "") + axes.elems[k]->s;
      a.s += "]>";
      return a;
    }
    case 24: {  // MeshAxisV1: name, size
      attr(c);
      c.svarint();
      BcAttr a = make_attr(BcAttr::Kind::other);
      a.what = "vhlo.mesh_axis_v1";
      return a;
    }
    case 25: {  // MeshV1: axes, optional device ids
      attr(c);
      bool present = false;  // writeOptionalAttribute: (index << 1) | 1, or 0
      uint64_t ids = c.varint_flag(present);
      if (present) attr(ids, c);
      BcAttr a = make_attr(BcAttr::Kind::other);
      a.what = "an inline mesh (vhlo.mesh_v1)";
      return a;
    }
    default:
      // A later code than the newest known is a later VHLO attribute or type
      // (bytecode_vhlo_codes.cc).
      c.fail_at(at, "a VHLO attribute read here (bytecode: VHLO attribute code not read yet)",
                vhlo_attr_code_text(code));
  }
}

}  // namespace hhlo::bc
