#include "hhlo/runtime/event.h"

#include "pjrt.h"

namespace hhlo {

using detail::args;

Event::Event(std::shared_ptr<const detail::ClientState> client, void* event)
    : handle_(detail::owned_by<PJRT_Event>(std::move(client), event)) {}

static PJRT_Event* ev(const detail::PjrtHandle<PJRT_Event>& h) {
  if (!h.get()) throw Error("Event: no event (default-constructed or moved-from)");
  return h.get();
}

void Event::await() const {
  auto a = args<PJRT_Event_Await_Args>();
  a.event = ev(handle_);
  HHLO_PJRT_CALL(handle_.api(), PJRT_Event_Await, a);
}

bool Event::is_ready() const {
  auto a = args<PJRT_Event_IsReady_Args>();
  a.event = ev(handle_);
  HHLO_PJRT_CALL(handle_.api(), PJRT_Event_IsReady, a);
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
    detail::TakenError e = detail::take_error(r->api, error);
    ex = std::make_exception_ptr(PjrtError("PJRT_Event_OnReady", e.code, e.message));
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
  auto* r = new OnReady{handle_.api(), std::move(callback)};
  a.user_arg = r;
  PJRT_Error* e = HHLO_PJRT_FN(handle_.api(), PJRT_Event_OnReady)(&a);
  if (e) {
    delete r;
    detail::check(handle_.api(), e, "PJRT_Event_OnReady");
  }
}

}  // namespace hhlo
