#include "hhlo/session.h"

#include <optional>

#include "hhlo/ir/entry.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"  // the session layer sits above the IR (DESIGN.md; CMake: hhlo_ir)
#include "hhlo/ir/refine.h"
#include "hhlo/lapack/kernels.h"

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

const LoadedExecutable& Session::compile(std::string_view mlir, const CompileOptions& o) {
  std::string key = serialize_compile_options(o);
  key += '\0' + o.entry;  // the options Client::compile reads besides the serialized ones
  for (const std::string& p : o.export_platforms) key += '\0' + p;
  key += '\0';
  key += mlir;
  std::lock_guard lock(mu_);
  auto it = cache_.find(key);
  if (it == cache_.end())
    it = cache_
             .emplace(std::move(key),
                      std::make_unique<LoadedExecutable>(disk_.compile(client_, mlir, o, &last_)))
             .first;
  return *it->second;
}

std::string Session::refined_text(std::string_view mlir, const std::vector<Array>& args,
                                  const CompileOptions& options) {
  const std::string& entry = options.entry;
  std::string dkey = std::string(mlir) + '\0' + entry;  // dynamic or not, per entry
  for (const std::string& p : options.export_platforms) dkey += '\0' + p;
  std::string key = dkey;
  std::vector<TensorType> types;
  for (const Array& a : args) {
    types.push_back(a.type());
    key += '\0' + types.back().to_string();
  }
  {
    std::lock_guard lock(mu_);
    auto d = dynamic_.find(dkey);
    if (d != dynamic_.end() && !d->second) return std::string(mlir);
    if (auto r = refined_.find(key); r != refined_.end()) return r->second;
  }
  // nullopt (bytecode, static, unparsable: left to the plugin) does not depend on the types.
  std::optional<std::string> refined =
      refine_program_text(mlir, types, entry, "program",
                          platform_index_for(options.export_platforms, client_.platform_name()));
  std::lock_guard lock(mu_);
  dynamic_.emplace(std::move(dkey), refined.has_value());
  if (!refined) return std::string(mlir);
  refined_.emplace(std::move(key), *refined);
  return *refined;
}

std::vector<Array> Session::run(std::string_view mlir, const std::vector<Array>& args,
                                const CompileOptions& options) {
  std::string text = refined_text(mlir, args, options);
  if (text == mlir) {
    const LoadedExecutable& exe = compile(mlir, options);
    return execute_on_host(exe, args);
  }
  CompileOptions refined = options;
  refined.entry.clear();  // refined_text made the entry @main
  return execute_on_host(compile(text, refined), args);
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
