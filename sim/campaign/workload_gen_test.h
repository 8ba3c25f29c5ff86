#pragma once
// Domain generators for the RapidCheck stateful suite (stateful_test.cpp).
// They bias towards collisions: few queues, few partitions, few keys, repeats
// inside one request, and time steps that land on the window edges — that is
// where first-wins, the inclusive window and the sidecar floor can go wrong.
// Values earlier in each list are what RapidCheck shrinks towards.
#include <rapidcheck.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace qdt::sim::workload_gen {

inline const std::vector<std::string>& queues() {
  static const std::vector<std::string> names{"q0", "q1"};
  return names;
}
inline const std::vector<std::string>& partitions() {
  static const std::vector<std::string> names{"p0", "p1"};
  return names;
}
inline const std::vector<std::string>& keys() {
  static const std::vector<std::string> names{"k0", "k1", "k2", "k3"};
  return names;
}

struct Item {
  std::string queue;
  std::string partition;
  std::string transaction_id;
};

// Mostly one queue, so most requests stay inside one queue's partitions.
inline rc::Gen<std::string> queue() { return rc::gen::weightedElement<std::string>({{3, "q0"}, {1, "q1"}}); }
inline rc::Gen<std::string> partition() { return rc::gen::elementOf(partitions()); }
inline rc::Gen<std::string> key() { return rc::gen::elementOf(keys()); }

inline rc::Gen<Item> item() {
  return rc::gen::apply([](std::string q, std::string p, std::string k) { return Item{q, p, k}; }, queue(),
                        partition(), key());
}

// 1-4 items: with four keys over two partitions, repeats inside a request are common.
inline rc::Gen<std::vector<Item>> request() {
  return rc::gen::mapcat(rc::gen::inRange<size_t>(1, 5),
                         [](size_t n) { return rc::gen::container<std::vector<Item>>(n, item()); });
}

// The windows the task cares about; the default (3600) first so that shrinking
// towards it removes the Configure step's influence.
inline rc::Gen<int64_t> window_seconds() { return rc::gen::elementOf(std::vector<int64_t>{3600, 60, 1, 0}); }

// Mostly no segment retention; sometimes short enough to expire between pushes.
inline rc::Gen<int64_t> retention_seconds() {
  return rc::gen::weightedElement<int64_t>({{4, 0}, {1, 60}, {1, 3600}});
}

// A time step in milliseconds: half the time uniform in 0..120 s, half the time
// exactly on an edge (the window, the window +/- 1 ms, the 900 s sidecar floor
// and the retention ages in force) so repeats land just inside or just outside.
inline rc::Gen<int64_t> advance_ms(const std::vector<int64_t>& ages_seconds) {
  std::set<int64_t> edge_set;
  for (int64_t seconds : ages_seconds) {
    if (seconds <= 0) continue;
    edge_set.insert(seconds * 1000);
    edge_set.insert(seconds * 1000 + 1);
    edge_set.insert(seconds * 1000 - 1);
  }
  edge_set.insert(900'000);
  edge_set.insert(900'001);
  const std::vector<int64_t> edges(edge_set.begin(), edge_set.end());
  return rc::gen::mapcat(rc::gen::inRange(0, 2), [edges](int pick) {
    return pick == 0 ? rc::gen::inRange<int64_t>(0, 120'001) : rc::gen::elementOf(edges);
  });
}

}  // namespace qdt::sim::workload_gen
