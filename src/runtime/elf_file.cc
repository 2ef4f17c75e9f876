#include "elf_file.h"

#include <elf.h>
#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "hhlo/core/error.h"

namespace hhlo::detail {

void check_elf_not_truncated(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  std::error_code ec;
  uint64_t size = std::filesystem::file_size(path, ec);
  Elf64_Ehdr eh{};
  if (ec || !in.read(reinterpret_cast<char*>(&eh), sizeof eh)) return;
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64) return;
  auto truncated = [&](const std::string& part) {
    return PluginError(fmt::format(
        "cannot load {} '{}': the file is truncated ({} bytes; its {} lie past the end)", what,
        path, size, part));
  };
  if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phoff > size ||
      uint64_t{eh.e_phnum} * sizeof(Elf64_Phdr) > size - eh.e_phoff)
    throw truncated("program headers");
  in.seekg(static_cast<std::streamoff>(eh.e_phoff));
  for (int i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph{};
    if (!in.read(reinterpret_cast<char*>(&ph), sizeof ph)) throw truncated("program headers");
    if (ph.p_type == PT_LOAD && (ph.p_offset > size || ph.p_filesz > size - ph.p_offset))
      throw truncated(fmt::format("loadable segment {}", i));
  }
}

}  // namespace hhlo::detail
