// Options of PJRT_Client_Compile, serialized as an xla.CompileOptionsProto.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hhlo {

/// What to compile for. Defaults: one replica, one partition, device chosen by the plugin.
struct CompileOptions {
  /// Number of replicas (data-parallel copies); each runs on its own device.
  int num_replicas = 1;
  /// Number of SPMD partitions.
  int num_partitions = 1;
  /// Device ids, indexed [replica * num_partitions + partition]; empty lets the plugin choose
  /// (its default assignment: devices 0..n-1). Size must be num_replicas * num_partitions.
  std::vector<int> device_assignment;
  /// Compile a portable executable that runs on whatever device execute() names
  /// (requires num_replicas == num_partitions == 1).
  bool portable = false;
};

/// The xla.CompileOptionsProto wire bytes for `options`: executable_build_options (field 3) with
/// device_ordinal = -1 (1), num_replicas (4), num_partitions (5), and device_assignment (9) when
/// given; compile_portable_executable (4) when portable. Never empty, never a partial
/// debug_options (which would zero XLA's defaults). Throws hhlo::Error when the options are
/// inconsistent (non-positive counts, wrong device_assignment size, portable with replicas).
std::string serialize_compile_options(const CompileOptions& options);

}  // namespace hhlo
