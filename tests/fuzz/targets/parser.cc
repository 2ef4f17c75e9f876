// Fuzz target: the StableHLO text parser. Every input is a Module or a hhlo::Error (ParseError,
// or ShapeError / Error from the verifier); a module that parses is printed, and the printed text
// parses again (the printer's mirror, docs/ir.md).
#include "hhlo/ir/parser.h"

#include <exception>
#include <string>
#include <string_view>

#include "fuzz.h"
#include "hhlo/ir/printer.h"

namespace hhlo::fuzz {

int parser(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  for (bool verify : {false, true}) {
    std::string printed;
    try {
      Module m = parse_module(text, {.source_name = "<fuzz>", .verify = verify});
      printed = to_mlir(m);
    } catch (const Error&) {
      // The verifier runs only after a complete parse (ParseOptions::verify): text that does not
      // parse without it fails the same way with it, so the second parse would repeat this one.
      if (!verify) return 0;
      continue;
    } catch (const std::exception& e) {
      fuzz_fail("parser", std::string("an exception other than hhlo::Error: ") + e.what());
    }
    try {
      parse_module(printed, {.source_name = "<printed>", .verify = verify});
    } catch (const std::exception& e) {
      fuzz_fail("parser", std::string("the printed module does not parse back (") +
                              (verify ? "verified" : "not verified") + "): " + e.what() +
                              "\n--- printed:\n" + printed);
    }
  }
  return 0;
}

}  // namespace hhlo::fuzz
