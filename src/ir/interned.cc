#include "hhlo/ir/interned.h"

#include <fmt/format.h>

#include <atomic>
#include <mutex>
#include <ostream>
#include <unordered_map>

namespace hhlo {
namespace detail {

struct InternRep {
  std::string text;
  std::atomic<uint32_t> refs{1};
};

}  // namespace detail

namespace {

struct Table {
  std::mutex mu;
  std::unordered_map<std::string_view, detail::InternRep*> map;  // keys view rep->text
};

Table& table() {
  static Table* t = new Table;  // never destroyed: IStrings in static objects may outlive main
  return *t;
}

void acquire(detail::InternRep* r) {
  if (r) r->refs.fetch_add(1, std::memory_order_relaxed);
}

// Drops one reference; the last one removes the entry. Counts above one drop without the lock;
// the step from one to zero happens under it, so a concurrent look-up (which increments under the
// lock) never sees an entry being freed.
void release(detail::InternRep* r) {
  if (!r) return;
  uint32_t n = r->refs.load(std::memory_order_relaxed);
  while (n > 1)
    if (r->refs.compare_exchange_weak(n, n - 1, std::memory_order_acq_rel)) return;
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mu);
  if (r->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    t.map.erase(std::string_view(r->text));
    delete r;
  }
}

const std::string kEmpty;

}  // namespace

IString::IString(std::string_view s) {
  if (s.empty()) return;
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mu);
  auto it = t.map.find(s);
  if (it != t.map.end()) {
    rep_ = it->second;
    rep_->refs.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  rep_ = new detail::InternRep{std::string(s)};
  t.map.emplace(std::string_view(rep_->text), rep_);
}

IString::IString(const IString& o) noexcept : rep_(o.rep_) { acquire(rep_); }

IString& IString::operator=(const IString& o) noexcept {
  if (rep_ != o.rep_) {
    acquire(o.rep_);
    release(rep_);
    rep_ = o.rep_;
  }
  return *this;
}

IString& IString::operator=(IString&& o) noexcept {
  if (this != &o) {
    release(rep_);
    rep_ = o.rep_;
    o.rep_ = nullptr;
  }
  return *this;
}

IString::~IString() { release(rep_); }

const std::string& IString::str() const { return rep_ ? rep_->text : kEmpty; }

size_t IString::table_size() {
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mu);
  return t.map.size();
}

std::ostream& operator<<(std::ostream& os, const IString& s) { return os << s.str(); }

}  // namespace hhlo

// fmt::formatter<IString> (interned.h) delegates to the string_view formatter, whose format() fmt 9
// defines only in <fmt/format.h>: instantiated here, so code that formats an IString links with
// <fmt/core.h> alone.
template auto fmt::formatter<fmt::string_view, char>::format<fmt::format_context>(
    const fmt::string_view&, fmt::format_context&) const -> fmt::format_context::iterator;
