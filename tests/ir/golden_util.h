// Golden-text helpers: the printed body of @main without the module/func wrapper.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

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

/// Builds @main with `args` via `build` (which returns the results), verifies the module and
/// returns the printed ops
/// of its body, one per line, without indentation, locations or the func.return line. Also checks
/// the parser's round trip: the printed module (with and without locations) parses back to a
/// module that prints identically.
inline std::string body_of(const std::vector<TensorType>& args,
                           const std::function<std::vector<Value>(Func&)>& build) {
  Module m;
  Func& f = m.add_func("main", args);
  f.ret(build(f));
  verify(m);
  std::string text = to_mlir(m, {.locations = false});
  EXPECT_EQ(to_mlir(parse_module(text), {.locations = false}), text);
  std::string with_locs = to_mlir(m);
  EXPECT_EQ(to_mlir(parse_module(with_locs)), with_locs);
  return body_lines(text);
}

}  // namespace hhlo::test
