#include "run_npz.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>

#include "hhlo/core/array.h"
#include "hhlo/core/error.h"
#include "hhlo/core/file_io.h"
#include "hhlo/core/npz.h"
#include "hhlo/core/safetensors.h"

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

/// Every argument from the members of one `.npz` archive `path`, by name.
Inputs npz_inputs(NpzArrays members, const std::string& path, const IoNames& names) {
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

std::optional<std::string> safetensors_key(std::string_view rest) {
  std::vector<std::string> parts;
  std::size_t i = 0;
  while (i < rest.size()) {
    if (rest[i] == '.') {  // an attribute: ".h"
      std::size_t end = std::min(rest.find_first_of(".[", i + 1), rest.size());
      if (end == i + 1) return std::nullopt;
      parts.emplace_back(rest.substr(i + 1, end - i - 1));
      i = end;
    } else if (rest[i] == '[' && i + 1 < rest.size() &&
               (rest[i + 1] == '\'' || rest[i + 1] == '"')) {
      char q = rest[i + 1];  // a dict key: ['dense'], as repr quotes it
      std::string key;
      std::size_t j = i + 2;
      for (; j < rest.size() && rest[j] != q; ++j) {
        if (rest[j] == '\\' && ++j == rest.size()) return std::nullopt;
        key += rest[j];
      }
      if (j + 1 >= rest.size() || rest[j + 1] != ']') return std::nullopt;
      parts.push_back(std::move(key));
      i = j + 2;
    } else if (rest[i] == '[') {  // a sequence index: [1]
      std::size_t end = rest.find(']', i);
      if (end == std::string_view::npos || end == i + 1) return std::nullopt;
      std::string_view index = rest.substr(i + 1, end - i - 1);
      if (!std::all_of(index.begin(), index.end(),
                       [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
        return std::nullopt;
      parts.emplace_back(index);
      i = end + 1;
    } else {
      return std::nullopt;
    }
  }
  if (parts.empty()) return std::nullopt;
  return fmt::format("{}", fmt::join(parts, "."));
}

namespace {

/// Binds every argument under the pytree path `in.name` to its tensor of `in.file`: into
/// `sources`, or its name into `repeated` when another spec gave it; `in.name` into `unknown`
/// when no argument is under it. Throws when two arguments under it have the same key.
void bind_safetensors(const NamedInput& in, const IoNames& names,
                      std::vector<std::optional<InputSource>>& sources,
                      std::vector<std::string>& unknown, std::vector<std::string>& repeated) {
  std::map<std::string, std::string> arg_of_key;
  for (std::size_t i = 0; i < names.args.size(); ++i) {
    const std::string& arg = names.args[i];
    if (!arg.starts_with(in.name)) continue;
    std::optional<std::string> key = safetensors_key(std::string_view(arg).substr(in.name.size()));
    if (!key) continue;
    if (auto [it, fresh] = arg_of_key.emplace(*key, arg); !fresh)
      throw Error(
          fmt::format("the arguments {} and {} under '{}' both take the tensor '{}' of '{}'",
                      it->second, arg, in.name, *key, in.file));
    if (sources[i])
      repeated.push_back(arg);
    else
      sources[i] = InputSource{in.file, *key};
  }
  if (arg_of_key.empty()) unknown.push_back(in.name);
}

}  // namespace

std::vector<InputSource> match_named_inputs(const std::vector<std::string>& specs,
                                            const IoNames& names) {
  std::size_t count = names.args.empty() ? specs.size() : names.args.size();
  std::vector<std::optional<InputSource>> files(count);
  std::vector<std::string> unknown, repeated;
  for (const std::string& spec : specs) {
    std::optional<NamedInput> named = split_named_input(spec);
    std::error_code ec;
    if (!named || std::filesystem::exists(spec, ec))
      throw Error(
          fmt::format("--input '{}' is a file among inputs given by name (NAME=FILE): "
                      "give every input by name, or none",
                      spec));
    if (named->file.ends_with(".safetensors")) {
      bind_safetensors(*named, names, files, unknown, repeated);
      continue;
    }
    std::optional<std::size_t> i = argument_index(named->name, names, count);
    if (!i)
      unknown.push_back(named->name);
    else if (files[*i])
      repeated.push_back(named->name);
    else
      files[*i] = InputSource{named->file, std::nullopt};
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
  std::vector<InputSource> out;
  for (std::optional<InputSource>& f : files) out.push_back(std::move(*f));
  return out;
}

namespace {

/// The safetensors files of named inputs, each read once, and the keys taken from each.
class SafetensorsFiles {
 public:
  /// Counts the takes of each tensor that `sources` will make, so that the last one moves it.
  explicit SafetensorsFiles(const std::vector<InputSource>& sources) {
    for (const InputSource& s : sources)
      if (s.key) ++takes_left_[{s.file, *s.key}];
  }
  /// The tensor `key` of `file` (moved out at its last take), or an empty array (recorded as
  /// missing, for `arg`).
  Array take(const std::string& file, const std::string& key, const std::string& arg) {
    auto [it, fresh] = files_.try_emplace(file);
    if (fresh)
      for (auto& [name, a] : read_safetensors(file).tensors)
        it->second.tensors[name] = std::move(a);
    File& f = it->second;
    auto t = f.tensors.find(key);
    if (t == f.tensors.end()) {
      f.missing.push_back(fmt::format("{} ({})", key, arg));
      return Array();
    }
    f.used.insert(key);
    return --takes_left_[{file, key}] == 0 ? std::move(t->second) : t->second;
  }
  /// Throws naming, for each file, the keys it lacks and the tensors no argument took.
  void check() const {
    std::vector<std::string> problems;
    for (const auto& [path, f] : files_) {
      std::vector<std::string> extra;
      for (const auto& [key, a] : f.tensors)
        if (!f.used.contains(key)) extra.push_back(key);
      if (f.missing.empty() && extra.empty()) continue;
      std::vector<std::string> what;
      if (!f.missing.empty())
        what.push_back(fmt::format("missing keys [{}]", fmt::join(f.missing, ", ")));
      if (!extra.empty()) what.push_back(fmt::format("extra keys [{}]", fmt::join(extra, ", ")));
      problems.push_back(fmt::format("'{}' does not match the arguments bound to it: {}", path,
                                     fmt::join(what, "; ")));
    }
    if (!problems.empty()) throw Error(fmt::format("{}", fmt::join(problems, "; ")));
  }

 private:
  struct File {
    std::map<std::string, Array> tensors;
    std::set<std::string> used;
    std::vector<std::string> missing;
  };
  std::map<std::string, File> files_;
  std::map<std::pair<std::string, std::string>, int> takes_left_;
};

/// Every argument given as NAME=FILE, in the order of the arguments.
Inputs read_named_inputs(const std::vector<std::string>& specs, const IoNames& names) {
  std::vector<InputSource> sources = match_named_inputs(specs, names);
  SafetensorsFiles tensor_files(sources);
  Inputs inputs;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const InputSource& src = sources[i];
    std::string name = i < names.args.size() ? names.args[i] : fmt::format("arg{}", i);
    if (!src.key) {
      inputs.arrays.push_back(read_npy(src.file));
      inputs.labels.push_back(fmt::format("{}={}", name, src.file));
      continue;
    }
    inputs.arrays.push_back(tensor_files.take(src.file, *src.key, name));
    inputs.labels.push_back(fmt::format("{}={}:{}", name, src.file, *src.key));
  }
  tensor_files.check();
  return inputs;
}

}  // namespace

namespace {

/// True when `path` names its format by its extension (.npy, .npz, .safetensors).
bool has_format_extension(const std::string& path) {
  return path.ends_with(".npy") || path.ends_with(".npz") || path.ends_with(".safetensors");
}

/// One input without a format extension (a pipe: `-i <(cat x.npz)`, /dev/stdin), read once and
/// taken by its content: a zip archive is an .npz giving every argument, anything else one .npy.
Inputs read_sniffed_input(const std::string& path, const std::function<const IoNames&()>& names) {
  std::string bytes = read_file(path, "input");
  std::span<const std::byte> view(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size());
  if (bytes.starts_with(std::string_view("PK\x03\x04", 4)))
    return npz_inputs(parse_npz(view, path), path, names());
  Inputs inputs;
  inputs.arrays.push_back(parse_npy(view, path));
  inputs.labels.push_back(path);
  return inputs;
}

}  // namespace

Inputs read_inputs(const std::vector<std::string>& specs,
                   const std::function<const IoNames&()>& names) {
  bool any_npz = false, any_named = false;
  for (const std::string& p : specs) {
    any_npz |= p.ends_with(".npz") && !is_named(p);
    any_named |= is_named(p);
  }
  if (any_npz && specs.size() != 1)
    throw Error(fmt::format("an .npz input gives every argument: pass it alone (got {} inputs)",
                            specs.size()));
  if (any_npz) return npz_inputs(read_npz(specs[0]), specs[0], names());
  if (any_named) return read_named_inputs(specs, names());
  if (specs.size() == 1 && !has_format_extension(specs[0]))
    return read_sniffed_input(specs[0], names);
  Inputs inputs;
  for (const std::string& p : specs) {
    if (p.ends_with(".safetensors"))
      throw Error(fmt::format(
          "--input '{}': a safetensors file binds the arguments under a pytree path: give it as "
          "PATH=FILE (e.g. -i \"args[0]={}\")",
          p, p));
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

std::vector<std::string> output_keys(const std::vector<std::string>& results,
                                     const std::vector<std::string>& stems) {
  if (results.size() != stems.size()) return stems;
  std::vector<std::string> keys;
  std::set<std::string> seen;
  for (const std::string& r : results) {
    std::optional<std::string> key =
        r.starts_with("result") ? safetensors_key(std::string_view(r).substr(6)) : std::nullopt;
    if (!key || !seen.insert(*key).second) return stems;
    keys.push_back(*key);
  }
  return keys;
}

void write_outputs_safetensors(const std::string& path, const std::vector<Array>& outputs,
                               const std::vector<std::string>& keys) {
  std::vector<std::pair<std::string, Array>> tensors;
  for (std::size_t i = 0; i < outputs.size(); ++i)
    tensors.emplace_back(i < keys.size() ? keys[i] : fmt::format("out{}", i), outputs[i]);
  write_safetensors(path, tensors);
}

}  // namespace hhlo::cli
