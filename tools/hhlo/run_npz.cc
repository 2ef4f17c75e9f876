#include "run_npz.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <optional>
#include <set>

#include "hhlo/core/error.h"
#include "hhlo/core/npz.h"

namespace hhlo::cli {

namespace {

/// The index of argument `name`: its place in `names.args`, or i for `arg<i>` below `count`.
std::optional<std::size_t> argument_index(const std::string& name, const IoNames& names,
                                          std::size_t count) {
  for (std::size_t i = 0; i < names.args.size(); ++i)
    if (names.args[i] == name) return i;
  for (std::size_t i = 0; i < count; ++i)
    if (name == fmt::format("arg{}", i)) return i;
  return std::nullopt;
}

/// True when `spec` is NAME=FILE rather than the path of a file.
bool is_named(const std::string& spec) {
  std::error_code ec;
  return split_named_input(spec).has_value() && !std::filesystem::exists(spec, ec);
}

/// Every argument from one `.npz` archive, by name.
Inputs read_npz_inputs(const std::string& path, const IoNames& names) {
  NpzArrays members = read_npz(path);
  std::vector<std::string> want = names.args;
  if (want.empty())  // no readable signature: arg0, arg1, ... as many as there are
    for (std::size_t i = 0; members.contains(fmt::format("arg{}", i)); ++i)
      want.push_back(fmt::format("arg{}", i));
  Inputs inputs;
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
    inputs.arrays.push_back(members.at(*hit));
    inputs.labels.push_back(fmt::format("{}:{}", path, *hit));
  }
  std::vector<std::string> unused;
  for (const auto& [n, array] : members)
    if (!used.contains(n)) unused.push_back(n);
  if (!missing.empty() || !unused.empty())
    throw Error(fmt::format("'{}' does not match @main's arguments ({}): missing {}; unused {}",
                            path, fmt::join(want, ", "),
                            missing.empty() ? "none" : fmt::format("{}", fmt::join(missing, ", ")),
                            unused.empty() ? "none" : fmt::format("{}", fmt::join(unused, ", "))));
  return inputs;
}

}  // namespace

std::optional<NamedInput> split_named_input(std::string_view spec) {
  std::size_t depth = 0;
  char quote = 0;  // the open quote, or 0
  for (std::size_t i = 0; i < spec.size(); ++i) {
    char c = spec[i];
    if (quote) {
      if (c == '\\')
        ++i;  // the escaped character is part of the string
      else if (c == quote)
        quote = 0;
    } else if ((c == '\'' || c == '"') && depth > 0) {  // a key: ['a=b'], ["it's"]
      quote = c;
    } else if (c == '[') {
      ++depth;
    } else if (c == ']') {
      if (depth > 0) --depth;
    } else if (c == '=' && depth == 0) {
      return NamedInput{std::string(spec.substr(0, i)), std::string(spec.substr(i + 1))};
    }
  }
  return std::nullopt;
}

std::vector<std::string> match_named_inputs(const std::vector<std::string>& specs,
                                            const IoNames& names) {
  std::size_t count = names.args.empty() ? specs.size() : names.args.size();
  std::vector<std::optional<std::string>> files(count);
  std::vector<std::string> unknown, repeated;
  for (const std::string& spec : specs) {
    std::optional<NamedInput> named = split_named_input(spec);
    std::error_code ec;
    if (!named || std::filesystem::exists(spec, ec))
      throw Error(
          fmt::format("--input '{}' is a file among inputs given by name (NAME=FILE): "
                      "give every input by name, or none",
                      spec));
    std::optional<std::size_t> i = argument_index(named->name, names, count);
    if (!i)
      unknown.push_back(named->name);
    else if (files[*i])
      repeated.push_back(named->name);
    else
      files[*i] = named->file;
  }
  std::vector<std::string> missing;
  for (std::size_t i = 0; i < count; ++i)
    if (!files[i])
      missing.push_back(i < names.args.size() ? names.args[i] : fmt::format("arg{}", i));
  if (!unknown.empty() || !repeated.empty() || !missing.empty()) {
    std::string what;
    for (const auto& [label, list] :
         {std::pair{"unknown", &unknown}, {"given twice", &repeated}, {"missing", &missing}})
      if (!list->empty()) what += fmt::format("; {} [{}]", label, fmt::join(*list, ", "));
    throw Error(fmt::format(
        "the inputs given by name do not match the program's ({}){}",
        names.args.empty() ? "arg0, arg1, ..." : fmt::format("{}", fmt::join(names.args, ", ")),
        what));
  }
  std::vector<std::string> out;
  for (std::optional<std::string>& f : files) out.push_back(std::move(*f));
  return out;
}

namespace {

/// Every argument given as NAME=FILE, in the order of the arguments.
Inputs read_named_inputs(const std::vector<std::string>& specs, const IoNames& names) {
  std::vector<std::string> files = match_named_inputs(specs, names);
  Inputs inputs;
  for (std::size_t i = 0; i < files.size(); ++i) {
    inputs.arrays.push_back(read_npy(files[i]));
    std::string name = i < names.args.size() ? names.args[i] : fmt::format("arg{}", i);
    inputs.labels.push_back(fmt::format("{}={}", name, files[i]));
  }
  return inputs;
}

}  // namespace

Inputs read_inputs(const std::vector<std::string>& specs, const IoNames& names) {
  bool any_npz = false, any_named = false;
  for (const std::string& p : specs) {
    any_npz |= p.ends_with(".npz") && !is_named(p);
    any_named |= is_named(p);
  }
  if (any_npz && specs.size() != 1)
    throw Error(fmt::format("an .npz input gives every argument: pass it alone (got {} inputs)",
                            specs.size()));
  if (any_npz) return read_npz_inputs(specs[0], names);
  if (any_named) return read_named_inputs(specs, names);
  Inputs inputs;
  for (const std::string& p : specs) {
    inputs.arrays.push_back(read_npy(p));
    inputs.labels.push_back(p);
  }
  return inputs;
}

void write_outputs_npz(const std::string& path, const std::vector<Array>& outputs,
                       const IoNames& names) {
  NpzArrays members;
  for (std::size_t i = 0; i < outputs.size(); ++i)
    members.insert_or_assign(i < names.results.size() ? names.results[i] : fmt::format("out{}", i),
                             outputs[i]);
  write_npz(path, members);
}

}  // namespace hhlo::cli
