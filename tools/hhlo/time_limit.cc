#include "time_limit.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>

namespace hhlo::cli {

std::string time_limit_error(const std::string& text) {
  char* end = nullptr;
  double s = text.empty() ? 0 : std::strtod(text.c_str(), &end);
  if (end && end != text.c_str() && *end == '\0' && s > 0) return "";  // NaN fails `s > 0`
  std::string shown = text.size() > 24 ? text.substr(0, 21) + "..." : text;
  return "'" + shown + "' is not a positive number of seconds (inf: no bound)";
}

CLI::Validator time_limit_validator() {
  return CLI::Validator([](std::string& v) { return time_limit_error(v); }, "SECONDS");
}

bool is_bounded(double seconds) { return seconds > 0 && seconds < kNoTimeLimitSeconds; }

std::chrono::steady_clock::duration to_steady_duration(double seconds) {
  if (!(seconds > 0)) return std::chrono::steady_clock::duration::zero();
  double s = std::min(seconds, kNoTimeLimitSeconds);
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(s));
}

std::chrono::milliseconds to_milliseconds(double seconds) {
  if (!(seconds > 0)) return std::chrono::milliseconds::zero();
  double ms = std::ceil(std::min(seconds, kNoTimeLimitSeconds) * 1000);
  return std::chrono::milliseconds(std::max<int64_t>(1, static_cast<int64_t>(ms)));
}

}  // namespace hhlo::cli
