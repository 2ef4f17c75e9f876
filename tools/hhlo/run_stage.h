// The plugin stage of `hhlo run` (run.cc), shared with `hhlo tune` (tune.cc): preparing the
// program read for the inputs, and the client it runs on.
#pragma once

#include "hhlo/program/program.h"
#include "hhlo/runtime/client.h"
#include "run_input.h"

namespace hhlo::cli {

/// The program stage for `hhlo run`: `in.program` (read on first use) prepared (entry, platform
/// index, refinement to the input shapes), then `in.program` emptied. A failed shape_assertion is
/// reported with JAX's message and the input shapes; throws hhlo::Error "cannot compile 'PATH':
/// ..." for an entry, platform index or input count the program refuses.
PreparedProgram prepare_for_inputs(const RunOptions& o, RunInputs& in);

/// The client `hhlo run` runs `partitions` partitions on (o.platform, o.execution), JAX's LAPACK
/// targets (CPU) and o.custom_call_libraries registered. Throws hhlo::ShardingError when the
/// platform has fewer devices than `partitions`, and what Client::create and the registrations
/// throw.
Client client_for_run(const RunOptions& o, int partitions);

}  // namespace hhlo::cli
