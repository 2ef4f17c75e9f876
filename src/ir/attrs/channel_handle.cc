// The channel of send/recv and of collectives across processes, printed and read:
// `#stablehlo.channel_handle<handle = 1, type = 0>` (both fields, each once; else kept as text).
#include <fmt/format.h>

#include "../text/parser_internal.h"
#include "syntax.h"

namespace hhlo::detail {

std::string print_attr(const ChannelHandle& c) {
  return fmt::format("#stablehlo.channel_handle<handle = {}, type = {}>", c.handle, c.type);
}

std::optional<Attribute> parse_channel_handle(Parser& p) {
  using parse::Tok;
  p.advance();
  p.expect(Tok::less, "'<'");
  ChannelHandle c;
  bool seen_handle = false, seen_type = false;
  while (!p.is(Tok::greater)) {
    if (!p.is(Tok::bare_id)) p.fail("a channel_handle field");
    std::string_view key = p.tok().text;
    p.advance();
    p.expect(Tok::equal, "'='");
    int64_t v = p.parse_int();
    if (key == "handle" && !seen_handle) {
      c.handle = v;
      seen_handle = true;
    } else if (key == "type" && !seen_type) {
      c.type = v;
      seen_type = true;
    } else {
      return std::nullopt;
    }
    if (!p.consume(Tok::comma)) break;
  }
  p.expect(Tok::greater, "'>'");
  if (!seen_handle || !seen_type) return std::nullopt;
  return c;
}

}  // namespace hhlo::detail
