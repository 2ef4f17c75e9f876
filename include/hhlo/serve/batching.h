// Dynamic batching's data movement (docs/serving.md "Dynamic batching"): requests of a model
// whose inputs and outputs share a leading batch dimension are stacked along it into one call,
// padded to a compiled batch size with copies of a real row, and the outputs split back per
// request. Pure functions of host arrays; the server core (hhlo/serve/server.h) decides what to
// batch.
#pragma once
#include <cstdint>
#include <vector>

#include "hhlo/core/array.h"

namespace hhlo::serve {

/// The batch sizes compiled for a model batching up to `max_batch_size` rows: `preferred`
/// (sorted, those in 1..max_batch_size) when not empty, else the powers of two below it; always
/// ending with max_batch_size itself. Empty when max_batch_size < 1.
std::vector<int64_t> batch_buckets(int64_t max_batch_size, const std::vector<int64_t>& preferred);

/// The smallest bucket of `buckets` (ascending) holding `rows`, or 0 when none does.
int64_t bucket_for(int64_t rows, const std::vector<int64_t>& buckets);

/// True when `a` and `b` (one request's inputs each, in the model's order) can share a batch:
/// the same count, and each pair of the same dtype and dimensions but the first, with rank >= 1.
bool batchable_together(const std::vector<Array>& a, const std::vector<Array>& b);

/// The inputs of one call of the model: for each input i, the rows of `requests[r][i]` for
/// every request r in order, then copies of the last row up to `rows` in all. Throws
/// hhlo::Error when `requests` is empty, the requests are not batchable_together, or `rows` is
/// smaller than their rows together.
std::vector<Array> stack_rows(const std::vector<const std::vector<Array>*>& requests, int64_t rows);

/// `outputs` of a stacked call split back: element r holds, for each output, the `counts[r]`
/// rows following those of the requests before it (rows past the counts' sum, the padding, are
/// dropped). Throws hhlo::Error when an output has rank 0 or fewer rows than the counts' sum.
std::vector<std::vector<Array>> split_rows(const std::vector<Array>& outputs,
                                           const std::vector<int64_t>& counts);

}  // namespace hhlo::serve
