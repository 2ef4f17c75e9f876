// The Open Inference Protocol over HTTP/1.1 on Boost.Beast (hhlo/serve/http_server.h): one
// session per connection reading a request (header first: a body beyond the limit is refused
// before it is read, `Expect: 100-continue` answered), handing it to the routes
// (http_routes.h) and writing their reply from the connection's strand.
#include "hhlo/serve/http_server.h"

#include <sys/socket.h>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cerrno>
#include <set>
#include <thread>
#include <vector>

#include "http_routes.h"
#include "listener.h"

namespace hhlo::serve {
namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

/// What every connection of one front end shares.
struct Shared {
  Shared(Server& s, const HttpOptions& o)
      : server(s), options(o), listener("HTTP", o.host, o.port, o.max_connections, o.threads) {}
  Server& server;
  HttpOptions options;
  Listener listener;
};

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, Shared& shared) : stream_(std::move(socket)), shared_(shared) {}
  ~Session() { shared_.listener.closed(); }
  void start() {
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->read_header(); });
  }

 private:
  void read_header() {
    parser_.emplace();
    parser_->body_limit(shared_.options.max_body_bytes);
    parser_->header_limit(std::uint32_t(shared_.options.max_header_bytes));
    stream_.expires_after(shared_.options.read_timeout);
    http::async_read_header(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_header(ec); });
  }

  void on_header(beast::error_code ec) {
    if (ec) return on_read_error(ec);
    const auto& req = parser_->get();
    if (parser_->content_length() && *parser_->content_length() > shared_.options.max_body_bytes)
      return refuse(413, "request body of " + std::to_string(*parser_->content_length()) +
                             " bytes is larger than the limit of " +
                             std::to_string(shared_.options.max_body_bytes));
    if (beast::iequals(req[http::field::expect], "100-continue")) {
      auto cont = std::make_shared<http::response<http::empty_body>>(http::status::continue_,
                                                                     req.version());
      return http::async_write(stream_, *cont,
                               [self = shared_from_this(), cont](beast::error_code e, std::size_t) {
                                 if (e) return self->close();
                                 self->read_body();
                               });
    }
    read_body();
  }

  void read_body() {
    http::async_read(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
  }

  void on_read_error(beast::error_code ec) {
    if (ec == http::error::body_limit)
      return refuse(413, "request body is larger than the limit of " +
                             std::to_string(shared_.options.max_body_bytes) + " bytes");
    if (ec == http::error::header_limit)
      return refuse(431, "request header is larger than the limit of " +
                             std::to_string(shared_.options.max_header_bytes) + " bytes");
    if (ec == beast::error::timeout || ec == http::error::end_of_stream || ec == net::error::eof ||
        ec == net::error::connection_reset || ec == net::error::operation_aborted)
      return close();
    refuse(400, std::string("malformed HTTP request: ") + ec.message());
  }

  void on_read(beast::error_code ec) {
    if (ec) return on_read_error(ec);
    const auto& req = parser_->get();
    keep_alive_ = req.keep_alive();
    version_ = req.version();
    HttpRequestView view{req.method_string(),
                         req.target(),
                         req.body(),
                         req["Inference-Header-Content-Length"],
                         req[http::field::content_encoding],
                         req[http::field::accept_encoding]};
    shared_.listener.hold(shared_from_this());
    if (shared_.options.metrics_only) return write(handle_metrics(shared_.server, view));
    std::weak_ptr<Session> weak = shared_from_this();
    handle_http(
        shared_.server, view, shared_.options.decode,
        [weak, gate = shared_.listener.gate(), executor = stream_.get_executor()](HttpReply reply) {
          gate->post(executor, [weak, reply = std::move(reply)]() mutable {
            if (auto self = weak.lock()) self->write(std::move(reply));
          });
        },
        client_gone());
  }

  /// Answers `status` with `message` and closes the connection after.
  void refuse(int status, const std::string& message) {
    keep_alive_ = false;
    version_ = 11;
    shared_.listener.hold(shared_from_this());
    write({status, error_body(message), std::nullopt, ""});
  }

  void write(HttpReply reply) {
    response_ = {};
    response_.version(version_);
    response_.result(unsigned(reply.status));
    response_.set(http::field::server, "hhlo");
    if (!reply.content_type.empty()) {
      response_.set(http::field::content_type, reply.content_type);
    } else if (reply.json_size) {
      response_.set(http::field::content_type, "application/octet-stream");
      response_.set("Inference-Header-Content-Length", std::to_string(*reply.json_size));
    } else {
      response_.set(http::field::content_type, "application/json");
    }
    if (!reply.content_encoding.empty())
      response_.set(http::field::content_encoding, reply.content_encoding);
    response_.body() = std::move(reply.body);
    response_.keep_alive(keep_alive_);
    response_.prepare_payload();
    stream_.expires_after(shared_.options.write_timeout);
    http::async_write(stream_, response_,
                      [self = shared_from_this()](beast::error_code ec, std::size_t) {
                        self->shared_.listener.release(self);
                        if (ec || !self->keep_alive_) return self->close();
                        self->read_header();
                      });
  }

  /// Whether the client closed its side of the connection while its request waited: a peek at
  /// the socket (EOF: gone; bytes or nothing yet: there). The session stays alive (and its
  /// socket open) until the reply is written (Listener::hold), so the descriptor is this
  /// connection's whenever an executor asks.
  Cancelled client_gone() {
    int fd = stream_.socket().native_handle();
    return [fd] {
      char byte;
      ssize_t n = ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
      return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
    };
  }

  void close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
  }

  beast::tcp_stream stream_;
  Shared& shared_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::response<http::string_body> response_;
  bool keep_alive_ = true;
  unsigned version_ = 11;
};

}  // namespace

struct HttpServer::Impl {
  Impl(Server& server, const HttpOptions& options) : shared(server, options) {}
  Shared shared;
};

HttpServer::HttpServer(Server& server, const HttpOptions& options)
    : impl_(std::make_unique<Impl>(server, options)) {
  impl_->shared.listener.start([this](tcp::socket socket) {
    std::make_shared<Session>(std::move(socket), impl_->shared)->start();
  });
}

HttpServer::~HttpServer() { stop(); }

uint16_t HttpServer::port() const { return impl_->shared.listener.port(); }

void HttpServer::stop(std::chrono::milliseconds drain) { impl_->shared.listener.stop(drain); }

}  // namespace hhlo::serve
