// What the HTTP and gRPC front ends share (http_server.cc, grpc_server.cc): a listening socket on
// Asio with its threads and connection limit, the count of replies still to be written, the
// connections held alive while their request is at the server, and the gate through which a
// model executor posts a reply back to a connection's strand, closed when the front end stops.
#pragma once
#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace hhlo::serve {

/// Posts replies to connections' executors while open; closed before the io_context goes, so
/// that a reply computed late posts nowhere. Shared with the replies' callbacks.
class ReplyGate {
 public:
  /// Posts `task` to `executor` and returns true, or drops it (false) once closed.
  bool post(const boost::asio::any_io_executor& executor, std::function<void()> task);
  void close();

 private:
  std::mutex mutex_;
  bool open_ = true;
};

/// A listening socket and the threads running its connections.
class Listener {
 public:
  using tcp = boost::asio::ip::tcp;
  /// Binds `host:port` (0: a free port). `what` ("HTTP", "gRPC") names it in errors. Throws
  /// hhlo::IoError naming the address when it cannot be resolved or bound.
  Listener(const std::string& what, const std::string& host, uint16_t port,
           std::size_t max_connections, int threads);
  /// stop() with no drain.
  ~Listener();
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  /// Starts accepting: each connection, while fewer than max_connections are open, is handed
  /// to `open` (on its own strand); one more is closed at once.
  void start(std::function<void(tcp::socket)> open);
  /// The port listened on.
  uint16_t port() const;
  /// The io_context the connections run on.
  boost::asio::io_context& context() { return context_; }
  /// A connection ended (each opened connection calls it once).
  void closed() { --connections_; }

  /// A request was handed to the server: its reply is to come. `connection` (may be null) is
  /// kept alive until release.
  void hold(std::shared_ptr<void> connection);
  /// The reply of a request held is written (or dropped).
  void release(const std::shared_ptr<void>& connection);
  /// The gate replies are posted through.
  const std::shared_ptr<ReplyGate>& gate() const { return gate_; }

  /// Stops accepting, waits up to `drain` for every held reply, closes the gate, stops the
  /// threads and drops the connections still held. Idempotent.
  void stop(std::chrono::milliseconds drain);

 private:
  void accept();

  // The counters first: connections dropped when the io_context goes still count themselves out.
  std::atomic<std::size_t> connections_{0};
  std::atomic<std::size_t> in_flight_{0};
  std::mutex held_mutex_;
  std::multiset<std::shared_ptr<void>> held_;
  std::shared_ptr<ReplyGate> gate_ = std::make_shared<ReplyGate>();
  boost::asio::io_context context_;
  tcp::acceptor acceptor_;
  std::size_t max_connections_;
  int threads_count_;
  std::function<void(tcp::socket)> open_;
  std::vector<std::thread> threads_;
  bool stopped_ = false;
};

}  // namespace hhlo::serve
