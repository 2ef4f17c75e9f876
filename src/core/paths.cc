#include "hhlo/core/paths.h"

#include <dlfcn.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace hhlo {

namespace fs = std::filesystem;

namespace {

// Adds `start/share/hhlo` and that of up to three parents of `start`.
void add_with_parents(fs::path start, std::vector<std::string>& out) {
  for (int up = 0; up < 4 && !start.empty(); ++up) {
    std::string dir = (start / "share" / "hhlo").string();
    if (std::find(out.begin(), out.end(), dir) == out.end()) out.push_back(dir);
    fs::path parent = start.parent_path();
    if (parent == start) break;
    start = parent;
  }
}

fs::path folder_of(const fs::path& file) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(file, ec);
  if (ec) p = file;
  return p.parent_path();
}

}  // namespace

std::vector<std::string> share_dirs() {
  std::vector<std::string> out;
  if (hhlo_installed_share_dir) {
    if (const char* d = hhlo_installed_share_dir(); d && *d) out.push_back(d);
  }
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&share_dirs), &info) && info.dli_fname && *info.dli_fname)
    add_with_parents(folder_of(info.dli_fname), out);
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) add_with_parents(folder_of(exe), out);
#ifdef HHLO_CONFIGURED_SHARE_DIR
  if (std::find(out.begin(), out.end(), HHLO_CONFIGURED_SHARE_DIR) == out.end())
    out.push_back(HHLO_CONFIGURED_SHARE_DIR);
#endif
  return out;
}

std::string find_share_file(const std::string& relative, std::vector<std::string>* looked) {
  for (const std::string& dir : share_dirs()) {
    std::string path = (fs::path(dir) / relative).string();
    if (looked) looked->push_back(path);
    std::error_code ec;
    if (fs::exists(path, ec)) return path;
  }
  return "";
}

}  // namespace hhlo
