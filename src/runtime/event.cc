#include "hhlo/runtime/event.h"

#include "pjrt.h"

namespace hhlo {

using detail::args;

Event::Event(std::shared_ptr<const detail::ClientState> client, void* event)
    : client_(std::move(client)), handle_(event) {}

Event::Event(Event&& o) noexcept : client_(std::move(o.client_)), handle_(o.handle_) {
  o.handle_ = nullptr;
}

Event& Event::operator=(Event&& o) noexcept {
  if (this != &o) {
    Event tmp(std::move(*this));
    client_ = std::move(o.client_);
    handle_ = o.handle_;
    o.handle_ = nullptr;
  }
  return *this;
}

Event::~Event() {
  if (!handle_) return;
  auto a = args<PJRT_Event_Destroy_Args>();
  a.event = static_cast<PJRT_Event*>(handle_);
  client_->api->PJRT_Event_Destroy(&a);
}

static PJRT_Event* ev(void* h) {
  if (!h) throw Error("Event: no event (default-constructed or moved-from)");
  return static_cast<PJRT_Event*>(h);
}

void Event::await() const {
  auto a = args<PJRT_Event_Await_Args>();
  a.event = ev(handle_);
  HHLO_PJRT_CALL(client_->api, PJRT_Event_Await, a);
}

bool Event::is_ready() const {
  auto a = args<PJRT_Event_IsReady_Args>();
  a.event = ev(handle_);
  HHLO_PJRT_CALL(client_->api, PJRT_Event_IsReady, a);
  return a.is_ready;
}

namespace {
struct OnReady {
  const PJRT_Api* api;
  std::function<void(std::exception_ptr)> fn;
};
void on_ready_trampoline(PJRT_Error* error, void* user) {
  std::unique_ptr<OnReady> r(static_cast<OnReady*>(user));
  std::exception_ptr ex;
  if (error) {
    int code = 0;
    std::string msg = detail::take_error(r->api, error, &code);
    ex = std::make_exception_ptr(PjrtError("PJRT_Event_OnReady", code, msg));
  }
  try {
    r->fn(ex);
  } catch (...) {  // never let an exception escape into the plugin
  }
}
}  // namespace

void Event::on_ready(std::function<void(std::exception_ptr)> callback) const {
  auto a = args<PJRT_Event_OnReady_Args>();
  a.event = ev(handle_);
  a.callback = &on_ready_trampoline;
  auto* r = new OnReady{client_->api, std::move(callback)};
  a.user_arg = r;
  PJRT_Error* e = HHLO_PJRT_FN(client_->api, PJRT_Event_OnReady)(&a);
  if (e) {
    delete r;
    detail::check(client_->api, e, "PJRT_Event_OnReady");
  }
}

}  // namespace hhlo
