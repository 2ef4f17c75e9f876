#include "runtime_util.h"

#include "hhlo/program/compile.h"

namespace hhlo::test {

const Client& cpu() {
  static const Client client = Client::create("cpu", {{"cpu_device_count", int64_t{4}}});
  return client;
}

LoadedExecutable compile(const std::string& mlir, const CompileOptions& options,
                         const PrepareOptions& prepare) {
  return compile(cpu(), mlir, options, prepare);
}

std::vector<Array> run(const LoadedExecutable& exe, const std::vector<Array>& args) {
  std::vector<Buffer> buffers;
  std::vector<const Buffer*> ptrs;
  for (const Array& a : args) buffers.push_back(cpu().buffer_from_host(a));
  for (const Buffer& b : buffers) ptrs.push_back(&b);
  std::vector<Array> out;
  for (const Buffer& b : exe.execute(ptrs)) out.push_back(b.to_host());
  return out;
}

}  // namespace hhlo::test
