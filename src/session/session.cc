#include "hhlo/session.h"

#include <optional>

#include "hhlo/ir/entry.h"
#include "hhlo/ir/printer.h"  // the session layer sits above the IR (DESIGN.md; CMake: hhlo_ir)
#include "hhlo/ir/refine.h"
#include "hhlo/lapack/kernels.h"
#include "hhlo/program/compile.h"

namespace hhlo {

Session::Session(Client client, CompileCacheOptions disk_cache)
    : client_(std::move(client)), disk_(std::move(disk_cache)) {
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
std::string program_key(std::string_view mlir, const CompileOptions& o) {
  std::string key = serialize_compile_options(o);
  key += '\0' + o.entry;  // what the program stage reads besides the serialized options
  for (const std::string& p : o.export_platforms) key += '\0' + p;
  key += '\0';
  key += mlir;
  return key;
}

}  // namespace

const LoadedExecutable& Session::compile_keyed(std::string key, std::string_view mlir,
                                               std::optional<Program> read, const CompileOptions& o,
                                               std::optional<std::vector<TensorType>> arg_types) {
  std::lock_guard lock(mu_);
  auto it = cache_.find(key);
  if (it != cache_.end()) return *it->second;
  if (!read) read = read_program(mlir);
  PreparedProgram prepared =
      prepare_program(std::move(*read), {.entry = o.entry,
                                         .export_platforms = o.export_platforms,
                                         .platform = client_.platform_name(),
                                         .arg_types = std::move(arg_types)});
  auto exe =
      std::make_unique<LoadedExecutable>(hhlo::compile(client_, prepared, o, &disk_, &last_));
  return *cache_.emplace(std::move(key), std::move(exe)).first->second;
}

const LoadedExecutable& Session::compile(std::string_view mlir, const CompileOptions& o) {
  return compile_keyed(program_key(mlir, o), mlir, std::nullopt, o, std::nullopt);
}

std::vector<Array> Session::run(std::string_view mlir, const std::vector<Array>& args,
                                const CompileOptions& options) {
  std::string key = program_key(mlir, options);
  std::optional<bool> dynamic;
  {
    std::lock_guard lock(mu_);
    if (auto d = dynamic_.find(key); d != dynamic_.end()) dynamic = d->second;
  }
  std::optional<Program> read;
  if (!dynamic) {  // first run of this text: read it once, here, and keep what it tells
    read = read_program(mlir);
    dynamic = has_dynamic_shapes(*read->module.find(resolve_entry(read->module, options.entry)));
    std::lock_guard lock(mu_);
    dynamic_.emplace(key, *dynamic);
  }
  if (!*dynamic)
    return execute_on_host(compile_keyed(key, mlir, std::move(read), options, {}), args);
  std::vector<TensorType> types;
  for (const Array& a : args) {
    types.push_back(a.type());
    key += '\0' + types.back().to_string();
  }
  return execute_on_host(compile_keyed(key, mlir, std::move(read), options, std::move(types)),
                         args);
}

std::vector<Array> Session::execute_on_host(const LoadedExecutable& exe,
                                            const std::vector<Array>& args) {
  std::vector<Buffer> buffers;
  buffers.reserve(args.size());
  for (const Array& a : args) buffers.push_back(client_.buffer_from_host(a));
  std::vector<const Buffer*> ptrs;
  for (const Buffer& b : buffers) ptrs.push_back(&b);
  std::vector<Array> out;
  for (const Buffer& b : exe.execute(ptrs)) out.push_back(b.to_host());
  return out;
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
