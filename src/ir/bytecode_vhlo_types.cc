// Types of the attribute/type table in VHLO's bytecode encodings (stablehlo/dialect/
// VhloBytecode.cpp, enum TypeCode). Types we have no IR form for (tokens, tuples, quantized,
// unranked, bounded) are read as `other` naming what they are; an op using one is a ParseError.
#include <fmt/format.h>

#include "bytecode_internal.h"

namespace hhlo::bc {

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
      return element_type(DType::pred);
    case 1: {
      const BcType& part = type(c);
      if (part.kind != BcType::Kind::element ||
          (part.dtype != DType::f32 && part.dtype != DType::f64))
        c.fail_at(at, "complex<f32> or complex<f64>", "another complex type");
      BcType t = element_type(part.dtype == DType::f32 ? DType::c64 : DType::c128);
      return t;
    }
    case 2:
      return element_type(DType::bf16);
    case 3:
      return element_type(DType::f16);
    case 4:
      return element_type(DType::f32);
    case 5:
      return element_type(DType::f64);
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
      return element_type(DType::i8);
    case 12:
      return element_type(DType::i16);
    case 13:
      return element_type(DType::i32);
    case 14:
      return element_type(DType::i64);
    case 16:
      return element_type(DType::ui8);
    case 17:
      return element_type(DType::ui16);
    case 18:
      return element_type(DType::ui32);
    case 19:
      return element_type(DType::ui64);
    case 20:
      return ranked_tensor(c);
    case 21: {
      attr(c);  // the encoding (bounds)
      uint64_t n = c.varint();
      if (n > c.remaining()) c.fail("a shorter shape", fmt::format("{} dims", n));
      for (uint64_t k = 0; k < n; ++k) c.svarint();
      type(c);
      return other_type("a bounded tensor type (vhlo.tensor_v1 with an encoding)");
    }
    case 22:
      return other_type("vhlo.token_v1");
    case 23: {
      std::vector<const BcType*> elems;
      list(elems);
      return other_type("vhlo.tuple_v1");
    }
    case 25: {
      type(c);
      return other_type("vhlo.unranked_tensor_v1");
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

}  // namespace hhlo::bc
