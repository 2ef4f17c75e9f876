// Fuzz target: the MLIR bytecode reader (hhlo/ir/bytecode.h). Every input is a Module or a
// hhlo::Error (ParseError naming section and byte offset, or ShapeError / Error from the
// verifier); a module read is printed, and the printed text parses back (the reader is the text
// parser's twin, DESIGN.md).
#include "hhlo/ir/bytecode.h"

#include <exception>
#include <string>
#include <string_view>

#include "fuzz.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"

namespace hhlo::fuzz {

int bytecode(const uint8_t* data, size_t size) {
  std::span<const uint8_t> bytes(data, size);
  for (bool verify : {false, true}) {
    std::string printed;
    try {
      Module m = read_bytecode(bytes, {.source_name = "<fuzz>", .verify = verify});
      printed = to_mlir(m);
    } catch (const Error&) {
      if (!verify) return 0;  // the verifier runs only after a complete read
      continue;
    } catch (const std::exception& e) {
      fuzz_fail("bytecode", std::string("an exception other than hhlo::Error: ") + e.what());
    }
    try {
      parse_module(printed, {.source_name = "<printed>", .verify = verify});
    } catch (const std::exception& e) {
      fuzz_fail("bytecode", std::string("the printed module does not parse back (") +
                                (verify ? "verified" : "not verified") + "): " + e.what() +
                                "\n--- printed:\n" + printed);
    }
  }
  return 0;
}

}  // namespace hhlo::fuzz
