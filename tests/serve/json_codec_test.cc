// The Open Inference Protocol's HTTP bodies (hhlo/serve/json_codec.h): requests decoded from
// JSON and from JSON + binary data (Triton's binary tensor data extension), responses encoded,
// and every malformed body refused with a message naming the cause. Expected values are written
// by hand from the protocol's examples.
#include "hhlo/serve/json_codec.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

namespace hhlo::serve {
namespace {

std::string bytes_of(const std::vector<float>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
}

/// The message of the ServeError that decoding `body` throws ("" when it decodes).
std::string refusal(std::string_view body, std::optional<std::size_t> json_size = std::nullopt,
                    const DecodeLimits& limits = {}) {
  try {
    decode_infer_request(body, json_size, limits);
  } catch (const ServeError& e) {
    EXPECT_EQ(e.status(), Status::invalid_argument);
    return e.what();
  }
  return "";
}

TEST(InferRequestJson, FlatAndNestedDataOfEveryKind) {
  InferRequest r = decode_infer_request(R"({"id": "42", "inputs": [
      {"name": "x", "shape": [2, 2], "datatype": "FP32", "data": [[1, 2.5], [-3, 4]]},
      {"name": "k", "shape": [3], "datatype": "INT64", "data": [-9223372036854775808, 0, 7]},
      {"name": "m", "shape": [2], "datatype": "BOOL", "data": [true, false]},
      {"name": "u", "shape": [1], "datatype": "UINT64", "data": [18446744073709551615]},
      {"name": "h", "shape": [], "datatype": "FP16", "data": [0.5]}],
    "outputs": [{"name": "y", "parameters": {"binary_data": true}}, {"name": "z"}],
    "parameters": {"timeout": 1500, "priority": 2}})",
                                        std::nullopt);
  EXPECT_EQ(r.id, "42");
  ASSERT_EQ(r.inputs.size(), 5u);
  EXPECT_EQ(r.inputs[0].tensor.to_vector<float>(), (std::vector<float>{1, 2.5f, -3, 4}));
  EXPECT_EQ(r.inputs[0].tensor.dims(), (Dims{2, 2}));
  EXPECT_EQ(r.inputs[1].tensor.to_vector<int64_t>(),
            (std::vector<int64_t>{std::numeric_limits<int64_t>::min(), 0, 7}));
  EXPECT_EQ(r.inputs[2].tensor.to_vector<bool>(), (std::vector<bool>{true, false}));
  EXPECT_EQ(r.inputs[3].tensor.to_vector<uint64_t>()[0], std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(r.inputs[4].tensor.dims(), Dims{});
  EXPECT_EQ(static_cast<float>(r.inputs[4].tensor.values<f16_t>()[0]), 0.5f);
  ASSERT_EQ(r.outputs.size(), 2u);
  EXPECT_TRUE(r.outputs[0].binary);
  EXPECT_FALSE(r.outputs[1].binary);
  EXPECT_EQ(r.timeout_us, 1500);
  EXPECT_EQ(r.priority, 2);
}

TEST(InferRequestJson, BinaryDataFollowsTheJsonInInputOrder) {
  std::string json = R"({"inputs": [
      {"name": "a", "shape": [2], "datatype": "FP32", "parameters": {"binary_data_size": 8}},
      {"name": "b", "shape": [1], "datatype": "INT32", "data": [5]},
      {"name": "c", "shape": [3], "datatype": "FP32", "parameters": {"binary_data_size": 12}}]})";
  std::string body = json + bytes_of({1.5f, -2}) + bytes_of({7, 8, 9});
  InferRequest r = decode_infer_request(body, json.size());
  EXPECT_EQ(r.inputs[0].tensor.to_vector<float>(), (std::vector<float>{1.5f, -2}));
  EXPECT_EQ(r.inputs[1].tensor.to_vector<int32_t>(), (std::vector<int32_t>{5}));
  EXPECT_EQ(r.inputs[2].tensor.to_vector<float>(), (std::vector<float>{7, 8, 9}));
}

/// A request holding one input of the given fields.
std::string one_input(const std::string& fields) {
  return R"({"inputs": [{"name": "x", )" + fields + "}]}";
}

TEST(InferRequestJson, MalformedBodiesAreRefusedNamingTheCause) {
  EXPECT_NE(refusal("{\"inputs\": [").find("not valid JSON"), std::string::npos);
  EXPECT_NE(refusal("[1, 2]").find("not an object"), std::string::npos);
  EXPECT_NE(refusal("{}").find("no \"inputs\" array"), std::string::npos);
  EXPECT_NE(refusal(one_input(R"("shape": [2], "datatype": "FP32", "data": [1, 2, 3])"))
                .find("holds more than 2 values"),
            std::string::npos);
  EXPECT_NE(refusal(one_input(R"("shape": [2], "datatype": "FP32", "data": [1])"))
                .find("holds 1 values; its shape [2] has 2"),
            std::string::npos);
  EXPECT_NE(refusal(one_input(R"("shape": [1], "datatype": "BYTES", "data": ["a"])"))
                .find("datatype \"BYTES\""),
            std::string::npos);
  EXPECT_NE(refusal(one_input(R"("shape": [1], "datatype": "INT8", "data": [128])"))
                .find("out of the range of INT8"),
            std::string::npos);
  EXPECT_NE(refusal(one_input(R"("shape": [1], "datatype": "UINT8", "data": [-1])"))
                .find("out of the range of UINT8"),
            std::string::npos);
  EXPECT_NE(refusal(one_input(R"("shape": [1], "datatype": "INT32", "data": [1.5])"))
                .find("not an integer"),
            std::string::npos);
  EXPECT_NE(
      refusal(one_input(R"("shape": [1], "datatype": "BOOL", "data": [1])")).find("not true/false"),
      std::string::npos);
  EXPECT_NE(refusal(one_input(R"("shape": [-1], "datatype": "FP32", "data": [])"))
                .find("negative dimension"),
            std::string::npos);
  EXPECT_NE(
      refusal(one_input(R"("shape": [4294967296, 4294967296], "datatype": "FP32", "data": [])"))
          .find("more elements than 2^63"),
      std::string::npos);
  EXPECT_NE(
      refusal(one_input(R"("shape": [2305843009213693952, 2], "datatype": "FP64", "data": [])"))
          .find("more than 2^63 bytes"),
      std::string::npos);
  EXPECT_NE(refusal(R"({"inputs": [{"name": "x", "shape": [], "datatype": "FP32", "data": [1]},
                                   {"name": "x", "shape": [], "datatype": "FP32", "data": [2]}]})")
                .find("\"x\" is given twice"),
            std::string::npos);
  EXPECT_EQ(refusal(one_input(R"("shape": [1], "datatype": "FP32", "data": [1])") + " "), "");
  EXPECT_NE(refusal(R"({"inputs": [], "parameters": {"timeout": -1}})").find("negative"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"inputs": [], "parameters": {"timeout": "soon"}})").find("not an integer"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"inputs": [], "outputs": [{"name": "y"}, {"name": "y"}]})")
                .find("asked for twice"),
            std::string::npos);
}

TEST(InferRequestJson, BinarySizesAreCheckedExactly) {
  std::string json =
      one_input(R"("shape": [2], "datatype": "FP32", "parameters": {"binary_data_size": 8})");
  EXPECT_EQ(refusal(json + bytes_of({1, 2}), json.size()), "");
  // Fewer bytes than declared: the size passes the end of the body.
  EXPECT_NE(refusal(json + "abc", json.size()).find("passes the end of the body (3 bytes left)"),
            std::string::npos);
  // More bytes than the inputs account for.
  EXPECT_NE(refusal(json + bytes_of({1, 2, 3}), json.size())
                .find("4 bytes after the JSON that no input's binary_data_size accounts for"),
            std::string::npos);
  // A declared size other than shape x element size.
  std::string wrong =
      one_input(R"("shape": [2], "datatype": "FP32", "parameters": {"binary_data_size": 4})");
  EXPECT_NE(refusal(wrong + bytes_of({1}), wrong.size()).find("needs 8"), std::string::npos);
  // The JSON's length beyond the body.
  EXPECT_NE(refusal(json, json.size() + 1).find("is larger than the body"), std::string::npos);
  // Binary data without the header: the whole body is JSON, which then fails to parse (bytes
  // after the JSON; nlohmann-json stopped at their first NUL byte and read the JSON alone).
  EXPECT_NE(refusal(json + bytes_of({1, 2})).find("request is not valid JSON"), std::string::npos);
}

TEST(InferRequestJson, LimitsBoundDepthValuesRankAndTensors) {
  DecodeLimits limits;
  limits.max_json_depth = 8;
  limits.max_json_values = 4;
  limits.max_rank = 3;
  limits.max_tensors = 2;
  std::string deep =
      one_input(R"("shape": [1], "datatype": "FP32", "data": [[[[[[[[[[1]]]]]]]]]])");
  EXPECT_NE(refusal(deep, std::nullopt, limits).find("nested deeper than 8"), std::string::npos);
  std::string many = one_input(R"("shape": [5], "datatype": "FP32", "data": [1, 2, 3, 4, 5])");
  EXPECT_NE(refusal(many, std::nullopt, limits).find("more than 4 numbers"), std::string::npos);
  std::string rank = one_input(R"("shape": [1, 1, 1, 1], "datatype": "FP32", "data": [1])");
  limits.max_json_values = 8;
  EXPECT_NE(refusal(rank, std::nullopt, limits).find("rank 4, above the limit of 3"),
            std::string::npos);
  std::string three = R"({"inputs": [{"name": "a", "shape": [], "datatype": "FP32", "data": [1]},
      {"name": "b", "shape": [], "datatype": "FP32", "data": [1]},
      {"name": "c", "shape": [], "datatype": "FP32", "data": [1]}]})";
  EXPECT_NE(refusal(three, std::nullopt, limits).find("more than 2 inputs"), std::string::npos);
}

TEST(InferResponseJson, JsonAndBinaryOutputs) {
  InferResponse r{"mlp", "1", "req-7", {}};
  r.outputs.push_back({"y", Array::from<float>({2}, {0.5f, -1})});
  r.outputs.push_back({"n", Array::from<int32_t>({2, 1}, {3, -4})});
  r.outputs.push_back({"m", Array::from<bool>({2}, std::vector<bool>{true, false})});
  EncodedBody json = encode_infer_response(r, {false, false, false});
  EXPECT_FALSE(json.json_size);
  EXPECT_EQ(json.body, R"({"model_name":"mlp","model_version":"1","id":"req-7","outputs":[)"
                       R"({"name":"y","datatype":"FP32","shape":[2],"data":[0.5,-1]},)"
                       R"({"name":"n","datatype":"INT32","shape":[2,1],"data":[3,-4]},)"
                       R"({"name":"m","datatype":"BOOL","shape":[2],"data":[true,false]}]})");
  EncodedBody binary = encode_infer_response(r, {true, false, false});
  ASSERT_TRUE(binary.json_size);
  std::string head = binary.body.substr(0, *binary.json_size);
  EXPECT_NE(head.find(R"({"name":"y","datatype":"FP32","shape":[2],)"
                      R"("parameters":{"binary_data_size":8}})"),
            std::string::npos);
  EXPECT_EQ(binary.body.substr(*binary.json_size), bytes_of({0.5f, -1}));
}

TEST(InferResponseJson, NonFiniteFloatsAreWrittenAsPythonsJsonReadsThem) {
  // JSON has no NaN or infinity; null would lose the value. Python's json and rapidjson
  // (tritonclient's) read NaN, Infinity and -Infinity.
  float inf = std::numeric_limits<float>::infinity();
  InferResponse r{"m", "1", "", {}};
  r.outputs.push_back({"y", Array::from<float>({3}, {std::nanf(""), inf, -inf})});
  EXPECT_NE(encode_infer_response(r, {false}).body.find("\"data\":[NaN,Infinity,-Infinity]"),
            std::string::npos);
}

TEST(InferResponseJson, ComplexOutputsAndMismatchedFlagsAreInternalErrors) {
  InferResponse r{"m", "1", "", {}};
  r.outputs.push_back({"z", Array(DType::c64, Dims{1})});
  try {
    encode_infer_response(r, {false});
    FAIL() << "complex output encoded";
  } catch (const ServeError& e) {
    EXPECT_EQ(e.status(), Status::internal);
    EXPECT_NE(std::string(e.what()).find("no datatype"), std::string::npos);
  }
  EXPECT_THROW(encode_infer_response(r, {}), ServeError);
}

TEST(ProtocolDatatypes, NamesRoundTripAndStatusesMapAsTritons) {
  for (DType d : kClassicDTypes) {  // the protocol has no narrow types
    std::optional<std::string_view> name = datatype_name(d);
    EXPECT_EQ(name.has_value(), !is_complex(d)) << dtype_name(d);
    if (name) {
      EXPECT_EQ(dtype_of_datatype(*name), d);
    }
  }
  EXPECT_EQ(datatype_name(DType::bf16), "BF16");
  EXPECT_FALSE(dtype_of_datatype("BYTES"));
  EXPECT_EQ(http_status(Status::invalid_argument), 400);
  EXPECT_EQ(http_status(Status::not_found), 404);
  EXPECT_EQ(http_status(Status::unavailable), 503);
  EXPECT_EQ(http_status(Status::internal), 500);
  EXPECT_EQ(error_body("bad \"x\""), R"({"error":"bad \"x\""})");
}

TEST(CompressedBodies, AResponseIsDeflatedAsAcceptEncodingAsks) {
  std::string text = R"({"outputs":[{"name":"y","datatype":"FP32","shape":[3],"data":[1,2,3]}]})";
  for (std::string_view e : {"gzip", "deflate"}) {
    std::string packed = deflated_body(text, e);
    EXPECT_NE(packed, text);
    EXPECT_EQ(inflated_body(packed, e, 1 << 20), text) << e;  // zlib's own inflate reads it back
  }
  EXPECT_EQ(response_encoding("gzip"), "gzip");  // tritonclient's response_compression_algorithm
  EXPECT_EQ(response_encoding("deflate"), "deflate");
  EXPECT_EQ(response_encoding("br;q=1.0, deflate;q=0.5, gzip"), "deflate");  // the first listed
  EXPECT_EQ(response_encoding("gzip;q=0, deflate"), "deflate");              // q=0: not wanted
  EXPECT_EQ(response_encoding("gzip; q=0.0"), "");
  EXPECT_EQ(response_encoding(" identity , br"), "");
  EXPECT_EQ(response_encoding(""), "");
  EXPECT_THROW(deflated_body(text, "br"), ServeError);
}

}  // namespace
}  // namespace hhlo::serve

namespace hhlo::serve {
namespace {

/// `text` compressed by zlib in the zlib (RFC 1950) or gzip (RFC 1952) format.
std::string compressed(const std::string& text, bool gzip) {
  z_stream z{};
  deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, gzip ? 15 + 16 : 15, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, uLong(text.size())) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = uInt(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = uInt(out.size());
  deflate(&z, Z_FINISH);
  out.resize(out.size() - z.avail_out);
  deflateEnd(&z);
  return out;
}

std::string inflate_refusal(std::string_view body, std::string_view encoding, std::size_t limit) {
  try {
    inflated_body(body, encoding, limit);
  } catch (const ServeError& e) {
    return e.what();
  }
  return "";
}

TEST(CompressedBodies, GzipAndDeflateInflateWithinTheirLimit) {
  std::string text(100000, 'x');
  EXPECT_EQ(inflated_body(compressed(text, true), "gzip", 1 << 20), text);
  EXPECT_EQ(inflated_body(compressed(text, false), "deflate", 1 << 20), text);
  EXPECT_EQ(inflated_body("plain", "identity", 1), "plain");
  // A bomb: 100 kB of zeros compress to a few hundred bytes; the limit stops it.
  EXPECT_NE(inflate_refusal(compressed(text, true), "gzip", 4096).find("past the limit of 4096"),
            std::string::npos);
  std::string gz = compressed(text, true);
  EXPECT_NE(inflate_refusal(gz.substr(0, gz.size() / 2), "gzip", 1 << 20).find("truncated"),
            std::string::npos);
  EXPECT_NE(inflate_refusal(gz + "junk", "gzip", 1 << 20).find("bytes follow its end"),
            std::string::npos);
  EXPECT_NE(inflate_refusal("abc", "br", 1 << 20).find("\"br\" is not accepted"),
            std::string::npos);
}

}  // namespace
}  // namespace hhlo::serve
