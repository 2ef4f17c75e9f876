// The program stage (hhlo/program/program.h): read once, then prepare for one platform and one
// set of argument shapes.
#include "hhlo/program/program.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "hhlo/core/file_io.h"
#include "hhlo/ir/entry.h"
#include "hhlo/ir/infer.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/refine.h"

namespace hhlo {
namespace {

/// `attr(i)` of each of `n` items where every present one is a distinct non-empty string, else
/// `prefix<i>` for every item.
template <typename Get>
std::vector<std::string> names_of(std::size_t n, const char* prefix, Get attr) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  std::size_t named = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const Attribute* a = attr(i);
    const StringAttr* s = a ? a->get_if<StringAttr>() : nullptr;
    out.push_back(s ? s->value : "");
    if (!out.back().empty()) {
      seen.insert(out.back());
      ++named;
    }
  }
  bool unique = seen.size() == named;
  for (std::size_t i = 0; i < n; ++i)
    if (out[i].empty() || !unique) out[i] = fmt::format("{}{}", prefix, i);
  return out;
}

/// Binds `@main`'s platform index when it has one (the entry already selected).
void bind_platform(Module& m, const PrepareOptions& o, const std::string& source) {
  if (!has_platform_index(*m.find("main"))) return;
  bind_platform_index(m, platform_index_for(o.export_platforms, o.platform), source);
}

/// Refines a dynamic `@main` (the program's `@entry`) to `types`; false when it is static.
bool refine(Module& m, std::span<const TensorType> types, const PreparedProgram& p) {
  const Func& main = *m.find("main");
  if (!has_dynamic_shapes(main)) return false;
  if (types.size() != main.arg_types().size())
    throw Error(fmt::format("@{} of '{}' takes {} argument(s) {}, {} given", p.entry, p.source_name,
                            main.arg_types().size(), types_to_string(main.arg_types()),
                            types.size()));
  refine_shapes(m, types);
  return true;
}

}  // namespace

Program read_program(std::string_view bytes, const ReadProgramOptions& options) {
  Program p{
      .module = parse_module(bytes, {.source_name = options.source_name, .verify = options.verify}),
      .format = is_mlir_bytecode(bytes) ? ProgramFormat::bytecode : ProgramFormat::text,
      .source_name = options.source_name};
  return p;
}

Program read_program_file(const std::string& path, bool verify) {
  std::string bytes = read_regular_file(path, "program");
  if (bytes.find_first_not_of(" \t\r\n") == std::string::npos)
    throw IoError(
        fmt::format("program '{}' is empty; expected StableHLO MLIR text or bytecode", path));
  return read_program(bytes, {.source_name = path, .verify = verify});
}

IoNames io_names(const Module& m, std::string_view entry) {
  IoNames names;
  try {
    const Func& f = *m.find(resolve_entry(m, entry));
    FuncSignature s = signature(f);
    std::size_t skip = has_platform_index(f) ? 1 : 0;
    names.args = names_of(s.arg_types.size() - skip, "arg",
                          [&](std::size_t i) { return s.arg_attr(i + skip, "jax.arg_info"); });
    names.results = names_of(s.result_types.size(), "out",
                             [&](std::size_t i) { return s.result_attr(i, "jax.result_info"); });
  } catch (const std::exception&) {  // no such entry, or one that never returns
    return {};
  }
  return names;
}

int num_partitions_of(const Module& module) {
  for (const NamedAttr& a : module.attrs())
    if (a.name == "mhlo.num_partitions")
      if (const IntAttr* n = a.value.get_if<IntAttr>())
        return static_cast<int>(std::clamp<int64_t>(n->value, 1, 1 << 20));
  return 1;
}

PreparedProgram prepare_program(Program program, const PrepareOptions& options) {
  PreparedProgram p{.module = std::move(program.module),
                    .source_name = std::move(program.source_name)};
  p.entry = select_entry(p.module, options.entry);
  bind_platform(p.module, options, p.source_name);
  if (options.arg_types) p.refined = refine(p.module, *options.arg_types, p);
  p.num_partitions = num_partitions_of(p.module);
  p.shardy = !p.module.meshes().empty();
  p.names = io_names(p.module);
  return p;
}

}  // namespace hhlo
