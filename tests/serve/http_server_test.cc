// The HTTP front end (hhlo/serve/http_server.h) against hostile and careless clients, over raw
// POSIX sockets: an in-process Server of two StableHLO text models written here (`add`:
// x + 2 * y on f32[3]; `loop`: n iterations of v <- v / 2 + 1 on f32[4] from v, whose values
// are derived by hand) and an HttpServer on a free loopback port with small limits. Every wait
// is bounded (SO_RCVTIMEO); a bound is generous, never a measure of speed.
#include "hhlo/serve/http_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "hhlo/serve/server.h"

namespace hhlo::serve {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Json = nlohmann::json;

constexpr const char* kAddModel = R"(
func.func @main(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  %two = stablehlo.constant dense<2.0> : tensor<3xf32>
  %t = stablehlo.multiply %y, %two : tensor<3xf32>
  %r = stablehlo.add %x, %t : tensor<3xf32>
  return %r : tensor<3xf32>
}
)";

constexpr const char* kLoopModel = R"(
func.func @main(%n: tensor<i32>, %x: tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %v = %x) : tensor<i32>, tensor<4xf32>
    cond {
      %lt = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %half = stablehlo.constant dense<0.5> : tensor<4xf32>
      %onef = stablehlo.constant dense<1.0> : tensor<4xf32>
      %i1 = stablehlo.add %i, %one : tensor<i32>
      %m = stablehlo.multiply %v, %half : tensor<4xf32>
      %a = stablehlo.add %m, %onef : tensor<4xf32>
      stablehlo.return %i1, %a : tensor<i32>, tensor<4xf32>
    }
  return %r#0, %r#1 : tensor<i32>, tensor<4xf32>
}
)";

/// x = [1, 2, 3], y = [0.5, -1, 4]: x + 2y = [2, 0, 11].
const std::string kAddBody =
    R"({"inputs":[{"name":"arg0","datatype":"FP32","shape":[3],"data":[1,2,3]},)"
    R"({"name":"arg1","datatype":"FP32","shape":[3],"data":[0.5,-1,4]}]})";

/// `loop` for n iterations from v = 0: v_n = 2 - 2^(1-n) (2 for n >= 25 in f32).
std::string loop_body(int n) {
  return R"({"inputs":[{"name":"arg0","datatype":"INT32","shape":[],"data":[)" + std::to_string(n) +
         R"(]},{"name":"arg1","datatype":"FP32","shape":[4],"data":[0,0,0,0]}]})";
}

/// 16M floats, each the input: a 64 MiB output (as binary data).
constexpr const char* kBigModel = R"(
func.func @main(%x: tensor<f32>) -> tensor<16777216xf32> {
  %r = stablehlo.broadcast_in_dim %x, dims = [] : (tensor<f32>) -> tensor<16777216xf32>
  return %r : tensor<16777216xf32>
}
)";

/// A request for `loop` of `n` iterations from zeros, made in-process.
InferRequest loop_request(int n) {
  InferRequest request;
  Array count(DType::i32, Dims{});
  *static_cast<int32_t*>(count.data()) = n;
  request.inputs = {{"arg0", count}, {"arg1", Array(DType::f32, Dims{4})}};
  return request;
}

std::string post(const std::string& target, const std::string& body,
                 const std::string& extra_headers = "") {
  return "POST " + target + " HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n" +
         extra_headers + "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

const std::string kLive = "GET /v2/health/live HTTP/1.1\r\nHost: t\r\n\r\n";

/// A client connection to 127.0.0.1:port; every read waits at most `bound`.
class Conn {
 public:
  /// `receive_buffer` > 0 sets SO_RCVBUF (before connecting: no window scaling beyond it).
  explicit Conn(uint16_t port, std::chrono::seconds bound = 60s, int receive_buffer = 0) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (receive_buffer > 0)
      ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof receive_buffer);
    timeval tv{static_cast<time_t>(bound.count()), 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  }
  ~Conn() { close(); }
  Conn(const Conn&) = delete;
  Conn& operator=(const Conn&) = delete;

  bool connected() const { return connected_; }
  bool send(const std::string& bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = ::send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
      if (n <= 0) return false;
      done += std::size_t(n);
    }
    return true;
  }
  /// Closes with a reset (SO_LINGER 0) instead of an orderly shutdown.
  void reset() {
    linger l{1, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_LINGER, &l, sizeof l);
    close();
  }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  /// Reads until `what` has been received (true) or the peer closed or the bound passed.
  bool read_until(const std::string& what) {
    while (buffer_.find(what) == std::string::npos)
      if (!read_some()) return false;
    return true;
  }
  /// True when the server closes (EOF or reset) within the bound; bytes it sends first are
  /// kept (buffer()).
  bool closed_by_peer() {
    char c[4096];
    for (;;) {
      ssize_t n = ::recv(fd_, c, sizeof c, 0);
      if (n == 0) return true;
      if (n < 0) return errno == ECONNRESET;
      buffer_.append(c, std::size_t(n));
    }
  }

  /// One response: status, headers (the raw block), body (Content-Length bytes); nullopt when
  /// the connection ends or the bound passes first.
  struct Response {
    int status = 0;
    std::string headers, body;
  };
  std::optional<Response> response() {
    if (!read_until("\r\n\r\n")) return std::nullopt;
    std::size_t end = buffer_.find("\r\n\r\n");
    Response r;
    r.headers = buffer_.substr(0, end);
    r.status = std::stoi(r.headers.substr(9, 3));
    std::size_t length = 0;
    if (std::size_t at = lower(r.headers).find("\r\ncontent-length:"); at != std::string::npos)
      length = std::stoul(r.headers.substr(at + 17));
    while (buffer_.size() < end + 4 + length)
      if (!read_some()) return std::nullopt;
    r.body = buffer_.substr(end + 4, length);
    buffer_.erase(0, end + 4 + length);
    return r;
  }
  const std::string& buffer() const { return buffer_; }

 private:
  static std::string lower(std::string s) {
    for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
  }
  bool read_some() {
    char c[4096];
    ssize_t n = ::recv(fd_, c, sizeof c, 0);
    if (n <= 0) return false;
    buffer_.append(c, std::size_t(n));
    return true;
  }

  int fd_ = -1;
  bool connected_ = false;
  std::string buffer_;
};

/// The outputs' data of an inference response body, by output name.
std::map<std::string, Json> outputs_of(const std::string& body) {
  std::map<std::string, Json> out;
  Json response = Json::parse(body);
  for (const Json& o : response.at("outputs")) out[o.at("name").get<std::string>()] = o.at("data");
  return out;
}

void expect_add_answer(const std::optional<Conn::Response>& r) {
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(outputs_of(r->body)["out0"], Json::parse("[2.0, 0.0, 11.0]")) << r->body;
}

void expect_loop_answer(const std::optional<Conn::Response>& r, int n) {
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->status, 200) << r->body;
  auto out = outputs_of(r->body);
  EXPECT_EQ(out["out0"], Json::array({n})) << r->body;
  EXPECT_EQ(out["out1"], Json::parse("[2.0, 2.0, 2.0, 2.0]")) << r->body;  // n >= 25
}

class HttpServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    repo_ = new fs::path(fs::temp_directory_path() /
                         ("hhlo_http_server_test_" + std::to_string(::getpid())));
    for (auto [name, text] : {std::pair{"add", kAddModel}, std::pair{"loop", kLoopModel}}) {
      fs::create_directories(*repo_ / name / "1");
      std::ofstream(*repo_ / name / "1" / "model.mlir") << text;
    }
  }
  static void TearDownTestSuite() {
    fs::remove_all(*repo_);
    delete repo_;
  }

  void SetUp() override {
    ServerOptions options;
    options.instances = 1;
    options.max_queue_size = 16;
    server_ = std::make_unique<Server>(options);
    server_->load_repository(repo_->string());
  }
  void TearDown() override {
    if (http_) http_->stop();
    server_->stop();
  }

  /// Small limits; a test changes what it needs before start().
  HttpOptions options() const {
    HttpOptions o;
    o.port = 0;
    o.max_body_bytes = 4096;
    o.max_header_bytes = 1024;
    o.read_timeout = 300ms;
    o.write_timeout = 5s;
    o.max_connections = 4;
    return o;
  }
  uint16_t start(const HttpOptions& o) {
    http_ = std::make_unique<HttpServer>(*server_, o);
    return http_->port();
  }

  /// An iteration count of `loop` for which one call takes at least about 200 ms here.
  int slow_n(uint16_t port) {
    for (int n = 1 << 18;; n *= 4) {
      Conn c(port);
      auto start = std::chrono::steady_clock::now();
      c.send(post("/v2/models/loop/infer", loop_body(n)));
      expect_loop_answer(c.response(), n);
      auto took = std::chrono::steady_clock::now() - start;
      if (took > 50ms || n >= (1 << 28))
        return int(
            std::min<int64_t>(int64_t(n) * 200ms / std::max<decltype(took)>(took, 1ms), INT32_MAX));
    }
  }

  /// True when a new connection gets its answer to a request within the bound.
  bool serves(uint16_t port) {
    Conn c(port);
    return c.send(post("/v2/models/add/infer", kAddBody)) && c.response().has_value();
  }

  static fs::path* repo_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<HttpServer> http_;
};

fs::path* HttpServerTest::repo_ = nullptr;

TEST_F(HttpServerTest, AnswersAnInferenceWithTheHandDerivedValues) {
  uint16_t port = start(options());
  Conn c(port);
  ASSERT_TRUE(c.send(post("/v2/models/add/infer", kAddBody)));
  expect_add_answer(c.response());
}

TEST_F(HttpServerTest, AClientThatSendsHalfAHeaderIsClosedAfterTheReadTimeout) {
  uint16_t port = start(options());
  Conn half_header(port, 30s);
  ASSERT_TRUE(half_header.send("POST /v2/models/add/infer HTTP/1.1\r\nHost: t\r\nContent-Le"));
  EXPECT_TRUE(half_header.closed_by_peer());  // read_timeout 300 ms; bound 30 s
  EXPECT_EQ(half_header.buffer(), "");
  Conn half_body(port, 30s);  // the whole request is bounded, the body included
  std::string request = post("/v2/models/add/infer", kAddBody);
  ASSERT_TRUE(half_body.send(request.substr(0, request.size() - 20)));
  EXPECT_TRUE(half_body.closed_by_peer());
  Conn idle(port, 30s);  // a keep-alive connection idle after its answer
  ASSERT_TRUE(idle.send(kLive));
  ASSERT_TRUE(idle.response().has_value());
  EXPECT_TRUE(idle.closed_by_peer());
  EXPECT_TRUE(serves(port));
}

TEST_F(HttpServerTest, AConnectionBeyondMaxConnectionsIsClosed) {
  HttpOptions o = options();
  o.read_timeout = 60s;  // the four held connections must stay open
  uint16_t port = start(o);
  std::vector<std::unique_ptr<Conn>> held;
  for (int i = 0; i < 4; ++i) {  // each answered: the server holds four sessions
    held.push_back(std::make_unique<Conn>(port));
    ASSERT_TRUE(held.back()->send(kLive));
    ASSERT_TRUE(held.back()->response().has_value());
  }
  Conn extra(port, 30s);
  extra.send(kLive);
  EXPECT_TRUE(extra.closed_by_peer());
  EXPECT_EQ(extra.buffer(), "");
  held[0]->send(kLive);  // the held ones still work
  EXPECT_EQ(held[0]->response().value().status, 200);
  held.pop_back();  // one closes: a new connection is served again (bounded retries)
  bool served = false;
  for (int i = 0; i < 100 && !served; ++i) {
    served = serves(port);
    if (!served) std::this_thread::sleep_for(100ms);
  }
  EXPECT_TRUE(served);
}

TEST_F(HttpServerTest, AHeaderBeyondTheLimitIs431) {
  uint16_t port = start(options());
  Conn c(port);
  ASSERT_TRUE(c.send("GET /v2/health/live HTTP/1.1\r\nHost: t\r\nX-Pad: " + std::string(2000, 'a') +
                     "\r\n\r\n"));
  auto r = c.response();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 431);
  EXPECT_NE(Json::parse(r->body).at("error").get<std::string>().find("1024"), std::string::npos);
  EXPECT_TRUE(c.closed_by_peer());
  EXPECT_TRUE(serves(port));
}

TEST_F(HttpServerTest, ABodyBeyondTheLimitIs413WithoutReadingIt) {
  uint16_t port = start(options());
  Conn declared(port);  // Content-Length beyond the limit: answered before the body is sent
  ASSERT_TRUE(declared.send(
      "POST /v2/models/add/infer HTTP/1.1\r\nHost: t\r\nContent-Length: 4097\r\n\r\n"));
  auto r = declared.response();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 413);
  Conn chunked(port);  // no Content-Length: the limit applies as the chunks arrive
  ASSERT_TRUE(chunked.send(
      "POST /v2/models/add/infer HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
      "1388\r\n" +
      std::string(5000, ' ') + "\r\n0\r\n\r\n"));
  r = chunked.response();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 413);
  EXPECT_TRUE(serves(port));
}

TEST_F(HttpServerTest, KeepAliveServesTwoRequestsOnOneConnection) {
  uint16_t port = start(options());
  Conn c(port);
  ASSERT_TRUE(c.send(kLive));
  auto first = c.response();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->status, 200);
  ASSERT_TRUE(c.send(post("/v2/models/add/infer", kAddBody)));
  expect_add_answer(c.response());
  ASSERT_TRUE(c.send(kLive + kLive));  // pipelined: both answered, in order
  EXPECT_EQ(c.response().value().status, 200);
  EXPECT_EQ(c.response().value().status, 200);
  // Pipelined inferences: the second's bytes, read while the first is with the server, are
  // not taken for a client gone away.
  ASSERT_TRUE(c.send(post("/v2/models/loop/infer", loop_body(30)) +
                     post("/v2/models/loop/infer", loop_body(31))));
  expect_loop_answer(c.response(), 30);
  expect_loop_answer(c.response(), 31);
}

TEST_F(HttpServerTest, ExpectContinueGets100ThenTheAnswer) {
  uint16_t port = start(options());
  Conn c(port);
  ASSERT_TRUE(
      c.send("POST /v2/models/add/infer HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\n"
             "Content-Length: " +
             std::to_string(kAddBody.size()) + "\r\n\r\n"));
  ASSERT_TRUE(c.read_until("\r\n\r\n"));
  EXPECT_EQ(c.buffer().substr(0, 25), "HTTP/1.1 100 Continue\r\n\r\n");
  auto interim = c.response();
  ASSERT_TRUE(interim.has_value());
  EXPECT_EQ(interim->status, 100);
  ASSERT_TRUE(c.send(kAddBody));
  expect_add_answer(c.response());
}

TEST_F(HttpServerTest, AClientThatGoesAwayMidRequestDoesNotStopTheServer) {
  uint16_t port = start(options());
  int n = slow_n(port);
  std::string request = post("/v2/models/loop/infer", loop_body(n));
  for (int round = 0; round < 3; ++round) {
    {
      Conn c(port);  // half a header, then an orderly close
      c.send(request.substr(0, 30));
    }
    {
      Conn c(port);  // half the body, then a reset
      c.send(request.substr(0, request.size() - 10));
      c.reset();
    }
    {
      Conn c(port);  // the whole request, gone before the answer is written
      c.send(request);
      c.reset();
    }
  }
  Conn c(port);  // answered after the requests of the clients gone (one executor)
  ASSERT_TRUE(c.send(post("/v2/models/add/infer", kAddBody)));
  expect_add_answer(c.response());
  EXPECT_TRUE(server_->live());
}

TEST_F(HttpServerTest, StopWithGraceAnswersTheQueuedRequests) {
  uint16_t port = start(options());
  int n = slow_n(port);
  std::vector<std::unique_ptr<Conn>> clients;
  for (int i = 0; i < 3; ++i) {  // one runs, two wait in the queue (one executor)
    clients.push_back(std::make_unique<Conn>(port));
    ASSERT_TRUE(clients.back()->send(post("/v2/models/loop/infer", loop_body(n))));
  }
  // Requests handed to the server core at once: they are queued when infer returns.
  std::vector<InferOutcome> direct(2);
  std::atomic<int> done{0};
  for (InferOutcome& out : direct) {
    server_->infer("loop", "", loop_request(n), [&out, &done](InferOutcome o) {
      out = std::move(o);
      ++done;
    });
  }
  std::this_thread::sleep_for(300ms);  // the HTTP requests reach the queue (not asserted)
  server_->stop(60s);
  EXPECT_EQ(done.load(), 2);
  for (const InferOutcome& out : direct) {
    ASSERT_TRUE(out.response.has_value()) << (out.error ? out.error->what() : "");
    EXPECT_EQ(*static_cast<const int32_t*>(out.response->outputs.at(0).tensor.data()), n);
  }
  http_->stop(10s);
  for (auto& c : clients) {  // each answered: its values, or 503 when it came after stop
    auto r = c->response();
    ASSERT_TRUE(r.has_value());
    if (r->status == 200)
      expect_loop_answer(r, n);
    else
      EXPECT_EQ(r->status, 503) << r->body;
  }
}

TEST_F(HttpServerTest, StopWithoutGraceRefusesTheQueuedRequests) {
  uint16_t port = start(options());
  int n = slow_n(port);
  std::vector<InferOutcome> outs(3);
  std::atomic<int> done{0};
  for (InferOutcome& out : outs) {
    server_->infer("loop", "", loop_request(n), [&out, &done](InferOutcome o) {
      out = std::move(o);
      ++done;
    });
  }
  server_->stop(0ms);
  EXPECT_EQ(done.load(), 3);
  int refused = 0;
  for (const InferOutcome& out : outs)
    if (out.error) {
      EXPECT_EQ(out.error->status(), Status::unavailable);
      ++refused;
    }
  EXPECT_GE(refused, 1);  // the running one may finish; those queued are refused
  Conn c(port);           // after stop: the HTTP front end answers 503, not silence
  ASSERT_TRUE(c.send(post("/v2/models/add/infer", kAddBody)));
  auto r = c.response();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 503);
}

TEST_F(HttpServerTest, AQueuedRequestWhoseClientWentAwayIsDroppedBeforeItRuns) {
  uint16_t port = start(options());
  int n = slow_n(port);
  ModelStatistics before = server_->statistics("loop").at(0);
  std::atomic<bool> blocker_done{false};
  server_->infer("loop", "", loop_request(n * 10),  // holds the one executor for ~2 s
                 [&](InferOutcome) { blocker_done = true; });
  {
    Conn gone(port);
    ASSERT_TRUE(gone.send(post("/v2/models/loop/infer", loop_body(n))));
    std::this_thread::sleep_for(200ms);
  }  // closed while its request waits behind the blocker
  ModelStatistics after;
  for (int i = 0; i < 600; ++i) {  // bounded: 60 s
    after = server_->statistics("loop").at(0);
    if (after.success_count + after.fail_count >= before.success_count + before.fail_count + 2)
      break;
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_TRUE(blocker_done.load());
  EXPECT_EQ(after.success_count - before.success_count, 1u);  // the blocker
  EXPECT_EQ(after.fail_count - before.fail_count, 1u);        // the request of the client gone
  EXPECT_TRUE(serves(port));
}

TEST_F(HttpServerTest, ANextRequestArrivingWhileOneIsQueuedIsNotTakenForAHangUp) {
  uint16_t port = start(options());
  int n = slow_n(port);
  server_->infer("loop", "", loop_request(n * 3), [](InferOutcome) {});  // holds the executor
  Conn c(port);
  ASSERT_TRUE(c.send(post("/v2/models/loop/infer", loop_body(30))));
  std::this_thread::sleep_for(100ms);  // queued behind the blocker, the connection watched
  ASSERT_TRUE(c.send(post("/v2/models/loop/infer", loop_body(31))));  // pipelined
  expect_loop_answer(c.response(), 30);
  expect_loop_answer(c.response(), 31);
}

TEST_F(HttpServerTest, AQueuedRequestWhoseTimeoutPassesIsRefused) {
  uint16_t port = start(options());
  int n = slow_n(port);
  std::atomic<bool> blocker_done{false};
  server_->infer("loop", "", loop_request(n * 5),  // holds the one executor for ~1 s
                 [&](InferOutcome) { blocker_done = true; });
  std::string body = loop_body(3);
  body.insert(1, R"("parameters":{"timeout":1000},)");  // Triton's, in microseconds
  Conn c(port);
  ASSERT_TRUE(c.send(post("/v2/models/loop/infer", body)));
  auto r = c.response();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 503);
  EXPECT_NE(r->body.find("timeout passed"), std::string::npos) << r->body;
  EXPECT_TRUE(blocker_done.load());  // refused when it came to run, after the blocker
  ASSERT_TRUE(c.send(post("/v2/models/loop/infer", loop_body(3))));  // no timeout: it runs
  r = c.response();
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(outputs_of(r->body)["out1"], Json::parse("[1.75, 1.75, 1.75, 1.75]"));  // 2 - 2^-2
}

TEST_F(HttpServerTest, ABadRequestIs400AtOnceEvenWhenTheQueueIsFull) {
  uint16_t port = start(options());
  int n = slow_n(port);
  std::atomic<int> done{0}, refused{0};
  server_->infer("loop", "", loop_request(n * 5), [&](InferOutcome) { ++done; });  // runs ~1 s
  std::this_thread::sleep_for(100ms);                                  // the executor takes it
  for (int queued = 0; refused.load() == 0 && queued < 100; ++queued)  // fill the queue
    server_->infer("loop", "", loop_request(3), [&](InferOutcome o) {
      if (o.error) ++refused;
      ++done;
    });
  ASSERT_EQ(refused.load(), 1);
  std::string wrong_dtype = loop_body(3);
  wrong_dtype.replace(wrong_dtype.find("INT32"), 5, "INT64");
  for (const std::string& body :
       {wrong_dtype, std::string(R"({"inputs":[{"name":"bogus","datatype":"INT32","shape":[],)"
                                 R"("data":[1]}]})")}) {
    Conn c(port);
    ASSERT_TRUE(c.send(post("/v2/models/loop/infer", body)));
    auto r = c.response();
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->status, 400) << r->body;  // was 503 "queue is full": a retry cannot help it
  }
  Conn good(port);
  ASSERT_TRUE(good.send(post("/v2/models/loop/infer", loop_body(3))));
  auto r = good.response();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 503) << r->body;
  EXPECT_NE(r->body.find("queue is full"), std::string::npos) << r->body;
  for (int i = 0; i < 600 && done.load() < 18; ++i) std::this_thread::sleep_for(100ms);
  EXPECT_EQ(done.load(), 18);  // the blocker, 16 queued, 1 refused
}

TEST_F(HttpServerTest, AClientThatDoesNotReadItsAnswerIsClosedAfterTheWriteTimeout) {
  fs::path repo = *repo_ / "big_repo";
  fs::create_directories(repo / "big" / "1");
  std::ofstream(repo / "big" / "1" / "model.mlir") << kBigModel;
  Server server;
  server.load_repository(repo.string());
  HttpOptions o = options();
  o.write_timeout = 1s;
  HttpServer http(server, o);
  const std::string body =
      R"({"inputs":[{"name":"arg0","datatype":"FP32","shape":[],"data":[1.5]}],)"
      R"("parameters":{"binary_data_output":true}})";
  Conn c(http.port(), 60s, 4096);  // a 4 KiB window: the 64 MiB answer cannot be buffered
  ASSERT_TRUE(c.send(post("/v2/models/big/infer", body)));
  std::this_thread::sleep_for(4s);  // reads nothing for four times the write timeout
  EXPECT_TRUE(c.closed_by_peer());
  EXPECT_LT(c.buffer().size(), std::size_t{64} << 20);
  EXPECT_EQ(c.buffer().substr(0, 12), "HTTP/1.1 200");
  Conn next(http.port());  // the server goes on
  ASSERT_TRUE(next.send(kLive));
  auto r = next.response();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200);
  http.stop();
  server.stop();
}

TEST_F(HttpServerTest, AnHttp10RequestIsAnsweredAndClosed) {
  uint16_t port = start(options());
  Conn c(port);
  ASSERT_TRUE(c.send("GET /v2/health/live HTTP/1.0\r\n\r\n"));
  auto r = c.response();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200);
  EXPECT_TRUE(c.closed_by_peer());
}

TEST_F(HttpServerTest, MalformedOrAmbiguousFramingIs400AndClosed) {
  uint16_t port = start(options());
  for (const std::string& request : {
           std::string("GARBAGE\r\n\r\n"),
           std::string("POST /v2/models/add/infer HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n"
                       "Content-Length: 6\r\n\r\nhello!"),
           std::string("POST /v2/models/add/infer HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n"
                       "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
           std::string(
               "POST /v2/models/add/infer HTTP/1.1\r\nHost: t\r\nContent-Length: -1\r\n\r\n"),
       }) {
    Conn c(port);
    ASSERT_TRUE(c.send(request));
    auto r = c.response();
    ASSERT_TRUE(r.has_value()) << request;
    EXPECT_EQ(r->status, 400) << request;
    EXPECT_TRUE(c.closed_by_peer()) << request;
  }
  EXPECT_TRUE(serves(port));
}

TEST_F(HttpServerTest, AThousandConnectionsAtOnceAreEachAnswered) {
  rlimit files{};  // both ends live in this process: 2,000 descriptors and some
  ::getrlimit(RLIMIT_NOFILE, &files);
  if (files.rlim_max != RLIM_INFINITY && files.rlim_max < 2200)
    GTEST_SKIP() << "needs 2,200 open files; the hard limit here is " << files.rlim_max;
  files.rlim_cur = std::max<rlim_t>(files.rlim_cur, 2200);
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &files), 0);
  HttpOptions o = options();
  o.max_connections = 1024;
  o.read_timeout = 60s;
  uint16_t port = start(o);
  std::vector<std::unique_ptr<Conn>> conns;
  for (int i = 0; i < 1000; ++i) {
    conns.push_back(std::make_unique<Conn>(port));
    ASSERT_TRUE(conns.back()->connected());
  }
  for (auto& c : conns) ASSERT_TRUE(c->send(post("/v2/models/add/infer", kAddBody)));
  int answered = 0;
  for (auto& c : conns) {  // each answered: its values, or 503 beyond the queue of 16
    auto r = c->response();
    ASSERT_TRUE(r.has_value());
    if (r->status == 503) {
      EXPECT_NE(r->body.find("queue is full"), std::string::npos) << r->body;
      continue;
    }
    expect_add_answer(r);
    ++answered;
  }
  EXPECT_GE(answered, 17);  // at least a queue's worth and the one running
}

}  // namespace
}  // namespace hhlo::serve
