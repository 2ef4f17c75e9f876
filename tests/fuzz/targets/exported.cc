// Fuzz target: the jax.export artifact reader (hhlo/program/exported.h). Every input is an
// Exported or a hhlo::Error (ParseError for bytes that are not an artifact or fail flatbuffers'
// verification, the version error, read_bytecode's errors for the module), and
// is_exported_artifact never throws; an artifact read has one name and one aval per flat input.
#include "hhlo/program/exported.h"

#include <exception>
#include <string>

#include "fuzz.h"

namespace hhlo::fuzz {

int exported(const uint8_t* data, size_t size) {
  std::span<const uint8_t> bytes(data, size);
  bool detected = false;
  try {
    detected = is_exported_artifact(bytes);
  } catch (const std::exception& e) {
    fuzz_fail("exported", std::string("is_exported_artifact threw: ") + e.what());
  }
  try {
    Exported x = read_exported(bytes, {.source_name = "<fuzz>", .verify = true});
    if (!detected) fuzz_fail("exported", "read an input is_exported_artifact rejects");
    if (x.in_names.size() != x.in_avals.size() || x.out_names.size() != x.out_avals.size())
      fuzz_fail("exported", "names and avals differ in number");
  } catch (const Error&) {
  } catch (const std::exception& e) {
    fuzz_fail("exported", std::string("an exception other than hhlo::Error: ") + e.what());
  }
  return 0;
}

}  // namespace hhlo::fuzz
