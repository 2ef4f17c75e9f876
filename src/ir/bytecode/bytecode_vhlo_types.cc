// Types of the attribute/type table in VHLO's bytecode encodings (stablehlo/dialect/
// VhloBytecode.cpp, enum TypeCode). Types we have no IR form for (tuples, quantized, unranked,
// bounded, tf32) are read as `other` naming what they are; an op using one is a ParseError.
// `vhlo.token_v1` is the element type `token`, which stands alone as a value's type.
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
    case 6:
      return element_type(DType::f8E4M3FN);
    case 7:
      return element_type(DType::f8E5M2);
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
    case 10:
      return element_type(DType::i4);
    case 11:
      return element_type(DType::i8);
    case 12:
      return element_type(DType::i16);
    case 13:
      return element_type(DType::i32);
    case 14:
      return element_type(DType::i64);
    case 15:
      return element_type(DType::ui4);
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
      return element_type(DType::token);
    case 23: {
      std::vector<const BcType*> elems;
      list(elems);
      return other_type("vhlo.tuple_v1");
    }
    case 25: {
      type(c);
      return other_type("vhlo.unranked_tensor_v1");
    }
    case 27:
      return element_type(DType::f8E4M3FNUZ);
    case 28:
      return element_type(DType::f8E5M2FNUZ);
    case 29:
      return element_type(DType::f8E4M3B11FNUZ);
    case 31:
      return element_type(DType::i2);
    case 32:
      return element_type(DType::ui2);
    case 35:
      return element_type(DType::f8E4M3);
    case 36:
      return element_type(DType::f8E3M4);
    case 37:
      return element_type(DType::f4E2M1FN);
    case 38:
      return element_type(DType::f6E2M3FN);
    case 39:
      return element_type(DType::f6E3M2FN);
    case 40:
      return element_type(DType::f8E8M0FNU);
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
