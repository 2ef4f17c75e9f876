// The program stage (hhlo/program/program.h): read once, then prepare for one platform and one
// set of argument shapes.
#include "hhlo/program/program.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "hhlo/core/file_io.h"
#include "hhlo/ir/entry.h"
#include "hhlo/ir/infer.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"
#include "hhlo/ir/refine.h"
#include "hhlo/program/hoist_constants.h"
#include "hhlo/program/loop_unroll.h"
#include "hhlo/program/onednn_rewrite.h"
#include "hhlo/program/spec_rewrites.h"
#include "hhlo/program/torch_xla_bundle.h"
#include "hhlo/program/vmap_main.h"

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
    throw InputError(fmt::format("@{} of '{}' takes {} argument(s) {}, {} given", p.entry,
                                 p.source_name, main.arg_types().size(),
                                 types_to_string(main.arg_types()), types.size()));
  refine_shapes(m, types);
  return true;
}

/// Throws unless the artifact `x` runs on `o.platform` (JAX's platform check, unless exported with
/// it disabled) and `o.export_platforms` is empty or its own list.
void check_platforms(const Exported& x, const PrepareOptions& o, const std::string& source) {
  auto has = [](const std::vector<std::string>& v, std::string_view s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  };
  if (!has(x.platforms, o.platform) && !has(x.disabled_checks, "platform"))
    throw Error(fmt::format(
        "'{}' was exported for platforms [{}], not for this client's platform '{}' (export it "
        "with jax.export.export(..., platforms=[..., '{}']))",
        source, fmt::join(x.platforms, ", "), o.platform, o.platform));
  if (!o.export_platforms.empty() && o.export_platforms != x.platforms)
    throw Error(fmt::format(
        "'{}' is a jax.export artifact for platforms [{}]; the export platforms given, [{}], "
        "differ (an artifact names its own: give none)",
        source, fmt::join(x.platforms, ", "), fmt::join(o.export_platforms, ", ")));
}

/// Throws unless `given` fits input `i` of the artifact `x` (dtype, rank, static dimensions).
void check_input(const Exported& x, std::size_t i, const TensorType& given,
                 const std::string& source) {
  const ExportedAval& a = x.in_avals[i];
  const std::string& name = i < x.in_names.size() ? x.in_names[i] : fmt::format("input {}", i);
  if (!a.dtype)
    throw InputError(
        fmt::format("input {} '{}' of '{}' has element type {}, which hhlo has no type for", i,
                    name, source, a.dtype_name));
  Dims want = a.type().dims;
  bool fits = given.dtype == *a.dtype && given.dims.size() == want.size();
  for (std::size_t d = 0; fits && d < want.size(); ++d)
    fits = want[d] == kDynamic || want[d] == given.dims[d];
  if (!fits)
    throw InputError(fmt::format("input {} '{}' of '{}' is {} ({}); {} given", i, name, source,
                                 a.to_string(), a.type().to_string(), given.to_string()));
}

/// The types of the inputs the artifact's module keeps, after checking every one of `given`
/// (one per flat input) against its aval.
std::vector<TensorType> kept_types(const Exported& x, const std::vector<TensorType>& given,
                                   const std::string& source) {
  if (given.size() != x.in_avals.size()) {
    std::vector<std::string> want;
    for (std::size_t i = 0; i < x.in_avals.size(); ++i)
      want.push_back(fmt::format("{} {}", x.in_names[i], x.in_avals[i].to_string()));
    throw InputError(fmt::format("'{}' takes {} input(s) ({}), {} given", source, x.in_avals.size(),
                                 fmt::join(want, ", "), given.size()));
  }
  for (std::size_t i = 0; i < given.size(); ++i) check_input(x, i, given[i], source);
  return select_kept(x.module_kept_var_idx, given);
}

/// What an artifact changes in the preparation of its module: its platforms, its checked and
/// kept inputs; ordered effects are refused.
PrepareOptions artifact_options(const Exported& x, PrepareOptions o, const std::string& source) {
  if (!x.ordered_effects.empty())
    throw Error(fmt::format(
        "'{}' has ordered effects ({}): its @main takes and returns one token per effect, which "
        "hhlo does not supply; export the function without ordered effects",
        source, fmt::join(x.ordered_effects, ", ")));
  check_platforms(x, o, source);
  const std::vector<int64_t>& kept = x.module_kept_var_idx;
  for (std::size_t i = 0; i < kept.size(); ++i)
    if (kept[i] < 0 || kept[i] >= static_cast<int64_t>(x.in_avals.size()) ||
        (i > 0 && kept[i] <= kept[i - 1]))
      throw Error(
          fmt::format("'{}': module_kept_var_idx [{}] is not increasing input indices below {}",
                      source, fmt::join(kept, ", "), x.in_avals.size()));
  o.export_platforms = x.platforms;
  if (o.arg_types) o.arg_types = kept_types(x, *o.arg_types, source);
  return o;
}

/// The artifact in `bytes` read, the module of level `o.vjp_order` moved out of it.
Program read_artifact(std::string_view bytes, const ReadProgramOptions& o) {
  auto x = std::make_shared<Exported>(
      read_exported(bytes, {.source_name = o.source_name, .verify = o.verify}));
  Exported* level = x.get();
  int available = 0;
  for (const Exported* v = x->vjp.get(); v; v = v->vjp.get()) ++available;
  if (o.vjp_order < 0 || o.vjp_order > available)
    throw Error(fmt::format(
        "{}: no VJP of order {} in this jax.export artifact: it was serialized with vjp_order={} "
        "(Exported.serialize(vjp_order=k) keeps the VJPs up to order k)",
        o.source_name, o.vjp_order, available));
  for (int k = 0; k < o.vjp_order; ++k) level = level->vjp.get();
  Program p{.module = std::move(level->module),
            .format = ProgramFormat::exported,
            .source_name = o.source_name,
            .artifact = std::move(x),
            .vjp_order = o.vjp_order};
  return p;
}

}  // namespace

const Exported* Program::exported() const {
  const Exported* level = artifact.get();
  for (int k = 0; level && k < vjp_order; ++k) level = level->vjp.get();
  return level;
}

bool reads_as_exported(std::string_view bytes, std::string_view source_name) {
  return is_exported_artifact(bytes) || (source_name.ends_with(".jax") && !is_mlir_bytecode(bytes));
}

Program read_program(std::string_view bytes, const ReadProgramOptions& options) {
  if (reads_as_exported(bytes, options.source_name)) return read_artifact(bytes, options);
  if (options.vjp_order != 0)
    throw Error(fmt::format(
        "{}: a VJP order ({}) is read from a jax.export artifact "
        "(Exported.serialize(vjp_order=k)); "
        "this program is StableHLO {}",
        options.source_name, options.vjp_order, is_mlir_bytecode(bytes) ? "bytecode" : "text"));
  Program p{
      .module = parse_module(bytes, {.source_name = options.source_name, .verify = options.verify}),
      .format = is_mlir_bytecode(bytes) ? ProgramFormat::bytecode : ProgramFormat::text,
      .source_name = options.source_name};
  return p;
}

std::string read_program_file_bytes(const std::string& path) {
  if (is_torch_xla_bundle(path)) return to_mlir(read_torch_xla_bundle(path));
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw IoError(fmt::format(
        "program '{}' is a directory and not a torch_xla bundle (save_as_stablehlo's folder, "
        "which holds functions/NAME.meta); give a program file or such a folder",
        path));
  std::string bytes = read_file(path, "program");
  if (bytes.find_first_not_of(" \t\r\n") == std::string::npos)
    throw IoError(fmt::format(
        "program '{}' is empty; expected StableHLO MLIR text or bytecode, or a jax.export artifact",
        path));
  return bytes;
}

Program read_program_file(const std::string& path, bool verify, int vjp_order) {
  return read_program(read_program_file_bytes(path),
                      {.source_name = path, .verify = verify, .vjp_order = vjp_order});
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

IoNames io_names(const Program& program, std::string_view entry) {
  if (const Exported* x = program.exported()) return {x->in_names, x->out_names};
  return io_names(program.module, entry);
}

int num_partitions_of(const Module& module) {
  for (const NamedAttr& a : module.attrs())
    if (a.name == "mhlo.num_partitions")
      if (const IntAttr* n = a.value.get_if<IntAttr>())
        return static_cast<int>(std::clamp<int64_t>(n->value, 1, 1 << 20));
  return 1;
}

PreparedProgram prepare_program(Program program, const PrepareOptions& options) {
  const Exported* x = program.exported();
  PrepareOptions o = x ? artifact_options(*x, options, program.source_name) : options;
  PreparedProgram p;
  p.module = std::move(program.module);
  p.source_name = std::move(program.source_name);
  p.entry = select_entry(p.module, o.entry);
  bind_platform(p.module, o, p.source_name);
  if (o.arg_types) p.refined = refine(p.module, *o.arg_types, p);
  if (o.vmap_batch > 0) vmap_main(p.module, o.vmap_batch);
  rewrite_to_the_spec(p.module, p.source_name);
  if (o.unroll_loops != 0) {
    LoopUnroll r = unroll_loops(p.module, o.unroll_loops);
    p.module = std::move(r.module);
    p.loops_unrolled = r.unrolled;
    p.loops_kept = r.kept;
    p.loops_kept_reason = std::move(r.first_kept_reason);
  }
  if (o.onednn.any()) {
    OneDnnRewrite r = rewrite_for_onednn(p.module, o.onednn);
    p.module = std::move(r.module);
    p.onednn_rewritten = r.rewritten;
    p.onednn_kept = r.kept;
    p.onednn_kept_reason = std::move(r.first_kept_reason);
  }
  p.num_partitions = num_partitions_of(p.module);
  p.shardy = !p.module.meshes().empty();
  p.names = io_names(p.module);
  if (x) {
    p.names = {x->in_names, x->out_names};
    p.kept_inputs = x->module_kept_var_idx;
  }
  p.by_types = p.refined || x != nullptr;
  if (o.hoist_constants_min_bytes > 0) {
    HoistedConstants h = hoist_constants(p.module, o.hoist_constants_min_bytes);
    if (!h.values.empty()) {
      p.module = std::move(h.module);
      p.hoisted = std::move(h.values);
      p.hoisted_constants = static_cast<int>(p.hoisted.size());
    }
  }
  return p;
}

}  // namespace hhlo
