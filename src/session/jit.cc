// jit of C++ callables: signature -> (traced module text, compiled executable), cached.
#include "hhlo/jit.h"

#include <fmt/format.h>

#include <cstring>

#include "hhlo/ir/module.h"
#include "hhlo/ir/printer.h"
#include "hhlo/session.h"

namespace hhlo {
namespace {

// The signature as one flat key: per argument dtype, rank, dims; then per static argument a
// tag and its value (a string as its length and characters).
void append(std::vector<int64_t>& k, DType dtype, const Dims& dims) {
  k.push_back(static_cast<int64_t>(dtype));
  k.push_back(static_cast<int64_t>(dims.size()));
  k.insert(k.end(), dims.begin(), dims.end());
}

void append(std::vector<int64_t>& k, const std::vector<StaticArg>& statics) {
  k.push_back(-1);  // separates the static arguments from the last argument's dims
  for (const StaticArg& a : statics) {
    k.push_back(static_cast<int64_t>(a.index()));
    if (const auto* i = std::get_if<int64_t>(&a)) k.push_back(*i);
    if (const auto* d = std::get_if<double>(&a)) {
      int64_t bits;
      std::memcpy(&bits, d, sizeof bits);
      k.push_back(bits);
    }
    if (const auto* b = std::get_if<bool>(&a)) k.push_back(*b);
    if (const auto* s = std::get_if<std::string>(&a)) {
      k.push_back(static_cast<int64_t>(s->size()));
      for (char c : *s) k.push_back(c);
    }
  }
}

// The key under construction for the current call (no allocation once it has grown).
std::vector<int64_t>& scratch_key() {
  thread_local std::vector<int64_t> k;
  k.clear();
  return k;
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
  std::map<std::vector<int64_t>, std::unique_ptr<Entry>> cache;
  std::size_t traces = 0, hits = 0;
};

Jitted::Jitted(JitFn fn, Session& session) : s_(std::make_unique<State>()) {
  s_->fn = std::move(fn);
  s_->session = &session;
}
Jitted::Jitted(Jitted&&) noexcept = default;
Jitted& Jitted::operator=(Jitted&&) noexcept = default;
Jitted::~Jitted() = default;

const Jitted::Entry* Jitted::find(const std::vector<int64_t>& key, bool count_hit) {
  std::lock_guard lock(s_->mu);
  auto it = s_->cache.find(key);
  if (it == s_->cache.end()) return nullptr;
  if (count_hit) ++s_->hits;
  return it->second.get();
}

const Jitted::Entry& Jitted::trace(const std::vector<int64_t>& key,
                                   const std::vector<TensorType>& types,
                                   const std::vector<StaticArg>& statics) {
  std::lock_guard lock(s_->mu);
  auto it = s_->cache.find(key);
  if (it != s_->cache.end()) return *it->second;  // traced meanwhile by another thread
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
  return *s_->cache.emplace(key, std::move(e)).first->second;
}

const Jitted::Entry& Jitted::lookup(const std::vector<TensorType>& types,
                                    const std::vector<StaticArg>& statics, bool count_hit) {
  std::vector<int64_t>& key = scratch_key();
  for (const TensorType& t : types) append(key, t.dtype, t.dims);
  append(key, statics);
  if (const Entry* e = find(key, count_hit)) return *e;
  return trace(key, types, statics);
}

std::vector<Buffer> Jitted::operator()(const std::vector<const Buffer*>& args,
                                       const std::vector<StaticArg>& statics) {
  std::vector<int64_t>& key = scratch_key();
  for (const Buffer* b : args) append(key, b->dtype(), b->dims());
  append(key, statics);
  const Entry* e = find(key, true);
  if (!e) {
    std::vector<TensorType> types;
    for (const Buffer* b : args) types.push_back(b->type());
    e = &trace(key, types, statics);
  }
  return e->exe->execute(args);
}

std::vector<Array> Jitted::operator()(const std::vector<Array>& args,
                                      const std::vector<StaticArg>& statics) {
  std::vector<int64_t>& key = scratch_key();
  for (const Array& a : args) append(key, a.dtype(), a.dims());
  append(key, statics);
  const Entry* e = find(key, true);
  if (!e) {
    std::vector<TensorType> types;
    for (const Array& a : args) types.push_back(a.type());
    e = &trace(key, types, statics);
  }
  const Client& c = s_->session->client();
  std::vector<Buffer> bufs;
  bufs.reserve(args.size());
  for (const Array& a : args) bufs.push_back(c.buffer_from_host(a));
  std::vector<const Buffer*> ptrs;
  ptrs.reserve(bufs.size());
  for (const Buffer& b : bufs) ptrs.push_back(&b);
  std::vector<Array> out;
  for (const Buffer& b : e->exe->execute(ptrs)) out.push_back(b.to_host());
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
