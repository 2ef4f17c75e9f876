// Dynamic batching's data movement (hhlo/serve/batching.h).
#include "hhlo/serve/batching.h"

#include <algorithm>
#include <cstring>

namespace hhlo::serve {
namespace {

/// Bytes of one row (index 0 fixed) of `a`, rank >= 1.
std::size_t row_bytes(const Array& a) {
  return a.dims()[0] == 0 ? 0 : a.byte_size() / std::size_t(a.dims()[0]);
}

}  // namespace

std::vector<int64_t> batch_buckets(int64_t max_batch_size, const std::vector<int64_t>& preferred) {
  std::vector<int64_t> out;
  if (max_batch_size < 1) return out;
  if (!preferred.empty()) {
    for (int64_t p : preferred)
      if (p >= 1 && p < max_batch_size) out.push_back(p);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  } else {
    for (int64_t p = 1; p < max_batch_size; p *= 2) out.push_back(p);
  }
  out.push_back(max_batch_size);
  return out;
}

int64_t bucket_for(int64_t rows, const std::vector<int64_t>& buckets) {
  for (int64_t b : buckets)
    if (b >= rows) return b;
  return 0;
}

bool batchable_together(const std::vector<Array>& a, const std::vector<Array>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const Dims& x = a[i].dims();
    const Dims& y = b[i].dims();
    if (a[i].dtype() != b[i].dtype() || x.empty() || x.size() != y.size() ||
        !std::equal(x.begin() + 1, x.end(), y.begin() + 1))
      return false;
  }
  return true;
}

std::vector<Array> stack_rows(const std::vector<const std::vector<Array>*>& requests,
                              int64_t rows) {
  if (requests.empty()) throw Error("stack_rows: no request");
  int64_t given = 0;
  for (const std::vector<Array>* r : requests) {
    if (!batchable_together(*requests[0], *r))
      throw Error("stack_rows: requests whose inputs differ beyond their first dimension");
    given += r->empty() ? 0 : (*r)[0].dims()[0];
  }
  if (rows < given)
    throw Error("stack_rows: " + std::to_string(given) + " rows do not fit in " +
                std::to_string(rows));
  std::vector<Array> out;
  for (std::size_t i = 0; i < requests[0]->size(); ++i) {
    Dims dims = (*requests[0])[i].dims();
    dims[0] = rows;
    Array stacked((*requests[0])[i].dtype(), dims);
    std::size_t row = row_bytes(stacked), at = 0;
    auto* dst = static_cast<std::byte*>(stacked.data());
    for (const std::vector<Array>* r : requests) {
      std::memcpy(dst + at, (*r)[i].data(), (*r)[i].byte_size());
      at += (*r)[i].byte_size();
    }
    for (; row != 0 && at != 0 && at < stacked.byte_size(); at += row)  // padding: last real row
      std::memcpy(dst + at, dst + at - row, row);
    out.push_back(std::move(stacked));
  }
  return out;
}

std::vector<std::vector<Array>> split_rows(const std::vector<Array>& outputs,
                                           const std::vector<int64_t>& counts) {
  int64_t total = 0;
  for (int64_t c : counts) total += c;
  for (const Array& o : outputs)
    if (o.rank() == 0 || o.dims()[0] < total)
      throw Error("split_rows: an output of shape [" + dims_to_string(o.dims()) +
                  "] holds fewer than the " + std::to_string(total) + " rows asked for");
  std::vector<std::vector<Array>> out(counts.size());
  for (const Array& o : outputs) {
    std::size_t row = row_bytes(o), at = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
      Dims dims = o.dims();
      dims[0] = counts[r];
      Array part(o.dtype(), dims);
      std::memcpy(part.data(), static_cast<const std::byte*>(o.data()) + at, part.byte_size());
      at += row * std::size_t(counts[r]);
      out[r].push_back(std::move(part));
    }
  }
  return out;
}

}  // namespace hhlo::serve
