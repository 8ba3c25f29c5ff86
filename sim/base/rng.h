#pragma once
// The run's randomness: xoshiro256** seeded through splitmix64. One root
// generator per run; each subsystem (scheduler, network, storage, each broker,
// producers) takes its own sub-seed from the root in a fixed order at start-up,
// so adding draws in one subsystem never shifts another's. Integer-only, so
// runs reproduce across compilers and machines.
#include <cassert>
#include <cstddef>
#include <cstdint>

namespace qdt::sim {

__extension__ typedef unsigned __int128 uint128_t;

class Rng {
 public:
  explicit Rng(uint64_t seed = 0) { reseed(seed); }

  void reseed(uint64_t seed) {
    for (uint64_t& word : s_) word = splitmix64(seed);
  }

  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, n), unbiased (Lemire's method).
  uint64_t below(uint64_t n) {
    assert(n > 0);
    for (;;) {
      const uint128_t m = static_cast<uint128_t>(next()) * n;
      const auto low = static_cast<uint64_t>(m);
      if (low >= n || low >= (-n) % n) return static_cast<uint64_t>(m >> 64);
    }
  }

  // Uniform in [lo, hi].
  int64_t between(int64_t lo, int64_t hi) {
    assert(lo <= hi);
    return lo + static_cast<int64_t>(below(static_cast<uint64_t>(hi - lo) + 1));
  }

  // true with probability ppm / 1 000 000.
  bool chance_ppm(uint32_t ppm) { return ppm > 0 && below(1'000'000) < ppm; }

  // A sub-seed for a subsystem.
  uint64_t fork() { return next(); }

  // A sub-seed that is a function of `seed` and `key` alone: for draws that
  // must not depend on which fiber drew first (a push's latencies are a
  // function of the seed, its producer, its push and attempt), so that
  // concurrent fibers' steps commute (sim/schedule/footprint.h).
  static uint64_t derive(uint64_t seed, uint64_t key) {
    uint64_t x = seed ^ rotl(key, 32);
    const uint64_t a = splitmix64(x);
    x ^= key;
    return a ^ splitmix64(x);
  }
  // FNV-1a: a key from a name, the same on every platform (std::hash is not).
  static uint64_t key_of(const char* text, size_t size) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < size; ++i) h = (h ^ static_cast<unsigned char>(text[i])) * 0x100000001b3ULL;
    return h;
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static uint64_t splitmix64(uint64_t& x) {
    uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  uint64_t s_[4];
};

}  // namespace qdt::sim
