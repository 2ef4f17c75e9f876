// Types of the attribute/type table: VHLO's bytecode encodings (stablehlo/dialect/VhloBytecode.cpp,
// enum TypeCode) and the few builtin ones (mlir/lib/IR/BuiltinDialectBytecode.td). Types we have
// no IR form for (tokens, tuples, quantized, unranked, bounded) are read as `other` naming what
// they are; an op using one is a ParseError.
#include <fmt/format.h>

#include "bytecode_internal.h"
#include "hhlo/ir/parser.h"

namespace hhlo::bc {
namespace {

BcType element(DType d) {
  BcType t;
  t.kind = BcType::Kind::element;
  t.dtype = d;
  return t;
}

BcType other(std::string what) {
  BcType t;
  t.kind = BcType::Kind::other;
  t.what = std::move(what);
  return t;
}

}  // namespace

BcType Reader::ranked_tensor(Cursor& c) {
  BcType t;
  t.kind = BcType::Kind::tensor;
  uint64_t n = c.varint();
  if (n > c.remaining() || n > 64) c.fail("a tensor rank of at most 64", fmt::format("{}", n));
  for (uint64_t k = 0; k < n; ++k) {
    size_t dim_at = c.offset();
    int64_t v = c.svarint();
    if (v == INT64_MIN)
      v = kDynamic;
    else if (v < 0)
      c.fail_at(dim_at, "a dimension size >= 0 or dynamic", fmt::format("{}", v));
    t.dims.push_back(v);
  }
  const BcType& el = type(c);
  if (el.kind == BcType::Kind::index) {  // 64-bit elements (IndexType's storage width)
    t.dtype = DType::i64;
    t.index_elements = true;
    return t;
  }
  if (el.kind != BcType::Kind::element)
    return other(fmt::format("a tensor of {}", el.what.empty() ? "a non-element type" : el.what));
  t.dtype = el.dtype;
  return t;
}

const BcType& Reader::type(uint64_t i, const Cursor& c) {
  if (i >= type_entries_.size())
    c.fail(fmt::format("a type index below {}", type_entries_.size()), fmt::format("{}", i));
  if (types_[i]) return *types_[i];
  if (busy_types_[i]) c.fail("a type that does not contain itself", fmt::format("type {}", i));
  Depth guard(depth_, c);
  busy_types_[i] = 1;
  const Entry& e = type_entries_[i];
  Cursor ec(this, "attribute/type", e.begin, e.end);
  BcType t = read_type(e, ec);
  t.offset = offset_of(e.begin);
  if (!ec.empty()) ec.fail("the end of the type entry", "trailing bytes");
  busy_types_[i] = 0;
  types_[i] = std::make_unique<BcType>(std::move(t));
  return *types_[i];
}

BcType Reader::read_type(const Entry& e, Cursor& c) {
  const std::string& d = dialects_[e.dialect];
  if (!e.custom) {  // the type's assembly text
    std::string_view text = c.cstring();
    if (text.starts_with("tensor<")) {
      try {
        TensorType tt = parse_type(text);
        BcType t;
        t.kind = BcType::Kind::tensor;
        t.dtype = tt.dtype;
        t.dims = tt.dims;
        return t;
      } catch (const ParseError&) {  // a tensor type our parser does not read (an encoding, a
                                     // bound): kept as opaque text below, as any other type is
      }
    }
    return other(std::string(text));
  }
  if (d == "vhlo") return read_vhlo_type(c);
  if (d == "builtin") return read_builtin_type(c);
  return other(fmt::format("a type of dialect '{}'", d));
}

BcType Reader::read_vhlo_type(Cursor& c) {
  size_t at = c.offset();
  uint64_t code = c.varint();
  auto list = [&](std::vector<const BcType*>& out) {
    uint64_t n = c.varint();
    if (n > c.remaining()) c.fail(fmt::format("{} types", n), "a shorter entry");
    for (uint64_t k = 0; k < n; ++k) out.push_back(&type(c));
  };
  switch (code) {
    case 0:
      return element(DType::pred);
    case 1: {
      const BcType& part = type(c);
      if (part.kind != BcType::Kind::element ||
          (part.dtype != DType::f32 && part.dtype != DType::f64))
        c.fail_at(at, "complex<f32> or complex<f64>", "another complex type");
      BcType t = element(part.dtype == DType::f32 ? DType::c64 : DType::c128);
      return t;
    }
    case 2:
      return element(DType::bf16);
    case 3:
      return element(DType::f16);
    case 4:
      return element(DType::f32);
    case 5:
      return element(DType::f64);
    case 8: {
      BcType t;
      t.kind = BcType::Kind::function;
      list(t.inputs);
      list(t.outputs);
      return t;
    }
    case 9: {
      BcType t;
      t.kind = BcType::Kind::index;
      t.what = "vhlo.index_v1";
      return t;
    }
    case 11:
      return element(DType::i8);
    case 12:
      return element(DType::i16);
    case 13:
      return element(DType::i32);
    case 14:
      return element(DType::i64);
    case 16:
      return element(DType::ui8);
    case 17:
      return element(DType::ui16);
    case 18:
      return element(DType::ui32);
    case 19:
      return element(DType::ui64);
    case 20:
      return ranked_tensor(c);
    case 21: {
      attr(c);  // the encoding (bounds)
      uint64_t n = c.varint();
      if (n > c.remaining()) c.fail("a shorter shape", fmt::format("{} dims", n));
      for (uint64_t k = 0; k < n; ++k) c.svarint();
      type(c);
      return other("a bounded tensor type (vhlo.tensor_v1 with an encoding)");
    }
    case 22:
      return other("vhlo.token_v1");
    case 23: {
      std::vector<const BcType*> elems;
      list(elems);
      return other("vhlo.tuple_v1");
    }
    case 25: {
      type(c);
      return other("vhlo.unranked_tensor_v1");
    }
    case 33: {
      BcType t;
      t.kind = BcType::Kind::none;
      t.what = "vhlo.none_v1";
      return t;
    }
    default:
      // A later code than the newest known is a later VHLO attribute or type
      // (bytecode_vhlo_codes.cc).
      c.fail_at(at, "a VHLO type read here (bytecode: VHLO type code not read yet)",
                vhlo_type_code_text(code));
  }
}

BcType Reader::read_builtin_type(Cursor& c) {
  size_t at = c.offset();
  uint64_t code = c.varint();
  switch (code) {
    case 0: {
      uint64_t w = c.varint();
      uint64_t width = w >> 2, signedness = w & 3;  // 0 signless, 1 signed, 2 unsigned
      bool u = signedness == 2;
      switch (width) {
        case 1:
          return element(DType::pred);
        case 8:
          return element(u ? DType::ui8 : DType::i8);
        case 16:
          return element(u ? DType::ui16 : DType::i16);
        case 32:
          return element(u ? DType::ui32 : DType::i32);
        case 64:
          return element(u ? DType::ui64 : DType::i64);
        default:
          return other(fmt::format("i{}", width));
      }
    }
    case 1: {
      BcType t;
      t.kind = BcType::Kind::index;
      t.what = "index";
      return t;
    }
    case 3:
      return element(DType::bf16);
    case 4:
      return element(DType::f16);
    case 5:
      return element(DType::f32);
    case 6:
      return element(DType::f64);
    case 12: {
      BcType t;
      t.kind = BcType::Kind::none;
      t.what = "none";
      return t;
    }
    case 9: {  // ComplexType: element type
      const BcType& part = type(c);
      if (part.kind != BcType::Kind::element ||
          (part.dtype != DType::f32 && part.dtype != DType::f64))
        c.fail_at(at, "complex<f32> or complex<f64>", "another complex type");
      return element(part.dtype == DType::f32 ? DType::c64 : DType::c128);
    }
    case 13:  // RankedTensorType: shape, element type (Shardy's ops keep builtin types)
      return ranked_tensor(c);
    case 14:
      return other("a tensor type with an encoding");
    default:
      c.fail_at(at, "a builtin type read here (bytecode: builtin type code not read yet)",
                fmt::format("type code {}", code));
  }
}

}  // namespace hhlo::bc
