// jit of C++ callables: signature -> (traced module text, compiled executable), cached.
#include "hhlo/jit.h"

#include <fmt/format.h>

#include "hhlo/ir/module.h"
#include "hhlo/ir/printer.h"
#include "hhlo/session.h"

namespace hhlo {
namespace {

// The signature as one flat key: per argument dtype, rank, dims; then the static arguments.
struct Key {
  std::vector<int64_t> shape;
  std::vector<StaticArg> statics;
  bool operator<(const Key& o) const {
    if (shape != o.shape) return shape < o.shape;
    return statics < o.statics;
  }
};

void append(std::vector<int64_t>& k, const TensorType& t) {
  k.push_back(static_cast<int64_t>(t.dtype));
  k.push_back(t.rank());
  k.insert(k.end(), t.dims.begin(), t.dims.end());
}

std::string describe(const std::vector<TensorType>& types, const std::vector<StaticArg>& statics) {
  std::string s;
  for (const TensorType& t : types) s += (s.empty() ? "" : ", ") + t.to_string();
  for (const StaticArg& a : statics) {
    s += s.empty() ? "static " : ", static ";
    std::visit(
        [&](const auto& v) {
          if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::string>)
            s += '"' + v + '"';
          else
            s += fmt::format("{}", v);
        },
        a);
  }
  return s;
}

}  // namespace

struct Jitted::Entry {
  std::string mlir;
  const LoadedExecutable* exe = nullptr;
};

struct Jitted::State {
  JitFn fn;
  Session* session;
  mutable std::mutex mu;
  std::map<Key, std::unique_ptr<Entry>> cache;
  std::size_t traces = 0, hits = 0;
};

Jitted::Jitted(JitFn fn, Session& session) : s_(std::make_unique<State>()) {
  s_->fn = std::move(fn);
  s_->session = &session;
}
Jitted::Jitted(Jitted&&) noexcept = default;
Jitted& Jitted::operator=(Jitted&&) noexcept = default;
Jitted::~Jitted() = default;

const Jitted::Entry& Jitted::lookup(const std::vector<TensorType>& types,
                                    const std::vector<StaticArg>& statics, bool count_hit) {
  Key key;
  for (const TensorType& t : types) append(key.shape, t);
  key.statics = statics;
  std::lock_guard lock(s_->mu);
  auto it = s_->cache.find(key);
  if (it != s_->cache.end()) {
    if (count_hit) ++s_->hits;
    return *it->second;
  }
  auto e = std::make_unique<Entry>();
  {
    Module m;
    m.set_name("jit_fn");
    Func& f = m.add_func("main", types);
    std::vector<Tensor> args(f.args().begin(), f.args().end());
    std::vector<Tensor> outs;
    try {
      outs = s_->fn(args, statics);
    } catch (const Error& err) {
      throw Error(fmt::format("jit: tracing for signature ({}) failed: {}",
                              describe(types, statics), err.what()));
    }
    std::vector<Value> res(outs.begin(), outs.end());
    f.ret(res);
    e->mlir = to_mlir(m);
  }
  e->exe = &s_->session->compile(e->mlir);
  ++s_->traces;
  return *s_->cache.emplace(std::move(key), std::move(e)).first->second;
}

std::vector<Buffer> Jitted::operator()(const std::vector<const Buffer*>& args,
                                       const std::vector<StaticArg>& statics) {
  std::vector<TensorType> types;
  types.reserve(args.size());
  for (const Buffer* b : args) types.push_back(b->type());
  return lookup(types, statics, true).exe->execute(args);
}

std::vector<Array> Jitted::operator()(const std::vector<Array>& args,
                                      const std::vector<StaticArg>& statics) {
  std::vector<TensorType> types;
  types.reserve(args.size());
  for (const Array& a : args) types.push_back(a.type());
  const Entry& e = lookup(types, statics, true);
  const Client& c = s_->session->client();
  std::vector<Buffer> bufs;
  bufs.reserve(args.size());
  for (const Array& a : args) bufs.push_back(c.buffer_from_host(a));
  std::vector<const Buffer*> ptrs;
  for (const Buffer& b : bufs) ptrs.push_back(&b);
  std::vector<Array> out;
  for (const Buffer& b : e.exe->execute(ptrs)) out.push_back(b.to_host());
  return out;
}

const LoadedExecutable& Jitted::executable(const std::vector<TensorType>& arg_types,
                                           const std::vector<StaticArg>& statics) {
  return *lookup(arg_types, statics, false).exe;
}

std::string Jitted::mlir(const std::vector<TensorType>& arg_types,
                         const std::vector<StaticArg>& statics) {
  return lookup(arg_types, statics, false).mlir;
}

std::size_t Jitted::traces() const {
  std::lock_guard lock(s_->mu);
  return s_->traces;
}
std::size_t Jitted::cache_hits() const {
  std::lock_guard lock(s_->mu);
  return s_->hits;
}

Jitted jit(JitFn fn, Session& session) { return Jitted(std::move(fn), session); }
Jitted jit(JitFnNoStatic fn, Session& session) {
  return Jitted([fn = std::move(fn)](const std::vector<Tensor>& a,
                                     const std::vector<StaticArg>&) { return fn(a); },
                session);
}

}  // namespace hhlo
