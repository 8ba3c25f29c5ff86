#pragma once
// The seams between the broker and the world (LevelDB's Env, FoundationDB's
// sim2): time, randomness and storage. The simulator fills them in with
// virtual clocks, seeded generators and a storage link that takes virtual
// time and can fail; the broker cannot tell it is simulated.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "impl/storage/storage_port.h"
#include "impl/storage/storage_types.h"

namespace qdt::impl {

// The broker lost a request it was working on (it crashed): the request is
// answered nothing at all, neither a verdict nor `error`.
class BrokerLost : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class BrokerClock {
 public:
  virtual ~BrokerClock() = default;
  // Unix milliseconds on this broker's clock (which may be skewed from storage's).
  virtual int64_t now_ms() = 0;
};

class RandomSource {
 public:
  virtual ~RandomSource() = default;
  virtual uint64_t next_u64() = 0;
};

// A one-shot-at-a-time event between concurrent requests inside a broker
// (segment fusion). Plain data; the WaitPort gives it meaning.
struct FiberEvent {
  bool set = false;
  void* waiter = nullptr;  // owned by the WaitPort implementation
};

// How a request waits for another inside the broker. The simulator suspends
// the calling fiber; without one, requests never overlap and nothing waits.
class WaitPort {
 public:
  virtual ~WaitPort() = default;
  // Returns once `event` is set (then clears it).
  virtual void wait(FiberEvent& event) = 0;
  // What the woken request does next: `answered`, its frames are decided
  // (or lost) and it only collects them on its way out of Broker::push;
  // `turn`, it is handed work (its lane, to flush). The simulator's schedule
  // search commutes answered waiters (they touch nothing shared).
  enum class Wake { answered, turn };
  virtual void notify(FiberEvent& event, Wake why) = 0;
};

}  // namespace qdt::impl
