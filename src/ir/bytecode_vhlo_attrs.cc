// Attributes of the attribute/type table: VHLO's bytecode encodings (stablehlo/dialect/
// VhloBytecode.cpp, enum AttributeCode), the builtin ones an artifact holds (op attribute
// dictionaries, strings, locations; mlir/lib/IR/BuiltinDialectBytecode.td), and their mapping to
// our typed attributes.
#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "attribute_text.h"
#include "bytecode_internal.h"

namespace hhlo::bc {
namespace {

BcAttr make(BcAttr::Kind k) {
  BcAttr a;
  a.kind = k;
  return a;
}

BcAttr enumeration(std::string kind, int64_t v) {
  BcAttr a = make(BcAttr::Kind::enumeration);
  a.s = std::move(kind);
  a.i = v;
  return a;
}

/// readAPIntWithKnownWidth: one byte up to 8 bits, else a signed varint (widths up to 64).
uint64_t read_apint(Cursor& c, int width) {
  if (width <= 8) return c.byte();
  if (width <= 64) return static_cast<uint64_t>(c.svarint());
  c.fail("an integer of at most 64 bits", fmt::format("{} bits", width));
}

int64_t sign_fit(uint64_t bits, DType t) {
  int w = bit_width(t);
  if (w >= 64) return static_cast<int64_t>(bits);
  uint64_t mask = (uint64_t{1} << w) - 1;
  bits &= mask;
  if (is_signed_int(t) && (bits >> (w - 1)) & 1) bits |= ~mask;
  return static_cast<int64_t>(bits);
}

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

/// `#stablehlo.result_accuracy<atol = .., rtol = .., ulps = .., mode = ..>` as StableHLO prints
/// it (StablehloAttrs.td: struct(params), each parameter at its default elided).
std::string result_accuracy_text(double atol, double rtol, int64_t ulps, int64_t mode) {
  static constexpr const char* kModes[] = {"DEFAULT", "HIGHEST", "TOLERANCE"};
  std::string s = "#stablehlo.result_accuracy<";
  if (atol != 0) s += fmt::format("atol = {}, ", mlir_double(atol));
  if (rtol != 0) s += fmt::format("rtol = {}, ", mlir_double(rtol));
  if (ulps != 0) s += fmt::format("ulps = {}, ", ulps);
  return s + fmt::format("mode = #stablehlo.result_accuracy_mode<{}>>", kModes[mode]);
}

}  // namespace

// Locations as the text parser keeps them (parser_module.cc, parse_loc_body): `"file":line:col`
// as a Location, every other kind as its MLIR text with nested locations inline
// (detail::capped_location: at most 4 KiB, else unknown).

const BcAttr& Reader::attr(uint64_t i, const Cursor& c) {
  if (i >= attr_entries_.size())
    c.fail(fmt::format("an attribute index below {}", attr_entries_.size()), fmt::format("{}", i));
  if (attrs_[i]) return *attrs_[i];
  if (busy_attrs_[i])
    c.fail("an attribute that does not contain itself", fmt::format("attribute {}", i));
  Depth guard(depth_, c);
  busy_attrs_[i] = 1;
  const Entry& e = attr_entries_[i];
  Cursor ec(this, "attribute/type", e.begin, e.end);
  BcAttr a = read_attr(e, ec);
  a.offset = offset_of(e.begin);
  if (!ec.empty()) ec.fail("the end of the attribute entry", "trailing bytes");
  busy_attrs_[i] = 0;
  attrs_[i] = std::make_unique<BcAttr>(std::move(a));
  return *attrs_[i];
}

BcAttr Reader::read_attr(const Entry& e, Cursor& c) {
  const std::string& d = dialects_[e.dialect];
  if (!e.custom) {
    BcAttr a = make(BcAttr::Kind::other);
    a.what = std::string(c.cstring());
    return a;
  }
  if (d == "vhlo") return read_vhlo_attr(c);
  if (d == "builtin") return read_builtin_attr(c);
  if (d == "sdy") return read_sdy_attr(c);
  BcAttr a = make(BcAttr::Kind::other);
  a.what = fmt::format("an attribute of dialect '{}'", d);
  c.bytes(c.remaining());
  return a;
}

BcAttr Reader::read_tensor_data(Cursor& c, const BcType& t) {
  BcAttr a = make(BcAttr::Kind::tensor);
  a.type = &t;
  uint64_t size = c.varint();
  std::span<const uint8_t> blob = c.bytes(static_cast<size_t>(std::min<uint64_t>(size, SIZE_MAX)));
  if (t.kind == BcType::Kind::tensor && t.dtype == DType::pred) {
    // VHLO packs i1 tensors one bit per element; one 0xFF byte is a true splat.
    int64_t n = 1;
    for (int64_t dim : t.dims) n = dim < 0 ? -1 : (n < 0 ? n : n * dim);
    size_t packed = n < 0 ? 0 : static_cast<size_t>((n + 7) / 8);
    if (blob.size() == 1 && blob[0] == 0xFF) {
      a.data = {1};
    } else if (n >= 0 && blob.size() == packed && blob.size() != static_cast<size_t>(n)) {
      a.data.resize(static_cast<size_t>(n));
      for (int64_t k = 0; k < n; ++k)
        a.data[static_cast<size_t>(k)] = (blob[static_cast<size_t>(k / 8)] >> (k % 8)) & 1;
    } else {
      a.data.assign(blob.begin(), blob.end());
    }
  } else {
    a.data.assign(blob.begin(), blob.end());
  }
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
      BcAttr a = make(BcAttr::Kind::array);
      attr_list(a.elems);
      return a;
    }
    case 2: {
      BcAttr a = make(BcAttr::Kind::boolean);
      uint64_t v = c.varint();
      if (v > 1) c.fail_at(at, "a boolean 0 or 1", fmt::format("{}", v));
      a.i = static_cast<int64_t>(v);
      return a;
    }
    case 3:
      return enumeration("comparison_direction", static_cast<int64_t>(c.varint()));
    case 4:
      return enumeration("comparison_type", static_cast<int64_t>(c.varint()));
    case 5:
      return enumeration("custom_call_api_version", static_cast<int64_t>(c.varint()));
    case 6: {
      BcAttr a = make(BcAttr::Kind::dict);
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
      return enumeration("fft_type", static_cast<int64_t>(c.varint()));
    case 8:
    case 9: {
      const BcType& t = type(c);
      if (t.kind == BcType::Kind::index) {
        BcAttr a = make(BcAttr::Kind::other);
        a.what = "an index integer (vhlo.integer_v1 of vhlo.index_v1)";
        read_apint(c, 64);
        return a;
      }
      if (t.kind != BcType::Kind::element || (code == 8 && !is_float(t.dtype)) ||
          (code == 9 && !is_integer(t.dtype)))
        c.fail_at(at, code == 8 ? "a float type" : "an integer type", "another type");
      BcAttr a = make(code == 8 ? BcAttr::Kind::floating : BcAttr::Kind::integer);
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
        std::string out;
        for (uint64_t k = 0; k < n; ++k) out += fmt::format("{}{}", k ? ", " : "", c.svarint());
        return out;
      };
      std::string outputs = list();
      int64_t operand = c.svarint();
      std::string operands = list();
      BcAttr a = make(BcAttr::Kind::opaque);
      a.s = fmt::format(
          "#stablehlo.output_operand_alias<output_tuple_indices = [{}], operand_index = {}, "
          "operand_tuple_indices = [{}]>",
          outputs, operand, operands);
      return a;
    }
    case 11:
      return enumeration("precision", static_cast<int64_t>(c.varint()));
    case 12:
      return enumeration("rng_algorithm", static_cast<int64_t>(c.varint()));
    case 13:
      return enumeration("rng_distribution", static_cast<int64_t>(c.varint()));
    case 14: {
      BcAttr a = make(BcAttr::Kind::string);
      a.s = std::string(string(c));
      return a;
    }
    case 15: {
      const BcType& t = type(c);
      return read_tensor_data(c, t);
    }
    case 16:
      return enumeration("transpose", static_cast<int64_t>(c.varint()));
    case 17: {
      BcAttr a = make(BcAttr::Kind::type);
      a.type = &type(c);
      return a;
    }
    case 19:
      return enumeration("result_accuracy_mode", static_cast<int64_t>(c.varint()));
    case 20: {  // atol, rtol (f64), ulps, mode: the text StableHLO prints for it
      double atol = std::bit_cast<double>(read_apint(c, 64));
      double rtol = std::bit_cast<double>(read_apint(c, 64));
      int64_t ulps = c.svarint();
      const BcAttr& mode = attr(c);
      if (mode.kind != BcAttr::Kind::enumeration || mode.s != "result_accuracy_mode" ||
          mode.i < 0 || mode.i > 2)
        c.fail_at(at, "a result accuracy mode (DEFAULT, HIGHEST or TOLERANCE)",
                  "another attribute");
      BcAttr a = make(BcAttr::Kind::opaque);
      a.s = result_accuracy_text(atol, rtol, ulps, mode.i);
      // i = 1: the default accuracy (atol = rtol = ulps = 0, mode DEFAULT), which the
      // legalization drops.
      a.i = atol == 0 && rtol == 0 && ulps == 0 && mode.i == 0;
      return a;
    }
    // Mesh-axes replica groups (StableHLO 1.16+), kept as the text StableHLO prints; the op's
    // reader flattens them into explicit groups from the module's mesh (op_defaults.h).
    case 21: {  // SubAxisInfoV1: pre-size, size
      int64_t pre = c.svarint(), size = c.svarint();
      BcAttr a = make(BcAttr::Kind::opaque);
      a.s = fmt::format("({}){}", pre, size);
      return a;
    }
    case 22: {  // AxisRefV1: name, optional sub-axis info
      const BcAttr& name = attr(c);
      if (name.kind != BcAttr::Kind::string)
        c.fail_at(at, "a string axis name", "another attribute");
      BcAttr a = make(BcAttr::Kind::opaque);
      a.s = fmt::format("#stablehlo.axis_ref<name = {}", detail::escape_string(name.s));
      if (c.varint()) a.s += ", sub_axis_info = " + attr(c).s;
      a.s += ">";
      return a;
    }
    case 23: {  // ReplicaGroupMeshAxesV1: mesh (a symbol, or a mesh inline), axes
      const BcAttr& mesh = attr(c);
      const BcAttr& axes = attr(c);
      if (axes.kind != BcAttr::Kind::array) c.fail_at(at, "an array of axes", "another attribute");
      BcAttr a = make(BcAttr::Kind::opaque);
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
      BcAttr a = make(BcAttr::Kind::other);
      a.what = "vhlo.mesh_axis_v1";
      return a;
    }
    case 25: {  // MeshV1: axes, optional device ids
      attr(c);
      bool present = false;  // writeOptionalAttribute: (index << 1) | 1, or 0
      uint64_t ids = c.varint_flag(present);
      if (present) attr(ids, c);
      BcAttr a = make(BcAttr::Kind::other);
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

BcAttr Reader::read_builtin_attr(Cursor& c) {
  size_t at = c.offset();
  uint64_t code = c.varint();
  auto attr_list = [&](std::vector<const BcAttr*>& out) {
    uint64_t n = c.varint();
    if (n > c.remaining()) c.fail(fmt::format("{} attributes", n), "a shorter entry");
    for (uint64_t k = 0; k < n; ++k) out.push_back(&attr(c));
  };
  auto loc = [](Location l) {
    BcAttr a = make(BcAttr::Kind::location);
    a.loc = std::move(l);
    return a;
  };
  switch (code) {
    case 0: {
      BcAttr a = make(BcAttr::Kind::array);
      attr_list(a.elems);
      return a;
    }
    case 1: {
      BcAttr a = make(BcAttr::Kind::dict);
      uint64_t n = c.varint();
      if (n > c.remaining()) c.fail(fmt::format("{} entries", n), "a shorter entry");
      for (uint64_t k = 0; k < n; ++k) {
        const BcAttr* key = &attr(c);
        if (key->kind != BcAttr::Kind::string)
          c.fail("a string attribute naming the entry", "another attribute");
        const BcAttr* value = &attr(c);
        a.entries.emplace_back(key, value);
      }
      return a;
    }
    case 2: {
      BcAttr a = make(BcAttr::Kind::string);
      a.s = std::string(string(c));
      return a;
    }
    case 4: {  // FlatSymbolRefAttr: the root reference (a string attribute)
      const BcAttr& root = attr(c);
      if (root.kind != BcAttr::Kind::string) c.fail_at(at, "a string symbol", "another attribute");
      BcAttr a = make(BcAttr::Kind::symbol);
      a.s = root.s;
      return a;
    }
    case 7:
      return make(BcAttr::Kind::unit);
    case 8:
    case 9: {  // IntegerAttr / FloatAttr: type, value of the type's width
      const BcType& t = type(c);
      if (t.kind == BcType::Kind::index) {
        BcAttr a = make(BcAttr::Kind::other);
        a.what = "an index integer";
        read_apint(c, 64);
        return a;
      }
      if (t.kind != BcType::Kind::element || (code == 9 && !is_float(t.dtype)) ||
          (code == 8 && !is_integer(t.dtype) && t.dtype != DType::pred))
        c.fail_at(at, code == 9 ? "a float type" : "an integer type", "another type");
      uint64_t bits = read_apint(c, t.dtype == DType::pred ? 1 : bit_width(t.dtype));
      if (t.dtype == DType::pred) {
        BcAttr a = make(BcAttr::Kind::boolean);
        a.i = bits & 1;
        return a;
      }
      BcAttr a = make(code == 9 ? BcAttr::Kind::floating : BcAttr::Kind::integer);
      a.type = &t;
      if (code == 9)
        a.f = detail::float_from_bits(t.dtype, bits);
      else
        a.i = sign_fit(bits, t.dtype);
      return a;
    }
    case 10: {  // CallSiteLoc: callee, caller
      const BcAttr& callee = attr(c);
      const BcAttr& caller = attr(c);
      return loc(detail::capped_location("callsite(" + detail::location_text(callee.loc) + " at " +
                                         detail::location_text(caller.loc) + ")"));
    }
    case 11: {  // FileLineColLoc: filename, line, column
      const BcAttr& file = attr(c);
      uint64_t line = c.varint(), col = c.varint();
      Location l;
      if (file.kind == BcAttr::Kind::string) {
        l.file = IString(file.s);
        l.line = static_cast<uint32_t>(std::min<uint64_t>(line, UINT32_MAX));
        l.column = static_cast<uint32_t>(std::min<uint64_t>(col, UINT32_MAX));
      }
      return loc(l);
    }
    case 12: {  // FusedLoc: locations
      std::vector<const BcAttr*> locs;
      attr_list(locs);
      std::string items;
      for (const BcAttr* l : locs) {
        items += (items.empty() ? "" : ", ") + detail::location_text(l->loc);
        if (items.size() > detail::kMaxLocationText) break;
      }
      return loc(detail::capped_location("fused[" + items + "]"));
    }
    case 13: {  // FusedLocWithMetadata: locations, metadata (its text is not rebuilt here)
      std::vector<const BcAttr*> locs;
      attr_list(locs);
      attr(c);
      return loc(Location{});
    }
    case 14: {  // NameLoc: name, child location
      const BcAttr& name = attr(c);
      const BcAttr& child = attr(c);
      std::string q = detail::escape_string(name.s);
      if (child.kind == BcAttr::Kind::location && child.loc.file.empty() && child.loc.text.empty())
        return loc(detail::capped_location(q));
      return loc(detail::capped_location(q + "(" + detail::location_text(child.loc) + ")"));
    }
    case 22: {  // FileLineColRange: filename, [line[, col[, end line], end col]]
      const BcAttr& file = attr(c);
      uint64_t n = c.varint();
      if (n > 4) c.fail_at(at, "at most 4 line/column numbers", fmt::format("{}", n));
      uint64_t v[4] = {0, 0, 0, 0};
      for (uint64_t k = 0; k < n; ++k) v[k] = c.varint();
      std::string f = detail::escape_string(file.s);
      if (n <= 2) {
        Location l;
        l.file = IString(file.s);
        l.line = static_cast<uint32_t>(std::min<uint64_t>(v[0], UINT32_MAX));
        l.column = static_cast<uint32_t>(std::min<uint64_t>(v[1], UINT32_MAX));
        return loc(l);
      }
      if (n == 3)
        return loc(detail::capped_location(fmt::format("{}:{}:{} to :{}", f, v[0], v[1], v[2])));
      return loc(
          detail::capped_location(fmt::format("{}:{}:{} to {}:{}", f, v[0], v[1], v[2], v[3])));
    }
    case 15:
      return loc(Location{});
    default: {
      // Other builtin attributes (newer location kinds, dense arrays, ...) are kept as `other`
      // and are an error only where an op needs them.
      BcAttr a = make(BcAttr::Kind::other);
      a.what = fmt::format("builtin attribute code {} at byte {}", code, at);
      c.bytes(c.remaining());
      return a;
    }
  }
}

}  // namespace hhlo::bc
