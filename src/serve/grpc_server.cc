// The Open Inference Protocol over gRPC on nghttp2 (hhlo/serve/grpc_server.h): one HTTP/2
// session per connection, fed from the socket and drained into it on the connection's strand;
// each call's request message (gRPC's 5-byte length prefix, uncompressed) is handed to the
// methods (grpc_routes.h) and their reply written as HEADERS, one DATA message and the
// grpc-status trailers (or trailers only, for an error).
#include "hhlo/serve/grpc_server.h"

#include <nghttp2/nghttp2.h>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <map>
#include <set>
#include <thread>
#include <vector>

#include "grpc_routes.h"
#include "listener.h"

namespace hhlo::serve {
namespace beast = boost::beast;
namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

/// What every connection of one front end shares.
struct Shared {
  Shared(Server& s, const GrpcOptions& o)
      : server(s), options(o), listener("gRPC", o.host, o.port, o.max_connections, o.threads) {}
  Server& server;
  GrpcOptions options;
  Listener listener;
};

/// gRPC's grpc-timeout header ("100m", "5S", up to 8 digits and a unit) in microseconds, or
/// nullopt when absent or malformed.
std::optional<int64_t> parse_grpc_timeout(const std::string& v) {
  if (v.size() < 2 || v.size() > 9) return std::nullopt;
  int64_t n = 0;
  for (std::size_t i = 0; i + 1 < v.size(); ++i) {
    if (v[i] < '0' || v[i] > '9') return std::nullopt;
    n = n * 10 + (v[i] - '0');
  }
  switch (v.back()) {
    case 'H':
      return n * 3600'000'000;
    case 'M':
      return n * 60'000'000;
    case 'S':
      return n * 1'000'000;
    case 'm':
      return n * 1'000;
    case 'u':
      return n;
    case 'n':
      return n / 1000;
  }
  return std::nullopt;
}

/// `s` percent-encoded as grpc-message wants it (bytes outside printable ASCII, and '%').
std::string percent_encoded(std::string_view s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (c >= 0x20 && c <= 0x7e && c != '%') {
      out += char(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

nghttp2_nv header(const std::string& name, const std::string& value) {
  return {reinterpret_cast<uint8_t*>(const_cast<char*>(name.data())),
          reinterpret_cast<uint8_t*>(const_cast<char*>(value.data())), name.size(), value.size(),
          NGHTTP2_NV_FLAG_NONE};
}

/// One call on a connection.
struct Call {
  std::string path, content_type, encoding, timeout;
  std::size_t header_bytes = 0;
  std::string body;  // the request's DATA so far
  bool dispatched = false;
  std::shared_ptr<std::atomic<bool>> cancelled = std::make_shared<std::atomic<bool>>(false);
  std::string response;  // the framed response message being written
  std::size_t sent = 0;
  std::string status = "0", message;  // the trailers
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket socket, Shared& shared) : stream_(std::move(socket)), shared_(shared) {}
  ~Connection() {
    for (auto& [id, call] : calls_) call->cancelled->store(true);
    if (session_) nghttp2_session_del(session_);
    shared_.listener.closed();
  }

  void start() {
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] {
      if (self->open_session()) self->read();
    });
  }

 private:
  bool open_session() {
    nghttp2_session_callbacks* cbs = nullptr;
    nghttp2_session_callbacks_new(&cbs);
    nghttp2_session_callbacks_set_on_begin_headers_callback(cbs, on_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(cbs, on_header);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cbs, on_data);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cbs, on_frame);
    nghttp2_session_callbacks_set_on_stream_close_callback(cbs, on_close);
    int rv = nghttp2_session_server_new(&session_, cbs, this);
    nghttp2_session_callbacks_del(cbs);
    if (rv != 0) return false;
    nghttp2_settings_entry settings[] = {
        {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, shared_.options.max_concurrent_streams},
        {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, uint32_t(shared_.options.max_header_bytes)},
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 1u << 20}};
    nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, settings, 3);
    nghttp2_session_set_local_window_size(session_, NGHTTP2_FLAG_NONE, 0, 1 << 24);
    return true;
  }

  void read() {
    stream_.expires_after(shared_.options.idle_timeout);
    stream_.async_read_some(
        net::buffer(in_), [self = shared_from_this()](beast::error_code ec, std::size_t n) {
          if (ec) return self->close();
          ssize_t used = nghttp2_session_mem_recv(
              self->session_, reinterpret_cast<const uint8_t*>(self->in_.data()), n);
          if (used < 0) return self->close();
          self->flush();
          if (nghttp2_session_want_read(self->session_)) self->read();
        });
  }

  /// Writes what the session has to send, one write at a time.
  void flush() {
    if (writing_) return;
    out_.clear();
    for (;;) {
      const uint8_t* data = nullptr;
      ssize_t n = nghttp2_session_mem_send(session_, &data);
      if (n <= 0) break;
      out_.append(reinterpret_cast<const char*>(data), std::size_t(n));
      if (out_.size() > (1u << 20)) break;
    }
    if (out_.empty()) {
      if (!nghttp2_session_want_read(session_) && !nghttp2_session_want_write(session_)) close();
      return;
    }
    writing_ = true;
    stream_.expires_after(shared_.options.idle_timeout);
    net::async_write(stream_, net::buffer(out_),
                     [self = shared_from_this()](beast::error_code ec, std::size_t) {
                       self->writing_ = false;
                       if (ec) return self->close();
                       self->flush();
                     });
  }

  void close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
  }

  static Connection& self(void* user) { return *static_cast<Connection*>(user); }

  static int on_begin_headers(nghttp2_session*, const nghttp2_frame* frame, void* user) {
    if (frame->hd.type == NGHTTP2_HEADERS && frame->headers.cat == NGHTTP2_HCAT_REQUEST)
      self(user).calls_[frame->hd.stream_id] = std::make_unique<Call>();
    return 0;
  }

  static int on_header(nghttp2_session* session, const nghttp2_frame* frame, const uint8_t* name,
                       size_t namelen, const uint8_t* value, size_t valuelen, uint8_t, void* user) {
    Connection& c = self(user);
    auto it = c.calls_.find(frame->hd.stream_id);
    if (it == c.calls_.end()) return 0;  // trailers of a request, or a stream we refused
    Call& call = *it->second;
    call.header_bytes += namelen + valuelen;
    if (call.header_bytes > c.shared_.options.max_header_bytes) {
      nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, frame->hd.stream_id,
                                NGHTTP2_REFUSED_STREAM);
      return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    }
    std::string_view n(reinterpret_cast<const char*>(name), namelen);
    std::string v(reinterpret_cast<const char*>(value), valuelen);
    if (n == ":path")
      call.path = v;
    else if (n == "content-type")
      call.content_type = v;
    else if (n == "grpc-encoding")
      call.encoding = v;
    else if (n == "grpc-timeout")
      call.timeout = v;
    return 0;
  }

  static int on_data(nghttp2_session*, uint8_t, int32_t stream_id, const uint8_t* data, size_t len,
                     void* user) {
    Connection& c = self(user);
    auto it = c.calls_.find(stream_id);
    if (it == c.calls_.end() || it->second->dispatched) return 0;
    Call& call = *it->second;
    if (call.body.size() + len > c.shared_.options.max_message_bytes + 5) {
      c.fail(stream_id, GrpcCode::resource_exhausted,
             "request message is larger than the limit of " +
                 std::to_string(c.shared_.options.max_message_bytes) + " bytes");
      return 0;
    }
    call.body.append(reinterpret_cast<const char*>(data), len);
    return 0;
  }

  static int on_frame(nghttp2_session*, const nghttp2_frame* frame, void* user) {
    if ((frame->hd.type == NGHTTP2_DATA || frame->hd.type == NGHTTP2_HEADERS) &&
        (frame->hd.flags & NGHTTP2_FLAG_END_STREAM))
      self(user).dispatch(frame->hd.stream_id);
    return 0;
  }

  static int on_close(nghttp2_session*, int32_t stream_id, uint32_t, void* user) {
    Connection& c = self(user);
    auto it = c.calls_.find(stream_id);
    if (it == c.calls_.end()) return 0;
    it->second->cancelled->store(true);  // a queued call whose client went away is dropped
    c.calls_.erase(it);
    return 0;
  }

  /// Answers `stream_id` with trailers only: grpc-status `code` and grpc-message `message`.
  void fail(int32_t stream_id, GrpcCode code, const std::string& message) {
    auto it = calls_.find(stream_id);
    if (it == calls_.end() || it->second->dispatched) return;
    it->second->dispatched = true;
    std::string status = std::to_string(int(code)), encoded = percent_encoded(message);
    std::string s200 = "200", ct = "application/grpc";
    std::vector<nghttp2_nv> nv = {header(":status", s200), header("content-type", ct),
                                  header("grpc-status", status), header("grpc-message", encoded)};
    nghttp2_submit_response(session_, stream_id, nv.data(), nv.size(), nullptr);
  }

  void dispatch(int32_t stream_id) {
    auto it = calls_.find(stream_id);
    if (it == calls_.end() || it->second->dispatched) return;
    Call& call = *it->second;
    if (!call.content_type.starts_with("application/grpc"))
      return fail(stream_id, GrpcCode::invalid_argument,
                  "content-type \"" + call.content_type + "\" is not application/grpc");
    if (!call.encoding.empty() && call.encoding != "identity")
      return fail(stream_id, GrpcCode::unimplemented,
                  "grpc-encoding \"" + call.encoding + "\" is not accepted; send uncompressed");
    if (call.body.size() < 5)
      return fail(stream_id, GrpcCode::invalid_argument, "the call carries no request message");
    auto b = reinterpret_cast<const unsigned char*>(call.body.data());
    std::size_t length = std::size_t(b[1]) << 24 | std::size_t(b[2]) << 16 |
                         std::size_t(b[3]) << 8 | std::size_t(b[4]);
    if (b[0] != 0)
      return fail(stream_id, GrpcCode::unimplemented, "compressed messages are not accepted");
    if (length != call.body.size() - 5)
      return fail(stream_id, GrpcCode::invalid_argument,
                  "the call carries " + std::to_string(call.body.size() - 5) +
                      " bytes where its message's prefix says " + std::to_string(length) +
                      " (one request message per call)");
    call.dispatched = true;
    shared_.listener.hold(shared_from_this());
    std::weak_ptr<Connection> weak = shared_from_this();
    std::string_view message = std::string_view(call.body).substr(5);
    handle_grpc(
        shared_.server, call.path, message, parse_grpc_timeout(call.timeout),
        shared_.options.decode,
        [weak, stream_id, gate = shared_.listener.gate(),
         executor = stream_.get_executor()](GrpcReply r) {
          gate->post(executor, [weak, stream_id, r = std::move(r)]() mutable {
            if (auto self = weak.lock()) self->answer(stream_id, std::move(r));
          });
        },
        call.cancelled);
  }

  /// Writes the reply of the call on `stream_id` (dropped if the client closed it).
  void answer(int32_t stream_id, GrpcReply r) {
    shared_.listener.release(shared_from_this());
    auto it = calls_.find(stream_id);
    if (it == calls_.end()) return;
    Call& call = *it->second;
    std::string s200 = "200", ct = "application/grpc";
    if (r.code != GrpcCode::ok) {
      std::string status = std::to_string(int(r.code)), encoded = percent_encoded(r.message);
      std::vector<nghttp2_nv> nv = {header(":status", s200), header("content-type", ct),
                                    header("grpc-status", status), header("grpc-message", encoded)};
      nghttp2_submit_response(session_, stream_id, nv.data(), nv.size(), nullptr);
    } else {
      std::size_t n = r.body.size();
      call.response.reserve(n + 5);
      call.response += '\0';
      for (int shift : {24, 16, 8, 0}) call.response += char((n >> shift) & 0xff);
      call.response += r.body;
      nghttp2_data_provider provider{};
      provider.source.ptr = &call;
      provider.read_callback = read_response;
      std::vector<nghttp2_nv> nv = {header(":status", s200), header("content-type", ct)};
      nghttp2_submit_response(session_, stream_id, nv.data(), nv.size(), &provider);
    }
    flush();
  }

  static ssize_t read_response(nghttp2_session* session, int32_t stream_id, uint8_t* buf,
                               size_t length, uint32_t* flags, nghttp2_data_source* source, void*) {
    Call& call = *static_cast<Call*>(source->ptr);
    std::size_t n = std::min(length, call.response.size() - call.sent);
    std::memcpy(buf, call.response.data() + call.sent, n);
    call.sent += n;
    if (call.sent == call.response.size()) {
      *flags |= NGHTTP2_DATA_FLAG_EOF | NGHTTP2_DATA_FLAG_NO_END_STREAM;
      std::string name = "grpc-status", zero = "0";
      nghttp2_nv trailer = header(name, zero);
      nghttp2_submit_trailer(session, stream_id, &trailer, 1);
    }
    return ssize_t(n);
  }

  beast::tcp_stream stream_;
  Shared& shared_;
  nghttp2_session* session_ = nullptr;
  std::array<char, 65536> in_{};
  std::string out_;
  bool writing_ = false;
  std::map<int32_t, std::unique_ptr<Call>> calls_;
};

}  // namespace

struct GrpcServer::Impl {
  Impl(Server& server, const GrpcOptions& options) : shared(server, options) {}
  Shared shared;
};

GrpcServer::GrpcServer(Server& server, const GrpcOptions& options)
    : impl_(std::make_unique<Impl>(server, options)) {
  impl_->shared.listener.start([this](tcp::socket socket) {
    std::make_shared<Connection>(std::move(socket), impl_->shared)->start();
  });
}

GrpcServer::~GrpcServer() { stop(); }

uint16_t GrpcServer::port() const { return impl_->shared.listener.port(); }

void GrpcServer::stop(std::chrono::milliseconds drain) { impl_->shared.listener.stop(drain); }

}  // namespace hhlo::serve
