// The cycles of a channel taken so far, as disjoint busy intervals: the simple pipe's DRAM
// channel in a program's estimated timeline (CommandScheduler.cpp), which adds commands in
// program order, not in time, so a command may take cycles before ones already taken.
#pragma once

#include <algorithm>
#include <iterator>
#include <map>

namespace weft::accel {

class ChannelCalendar {
 public:
  // Takes `amount` cycles of channel time, the first free from `from` on; returns when the last
  // of them ends.
  double take(double from, double amount) {
    auto it = busy_.upper_bound(from);
    if (it != busy_.begin() && std::prev(it)->second > from) {  // `from` is inside a busy interval
      --it;
      from = it->second;
      ++it;
    }
    while (amount > 0) {
      if (it != busy_.end() && it->first <= from) {  // no gap before the next interval
        from = std::max(from, it->second);
        ++it;
        continue;
      }
      const double gapEnd = it == busy_.end() ? from + amount : it->first;
      // A gap used whole ends exactly where the next interval starts (from + (gapEnd - from)
      // need not equal gapEnd in floating point, and overlapping intervals would follow).
      const bool whole = it != busy_.end() && gapEnd - from <= amount;
      const double end = whole ? gapEnd : std::min(from + amount, gapEnd);
      amount = whole ? amount - (gapEnd - from) : 0;
      // The piece [from, end) joins the interval before it when they touch, and the one after.
      auto before = busy_.end();
      if (it != busy_.begin() && std::prev(it)->second == from) before = std::prev(it);
      if (before != busy_.end()) {
        before->second = end;
      } else {
        before = busy_.emplace_hint(it, from, end);
      }
      if (it != busy_.end() && it->first == end) {
        before->second = it->second;
        it = busy_.erase(it);
      }
      if (amount <= 0) return end;
      from = before->second;
      if (it != busy_.end() && it->first <= from) ++it;
    }
    return from;
  }
  // The first free cycle from `t` on, taking nothing.
  double freeFrom(double t) const {
    auto it = busy_.upper_bound(t);
    if (it == busy_.begin()) return t;
    --it;
    return it->second > t ? it->second : t;
  }
  const std::map<double, double>& intervals() const { return busy_; }
  // Intervals that end before `t` can no longer be taken from: dropped.
  void forgetBefore(double t) {
    while (!busy_.empty() && busy_.begin()->second < t) busy_.erase(busy_.begin());
  }

 private:
  std::map<double, double> busy_;  // start -> end
};

}  // namespace weft::accel
