// Named regression tests of the crashes and violated properties the fuzz targets found (tests/fuzz,
// docs/reliability.md). Each test states the fault with the smallest API call that shows it; the
// input that found it is kept in tests/fuzz/regressions/<target>/ and replayed by replay_test.cc.
#include <gtest/gtest.h>

#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "hhlo/core/error.h"
#include "hhlo/core/tensor_type.h"
#include "hhlo/ir/bytecode.h"
#include "hhlo/ir/conv_dimension_numbers.h"
#include "hhlo/ir/infer.h"
#include "hhlo/ir/ops.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"
#include "hhlo/ir/verifier.h"
#include "hhlo/nn/checkpoint.h"

namespace hhlo {
namespace {

// shape_rules, regressions/shape_rules/num-elements-overflow-before-zero-dim: a shape with a 0
// dimension has no elements, however large the dimensions before it; num_elements threw
// "more elements than a 64-bit count holds" for 2^62 x 3 x 0.
TEST(FuzzRegressions, ZeroDimensionAfterAnOverflowingPrefixMeansNoElements) {
  EXPECT_EQ(num_elements(Dims{int64_t{1} << 62, 3, 0}), 0);
  EXPECT_EQ(num_elements(Dims{int64_t{1} << 62, 0, 3}), 0);
  EXPECT_THROW(num_elements(Dims{int64_t{1} << 62, 3}), Error);
}

// Same input: reshape of an operand whose element count overflows 64 bits let the core's plain
// hhlo::Error escape from the shape rule instead of a ShapeError citing (C2).
TEST(FuzzRegressions, ReshapeOfATypeWhoseElementCountOverflowsIsAShapeErrorC2) {
  TensorType huge{DType::i32, {int64_t{1} << 62, 3, 1}};
  try {
    infer_reshape(huge, {4});
    FAIL() << "no error";
  } catch (const ShapeError& e) {
    EXPECT_EQ(e.op(), "reshape");
    EXPECT_EQ(e.constraint(), "C2");
  }
  EXPECT_THROW(infer_reshape(TensorType{DType::i32, {4}}, {int64_t{1} << 62, 3}), ShapeError);
}

// shape_rules, regressions/shape_rules/reduce-precision-bits-beyond-i32: reduce_precision took
// exponent_bits = mantissa_bits = 2^63 - 1, printed them as `: i32` attributes, and the parser
// (rightly) refused the text. Both attributes are si32 in the spec.
TEST(FuzzRegressions, ReducePrecisionBitCountsOutsideSi32AreShapeErrors) {
  TensorType f64{DType::f64, {}};
  int64_t big = int64_t{1} << 31;
  EXPECT_THROW(infer_reduce_precision(f64, big, 1), ShapeError);
  EXPECT_THROW(infer_reduce_precision(f64, 8, big), ShapeError);
  EXPECT_EQ(infer_reduce_precision(f64, big - 1, big - 1), f64);
}

// shape_rules (libFuzzer, UBSan), regressions/shape_rules/rng-bit-generator-state-size-overflow:
// rng_bit_generator multiplied the state's size by its bit width in int64 (2^62 x 64: signed
// overflow, undefined behaviour) before comparing with 128/192 bits.
TEST(FuzzRegressions, RngBitGeneratorHugeStateIsAShapeErrorWithoutOverflow) {
  TensorType out{DType::ui32, {4}};
  for (RngAlgorithm alg : {RngAlgorithm::THREE_FRY, RngAlgorithm::PHILOX}) {
    EXPECT_THROW(infer_rng_bit_generator({DType::ui64, {int64_t{1} << 62}}, alg, out), ShapeError);
    EXPECT_THROW(infer_rng_bit_generator({DType::ui64, {(int64_t{1} << 58) + 2}}, alg, out),
                 ShapeError);
  }
  EXPECT_EQ(infer_rng_bit_generator({DType::ui64, {2}}, RngAlgorithm::THREE_FRY, out).at(1), out);
}

// shape_rules (libFuzzer, UBSan), regressions/shape_rules/concatenate-dimension-sum-overflow:
// concatenate added the inputs' sizes along the dimension in int64 (2^62 + 2^62: signed overflow).
TEST(FuzzRegressions, ConcatenateWhoseSizesOverflowIsAShapeError) {
  TensorType big{DType::f32, {int64_t{1} << 62}};
  std::vector<TensorType> three{big, big, big};
  EXPECT_THROW(infer_concatenate(three, 0), ShapeError);
  std::vector<TensorType> two{TensorType{DType::f32, {2}}, TensorType{DType::f32, {3}}};
  EXPECT_EQ(infer_concatenate(two, 0), (TensorType{DType::f32, {5}}));
}

// Found by reading the rules after the all_to_all finding (the same product): all_gather
// multiplied the gather dimension by the group size in int64 (2^62 x 2: signed overflow).
TEST(FuzzRegressions, AllGatherWhoseSizeOverflowsIsAShapeErrorC6) {
  ReplicaGroups two{{{0, 1}}};
  std::vector<TensorType> big{TensorType{DType::f32, {int64_t{1} << 62}}};
  try {
    infer_all_gather(big, 0, two, std::nullopt, false);
    FAIL() << "accepted 2^62 x 2";
  } catch (const ShapeError& e) {
    EXPECT_EQ(e.constraint(), "C6") << e.what();
  }
  std::vector<TensorType> small{TensorType{DType::f32, {3, 2}}};
  EXPECT_EQ(infer_all_gather(small, 1, two, std::nullopt, false),
            (std::vector<TensorType>{TensorType{DType::f32, {3, 4}}}));
}

// shape_rules (libFuzzer, UBSan, sixth session),
// regressions/shape_rules/pad-interior-size-overflow: pad computed low + size + high + (size - 1) *
// interior in int64 (2^31 - 1 times 2^40: signed overflow). With low = high = 2^41 the wrapped sum
// is positive: a wrong size was accepted.
TEST(FuzzRegressions, PadWhoseSizeOverflowsIsAShapeErrorC4) {
  TensorType x{DType::f32, {int64_t{1} << 31}}, pad_value{DType::f32, {}};
  std::vector<int64_t> edge{int64_t{1} << 41}, interior{int64_t{1} << 40};
  try {
    infer_pad(x, pad_value, edge, edge, interior);
    FAIL() << "accepted a padded size beyond 2^63";
  } catch (const ShapeError& e) {
    EXPECT_EQ(e.constraint(), "C4") << e.what();
  }
  // In range: 3 elements, low 1, high 2, interior 1: 1 + 3 + 2 + 2 * 1 = 8.
  std::vector<int64_t> low{1}, high{2}, one{1};
  EXPECT_EQ(infer_pad(TensorType{DType::f32, {3}}, pad_value, low, high, one),
            (TensorType{DType::f32, {8}}));
}

// shape_rules (libFuzzer, UBSan, sixth session),
// regressions/shape_rules/reduce-window-padding-overflow: the number of windows added padding and
// dilated size in int64 ((2^63 - 1) + (2^63 - 1): signed overflow); the rule shared by
// reduce_window (C15), select_and_scatter (C2) and convolution (C25).
TEST(FuzzRegressions, WindowSizesThatOverflowAreShapeErrorsNotSignedOverflow) {
  const int64_t max = std::numeric_limits<int64_t>::max();
  std::vector<TensorType> in{TensorType{DType::f32, {4}}}, init{TensorType{DType::f32, {}}};
  std::vector<int64_t> one{1};
  std::vector<std::pair<int64_t, int64_t>> huge{{max, max}};
  try {
    infer_reduce_window(in, init, one, one, one, one, huge);
    FAIL() << "accepted padding (2^63 - 1, 2^63 - 1)";
  } catch (const ShapeError& e) {
    EXPECT_EQ(e.constraint(), "C15") << e.what();
  }
  std::vector<int64_t> huge_dilation{max};
  std::vector<std::pair<int64_t, int64_t>> none{{0, 0}};
  EXPECT_THROW(infer_reduce_window(in, init, one, one, huge_dilation, one, none), ShapeError);
  // In range: 4 elements, window 2, stride 1, padding (1, 1): (1 + 4 + 1 - 2) / 1 + 1 = 5.
  std::vector<int64_t> two{2};
  std::vector<std::pair<int64_t, int64_t>> pad{{1, 1}};
  EXPECT_EQ(infer_reduce_window(in, init, two, one, one, one, pad),
            (std::vector<TensorType>{TensorType{DType::f32, {5}}}));
}

// shape_rules (libFuzzer, sixth session), regressions/shape_rules/irfft-negative-fft-length:
// IRFFT with fft_length = [-2] checked the operand's last dimension against -2 / 2 + 1 = 0 and
// made a result dimension of -2, which printed as `tensor<0x0x0x-2xf64>` and did not parse back.
TEST(FuzzRegressions, FftLengthWithANegativeSizeIsAShapeErrorC3) {
  TensorType x{DType::c128, {0, 0, 0, 0}};
  std::vector<int64_t> negative{-2};
  try {
    infer_fft(x, FftType::IRFFT, negative);
    FAIL() << "accepted fft_length [-2]";
  } catch (const ShapeError& e) {
    EXPECT_EQ(e.constraint(), "C3") << e.what();
  }
  // A valid IRFFT: last operand dim 8 / 2 + 1 = 5 -> result last dim 8, f64.
  std::vector<int64_t> eight{8};
  EXPECT_EQ(infer_fft(TensorType{DType::c128, {3, 5}}, FftType::IRFFT, eight),
            (TensorType{DType::f64, {3, 8}}));
}

// shape_rules (libFuzzer, sixth session),
// regressions/shape_rules/dot-general-preferred-equal-to-lhs-verifies: dot_general of i32 and i1
// operands with preferred_element_type = i32 (the lhs type) was built, then refused by the verifier
// (C13, "element types differ"): it read a preferred type from the result only when that differed
// from the lhs, so the builder's and the verifier's rules disagreed.
TEST(FuzzRegressions, DotGeneralOfMixedOperandsWithPreferredTypeOfTheLhsVerifies) {
  Module m;
  Func& f = m.add_func("main", {{DType::i32, {2, 3}}, {DType::pred, {3}}});
  DotDimensionNumbers d;
  d.lhs_contracting_dimensions = {1};
  d.rhs_contracting_dimensions = {0};
  Value r = dot_general(f.arg(0), f.arg(1), d, {.preferred_element_type = DType::i32});
  EXPECT_EQ(r.type(), (TensorType{DType::i32, {2}}));
  f.ret({r});
  EXPECT_NO_THROW(verify(m));
  std::string printed = to_mlir(m);
  EXPECT_NO_THROW(parse_module(printed)) << printed;  // verified on the way in
  // Without a preferred type, mixed operands are still refused, by both.
  Module m2;
  Func& g = m2.add_func("main", {{DType::i32, {2, 3}}, {DType::pred, {3}}});
  EXPECT_THROW(dot_general(g.arg(0), g.arg(1), d), ShapeError);
  // The same rule for convolution (same reading of the result type by the verifier).
  Module m3;
  Func& h = m3.add_func("main", {{DType::f32, {1, 4, 4, 1}}, {DType::f16, {2, 2, 1, 1}}});
  ConvOptions o;
  o.preferred_element_type = DType::f32;
  Value c = convolution(h.arg(0), h.arg(1), conv_dimension_numbers("NHWC", "HWIO", "NHWC"), o);
  EXPECT_EQ(c.type(), (TensorType{DType::f32, {1, 3, 3, 1}}));
  h.ret({c});
  EXPECT_NO_THROW(verify(m3));
}

// shape_rules (libFuzzer, UBSan, sixth session),
// regressions/shape_rules/all-to-all-concat-size-overflow: all_to_all multiplied the concat
// dimension by split_count in int64 (2^62 x 3: signed overflow), where the result type must hold
// dim(operand, concat_dimension) * split_count (C9).
TEST(FuzzRegressions, AllToAllWhoseConcatSizeOverflowsIsAShapeErrorC9) {
  ReplicaGroups three{{{0, 1, 2}}};
  TensorType big{DType::f32, {3, int64_t{1} << 62}};
  try {
    infer_all_to_all(std::vector<TensorType>{big}, 0, 1, 3, three);
    FAIL() << "accepted a concat dimension of 2^62 x 3";
  } catch (const ShapeError& e) {
    EXPECT_EQ(e.constraint(), "C9") << e.what();
  }
  // In range: split dimension 6 / 3 = 2, concat dimension 4 x 3 = 12.
  std::vector<TensorType> out =
      infer_all_to_all(std::vector<TensorType>{TensorType{DType::f32, {6, 4}}}, 0, 1, 3, three);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], (TensorType{DType::f32, {2, 12}}));
}

// shape_rules (libFuzzer, UBSan), regressions/shape_rules/bitcast-convert-widening-size-overflow:
// widening bitcast_convert multiplied the last dimension by the input bit width in int64 (2^62 x
// 16: signed overflow); 2^60 + 2 x 16 wrapped to 32, so f16 -> f32 was accepted on a last
// dimension of 2^60 + 2 instead of 2 (C1).
TEST(FuzzRegressions, BitcastConvertWideningWhoseSizeOverflowsIsAShapeErrorC1) {
  for (int64_t last : {int64_t{1} << 62, (int64_t{1} << 60) + 2}) {
    try {
      infer_bitcast_convert(TensorType{DType::f16, {3, last}}, DType::f32);
      FAIL() << "accepted a last dimension of " << last;
    } catch (const ShapeError& e) {
      EXPECT_EQ(e.op(), "bitcast_convert");
      EXPECT_EQ(e.constraint(), "C1");
    }
  }
  EXPECT_EQ(infer_bitcast_convert(TensorType{DType::f16, {3, 2}}, DType::f32),
            (TensorType{DType::f32, {3}}));
}

// shape_rules (libFuzzer, UBSan), regressions/shape_rules/slice-huge-stride-overflow: slice
// rounded its size up as (limit - start + stride - 1) / stride in int64: a stride of 2^63 - 1
// overflowed, and for limit - start = 2 wrapped to a negative (dynamic) size instead of 1.
TEST(FuzzRegressions, SliceWithAHugeStrideHasTheRoundedUpSizeWithoutOverflow) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  std::vector<int64_t> start{0, 1, 3}, limit{2, 5, 3}, strides{kMax, kMax, kMax};
  EXPECT_EQ(infer_slice(TensorType{DType::f32, {4, 5, 3}}, start, limit, strides),
            (TensorType{DType::f32, {1, 1, 0}}));
  std::vector<int64_t> s0{1}, l0{8}, st{3};
  EXPECT_EQ(infer_slice(TensorType{DType::f32, {8}}, s0, l0, st), (TensorType{DType::f32, {3}}));
}

std::string regression_input(const std::string& target, const std::string& name) {
  std::ifstream in(std::string(HHLO_SOURCE_DIR) + "/tests/fuzz/regressions/" + target + "/" + name,
                   std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// npz (libFuzzer, out-of-memory), regressions/npz/deflated-member-declaring-4gib: an 89-byte
// archive whose deflated member declares 4 GiB uncompressed made parse_npz allocate the 4 GiB
// before inflating. Deflate expands at most about 1032:1, so such a member is refused unread. The
// archive has no central directory, which the reader now follows (members with data descriptors,
// issue 44), so it is refused before any member is read; the ratio check through a central
// directory: NpzCentralDirectory.ADeflatedMemberDeclaringMoreThanDeflateCanHoldIsRefusedUnread.
TEST(FuzzRegressions, NpzMemberDeclaringMoreThanDeflateCanHoldIsRefusedBeforeAllocating) {
  std::string bytes = regression_input("npz", "deflated-member-declaring-4gib");
  ASSERT_EQ(bytes.size(), 89u);
  try {
    nn::parse_npz(std::span(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()),
                  "fuzz.npz");
    FAIL() << "no error";
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find("is truncated (no end of central directory record"),
              std::string::npos)
        << e.what();
  }
}

// bytecode, regressions/bytecode/dimension-beyond-the-text-parsers-bound (the property "what
// reads prints as text that parses"): a mutated program was read with a dimension of
// 9223372036854775710 and printed; the text parser refused the print ("an out-of-range number").
// The reader now refuses a dimension beyond the text parser's bound (2^48; 2^56 elements) where it
// reads it. The input kept is jaxlib's bytecode of `tensor<9223372036854775710xf32>` (MLIR's
// parser accepts it), as the mutant was not kept.
TEST(FuzzRegressions, BytecodeDimensionBeyondTheTextParsersBoundIsAParseError) {
  std::string bytes = regression_input("bytecode", "dimension-beyond-the-text-parsers-bound");
  ASSERT_GT(bytes.size(), 100u);
  try {
    to_mlir(read_bytecode(bytes, {.verify = false}));
    FAIL() << "no error";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "expected a dimension size from 0 to 2^48 or dynamic, found 9223372036854775710"),
              std::string::npos)
        << e.what();
    EXPECT_NE(e.source().find("(bytecode attribute/type section)"), std::string::npos)
        << e.source();
  }
}

}  // namespace
}  // namespace hhlo
