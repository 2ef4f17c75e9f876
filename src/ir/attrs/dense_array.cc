// MLIR's dense arrays, printed and read: `array<i64: 1, 2>` (I64ArrayAttr) and `array<i1: true,
// false>` (BoolArrayAttr); other element types are kept as text.
#include <fmt/format.h>

#include "../text/parser_internal.h"
#include "syntax.h"

namespace hhlo::detail {

std::string print_attr(const I64ArrayAttr& a) {
  return a.values.empty() ? "array<i64>" : fmt::format("array<i64: {}>", fmt::join(a.values, ", "));
}

std::string print_attr(const BoolArrayAttr& a) {
  if (a.values.empty()) return "array<i1>";
  std::string s = "array<i1: ";
  for (size_t i = 0; i < a.values.size(); ++i)
    s += (i ? ", " : "") + std::string(a.values[i] ? "true" : "false");
  return s + ">";
}

std::optional<Attribute> parse_dense_array(Parser& p) {
  using parse::Tok;
  p.advance();
  p.expect(Tok::less, "'<'");
  if (!p.is_id("i64") && !p.is_id("i1")) return std::nullopt;
  bool i1 = p.is_id("i1");
  p.advance();
  I64ArrayAttr ia;
  BoolArrayAttr ba;
  if (p.consume(Tok::colon)) {
    do {
      if (i1) {
        if (!p.is_id("true") && !p.is_id("false")) p.fail("true or false");
        ba.values.push_back(p.is_id("true"));
        p.advance();
      } else {
        ia.values.push_back(p.parse_int());
      }
    } while (p.consume(Tok::comma));
  }
  p.expect(Tok::greater, "'>' closing array<...>");
  if (i1) return ba;
  return ia;
}

}  // namespace hhlo::detail
