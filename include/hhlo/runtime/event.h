// PJRT events: completion signals of asynchronous work (PJRT_Event_*).
#pragma once

#include <exception>
#include <functional>
#include <memory>

#include "hhlo/runtime/pjrt_handle.h"

namespace hhlo {

/// A move-only owner of a PJRT_Event. Destroying it (PJRT_Event_Destroy) does not cancel the work.
class Event {
 public:
  Event() = default;

  /// True when this object holds an event.
  bool valid() const { return handle_.get() != nullptr; }
  /// Blocks until the event is ready (PJRT_Event_Await); throws hhlo::PjrtError if the work failed.
  void await() const;
  /// Non-blocking readiness check (PJRT_Event_IsReady).
  bool is_ready() const;
  /// Registers `callback`, called exactly once when the event is ready (possibly at once, possibly
  /// on a plugin thread), with a null exception_ptr on success or a hhlo::PjrtError on failure
  /// (PJRT_Event_OnReady). The callback must not throw.
  void on_ready(std::function<void(std::exception_ptr)> callback) const;

  /// Internal: takes ownership of a PJRT_Event*.
  Event(std::shared_ptr<const detail::ClientState> client, void* event);

 private:
  detail::PjrtHandle<PJRT_Event> handle_;
};

}  // namespace hhlo
