// Fuzz target: the .npy reader. Every input is an Array or an IoError.
#include <cstring>
#include <exception>
#include <span>
#include <string>

#include "fuzz.h"
#include "hhlo/core/array.h"

namespace hhlo::fuzz {

int npy(const uint8_t* data, size_t size) {
  std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  try {
    Array a = parse_npy(bytes, "<fuzz>");
    // What was read is what the writer writes back and reads again, element for element.
    std::string again = serialize_npy(a);
    Array b = parse_npy(std::span(reinterpret_cast<const std::byte*>(again.data()), again.size()),
                        "<fuzz again>");
    if (!(a.type() == b.type()) || a.byte_size() != b.byte_size() ||
        (a.byte_size() && std::memcmp(a.data(), b.data(), a.byte_size()) != 0))
      fuzz_fail("npy", "serialize_npy(parse_npy(x)) does not read back the same array");
  } catch (const IoError&) {
  } catch (const std::exception& e) {
    fuzz_fail("npy", std::string("an exception other than IoError: ") + e.what());
  }
  return 0;
}

}  // namespace hhlo::fuzz
