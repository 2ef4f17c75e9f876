#include "hhlo/session.h"

#include "hhlo/ir/printer.h"  // the session layer sits above the IR (DESIGN.md; CMake: hhlo_ir)

namespace hhlo {

Session::Session(Client client, CompileCacheOptions disk_cache)
    : client_(std::move(client)), disk_(std::move(disk_cache)) {}

CacheOutcome Session::last_outcome() const {
  std::lock_guard lock(mu_);
  return last_;
}

const LoadedExecutable& Session::compile(std::string_view mlir, const CompileOptions& o) {
  std::string key = serialize_compile_options(o);
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

std::vector<Array> Session::run(std::string_view mlir, const std::vector<Array>& args) {
  const LoadedExecutable& exe = compile(mlir);
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
std::vector<Array> Session::run(const Module& module, const std::vector<Array>& args) {
  return run(to_mlir(module), args);
}
std::vector<Array> run(const Module& module, const std::vector<Array>& args) {
  return default_session().run(module, args);
}

}  // namespace hhlo
