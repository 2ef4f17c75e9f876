// The Open Inference Protocol over HTTP/1.1 on Boost.Beast (hhlo/serve/http_server.h): one
// session per connection reading a request (header first: a body beyond the limit is refused
// before it is read, `Expect: 100-continue` answered), handing it to the routes
// (http_routes.h), watching the connection meanwhile (a client that closes it cancels its
// queued request) and writing their reply from the connection's strand.
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

namespace hhlo::serve {
namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

/// Open while the front end may still post replies to its connections; closed by stop() before
/// the io_context goes, so that an executor answering late posts nowhere.
struct Gate {
  std::mutex mutex;
  bool open = true;
};

/// What every connection of one front end shares.
struct Shared {
  Server& server;
  HttpOptions options;
  std::shared_ptr<Gate> gate = std::make_shared<Gate>();
  std::atomic<std::size_t> connections{0};
  std::atomic<std::size_t> in_flight{0};  // requests handed to the routes, reply not yet written
  /// Connections whose request is with the routes: kept alive here (the routes' reply holds
  /// only a weak reference), dropped when the reply is posted or the front end stops.
  std::mutex pending_mutex;
  std::set<std::shared_ptr<void>> pending;
};

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, Shared& shared) : stream_(std::move(socket)), shared_(shared) {}
  ~Session() {
    cancelled_->store(true);
    --shared_.connections;
  }
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
    HttpRequestView view{req.method_string(), req.target(), req.body(),
                         req["Inference-Header-Content-Length"],
                         req[http::field::content_encoding]};
    ++shared_.in_flight;
    std::weak_ptr<Session> weak = shared_from_this();
    {
      std::lock_guard lock(shared_.pending_mutex);
      shared_.pending.insert(shared_from_this());
    }
    handle_http(
        shared_.server, view, shared_.options.decode,
        [weak, gate = shared_.gate, executor = stream_.get_executor()](HttpReply reply) {
          std::lock_guard lock(gate->mutex);
          if (!gate->open) return;
          net::post(executor, [weak, reply = std::move(reply)]() mutable {
            if (auto self = weak.lock()) {
              {
                std::lock_guard lock(self->shared_.pending_mutex);
                self->shared_.pending.erase(self);
              }
              self->write(std::move(reply));
            }
          });
        },
        cancelled_);
    watch_for_hangup();
  }

  /// While the request is with the routes nothing reads the connection: this waits for it to
  /// become readable, and a client that has closed it (end of stream or a reset; a peek reads
  /// nothing) cancels the request, which the server then drops before it runs. Bytes of a
  /// pipelined next request end the watch (they are read after the reply); write() cancels it.
  void watch_for_hangup() {
    stream_.socket().async_wait(
        tcp::socket::wait_read, [self = shared_from_this()](beast::error_code ec) {
          if (ec) return;  // cancelled by write(), or the socket closed
          char c;
          ssize_t n =
              ::recv(self->stream_.socket().native_handle(), &c, 1, MSG_PEEK | MSG_DONTWAIT);
          if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
            self->cancelled_->store(true);
        });
  }

  /// Answers `status` with `message` and closes the connection after.
  void refuse(int status, const std::string& message) {
    keep_alive_ = false;
    version_ = 11;
    ++shared_.in_flight;
    write({status, error_body(message), std::nullopt});
  }

  void write(HttpReply reply) {
    beast::error_code ignored;
    stream_.socket().cancel(ignored);  // the hang-up watch, if any
    response_ = {};
    response_.version(version_);
    response_.result(unsigned(reply.status));
    response_.set(http::field::server, "hhlo");
    if (reply.json_size) {
      response_.set(http::field::content_type, "application/octet-stream");
      response_.set("Inference-Header-Content-Length", std::to_string(*reply.json_size));
    } else {
      response_.set(http::field::content_type, "application/json");
    }
    response_.body() = std::move(reply.body);
    response_.keep_alive(keep_alive_);
    response_.prepare_payload();
    stream_.expires_after(shared_.options.write_timeout);
    http::async_write(stream_, response_,
                      [self = shared_from_this()](beast::error_code ec, std::size_t) {
                        --self->shared_.in_flight;
                        if (ec || !self->keep_alive_) return self->close();
                        self->read_header();
                      });
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
  std::shared_ptr<std::atomic<bool>> cancelled_ = std::make_shared<std::atomic<bool>>(false);
  bool keep_alive_ = true;
  unsigned version_ = 11;
};

}  // namespace

struct HttpServer::Impl {
  Impl(Server& server, const HttpOptions& options)
      : shared{server, options}, acceptor(net::make_strand(ioc)) {}

  void accept() {
    acceptor.async_accept(net::make_strand(ioc), [this](beast::error_code ec, tcp::socket socket) {
      if (ec == net::error::operation_aborted || !acceptor.is_open()) return;
      if (!ec) {
        if (shared.connections.load() >= shared.options.max_connections) {
          beast::error_code ignored;
          socket.close(ignored);
        } else {
          ++shared.connections;
          std::make_shared<Session>(std::move(socket), shared)->start();
        }
      }
      accept();
    });
  }

  Shared shared;
  net::io_context ioc;
  tcp::acceptor acceptor;
  std::vector<std::thread> threads;
  bool stopped = false;
};

HttpServer::HttpServer(Server& server, const HttpOptions& options)
    : impl_(std::make_unique<Impl>(server, options)) {
  std::string where = options.host + ":" + std::to_string(options.port);
  beast::error_code ec;
  tcp::resolver resolver(impl_->ioc);
  auto results = resolver.resolve(options.host, std::to_string(options.port),
                                  tcp::resolver::passive | tcp::resolver::numeric_service, ec);
  if (ec || results.empty())
    throw IoError("cannot resolve HTTP address " + where + ": " + ec.message());
  tcp::endpoint endpoint = results.begin()->endpoint();
  tcp::acceptor& a = impl_->acceptor;
  a.open(endpoint.protocol(), ec);
  if (!ec) a.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) a.bind(endpoint, ec);
  if (!ec) a.listen(net::socket_base::max_listen_connections, ec);
  if (ec) throw IoError("cannot listen for HTTP on " + where + ": " + ec.message());
  impl_->accept();
  for (int i = 0; i < std::max(options.threads, 1); ++i)
    impl_->threads.emplace_back([this] { impl_->ioc.run(); });
}

HttpServer::~HttpServer() { stop(); }

uint16_t HttpServer::port() const {
  beast::error_code ec;
  return impl_->acceptor.local_endpoint(ec).port();
}

void HttpServer::stop(std::chrono::milliseconds drain) {
  if (impl_->stopped) return;
  impl_->stopped = true;
  net::post(impl_->acceptor.get_executor(), [this] {
    beast::error_code ec;
    impl_->acceptor.close(ec);
  });
  auto until = std::chrono::steady_clock::now() + drain;
  while (impl_->shared.in_flight.load() > 0 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  {
    std::lock_guard lock(impl_->shared.gate->mutex);
    impl_->shared.gate->open = false;
  }
  impl_->ioc.stop();
  for (std::thread& t : impl_->threads)
    if (t.joinable()) t.join();
  std::lock_guard lock(impl_->shared.pending_mutex);
  impl_->shared.pending.clear();
}

}  // namespace hhlo::serve
