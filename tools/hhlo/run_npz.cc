#include "run_npz.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <optional>
#include <set>

#include "hhlo/core/error.h"
#include "hhlo/nn/checkpoint.h"

namespace hhlo::cli {

std::vector<Array> read_inputs(const std::vector<std::string>& paths, const IoNames& names) {
  std::vector<Array> inputs;
  bool any_npz = false;
  for (const std::string& p : paths) any_npz |= p.ends_with(".npz");
  if (!any_npz) {
    for (const std::string& p : paths) inputs.push_back(read_npy(p));
    return inputs;
  }
  if (paths.size() != 1)
    throw Error(fmt::format("an .npz input gives every argument: pass it alone (got {} inputs)",
                            paths.size()));
  ad::ParamArrays members = nn::load_npz(paths[0]);
  std::vector<std::string> want = names.args;
  if (want.empty())  // no readable signature: arg0, arg1, ... as many as there are
    for (std::size_t i = 0; members.contains(fmt::format("arg{}", i)); ++i)
      want.push_back(fmt::format("arg{}", i));
  std::set<std::string> used;
  std::vector<std::string> missing;
  for (std::size_t i = 0; i < want.size(); ++i) {
    std::string positional = fmt::format("arg{}", i);
    const std::string* hit = members.contains(want[i])      ? &want[i]
                             : members.contains(positional) ? &positional
                                                            : nullptr;
    if (!hit) {
      missing.push_back(want[i]);
      continue;
    }
    used.insert(*hit);
    inputs.push_back(members.at(*hit));
  }
  std::vector<std::string> unused;
  for (const std::string& n : members.names())
    if (!used.contains(n)) unused.push_back(n);
  if (!missing.empty() || !unused.empty())
    throw Error(fmt::format("'{}' does not match @main's arguments ({}): missing {}; unused {}",
                            paths[0], fmt::join(want, ", "),
                            missing.empty() ? "none" : fmt::format("{}", fmt::join(missing, ", ")),
                            unused.empty() ? "none" : fmt::format("{}", fmt::join(unused, ", "))));
  return inputs;
}

void write_outputs_npz(const std::string& path, const std::vector<Array>& outputs,
                       const IoNames& names) {
  ad::ParamArrays members;
  for (std::size_t i = 0; i < outputs.size(); ++i)
    members.set(i < names.results.size() ? names.results[i] : fmt::format("out{}", i), outputs[i]);
  nn::save_npz(path, members);
}

}  // namespace hhlo::cli
