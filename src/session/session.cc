#include "hhlo/session.h"

#include <fmt/format.h>

#include <cstdio>
#include <optional>

#include "hhlo/core/error.h"
#include "hhlo/ir/entry.h"
#include "hhlo/ir/printer.h"  // the session layer sits above the IR (DESIGN.md; CMake: hhlo_ir)
#include "hhlo/ir/refine.h"
#include "hhlo/lapack/kernels.h"
#include "hhlo/program/compile.h"
#include "hhlo/program/program_cache.h"

namespace hhlo {

Session::Session(Client client, CompileCacheOptions disk_cache, OneDnnOps onednn)
    : client_(std::move(client)), disk_(std::move(disk_cache)), onednn_(onednn) {
  if (onednn_.threads < 0)
    throw Error(fmt::format("Session: oneDNN threads {}; give 0 (its default) or a count",
                            onednn_.threads));
  // JAX's CPU linear algebra (lapack_*_ffi custom calls) runs in every CPU session.
  if (client_.platform_name() == "cpu" && client_.plugin().has_extension(PluginExtension::ffi))
    register_jax_cpu_kernels(client_);
}

CacheOutcome Session::last_outcome() const {
  std::lock_guard lock(mu_);
  return last_;
}

namespace {

/// The part of a session's cache key that does not depend on argument types.
std::string program_key(std::string_view mlir, const CompileOptions& o, int vjp_order) {
  std::string key = serialize_compile_options(o);
  key += '\0' + o.entry;  // what the program stage reads besides the serialized options
  for (const std::string& p : o.export_platforms) key += '\0' + p;
  key += '\0' + std::to_string(vjp_order) + '\0';
  key += mlir;
  return key;
}

/// True when the executable of `read` depends on the argument types: a dynamic entry is refined
/// to them, an artifact's inputs are checked against its avals.
bool keyed_by_types(const Program& read, const std::string& entry) {
  return read.artifact || has_dynamic_shapes(*read.module.find(resolve_entry(read.module, entry)));
}

/// `prepare` with the loop unrolling of a tuned choice, if any (a session applies no oneDNN
/// choice: it follows its own OneDnnOps).
PrepareOptions with_unrolling(PrepareOptions prepare, const std::optional<TunedChoice>& tuned) {
  if (tuned && tuned->unroll_loops != 0) prepare.unroll_loops = tuned->unroll_loops;
  return prepare;
}

/// keyed_by_types of a program known by its facts only (a cache hit that read nothing).
bool keyed_by_types(const PreparedFacts& facts) {
  return facts.refined || !facts.kept_inputs.empty();
}

}  // namespace

PrepareOptions Session::prepare_options(const CompileOptions& o,
                                        std::optional<std::vector<TensorType>> arg_types) const {
  return {.entry = o.entry,
          .export_platforms = o.export_platforms,
          .platform = client_.platform_name(),
          .arg_types = std::move(arg_types),
          .onednn = onednn_};
}

std::optional<TunedChoice> Session::find_tuned_choice(std::string_view mlir, int vjp_order,
                                                      const PrepareOptions& prepare,
                                                      const CompileOptions& options) {
  if (!disk_.enabled()) return std::nullopt;
  std::string damaged;
  std::optional<RememberedChoice> r;
  try {
    r = find_tuned(disk_, tuned_key(source_key(mlir, vjp_order, prepare, options)), &damaged);
  } catch (const std::exception&) {  // inconsistent options: compiling them says so
    return std::nullopt;
  }
  if (!damaged.empty())
    std::fprintf(stderr, "%s\n", damaged_choice_warning("this program", damaged).c_str());
  if (!r || r->client != disk_.client_identity(client_)) return std::nullopt;
  return r->choice;
}

TuneResult Session::tune(std::string_view program, const std::vector<Array>& args,
                         const CompileOptions& options, const TuneOptions& tune_options) {
  if (client_.platform_name() != "cpu")
    throw Error(
        "Session::tune: the candidates are the CPU client's modes and XLA CPU options; "
        "this session's client is on " +
        client_.platform_name());
  std::vector<TensorType> types;
  for (const Array& a : args) types.push_back(a.type());
  PrepareOptions prepare = prepare_options(options, types);
  PreparedProgram prepared = prepare_program(read_program(program), prepare);
  Plugin plugin = client_.plugin();
  ClientFactory make_client = [plugin](bool synchronous) {
    return Client::create(plugin, execution_client_options(synchronous));
  };
  TuneResult r = hhlo::tune(prepared, select_kept(prepared.kept_inputs, args), options, make_client,
                            tune_options);
  remember_tuned(disk_, tuned_key(source_key(program, 0, prepare, options)),
                 disk_.client_identity(client_), r);
  return r;
}

std::optional<TunedChoice> Session::last_tuned() const {
  std::lock_guard lock(mu_);
  return last_tuned_;
}

std::optional<Session::Compiled> Session::load_remembered(const std::string& source,
                                                          bool* by_types) {
  std::optional<SourceRecord> record = find_source(disk_, source);
  if (!record) return std::nullopt;
  std::optional<LoadedExecutable> exe = load_source(disk_, client_, *record);
  if (!exe) return std::nullopt;
  *by_types = keyed_by_types(record->facts);
  return Compiled{std::make_unique<LoadedExecutable>(std::move(*exe)),
                  std::move(record->facts.kept_inputs)};
}

const Session::Compiled& Session::compile_keyed(std::string key, std::string_view mlir,
                                                std::optional<Program> read,
                                                const CompileOptions& o, int vjp_order,
                                                std::optional<std::vector<TensorType>> arg_types) {
  std::lock_guard lock(mu_);
  auto it = cache_.find(key);
  if (it != cache_.end()) return it->second;
  if (!read) {
    read = read_program(mlir, {.vjp_order = vjp_order});
    ++programs_read_;
  }
  PrepareOptions prepare = prepare_options(o, std::move(arg_types));
  std::optional<TunedChoice> tuned = find_tuned_choice(mlir, vjp_order, prepare, o);
  CompileOptions effective = tuned ? tuned->apply(o) : o;
  prepare = with_unrolling(std::move(prepare), tuned);
  std::string source = source_key(mlir, vjp_order, prepare, effective);
  PreparedProgram prepared = prepare_program(std::move(*read), prepare);
  Compiled c{std::make_unique<LoadedExecutable>(
                 compile_remembered(client_, prepared, effective, disk_, source, &last_)),
             prepared.kept_inputs};
  last_tuned_ = std::move(tuned);
  return cache_.emplace(std::move(key), std::move(c)).first->second;
}

const LoadedExecutable& Session::compile(std::string_view mlir, const CompileOptions& o) {
  return *compile_keyed(program_key(mlir, o, 0), mlir, std::nullopt, o, 0, std::nullopt).exe;
}

std::vector<Array> Session::run(std::string_view mlir, const std::vector<Array>& args,
                                const CompileOptions& options) {
  return run(mlir, args, options, 0);
}

std::vector<Array> Session::run(std::string_view mlir, const std::vector<Array>& args,
                                const CompileOptions& options, int vjp_order) {
  std::vector<const Array*> ptrs;
  ptrs.reserve(args.size());
  for (const Array& a : args) ptrs.push_back(&a);
  return run_flat(mlir, ptrs, options, vjp_order);
}

std::vector<Array> Session::run_flat(std::string_view mlir, const std::vector<const Array*>& args,
                                     const CompileOptions& options, int vjp_order) {
  std::string key = program_key(mlir, options, vjp_order);
  std::vector<TensorType> types;
  for (const Array* a : args) types.push_back(a->type());
  std::optional<bool> by_types;
  {
    std::lock_guard lock(mu_);
    if (auto d = dynamic_.find(key); d != dynamic_.end()) by_types = d->second;
  }
  std::optional<Program> read;
  std::optional<Compiled> loaded;
  std::optional<TunedChoice> tuned;
  if (!by_types) {  // first run of this program: the disk cache's record of it, else read it once
    bool keyed = false;
    PrepareOptions prepare = prepare_options(options, types);
    tuned = find_tuned_choice(mlir, vjp_order, prepare, options);
    loaded = load_remembered(source_key(mlir, vjp_order, with_unrolling(prepare, tuned),
                                        tuned ? tuned->apply(options) : options),
                             &keyed);
    if (!loaded) {
      read = read_program(mlir, {.vjp_order = vjp_order});
      keyed = keyed_by_types(*read, options.entry);
    }
    by_types = keyed;
    std::lock_guard lock(mu_);
    if (read) ++programs_read_;
    dynamic_.emplace(key, keyed);
    if (loaded) {
      last_ = CacheOutcome::hit;
      last_tuned_ = tuned;
    }
  }
  if (*by_types)
    for (const TensorType& t : types) key += '\0' + t.to_string();
  if (loaded) {
    std::lock_guard lock(mu_);
    cache_.emplace(key, std::move(*loaded));
  }
  const Compiled& c = compile_keyed(key, mlir, std::move(read), options, vjp_order, types);
  return execute_on_host(*c.exe, select_kept(c.kept_inputs, args));
}

std::vector<Array> Session::execute_on_host(const LoadedExecutable& exe,
                                            const std::vector<const Array*>& args) {
  std::vector<Buffer> buffers;
  buffers.reserve(args.size());
  for (const Array* a : args) buffers.push_back(client_.buffer_from_host(*a));
  std::vector<const Buffer*> ptrs;
  for (const Buffer& b : buffers) ptrs.push_back(&b);
  std::vector<Array> out;
  for (const Buffer& b : exe.execute(ptrs)) out.push_back(b.to_host());
  return out;
}

std::size_t Session::programs_read() const {
  std::lock_guard lock(mu_);
  return programs_read_;
}

std::size_t Session::cache_size() const {
  std::lock_guard lock(mu_);
  return cache_.size();
}

Session& default_session() {
  static Session session(Client::create("cpu"));
  return session;
}

std::vector<Array> run(std::string_view mlir, const std::vector<Array>& args) {
  return default_session().run(mlir, args);
}

const LoadedExecutable& Session::compile(const Module& module, const CompileOptions& o) {
  return compile(to_mlir(module), o);
}
std::vector<Array> Session::run(const Module& module, const std::vector<Array>& args,
                                const CompileOptions& options) {
  return run(to_mlir(module), args, options);
}
std::vector<Array> run(const Module& module, const std::vector<Array>& args) {
  return default_session().run(module, args);
}

}  // namespace hhlo
