#include "program_util.h"

#include <string_view>

#include "hhlo/program/compile.h"

namespace hhlo::test {

const Client& cpu() {
  static const Client client = Client::create("cpu");
  return client;
}

std::vector<Array> run_text(const std::string& text, const std::vector<Array>& args) {
  LoadedExecutable exe = compile(cpu(), std::string_view(text));
  std::vector<Buffer> buffers;
  std::vector<const Buffer*> ptrs;
  for (const Array& a : args) buffers.push_back(cpu().buffer_from_host(a));
  for (const Buffer& b : buffers) ptrs.push_back(&b);
  std::vector<Array> out;
  for (const Buffer& b : exe.execute(ptrs)) out.push_back(b.to_host());
  return out;
}

}  // namespace hhlo::test
