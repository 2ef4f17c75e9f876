// Golden-text helpers: the printed body of @main without the module/func wrapper.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "../../src/ir/op_attributes.h"
#include "hhlo/ir/module.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"
#include "hhlo/ir/verifier.h"

namespace hhlo::test {

/// The op lines of a printed module (`to_mlir` text), without indentation and without the
/// module, func.func, func.return and closing-brace lines.
inline std::string body_lines(const std::string& text) {
  std::string out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    size_t first = line.find_first_not_of(' ');
    if (first == std::string::npos) continue;
    line = line.substr(first);
    if (line.starts_with("module") || line.starts_with("func.func") ||
        line.starts_with("\"func.return\"") || line == "}")
      continue;
    out += line + "\n";
  }
  return out;
}

/// The attributes of the `stablehlo.*` ops of `b` (and of their regions) that
/// src/ir/op_attributes.cc does not declare, one "op.name" a line (those with a '.' in their
/// name, discardable ones, are any op's).
inline std::string undeclared_attributes(const Block& b) {
  std::string out;
  for (const auto& op : b.ops()) {
    std::string_view n = op->name();
    if (n.starts_with("stablehlo."))
      for (const NamedAttr& a : op->attrs())
        if (a.name.find('.') == std::string::npos && !detail::declared_attr(n.substr(10), a.name))
          out += std::string(n) + "." + a.name + "\n";
    for (const auto& r : op->regions()) out += undeclared_attributes(*r);
  }
  return out;
}

/// Builds @main with `args` via `build` (which returns the results), verifies the module and
/// returns the printed ops
/// of its body, one per line, without indentation, locations or the func.return line. Also checks
/// the parser's round trip: the printed module (with and without locations) parses back to a
/// module that prints identically, and that every attribute the builders wrote is declared
/// (src/ir/op_attributes.cc).
inline std::string body_of(const std::vector<TensorType>& args,
                           const std::function<std::vector<Value>(Func&)>& build) {
  Module m;
  Func& f = m.add_func("main", args);
  f.ret(build(f));
  verify(m);
  EXPECT_EQ(undeclared_attributes(f.body()), "") << "not declared in src/ir/op_attributes.cc";
  std::string text = to_mlir(m, {.locations = false});
  EXPECT_EQ(to_mlir(parse_module(text), {.locations = false}), text);
  std::string with_locs = to_mlir(m);
  EXPECT_EQ(to_mlir(parse_module(with_locs)), with_locs);
  return body_lines(text);
}

}  // namespace hhlo::test
