#include "exec_util.h"

#include "hhlo/ir/printer.h"
#include "hhlo/ir/verifier.h"
#include "hhlo/runtime/client.h"

namespace hhlo::test {

static const Client& client() {
  static Client c = Client::create("cpu", {{"cpu_device_count", int64_t{1}}});
  return c;
}

std::vector<Array> run(const Module& m, const std::vector<Array>& args) {
  verify(m);  // every executed program also passes the verifier
  const Client& c = client();
  LoadedExecutable exe = c.compile(to_mlir(m));
  std::vector<Buffer> in;
  in.reserve(args.size());
  for (const Array& a : args) in.push_back(c.buffer_from_host(a));
  std::vector<const Buffer*> ptrs;
  for (const Buffer& b : in) ptrs.push_back(&b);
  std::vector<Buffer> out = exe.execute(ptrs);
  std::vector<Array> result;
  for (const Buffer& b : out) result.push_back(b.to_host());
  return result;
}

std::vector<double> values(const Array& a) {
  std::vector<double> v;
  for (int64_t i = 0; i < a.num_elements(); ++i) v.push_back(a.element_as_double(i));
  return v;
}

}  // namespace hhlo::test
