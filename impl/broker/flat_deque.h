#pragma once
// A contiguous deque of trivially copyable values: appended at the back,
// trimmed at the front, inserted anywhere (cost: the values after the point).
// The dedup cache keeps its rows and hashes in these (offset order; new rows
// arrive at the high end, expiry takes the low end).
//
// Memory is the point: capacity grows by an eighth (not doubled), the trimmed
// prefix is reclaimed once it is as large as the live part, and capacity left
// at more than twice the live part after a trim is given back. So a deque of
// n values holds at most about n + n/8 slots once it has grown, and
// capacity_bytes() is what it really holds on the heap (minus malloc's
// header). Growing by an eighth copies each value about eight times over its
// life (amortized O(1)); the values are small and trivially copyable.
#include <algorithm>
#include <cassert>
#include <cstddef>
#include <type_traits>
#include <vector>

namespace qdt::impl {

template <class T>
class FlatDeque {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  size_t size() const { return buf_.size() - head_; }
  bool empty() const { return size() == 0; }
  const T& operator[](size_t i) const {
    assert(i < size());
    return buf_[head_ + i];
  }
  T& operator[](size_t i) {
    assert(i < size());
    return buf_[head_ + i];
  }
  const T& front() const { return (*this)[0]; }
  const T& back() const { return (*this)[size() - 1]; }

  void push_back(const T& value) {
    make_room(1);
    buf_.push_back(value);
  }
  // Inserts [first, first + n) before position i (i == size() appends).
  void insert(size_t i, const T* first, size_t n) {
    assert(i <= size());
    make_room(n);
    buf_.insert(buf_.begin() + static_cast<std::ptrdiff_t>(head_ + i), first, first + n);
  }
  void pop_front(size_t n = 1) {
    assert(n <= size());
    head_ += n;
    if (head_ >= size()) trim();  // the dead prefix is as large as the live part: O(1) amortized
  }
  // Room for n more values without growing again: exact when empty (a full
  // hydration knows its count), else with the usual eighth of slack.
  void reserve_more(size_t n) {
    if (buf_.size() + n > buf_.capacity()) reallocate(size() + n + size() / 8);
  }
  void clear() {
    std::vector<T>().swap(buf_);  // give the memory back, not just the size
    head_ = 0;
  }
  size_t capacity() const { return buf_.capacity(); }
  size_t capacity_bytes() const { return buf_.capacity() * sizeof(T); }

 private:
  void make_room(size_t n) {
    if (buf_.size() + n <= buf_.capacity()) return;
    const size_t need = size() + n;
    if (need <= buf_.capacity() && buf_.capacity() <= 2 * need + 8) {
      erase_prefix();  // dropping the dead prefix makes room
    } else {
      reallocate(need + need / 8);
    }
  }
  void trim() {
    if (buf_.capacity() > 2 * size() + 8) {
      reallocate(size() + size() / 8);
    } else {
      erase_prefix();
    }
  }
  void erase_prefix() {
    buf_.erase(buf_.begin(), buf_.begin() + static_cast<std::ptrdiff_t>(head_));
    head_ = 0;
  }
  void reallocate(size_t capacity) {
    assert(capacity >= size());
    std::vector<T> next;
    next.reserve(capacity);  // libstdc++ allocates exactly this
    next.insert(next.end(), buf_.begin() + static_cast<std::ptrdiff_t>(head_), buf_.end());
    buf_.swap(next);
    head_ = 0;
  }

  std::vector<T> buf_;
  size_t head_ = 0;  // values before it are trimmed
};

}  // namespace qdt::impl
