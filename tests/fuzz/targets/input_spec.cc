// Fuzz target: the reader of `hhlo run -i NAME=FILE` specs (tools/hhlo/run_npz.h): each spec split
// after its pytree path (split_named_input), then the specs matched to the program's argument
// names (match_named_inputs), which reads no file. Properties: a split gives back the spec
// (NAME + "=" + FILE) and its name, followed by "=", splits back to the same name; matching ends
// in one file per argument or a hhlo::Error.
//
// Input: tokens separated by NUL; those before the first empty token are the argument names
// (JAX's paths such as args[0]['a=b']), the others the specs.
#include <algorithm>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz.h"
#include "hhlo/core/error.h"
#include "run_npz.h"

namespace hhlo::fuzz {

int input_spec(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  IoNames names;
  std::vector<std::string> specs;
  bool in_names = true;
  for (size_t at = 0; at <= in.size() && names.args.size() + specs.size() < 64;) {
    size_t end = std::min(in.find('\0', at), in.size());
    std::string t(in.substr(at, end - at));
    at = end + 1;
    if (in_names && t.empty()) {
      in_names = false;
      continue;
    }
    (in_names ? names.args : specs).push_back(std::move(t));
  }
  for (const std::string& spec : specs) {
    std::optional<cli::NamedInput> s = cli::split_named_input(spec);
    if (!s) continue;
    if (s->name + "=" + s->file != spec) fuzz_fail("input_spec", "a split lost or added bytes");
    std::optional<cli::NamedInput> again = cli::split_named_input(s->name + "=");
    if (!again || again->name != s->name || !again->file.empty())
      fuzz_fail("input_spec", "a name does not split back to itself");
  }
  if (specs.empty()) return 0;
  try {
    std::vector<cli::InputSource> files = cli::match_named_inputs(specs, names);
    size_t want = names.args.empty() ? specs.size() : names.args.size();
    if (files.size() != want) fuzz_fail("input_spec", "not one file per argument");
  } catch (const Error&) {
  } catch (const std::exception& e) {
    fuzz_fail("input_spec",
              std::string("matching the names threw something else than hhlo::Error: ") + e.what());
  }
  return 0;
}

}  // namespace hhlo::fuzz
