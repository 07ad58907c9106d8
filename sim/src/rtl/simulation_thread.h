// The one OS thread of the process that runs SystemC. SystemC's kernel is neither thread-safe
// nor movable between threads, so the rtl backend runs every SystemC call (elaboration,
// sc_start, notifications) here, one job at a time, and host calls from any thread are safe.
// The thread lives as long as the process, like the elaborated design.
#pragma once

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace weft::sim {

class SimulationThread {
 public:
  static SimulationThread& instance();

  // Runs `job` on the simulation thread and waits for it; rethrows what it threw.
  void run(const std::function<void()>& job);

 private:
  SimulationThread();
  void loop();

  std::mutex callMutex_;  // one caller at a time
  std::mutex mutex_;
  std::condition_variable cv_;
  const std::function<void()>* job_ = nullptr;
  bool done_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace weft::sim
