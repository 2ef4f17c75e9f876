// custom_call's operand and result layouts, printed and read: `[dense<[1, 0]> : tensor<2xindex>,
// ...]` (LayoutsAttr, minor-to-major); a list of another shape is an ordinary ArrayAttr.
#include <fmt/format.h>

#include "../text/parser_internal.h"
#include "syntax.h"

namespace hhlo::detail {

std::string print_attr(const LayoutsAttr& a) {
  std::string s = "[";
  for (size_t i = 0; i < a.layouts.size(); ++i) {
    const auto& l = a.layouts[i];
    s += (i ? ", " : "");
    s += l.empty() ? "dense<>" : "dense<" + fmt::format("[{}]", fmt::join(l, ", ")) + ">";
    s += fmt::format(" : tensor<{}xindex>", l.size());
  }
  return s + "]";
}

std::optional<Attribute> parse_layouts(Parser& p) {
  using parse::Tok;
  LayoutsAttr l;
  p.advance();
  if (!p.is(Tok::rbracket)) {
    do {
      if (!p.is_id("dense")) return std::nullopt;
      p.advance();
      p.expect(Tok::less, "'<'");
      std::vector<int64_t> v;
      if (p.is(Tok::lbracket))
        v = p.parse_int_list();
      else if (p.is(Tok::integer))
        v.push_back(p.parse_int());  // a splat: `dense<0> : tensor<1xindex>` (rank 1)
      p.expect(Tok::greater, "'>'");
      p.expect(Tok::colon, "':'");
      size_t tp = p.tok().pos;
      if (!p.is_id("tensor")) p.fail("tensor<Nxindex>");
      p.reset_to(p.scan_balanced(tp + 6));
      if (p.text_from(tp) != fmt::format("tensor<{}xindex>", v.size())) return std::nullopt;
      l.layouts.push_back(std::move(v));
    } while (p.consume(Tok::comma));
  }
  if (!p.consume(Tok::rbracket)) return std::nullopt;
  return l;
}

}  // namespace hhlo::detail
