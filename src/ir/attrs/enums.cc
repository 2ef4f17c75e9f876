// The StableHLO enums, printed and read: `#stablehlo<comparison_direction EQ>` and the bare word
// (`EQ`) of the pretty forms. One EnumText per enum gives its kind and value names to both.
#include <fmt/format.h>

#include <array>

#include "../text/parser_internal.h"
#include "syntax.h"

namespace hhlo {
namespace {

/// An enum's kind as MLIR spells it (`comparison_direction`) and its value names in order.
template <typename E>
struct EnumText;
template <>
struct EnumText<ComparisonDirection> {
  static constexpr std::string_view kind = "comparison_direction";
  static constexpr std::array<std::string_view, 6> names = {"EQ", "NE", "GE", "GT", "LE", "LT"};
};
template <>
struct EnumText<ComparisonType> {
  static constexpr std::string_view kind = "comparison_type";
  static constexpr std::array<std::string_view, 5> names = {"NOTYPE", "FLOAT", "TOTALORDER",
                                                            "SIGNED", "UNSIGNED"};
};
template <>
struct EnumText<Precision> {
  static constexpr std::string_view kind = "precision";
  static constexpr std::array<std::string_view, 3> names = {"DEFAULT", "HIGH", "HIGHEST"};
};
template <>
struct EnumText<RngDistribution> {
  static constexpr std::string_view kind = "rng_distribution";
  static constexpr std::array<std::string_view, 2> names = {"UNIFORM", "NORMAL"};
};
template <>
struct EnumText<RngAlgorithm> {
  static constexpr std::string_view kind = "rng_algorithm";
  static constexpr std::array<std::string_view, 3> names = {"DEFAULT", "THREE_FRY", "PHILOX"};
};
template <>
struct EnumText<FftType> {
  static constexpr std::string_view kind = "fft_type";
  static constexpr std::array<std::string_view, 4> names = {"FFT", "IFFT", "RFFT", "IRFFT"};
};
template <>
struct EnumText<Transpose> {
  static constexpr std::string_view kind = "transpose";
  static constexpr std::array<std::string_view, 3> names = {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"};
};

template <typename E>
std::string_view name_of(E v) {
  return EnumText<E>::names[static_cast<size_t>(v)];
}

template <typename E>
std::string print_enum(E v) {
  return fmt::format("#stablehlo<{} {}>", EnumText<E>::kind, name_of(v));
}

// The value of E named by the current word.
template <typename E>
Attribute read_enum(parse::Parser& p) {
  std::string_view w = p.tok().text;
  for (size_t i = 0; i < EnumText<E>::names.size(); ++i)
    if (EnumText<E>::names[i] == w) {
      p.advance();
      return static_cast<E>(i);
    }
  p.fail(fmt::format("a {} value", EnumText<E>::kind));
}

/// The reader of the enum of each kind.
struct EnumKind {
  std::string_view kind;
  Attribute (*read)(parse::Parser& p);
};
template <typename E>
constexpr EnumKind kind_row() {
  return {EnumText<E>::kind, read_enum<E>};
}
constexpr EnumKind kEnumKinds[] = {kind_row<ComparisonDirection>(),
                                   kind_row<ComparisonType>(),
                                   kind_row<Precision>(),
                                   kind_row<RngDistribution>(),
                                   kind_row<RngAlgorithm>(),
                                   kind_row<FftType>(),
                                   kind_row<Transpose>()};

const EnumKind* find_kind(std::string_view kind) {
  for (const EnumKind& k : kEnumKinds)
    if (k.kind == kind) return &k;
  return nullptr;
}

}  // namespace

std::string_view enum_name(ComparisonDirection v) { return name_of(v); }
std::string_view enum_name(ComparisonType v) { return name_of(v); }
std::string_view enum_name(Precision v) { return name_of(v); }
std::string_view enum_name(RngDistribution v) { return name_of(v); }
std::string_view enum_name(RngAlgorithm v) { return name_of(v); }
std::string_view enum_name(FftType v) { return name_of(v); }
std::string_view enum_name(Transpose v) { return name_of(v); }

std::string detail::print_attr(ComparisonDirection v) { return print_enum(v); }
std::string detail::print_attr(ComparisonType v) { return print_enum(v); }
std::string detail::print_attr(Precision v) { return print_enum(v); }
std::string detail::print_attr(RngDistribution v) { return print_enum(v); }
std::string detail::print_attr(RngAlgorithm v) { return print_enum(v); }
std::string detail::print_attr(FftType v) { return print_enum(v); }
std::string detail::print_attr(Transpose v) { return print_enum(v); }

std::optional<Attribute> detail::parse_stablehlo_enum(Parser& p) {
  using parse::Tok;
  p.advance();
  p.expect(Tok::less, "'<'");
  if (!p.is(Tok::bare_id)) p.fail("an enum kind");
  const EnumKind* k = find_kind(p.tok().text);
  if (!k) return std::nullopt;
  p.advance();
  Attribute a = p.parse_enum_word(k->kind);
  p.expect(Tok::greater, "'>'");
  return a;
}

Attribute parse::Parser::parse_enum_word(std::string_view kind) {
  if (!is(Tok::bare_id)) fail(fmt::format("a {} value", kind));
  const EnumKind* k = find_kind(kind);
  if (!k) fail("a known StableHLO enum kind");
  return k->read(*this);
}

}  // namespace hhlo
