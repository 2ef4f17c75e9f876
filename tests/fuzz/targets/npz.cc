// Fuzz target: the .npz reader (zip of .npy members, stored or deflated). Every input is a set of
// arrays or an IoError.
#include <exception>
#include <span>
#include <string>

#include "fuzz.h"
#include "hhlo/nn/checkpoint.h"

namespace hhlo::fuzz {

int npz(const uint8_t* data, size_t size) {
  try {
    ad::ParamArrays arrays =
        nn::parse_npz(std::span(reinterpret_cast<const std::byte*>(data), size), "<fuzz>");
    if (arrays.empty()) fuzz_fail("npz", "parse_npz returned no member instead of an IoError");
  } catch (const IoError&) {
  } catch (const std::exception& e) {
    fuzz_fail("npz", std::string("an exception other than IoError: ") + e.what());
  }
  return 0;
}

}  // namespace hhlo::fuzz
