// Options of PJRT_Client_Compile, serialized as an xla.CompileOptionsProto.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace hhlo {

/// The value of one XLA compile option: an OptionOverrideProto (bool_field, int_field,
/// double_field or string_field). XLA sets the DebugOptions field of that name from it at compile
/// time; the type must fit the field (bool for a bool field, int for an integer field, double for
/// a float field, string for a string or enum field), else PJRT_Client_Compile fails.
using XlaOptionValue = std::variant<bool, int64_t, double, std::string>;

/// The XLA options hhlo compiles with unless told otherwise, so that programs have their
/// StableHLO meaning:
///   xla_cpu_enable_fast_min_max = false: maximum/minimum (and the reduce-max/min built from them)
///   propagate NaN, as the spec says. XLA's default (true) lets maximum(5, NaN) return 5 on CPU.
std::map<std::string, XlaOptionValue> default_xla_options();

/// What PJRT's compile options hold (xla.CompileOptionsProto): what to compile for. Which
/// function of a program runs and a multi-platform export's platforms are the program stage's
/// (PrepareOptions, hhlo/program/program.h). Defaults: one replica, one partition, device chosen by
/// the plugin, the XLA options of default_xla_options().
struct CompileOptions {
  /// Number of replicas (data-parallel copies); each runs on its own device.
  int num_replicas = 1;
  /// Number of SPMD partitions.
  int num_partitions = 1;
  /// Run XLA's SPMD partitioner (ExecutableBuildOptionsProto.use_spmd_partitioning): the program
  /// is written for the global shapes, with shardings on arguments, results and inside (Shardy
  /// `sdy.sharding` or GSPMD `mhlo.sharding`), and XLA splits it into num_partitions per-device
  /// programs with the collectives it needs. Without it a program with num_partitions > 1 must
  /// already be per-device (explicit collectives only).
  bool use_spmd_partitioning = false;
  /// Partition with Shardy (ExecutableBuildOptionsProto.use_shardy_partitioner), which reads the
  /// `sdy.mesh` / `#sdy.sharding` / `sdy.manual_computation` forms JAX emits today; without it
  /// XLA's GSPMD partitioner reads `mhlo.sharding` strings and a `sdy.manual_computation`
  /// (shard_map) fails to compile. Only meaningful with use_spmd_partitioning.
  bool use_shardy_partitioner = false;
  /// Device ids, indexed [replica * num_partitions + partition]; empty lets the plugin choose
  /// (its default assignment: devices 0..n-1). Size must be num_replicas * num_partitions.
  std::vector<int> device_assignment;
  /// Compile a portable executable that runs on whatever device execute() names
  /// (requires num_replicas == num_partitions == 1).
  bool portable = false;
  /// XLA options by name (xla.DebugOptions field names such as "xla_cpu_enable_fast_min_max"),
  /// sent as CompileOptionsProto.env_option_overrides: each changes one option and leaves XLA's
  /// other defaults alone. Starts as default_xla_options(); set an entry to change it
  /// (`o.xla_options["xla_cpu_enable_fast_min_max"] = true` for XLA's fast, NaN-dropping
  /// max/min) or clear() the map to compile with the plugin's own defaults.
  std::map<std::string, XlaOptionValue> xla_options = default_xla_options();
};

/// The xla.CompileOptionsProto wire bytes for `options`: executable_build_options (field 3) with
/// device_ordinal = -1 (1), num_replicas (4), num_partitions (5), use_spmd_partitioning (6) and
/// use_shardy_partitioner (19) when true, and device_assignment (9) when given;
/// compile_portable_executable (4) when portable; one env_option_overrides (7) map entry per
/// xla_options entry, in name order (key = 1, value = 2: OptionOverrideProto with string_field = 1,
/// bool_field = 2, int_field = 3, double_field = 4). Never empty, never a partial debug_options
/// (which would zero XLA's defaults). Throws hhlo::Error when the options are inconsistent
/// (non-positive counts, wrong device_assignment size, portable with replicas, an empty option
/// name).
std::string serialize_compile_options(const CompileOptions& options);

/// Parses the text form of an XLA option value, as the CLI's `--xla-option name=value` gives it:
/// "true"/"false" are bool, a decimal integer (optional sign) is int64, a decimal number with a
/// '.' or an exponent is double, anything else is a string. Never throws.
XlaOptionValue parse_xla_option_value(const std::string& text);

}  // namespace hhlo
