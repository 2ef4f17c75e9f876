// The one conversion of a time limit given on the command line (`--timeout` of run and bench,
// `--budget` of tune, `--mpi-timeout` of demo): a positive number of seconds, `inf` for no bound.
// Every conversion saturates: a limit at or past kNoTimeLimitSeconds bounds nothing in practice
// and never overflows a clock (1e10 s as steady_clock's nanoseconds wrapped to a deadline in the
// past, which stopped every run at once).
#pragma once

#include <CLI/CLI.hpp>
#include <chrono>
#include <string>

namespace hhlo::cli {

/// Seconds at or past which a time limit bounds nothing (about 31.7 years): the saturation point
/// of every conversion below. Twice it, in nanoseconds, still fits steady_clock's int64.
inline constexpr double kNoTimeLimitSeconds = 1e9;

/// "" when `text` is a time limit in seconds: a positive number (`0.5`, `1e10`, `1e400`) or `inf`
/// (no bound); else the reason in one short line for a CLI11 validator (which prefixes the flag:
/// "--timeout: '0' is not a positive number of seconds (inf: no bound)"). NaN, zero, negative
/// numbers, words and trailing text are refused; a long `text` is shortened in the message.
/// Never throws.
std::string time_limit_error(const std::string& text);

/// A CLI11 validator named "SECONDS" of time_limit_error, for an option stored into a double.
CLI::Validator time_limit_validator();

/// Whether `seconds` bounds anything: positive and below kNoTimeLimitSeconds (false for NaN, 0,
/// negative numbers, `inf` and huge values). Never throws.
bool is_bounded(double seconds);

/// `seconds` as a steady_clock duration, saturated at kNoTimeLimitSeconds (so `now() + d` never
/// overflows); zero for NaN, 0 and negative numbers. Never throws.
std::chrono::steady_clock::duration to_steady_duration(double seconds);

/// `seconds` in whole milliseconds, rounded up (a positive limit is at least 1 ms: 0.0001 s is
/// 1 ms, never 0) and saturated at kNoTimeLimitSeconds (1e12 ms: twice it, as nanoseconds,
/// still fits steady_clock); zero for NaN, 0 and negative numbers. Never throws.
std::chrono::milliseconds to_milliseconds(double seconds);

}  // namespace hhlo::cli
