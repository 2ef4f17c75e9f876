// What the HTTP and gRPC front ends share (listener.h).
#include "listener.h"

#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>

#include "hhlo/core/error.h"

namespace hhlo::serve {
namespace net = boost::asio;

bool ReplyGate::post(const net::any_io_executor& executor, std::function<void()> task) {
  std::lock_guard lock(mutex_);
  if (!open_) return false;
  net::post(executor, std::move(task));
  return true;
}

void ReplyGate::close() {
  std::lock_guard lock(mutex_);
  open_ = false;
}

Listener::Listener(const std::string& what, const std::string& host, uint16_t port,
                   std::size_t max_connections, int threads)
    : acceptor_(net::make_strand(context_)),
      max_connections_(max_connections),
      threads_count_(std::max(threads, 1)) {
  std::string where = host + ":" + std::to_string(port);
  boost::system::error_code ec;
  tcp::resolver resolver(context_);
  auto results = resolver.resolve(host, std::to_string(port),
                                  tcp::resolver::passive | tcp::resolver::numeric_service, ec);
  if (ec || results.empty())
    throw IoError("cannot resolve " + what + " address " + where + ": " + ec.message());
  tcp::endpoint endpoint = results.begin()->endpoint();
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(net::socket_base::max_listen_connections, ec);
  if (ec) throw IoError("cannot listen for " + what + " on " + where + ": " + ec.message());
}

Listener::~Listener() { stop(std::chrono::milliseconds(0)); }

void Listener::start(std::function<void(tcp::socket)> open) {
  open_ = std::move(open);
  accept();
  for (int i = 0; i < threads_count_; ++i) threads_.emplace_back([this] { context_.run(); });
}

void Listener::accept() {
  acceptor_.async_accept(net::make_strand(context_),
                         [this](boost::system::error_code ec, tcp::socket socket) {
                           if (ec == net::error::operation_aborted || !acceptor_.is_open()) return;
                           if (!ec) {
                             if (connections_.load() >= max_connections_) {
                               boost::system::error_code ignored;
                               socket.close(ignored);
                             } else {
                               ++connections_;
                               open_(std::move(socket));
                             }
                           }
                           accept();
                         });
}

uint16_t Listener::port() const {
  boost::system::error_code ec;
  return acceptor_.local_endpoint(ec).port();
}

void Listener::hold(std::shared_ptr<void> connection) {
  ++in_flight_;
  if (!connection) return;
  std::lock_guard lock(held_mutex_);
  held_.insert(std::move(connection));
}

void Listener::release(const std::shared_ptr<void>& connection) {
  --in_flight_;
  if (!connection) return;
  std::lock_guard lock(held_mutex_);
  auto it = held_.find(connection);
  if (it != held_.end()) held_.erase(it);
}

void Listener::stop(std::chrono::milliseconds drain) {
  if (stopped_) return;
  stopped_ = true;
  net::post(acceptor_.get_executor(), [this] {
    boost::system::error_code ec;
    acceptor_.close(ec);
  });
  auto until = std::chrono::steady_clock::now() + drain;
  while (in_flight_.load() > 0 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  gate_->close();
  context_.stop();
  for (std::thread& t : threads_)
    if (t.joinable()) t.join();
  std::lock_guard lock(held_mutex_);
  held_.clear();
}

}  // namespace hhlo::serve
