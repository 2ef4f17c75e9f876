// The builtin dialect's types and attributes in the attribute/type table (MLIR's
// mlir/include/mlir/IR/BuiltinDialectBytecode.td: each kind's code is its place in the
// BuiltinDialectTypes / BuiltinDialectAttributes lists, its fields in the order listed there),
// locations included, and the helpers the other dialects' readers share. A kind we have no IR
// form for is read to its end and kept as `other`, named where an op uses it.
#include <fmt/format.h>

#include <cstring>

#include "../attribute_text.h"
#include "bytecode_internal.h"

namespace hhlo::bc {

// ---------------------------------------------------------------- shared helpers

BcType element_type(DType d) {
  BcType t;
  t.kind = BcType::Kind::element;
  t.dtype = d;
  return t;
}

BcType other_type(std::string what) {
  BcType t;
  t.kind = BcType::Kind::other;
  t.what = std::move(what);
  return t;
}

BcAttr make_attr(BcAttr::Kind k) {
  BcAttr a;
  a.kind = k;
  return a;
}

BcAttr enum_attr(std::string kind, int64_t v) {
  BcAttr a = make_attr(BcAttr::Kind::enumeration);
  a.s = std::move(kind);
  a.i = v;
  return a;
}

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

std::string type_text(const BcType& t) {
  switch (t.kind) {
    case BcType::Kind::element:
      return std::string(mlir_name(t.dtype));
    case BcType::Kind::tensor: {
      std::string s = "tensor<";
      for (int64_t d : t.dims) s += d == kDynamic ? "?x" : fmt::format("{}x", d);
      return s + (t.index_elements ? "index" : std::string(mlir_name(t.dtype))) + ">";
    }
    case BcType::Kind::function: {
      std::string s = "(";
      for (size_t k = 0; k < t.inputs.size(); ++k) s += (k ? ", " : "") + type_text(*t.inputs[k]);
      s += ") -> ";
      if (t.outputs.size() == 1 && t.outputs[0]->kind != BcType::Kind::function)
        return s + type_text(*t.outputs[0]);
      s += "(";
      for (size_t k = 0; k < t.outputs.size(); ++k) s += (k ? ", " : "") + type_text(*t.outputs[k]);
      return s + ")";
    }
    case BcType::Kind::index:
      return "index";
    case BcType::Kind::none:
      return "none";
    default:
      return t.what;
  }
}

// ---------------------------------------------------------------- types

namespace {

/// BuiltinDialectTypes, in code order (what an error names).
constexpr std::string_view kTypeNames[] = {
    "IntegerType",        "IndexType",          "FunctionType",
    "BFloat16Type",       "Float16Type",        "Float32Type",
    "Float64Type",        "Float80Type",        "Float128Type",
    "ComplexType",        "MemRefType",         "MemRefType (with a memory space)",
    "NoneType",           "RankedTensorType",   "RankedTensorType (with an encoding)",
    "TupleType",          "UnrankedMemRefType", "UnrankedMemRefType (with a memory space)",
    "UnrankedTensorType", "VectorType",         "VectorType (scalable)"};

/// The float types MLIR added after those (codes 21 on, no fields), as jaxlib 0.10.2 and 0.12.1
/// write them (each seen written alone), read by name (tf32 has no dtype).
constexpr std::string_view kLaterFloats[] = {
    "tf32",          "f8E5M2", "f8E4M3",   "f8E4M3FN", "f8E5M2FNUZ", "f8E4M3FNUZ",
    "f8E4M3B11FNUZ", "f8E3M4", "f4E2M1FN", "f6E2M3FN", "f6E3M2FN",   "f8E8M0FNU"};

/// IntegerType: width and signedness (0 signless, 1 signed, 2 unsigned) in one varint.
BcType integer_type(uint64_t width_and_signedness) {
  uint64_t width = width_and_signedness >> 2, signedness = width_and_signedness & 3;
  if (signedness == 1)  // si32: StableHLO has signless and unsigned integers only
    return other_type(fmt::format("si{}", width));
  bool u = signedness == 2;
  switch (width) {
    case 1:
      return u ? other_type("ui1") : element_type(DType::pred);
    case 2:
      return element_type(u ? DType::ui2 : DType::i2);
    case 4:
      return element_type(u ? DType::ui4 : DType::i4);
    case 8:
      return element_type(u ? DType::ui8 : DType::i8);
    case 16:
      return element_type(u ? DType::ui16 : DType::i16);
    case 32:
      return element_type(u ? DType::ui32 : DType::i32);
    case 64:
      return element_type(u ? DType::ui64 : DType::i64);
    default:
      return other_type(fmt::format("{}i{}", u ? "u" : "", width));
  }
}

}  // namespace

BcType Reader::ranked_tensor(Cursor& c) {
  BcType t;
  t.kind = BcType::Kind::tensor;
  uint64_t n = c.varint();
  if (n > c.remaining() || n > 64) c.fail("a tensor rank of at most 64", fmt::format("{}", n));
  size_t dims_at = c.offset();
  for (uint64_t k = 0; k < n; ++k) {
    size_t dim_at = c.offset();
    int64_t v = c.svarint();
    if (v == INT64_MIN)
      v = kDynamic;
    else if (v < 0 || v > (int64_t{1} << 48))  // the text parser's bounds (parser_types.cc)
      c.fail_at(dim_at, "a dimension size from 0 to 2^48 or dynamic", fmt::format("{}", v));
    t.dims.push_back(v);
  }
  int64_t elements = 1;  // the static dimensions' product, as the text parser bounds it
  for (int64_t d : t.dims)
    if (d != kDynamic && __builtin_mul_overflow(elements, d, &elements))
      c.fail_at(dims_at, "a tensor of at most 2^56 elements", "more than 2^63");
  if (elements > (int64_t{1} << 56))
    c.fail_at(dims_at, "a tensor of at most 2^56 elements", fmt::format("{}", elements));
  const BcType& el = type(c);
  if (el.kind == BcType::Kind::index) {  // 64-bit elements (IndexType's storage width)
    t.dtype = DType::i64;
    t.index_elements = true;
    return t;
  }
  if (el.kind != BcType::Kind::element)
    return other_type(
        fmt::format("a tensor of {}", el.what.empty() ? "a non-element type" : el.what));
  t.dtype = el.dtype;
  return t;
}

BcType Reader::read_builtin_type(Cursor& c) {
  size_t at = c.offset();
  uint64_t code = c.varint();
  auto types = [&](std::vector<const BcType*>& out) {
    uint64_t n = c.varint();
    if (n > c.remaining()) c.fail(fmt::format("{} types", n), "a shorter entry");
    for (uint64_t k = 0; k < n; ++k) out.push_back(&type(c));
  };
  auto shape = [&] {  // the dims of a shaped type we keep no IR form for
    uint64_t n = c.varint();
    if (n > c.remaining()) c.fail(fmt::format("{} dimensions", n), "a shorter entry");
    for (uint64_t k = 0; k < n; ++k) c.svarint();
  };
  switch (code) {
    case 0:
      return integer_type(c.varint());
    case 1: {
      BcType t;
      t.kind = BcType::Kind::index;
      t.what = "index";
      return t;
    }
    case 2: {  // FunctionType: inputs, results
      BcType t;
      t.kind = BcType::Kind::function;
      types(t.inputs);
      types(t.outputs);
      return t;
    }
    case 3:
      return element_type(DType::bf16);
    case 4:
      return element_type(DType::f16);
    case 5:
      return element_type(DType::f32);
    case 6:
      return element_type(DType::f64);
    case 7:
      return other_type("f80");
    case 8:
      return other_type("f128");
    case 9: {  // ComplexType: element type
      const BcType& part = type(c);
      if (part.kind != BcType::Kind::element ||
          (part.dtype != DType::f32 && part.dtype != DType::f64))
        c.fail_at(at, "complex<f32> or complex<f64>", "another complex type");
      return element_type(part.dtype == DType::f32 ? DType::c64 : DType::c128);
    }
    case 12: {
      BcType t;
      t.kind = BcType::Kind::none;
      t.what = "none";
      return t;
    }
    case 13:  // RankedTensorType: shape, element type
      return ranked_tensor(c);
    case 14: {  // RankedTensorType with an encoding: encoding, shape, element type
      const BcAttr& enc = attr(c);
      BcType t = ranked_tensor(c);
      std::string what = enc.kind == BcAttr::Kind::opaque ? enc.s : "an encoding";
      return other_type(
          fmt::format("{} with the encoding {} (tensor encodings such as bounds "
                      "are not read)",
                      type_text(t), what));
    }
    case 15: {  // TupleType: element types
      std::vector<const BcType*> elems;
      types(elems);
      return other_type("tuple<...> (a tuple type)");
    }
    case 18:  // UnrankedTensorType: element type
      type(c);
      return other_type("tensor<*x...> (an unranked tensor type)");
    case 19:
    case 20:  // VectorType: shape, element type
      shape();
      type(c);
      return other_type("vector<...> (a vector type)");
    default:
      if (code >= std::size(kTypeNames) && code - std::size(kTypeNames) < std::size(kLaterFloats)) {
        std::string_view name = kLaterFloats[code - std::size(kTypeNames)];
        for (DType t : kNarrowDTypes)
          if (mlir_name(t) == name) return element_type(t);
        return other_type(std::string(name));
      }
      if (code < std::size(kTypeNames))
        c.fail_at(at, "a builtin type read here (tensors, their element types, functions)",
                  fmt::format("builtin {} (type code {})", kTypeNames[code], code));
      c.fail_at(at, "a builtin type read here (bytecode: builtin type code not read yet)",
                fmt::format("builtin type code {}, newer than the newest this reader knows (32, "
                            "f8E8M0FNU)",
                            code));
  }
}

// ---------------------------------------------------------------- attributes

namespace {

/// BuiltinDialectAttributes, in code order (what an error names), FileLineColRange (22) last.
constexpr std::string_view kAttrNames[] = {"ArrayAttr",
                                           "DictionaryAttr",
                                           "StringAttr",
                                           "StringAttr (with a type)",
                                           "FlatSymbolRefAttr",
                                           "SymbolRefAttr",
                                           "TypeAttr",
                                           "UnitAttr",
                                           "IntegerAttr",
                                           "FloatAttr",
                                           "CallSiteLoc",
                                           "FileLineColLoc",
                                           "FusedLoc",
                                           "FusedLoc (with metadata)",
                                           "NameLoc",
                                           "UnknownLoc",
                                           "DenseResourceElementsAttr (dense_resource)",
                                           "DenseArrayAttr",
                                           "DenseIntOrFPElementsAttr",
                                           "DenseStringElementsAttr",
                                           "SparseElementsAttr",
                                           "DistinctAttr",
                                           "FileLineColRange"};

BcAttr loc_attr(Location l) {
  BcAttr a = make_attr(BcAttr::Kind::location);
  a.loc = std::move(l);
  return a;
}

}  // namespace

BcAttr Reader::read_tensor_data(Cursor& c, const BcType& t) {
  BcAttr a = make_attr(BcAttr::Kind::tensor);
  a.type = &t;
  uint64_t size = c.varint();
  std::span<const uint8_t> blob = c.bytes(static_cast<size_t>(std::min<uint64_t>(size, SIZE_MAX)));
  if (t.kind == BcType::Kind::tensor && t.dtype == DType::pred) {
    // i1 tensors are packed one bit per element; one byte 0xFF is a true splat (MLIR's
    // DenseElementsAttr storage, which VHLO keeps).
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
    if (t.kind == BcType::Kind::tensor && is_narrow(t.dtype))  // the element's bits, high bits 0
      for (auto& b : a.data) b = static_cast<uint8_t>(b & ((1u << bit_width(t.dtype)) - 1));
  }
  return a;
}

// DenseArrayAttr: element type, element count, raw little-endian data (a byte per i1). `array<i64:
// ..>` and `array<i1: ..>` are our I64ArrayAttr and BoolArrayAttr; other integer element types
// are kept as their text, as the text parser keeps them.
BcAttr Reader::read_dense_array(Cursor& c) {
  size_t at = c.offset();
  const BcType& el = type(c);
  uint64_t n = c.varint();
  uint64_t size = c.varint();
  std::span<const uint8_t> blob = c.bytes(static_cast<size_t>(std::min<uint64_t>(size, SIZE_MAX)));
  if (el.kind != BcType::Kind::element || is_float(el.dtype) || is_complex(el.dtype))
    c.fail_at(at, "a dense array of integers (array<i64: ..>, array<i1: ..>)",
              fmt::format("array<{}: ..> (bytecode: not read yet)", type_text(el)));
  size_t es = byte_size(el.dtype);
  if (n > blob.size() || n * es != blob.size())
    c.fail_at(at,
              fmt::format("{} bytes for array<{}: ..> of {} elements", n * es, type_text(el), n),
              fmt::format("{} bytes", blob.size()));
  BcAttr a = make_attr(BcAttr::Kind::typed);
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (size_t k = 0; k < v.size(); ++k) {
    uint64_t bits = 0;
    std::memcpy(&bits, blob.data() + k * es, es);
    v[k] = el.dtype == DType::pred ? (bits & 0xFF) != 0 : sign_fit(bits, el.dtype);
  }
  if (el.dtype == DType::i64) {
    a.value = I64ArrayAttr{std::move(v)};
  } else if (el.dtype == DType::pred) {
    BoolArrayAttr b;
    for (int64_t x : v) b.values.push_back(x != 0);
    a.value = std::move(b);
  } else {
    std::string s = fmt::format("array<{}", type_text(el));
    for (size_t k = 0; k < v.size(); ++k) s += fmt::format("{}{}", k ? ", " : ": ", v[k]);
    a.value = OpaqueAttr{s + ">"};
  }
  return a;
}

BcAttr Reader::read_builtin_attr(Cursor& c) {
  size_t at = c.offset();
  uint64_t code = c.varint();
  auto attr_list = [&](std::vector<const BcAttr*>& out) {
    uint64_t n = c.varint();
    if (n > c.remaining()) c.fail(fmt::format("{} attributes", n), "a shorter entry");
    for (uint64_t k = 0; k < n; ++k) out.push_back(&attr(c));
  };
  auto string_attr = [&](const BcAttr& a) -> const BcAttr& {
    if (a.kind != BcAttr::Kind::string) c.fail_at(at, "a string attribute", "another attribute");
    return a;
  };
  switch (code) {
    case 0: {
      BcAttr a = make_attr(BcAttr::Kind::array);
      attr_list(a.elems);
      return a;
    }
    case 1: {
      BcAttr a = make_attr(BcAttr::Kind::dict);
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
      BcAttr a = make_attr(BcAttr::Kind::string);
      a.s = std::string(string(c));
      return a;
    }
    case 4:    // FlatSymbolRefAttr: the root reference (a string attribute)
    case 5: {  // SymbolRefAttr: the root, then nested references (`@a::@b`)
      BcAttr a = make_attr(BcAttr::Kind::symbol);
      a.s = string_attr(attr(c)).s;
      if (code == 5) {
        std::vector<const BcAttr*> nested;
        attr_list(nested);
        if (!nested.empty())
          c.fail_at(at, "a flat symbol reference (@name)",
                    fmt::format("a nested symbol reference (@{}::...)", a.s));
      }
      return a;
    }
    case 6: {  // TypeAttr
      BcAttr a = make_attr(BcAttr::Kind::type);
      a.type = &type(c);
      return a;
    }
    case 7:
      return make_attr(BcAttr::Kind::unit);
    case 8:
    case 9: {  // IntegerAttr / FloatAttr: type, value of the type's width
      const BcType& t = type(c);
      if (t.kind == BcType::Kind::index) {
        BcAttr a = make_attr(BcAttr::Kind::other);
        a.what = "an index integer";
        read_apint(c, 64);
        return a;
      }
      if (t.kind != BcType::Kind::element || (code == 9 && !is_float(t.dtype)) ||
          (code == 8 && !is_integer(t.dtype) && t.dtype != DType::pred))
        c.fail_at(at, code == 9 ? "a float type" : "an integer type",
                  fmt::format("{} (bytecode: not read yet)", type_text(t)));
      uint64_t bits = read_apint(c, t.dtype == DType::pred ? 1 : bit_width(t.dtype));
      if (t.dtype == DType::pred) {
        BcAttr a = make_attr(BcAttr::Kind::boolean);
        a.i = bits & 1;
        return a;
      }
      BcAttr a = make_attr(code == 9 ? BcAttr::Kind::floating : BcAttr::Kind::integer);
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
      return loc_attr(detail::capped_location("callsite(" + detail::location_text(callee.loc) +
                                              " at " + detail::location_text(caller.loc) + ")"));
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
      return loc_attr(l);
    }
    case 12: {  // FusedLoc: locations
      std::vector<const BcAttr*> locs;
      attr_list(locs);
      std::string items;
      for (const BcAttr* l : locs) {
        items += (items.empty() ? "" : ", ") + detail::location_text(l->loc);
        if (items.size() > detail::kMaxLocationText) break;
      }
      return loc_attr(detail::capped_location("fused[" + items + "]"));
    }
    case 13: {  // FusedLocWithMetadata: locations, metadata (its text is not rebuilt here)
      std::vector<const BcAttr*> locs;
      attr_list(locs);
      attr(c);
      return loc_attr(Location{});
    }
    case 14: {  // NameLoc: name, child location
      const BcAttr& name = attr(c);
      const BcAttr& child = attr(c);
      std::string q = detail::escape_string(name.s);
      if (child.kind == BcAttr::Kind::location && child.loc.file.empty() && child.loc.text.empty())
        return loc_attr(detail::capped_location(q));
      return loc_attr(detail::capped_location(q + "(" + detail::location_text(child.loc) + ")"));
    }
    case 15:
      return loc_attr(Location{});
    case 16:  // DenseResourceElementsAttr: shaped type, resource handle
      return read_dense_resource(c);
    case 17:  // DenseArrayAttr
      return read_dense_array(c);
    case 18: {  // DenseIntOrFPElementsAttr: shaped type, raw data
      const BcType& t = type(c);
      return read_tensor_data(c, t);
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
        return loc_attr(l);
      }
      if (n == 3)
        return loc_attr(
            detail::capped_location(fmt::format("{}:{}:{} to :{}", f, v[0], v[1], v[2])));
      return loc_attr(
          detail::capped_location(fmt::format("{}:{}:{} to {}:{}", f, v[0], v[1], v[2], v[3])));
    }
    default: {
      // Other builtin attributes (typed strings, string tensors, sparse and
      // distinct attributes, kinds newer than this reader) are kept as `other`, named by the
      // error where an op uses one.
      BcAttr a = make_attr(BcAttr::Kind::other);
      a.what = code < std::size(kAttrNames)
                   ? fmt::format("builtin {} (attribute code {})", kAttrNames[code], code)
                   : fmt::format(
                         "builtin attribute code {}, newer than the newest this reader "
                         "knows (22, FileLineColRange)",
                         code);
      c.bytes(c.remaining());
      return a;
    }
  }
}

}  // namespace hhlo::bc
