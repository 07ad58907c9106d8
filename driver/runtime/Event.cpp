#include "Event.h"

#include "android/NeuralNetworksTypes.h"

namespace weft::runtime {
namespace {

std::optional<int> resultOf(hal::SyncFence::State state) {
  switch (state) {
    case hal::SyncFence::State::kActive:
      return std::nullopt;
    case hal::SyncFence::State::kSignaled:
      return ANEURALNETWORKS_NO_ERROR;
    case hal::SyncFence::State::kError:
      break;
  }
  return ANEURALNETWORKS_OP_FAILED;
}

}  // namespace

nn::Result<std::shared_ptr<Completion>> Completion::create() {
  auto created = hal::FenceSignaller::create();
  if (!created.ok()) return created.error();
  return std::shared_ptr<Completion>(new Completion(created->first, created->second));
}

void Completion::signal(int resultCode) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (result_.has_value()) return;
    result_ = resultCode;
  }
  // After the result is recorded: whoever sees the fence signalled also sees the result.
  signaller_.signal(resultCode == ANEURALNETWORKS_NO_ERROR ? nn::ErrorStatus::NONE
                                                           : static_cast<nn::ErrorStatus>(resultCode));
  signalled_.notify_all();
}

int Completion::wait() const {
  std::unique_lock<std::mutex> lock(mutex_);
  signalled_.wait(lock, [this] { return result_.has_value(); });
  return *result_;
}

std::optional<int> Completion::poll() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return result_;
}

int SyncFenceEvent::wait() const { return *resultOf(fence_.wait()); }

std::optional<int> SyncFenceEvent::poll() const { return resultOf(fence_.poll(0)); }

}  // namespace weft::runtime
