#include "rtl/simulation_thread.h"

namespace weft::sim {

SimulationThread& SimulationThread::instance() {
  // Never destroyed: the elaborated design and SystemC's kernel outlive every static
  // destructor, and a joinable std::thread must not be destroyed at exit.
  static SimulationThread* thread = new SimulationThread;
  return *thread;
}

SimulationThread::SimulationThread() : thread_([this] { loop(); }) { thread_.detach(); }

void SimulationThread::run(const std::function<void()>& job) {
  std::lock_guard<std::mutex> call(callMutex_);
  std::unique_lock<std::mutex> lock(mutex_);
  job_ = &job;
  done_ = false;
  error_ = nullptr;
  cv_.notify_all();
  cv_.wait(lock, [this] { return done_; });
  if (error_) std::rethrow_exception(error_);
}

void SimulationThread::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    cv_.wait(lock, [this] { return job_ != nullptr; });
    const std::function<void()>* job = job_;
    job_ = nullptr;
    lock.unlock();
    std::exception_ptr error;
    try {
      (*job)();
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    error_ = error;
    done_ = true;
    cv_.notify_all();
  }
}

}  // namespace weft::sim
