// Result<T>: a value or an Error (an NNAPI result code and a message saying what was wrong).
// Status is Result<void>. NN_RET_CHECK and NN_TRY keep validation code short:
//
//   NN_RET_CHECK(rank == 4) << "input must be 4-D, got rank " << rank;
//   NN_TRY(validateActivation(ctx, 3));
#pragma once

#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <variant>

#include "weft/nn/Types.h"

namespace weft::nn {

struct Error {
  ErrorStatus code = ErrorStatus::OP_FAILED;
  std::string message;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit like std::expected
  Result(Error error) : v_(std::move(error)) {}  // NOLINT
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)) {}  // NOLINT
  bool ok() const { return !error_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Error& error() const { return *error_; }

 private:
  std::optional<Error> error_;
};
using Status = Result<void>;

// Builds an Error with operator<<; converts to any Result.
class ErrorBuilder {
 public:
  explicit ErrorBuilder(ErrorStatus code) : code_(code) {}
  template <typename V>
  ErrorBuilder& operator<<(const V& v) {
    stream_ << v;
    return *this;
  }
  operator Error() const { return Error{code_, stream_.str()}; }  // NOLINT
  template <typename T>
  operator Result<T>() const {  // NOLINT
    return Error(*this);
  }

 private:
  ErrorStatus code_;
  std::ostringstream stream_;
};

}  // namespace weft::nn

#define NN_ERROR(code) ::weft::nn::ErrorBuilder(::weft::nn::ErrorStatus::code)

// Returns BAD_DATA naming the failed condition; stream more context after it.
// The switch makes the macro one statement, so `if (x) NN_RET_CHECK(y);` has no dangling else.
#define NN_RET_CHECK(cond)                                               \
  switch (0)                                                             \
  case 0:                                                                \
  default:                                                               \
    if (cond) {                                                          \
    } else /* NOLINT */                                                  \
      return ::weft::nn::ErrorBuilder(::weft::nn::ErrorStatus::BAD_DATA) \
             << __FILE__ << ":" << __LINE__ << ": " << #cond << " failed. "

#define NN_RET_CHECK_EQ(a, b) NN_RET_CHECK((a) == (b)) << (a) << " != " << (b) << ". "
#define NN_RET_CHECK_LE(a, b) NN_RET_CHECK((a) <= (b)) << (a) << " > " << (b) << ". "
#define NN_RET_CHECK_LT(a, b) NN_RET_CHECK((a) < (b)) << (a) << " >= " << (b) << ". "
#define NN_RET_CHECK_GE(a, b) NN_RET_CHECK((a) >= (b)) << (a) << " < " << (b) << ". "
#define NN_RET_CHECK_GT(a, b) NN_RET_CHECK((a) > (b)) << (a) << " <= " << (b) << ". "

#define NN_CONCAT_IMPL(a, b) a##b
#define NN_CONCAT(a, b) NN_CONCAT_IMPL(a, b)
// Propagates the error of an expression returning a Result.
#define NN_TRY(expr)                                     \
  do {                                                   \
    auto&& NN_CONCAT(nn_try_, __LINE__) = (expr);        \
    if (!NN_CONCAT(nn_try_, __LINE__).ok()) {            \
      return NN_CONCAT(nn_try_, __LINE__).error();       \
    }                                                    \
  } while (0)
