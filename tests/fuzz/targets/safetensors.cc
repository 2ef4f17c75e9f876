// Fuzz target: the safetensors reader (hhlo/core/safetensors.h parse_safetensors). Every input is
// a set of tensors or an IoError; what it reads is written back (serialize_safetensors) and read
// again to the same tensors and metadata.
#include "hhlo/core/safetensors.h"

#include <exception>
#include <map>
#include <span>
#include <string>

#include "fuzz.h"

namespace hhlo::fuzz {
namespace {

std::map<std::string, const Array*> by_name(const Safetensors& s) {
  std::map<std::string, const Array*> out;
  for (const auto& [name, a] : s.tensors) out[name] = &a;
  return out;
}

/// parse(serialize(s)) holds the tensors and metadata of `s`.
void check_round_trip(const Safetensors& s) {
  std::string bytes = serialize_safetensors(s.tensors, s.metadata);
  Safetensors again =
      parse_safetensors(std::as_bytes(std::span(bytes.data(), bytes.size())), "<round trip>");
  auto want = by_name(s), got = by_name(again);
  if (want.size() != got.size() || again.metadata != s.metadata)
    fuzz_fail("safetensors", "a round trip changed the names or the metadata");
  for (const auto& [name, a] : want)
    if (!got.contains(name) || !(*got.at(name) == *a))
      fuzz_fail("safetensors", "a round trip changed tensor '" + name + "'");
}

}  // namespace

int safetensors(const uint8_t* data, size_t size) {
  Safetensors s;
  try {
    s = parse_safetensors(std::span(reinterpret_cast<const std::byte*>(data), size), "<fuzz>");
  } catch (const IoError&) {
    return 0;
  } catch (const std::exception& e) {
    fuzz_fail("safetensors", std::string("an exception other than IoError: ") + e.what());
  }
  try {
    check_round_trip(s);
  } catch (const std::exception& e) {
    fuzz_fail("safetensors", std::string("what was read does not write back: ") + e.what());
  }
  return 0;
}

}  // namespace hhlo::fuzz
