#include "elf_file.h"

#include <elf.h>
#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <climits>
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

void check_elf_shared_library(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  unsigned char ident[EI_NIDENT + 2] = {};  // e_ident, e_type: the same in both classes
  if (!in.read(reinterpret_cast<char*>(ident), sizeof ident)) return;
  if (std::memcmp(ident, ELFMAG, SELFMAG) != 0) return;
  std::uint16_t type =
      ident[EI_DATA] == ELFDATA2MSB
          ? static_cast<std::uint16_t>(ident[EI_NIDENT] << 8 | ident[EI_NIDENT + 1])
          : static_cast<std::uint16_t>(ident[EI_NIDENT + 1] << 8 | ident[EI_NIDENT]);
  const char* kind = type == ET_REL    ? "an ELF relocatable object file (gcc -c output)"
                     : type == ET_EXEC ? "an ELF executable (not position-independent)"
                     : type == ET_CORE ? "an ELF core dump"
                                       : nullptr;
  if (!kind) return;
  throw PluginError(fmt::format(
      "cannot load {} '{}': it is {}, not a shared library{}", what, path, kind,
      type == ET_REL ? ": link it into one (g++ -shared -fPIC ... -o libname.so)" : ""));
}

std::string library_path_problem(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    // dlopen maps a file: a FIFO would make the ELF checks wait for a writer, /dev/zero read on.
    if (S_ISDIR(st.st_mode)) return "is a directory, not a shared library";
    if (!S_ISREG(st.st_mode))
      return "is not a regular file (a pipe, a device or a socket): a library is loaded by "
             "mapping its file (dlopen), so it must be one";
    return "";
  }
  int err = errno;
  if (err == ENOENT) return "does not exist";
  if (err == ENAMETOOLONG)
    return fmt::format(
        "cannot be opened: its path is too long (ENAMETOOLONG: {} bytes; PATH_MAX is {} bytes, "
        "NAME_MAX {} per name)",
        path.size(), PATH_MAX, NAME_MAX);
  return fmt::format("cannot be opened: {}", std::strerror(err));
}

namespace {

/// The host's ELF machine, the one this process was built for.
constexpr std::uint16_t kHostMachine =
#if defined(__x86_64__)
    EM_X86_64;
#elif defined(__aarch64__)
    EM_AARCH64;
#elif defined(__powerpc64__)
    EM_PPC64;
#elif defined(__riscv)
    EM_RISCV;
#else
    EM_NONE;  // unknown host: no check
#endif

std::string machine_name(std::uint16_t m) {
  switch (m) {
    case EM_X86_64:
      return "x86-64";
    case EM_AARCH64:
      return "AArch64";
    case EM_386:
      return "32-bit x86";
    case EM_ARM:
      return "32-bit ARM";
    case EM_PPC64:
      return "PowerPC 64";
    case EM_RISCV:
      return "RISC-V";
    case EM_S390:
      return "IBM S/390";
    default:
      return fmt::format("ELF machine {}", m);
  }
}

}  // namespace

void check_elf_machine(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  unsigned char ident[EI_NIDENT + 4] = {};  // e_ident, e_type, e_machine: the same in both classes
  if (!in.read(reinterpret_cast<char*>(ident), sizeof ident)) return;
  if (std::memcmp(ident, ELFMAG, SELFMAG) != 0 || kHostMachine == EM_NONE) return;
  std::uint16_t machine =
      ident[EI_DATA] == ELFDATA2MSB
          ? static_cast<std::uint16_t>(ident[EI_NIDENT + 2] << 8 | ident[EI_NIDENT + 3])
          : static_cast<std::uint16_t>(ident[EI_NIDENT + 3] << 8 | ident[EI_NIDENT + 2]);
  bool host_class = ident[EI_CLASS] == (sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32);
  if (machine == kHostMachine && host_class) return;
  throw PluginError(fmt::format(
      "cannot load {} '{}': it is built for {}{}, and this process runs on {}: rebuild it for "
      "this machine",
      what, path, machine_name(machine),
      ident[EI_CLASS] == ELFCLASS32 && machine != EM_386 && machine != EM_ARM ? " (32-bit)" : "",
      machine_name(kHostMachine)));
}

}  // namespace hhlo::detail
