#include <gtest/gtest.h>

#include <complex>

#include "runtime_util.h"

namespace hhlo {
namespace {

TEST(Buffer, RoundTripsEveryDtype) {
  for (DType t : kClassicDTypes) {  // the narrow ones: NarrowPlugin.HostBuffers*
    Array a(t, {3, 2});
    auto* bytes = static_cast<unsigned char*>(a.data());
    for (std::size_t i = 0; i < a.byte_size(); ++i)
      bytes[i] = static_cast<unsigned char>(3 * i + 1);
    if (t == DType::pred)
      for (std::size_t i = 0; i < a.byte_size(); ++i) bytes[i] = i % 3 == 0;
    Buffer b = test::cpu().buffer_from_host(a);
    EXPECT_EQ(b.dtype(), t) << dtype_name(t);
    EXPECT_EQ(b.dims(), (Dims{3, 2}));
    EXPECT_GE(b.on_device_size(), static_cast<int64_t>(a.byte_size()));
    EXPECT_EQ(b.to_host(), a) << dtype_name(t);
  }
}

TEST(Buffer, ScalarAndEmptyArrays) {
  Buffer s = test::cpu().buffer_from_host(Array::scalar<int64_t>(-7));
  EXPECT_EQ(s.dims(), Dims{});
  EXPECT_EQ(s.to_host().to_vector<int64_t>(), std::vector<int64_t>{-7});
  Buffer e = test::cpu().buffer_from_host(Array(DType::f32, {0, 3}));
  EXPECT_EQ(e.to_host().num_elements(), 0);
}

TEST(Buffer, WrongHostSizeIsRejected) {
  float data[3] = {1, 2, 3};
  EXPECT_THROW(test::cpu().buffer_from_host(data, sizeof data, {DType::f32, {4}}), Error);
  EXPECT_THROW(test::cpu().buffer_from_host(data, sizeof data, {DType::f32, {kDynamic}}), Error);
  Buffer b = test::cpu().buffer_from_host(data, sizeof data, {DType::f32, {3}});
  float out[2];
  EXPECT_THROW(b.to_host_async(out, sizeof out), Error);
}

TEST(Buffer, CopiesToAnotherDevice) {
  const Client& c = test::cpu();
  Array a = Array::from<float>({2}, {1.5f, -2.5f});
  Buffer b = c.buffer_from_host(a, c.devices()[1]);
  EXPECT_EQ(b.device(), c.devices()[1]);
  Buffer moved = b.copy_to_device(c.devices()[3]);
  EXPECT_EQ(moved.device(), c.devices()[3]);
  EXPECT_EQ(moved.to_host(), a);
}

TEST(Buffer, DeleteMakesFurtherUseAClearError) {
  Buffer b = test::cpu().buffer_from_host(Array::from<int32_t>({2}, {1, 2}));
  EXPECT_FALSE(b.is_deleted());
  b.delete_data();
  EXPECT_TRUE(b.is_deleted());
  EXPECT_THROW(b.to_host(), Error);
}

TEST(Buffer, ReadyEventAndAsyncCopy) {
  Buffer b = test::cpu().buffer_from_host(Array::from<double>({3}, {1, 2, 3}));
  b.ready_event().await();
  double out[3] = {};
  Event e = b.to_host_async(out, sizeof out);
  e.await();
  EXPECT_TRUE(e.is_ready());
  EXPECT_EQ(out[2], 3.0);
}

TEST(Buffer, ToHostOfAResultStillBeingComputedWaitsForIt) {
  // A CPU buffer is read from its memory on the calling thread (Buffer::to_host): only after
  // the execution that defines it has ended. 3000 rounds of x = x + 1 over 256 x 256 floats take
  // tens of milliseconds on the plugin's threads; to_host right after execute_async must see
  // them all (without the wait it read 736 rounds).
  LoadedExecutable exe = test::compile(R"(
func.func @main(%x: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %zero, %v = %x) : tensor<i32>, tensor<256x256xf32>
  cond {
    %n = stablehlo.constant dense<3000> : tensor<i32>
    %c = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %one : tensor<i32>
    %onef = stablehlo.constant dense<1.0> : tensor<256x256xf32>
    %w = stablehlo.add %v, %onef : tensor<256x256xf32>
    stablehlo.return %j, %w : tensor<i32>, tensor<256x256xf32>
  }
  return %r#1 : tensor<256x256xf32>
}
)");
  Array x(DType::f32, {256, 256});
  float* p = static_cast<float*>(x.data());
  for (int i = 0; i < 256 * 256; ++i) p[i] = static_cast<float>(i % 7);
  Buffer in = test::cpu().buffer_from_host(x);
  ExecuteResult r = exe.execute_async({&in});
  Array y = r.outputs[0].to_host();
  const float* q = static_cast<const float*>(y.data());
  for (int i = 0; i < 256 * 256; ++i) ASSERT_EQ(q[i], static_cast<float>(i % 7 + 3000)) << i;
}

TEST(Buffer, DeviceOfAnotherClientIsRejected) {
  Client other = Client::create("cpu", {{"cpu_device_count", int64_t{1}}});
  Array a = Array::from<float>({1}, {1});
  EXPECT_THROW(test::cpu().buffer_from_host(a, other.devices()[0]), Error);
  Buffer b = other.buffer_from_host(a);
  EXPECT_THROW(b.copy_to_device(test::cpu().devices()[0]), Error);
}

}  // namespace
}  // namespace hhlo
