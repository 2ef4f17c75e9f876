#include "hhlo/session.h"

#include <fmt/format.h>

#include <cstdio>
#include <optional>

#include "hhlo/core/error.h"
#include "hhlo/ir/printer.h"  // the session layer sits above the IR (DESIGN.md; CMake: hhlo_ir)
#include "hhlo/lapack/kernels.h"
#include "hhlo/program/load.h"
#include "hhlo/program/request_key.h"

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

/// The in-memory key of a program run with `options` (every field, write_key) and its bytes.
std::string memory_key(std::string_view program, const LoadOptions& options) {
  KeyText k;
  write_key(k, options);
  k.update(program);
  return std::move(k.text);
}

/// `key` extended by the argument types `types`.
std::string typed_key(std::string key, const std::vector<TensorType>& types) {
  for (const TensorType& t : types) key += '\0' + t.to_string();
  return key;
}

}  // namespace

LoadOptions Session::load_options(const CompileOptions& o, const PrepareOptions& entry,
                                  int vjp_order,
                                  std::optional<std::vector<TensorType>> arg_types) const {
  return {.vjp_order = vjp_order,
          .prepare = {.entry = entry.entry,
                      .export_platforms = entry.export_platforms,
                      .platform = client_.platform_name(),
                      .arg_types = std::move(arg_types),
                      .onednn = onednn_},
          .compile = o,
          .client = {.platform = client_.platform_name()}};
}

TuneResult Session::tune(std::string_view program, const std::vector<Array>& args,
                         const CompileOptions& options, const TuneOptions& tune_options,
                         const PrepareOptions& entry) {
  if (client_.platform_name() != "cpu")
    throw Error(
        "Session::tune: the candidates are the CPU client's modes and XLA CPU options; "
        "this session's client is on " +
        client_.platform_name());
  std::vector<TensorType> types;
  for (const Array& a : args) types.push_back(a.type());
  LoadOptions o = load_options(options, entry, 0, types);
  PreparedProgram prepared = prepare_program(read_program(program), o.prepare);
  Plugin plugin = client_.plugin();
  ClientFactory make_client = [plugin](bool synchronous) {
    return Client::create(plugin, execution_client_options(synchronous));
  };
  TuneResult r = hhlo::tune(prepared, select_kept(prepared.kept_inputs, args), options, make_client,
                            tune_options);
  remember_tuned(disk_, tuned_key_for(program, o), disk_.plugin_identity(plugin), r);
  return r;
}

std::optional<TunedChoice> Session::last_tuned() const {
  std::lock_guard lock(mu_);
  return last_tuned_;
}

const Session::Compiled& Session::compile_keyed(const std::string& key, std::string_view program,
                                                const LoadOptions& options) {
  std::lock_guard lock(mu_);
  bool typed = options.prepare.arg_types.has_value();
  if (!typed) {
    if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  } else if (auto d = dynamic_.find(key); d != dynamic_.end()) {
    std::string k = d->second ? typed_key(key, *options.prepare.arg_types) : key;
    if (auto it = cache_.find(k); it != cache_.end()) return it->second;
  }
  Loaded l = load({.bytes = program, .options = options, .cache = &disk_, .client = &client_});
  last_ = l.outcome;
  last_tuned_ = l.tuned ? std::optional<TunedChoice>(l.tuned->choice) : std::nullopt;
  if (l.read) ++programs_read_;
  bool by_types = typed && l.facts.by_types;
  if (typed) dynamic_.insert_or_assign(key, by_types);
  Compiled c{std::make_unique<LoadedExecutable>(std::move(l.executable)),
             std::move(l.facts.kept_inputs)};
  std::string k = by_types ? typed_key(key, *options.prepare.arg_types) : key;
  return cache_.insert_or_assign(std::move(k), std::move(c)).first->second;
}

const LoadedExecutable& Session::compile(std::string_view mlir, const CompileOptions& o,
                                         const PrepareOptions& program) {
  LoadOptions options = load_options(o, program, 0, std::nullopt);
  return *compile_keyed(memory_key(mlir, options), mlir, options).exe;
}

std::vector<Array> Session::run(std::string_view mlir, const std::vector<Array>& args,
                                const CompileOptions& options, const PrepareOptions& program) {
  std::vector<const Array*> ptrs;
  ptrs.reserve(args.size());
  for (const Array& a : args) ptrs.push_back(&a);
  return run_flat(mlir, ptrs, options, 0, program);
}

std::vector<Array> Session::run(std::string_view mlir, const std::vector<Array>& args,
                                const CompileOptions& options, int vjp_order) {
  std::vector<const Array*> ptrs;
  ptrs.reserve(args.size());
  for (const Array& a : args) ptrs.push_back(&a);
  return run_flat(mlir, ptrs, options, vjp_order);
}

std::vector<Array> Session::run_flat(std::string_view mlir, const std::vector<const Array*>& args,
                                     const CompileOptions& options, int vjp_order,
                                     const PrepareOptions& entry) {
  // The memory key is of the options without argument types: whether the executable depends on
  // them is learned on the first load (PreparedFacts::by_types).
  std::string key = memory_key(mlir, load_options(options, entry, vjp_order, std::nullopt));
  std::vector<TensorType> types;
  for (const Array* a : args) types.push_back(a->type());
  const Compiled& c = compile_keyed(key, mlir, load_options(options, entry, vjp_order, types));
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
