#include "Npy.h"

#include <fmt/format.h>

#include <cstring>
#include <fstream>
#include <string_view>

#include "ImportError.h"

namespace weft::onnx {
namespace {

struct Descr {
  const char* text;
  DType type;
};
constexpr Descr kDescrs[] = {{"<f4", DType::kFloat}, {"<f2", DType::kFloat16}, {"<f8", DType::kDouble},
                             {"<i4", DType::kInt32}, {"<i8", DType::kInt64},   {"|u1", DType::kUint8},
                             {"|i1", DType::kInt8},  {"|b1", DType::kBool},    {"<i2", DType::kInt16},
                             {"<u2", DType::kUint16}};

// The header's dict as numpy writes it, a Python literal: {'descr': '<f4', 'fortran_order': False,
// 'shape': (2, 3), } followed by spaces and a newline. Read by hand, strictly: a regex over text
// a file controls can take time or stack that grows with it.
class HeaderReader {
 public:
  HeaderReader(std::string_view text, const std::string& origin) : text_(text), origin_(origin) {}

  void read(std::string& descr, bool& fortran, Shape& shape) {
    bool haveDescr = false, haveFortran = false, haveShape = false;
    expect('{');
    while (true) {
      skipSpace();
      if (peek() == '}') break;
      const std::string key = quoted();
      expect(':');
      skipSpace();
      if (key == "descr" && !haveDescr) {
        descr = quoted();
        haveDescr = true;
      } else if (key == "fortran_order" && !haveFortran) {
        fortran = boolean();
        haveFortran = true;
      } else if (key == "shape" && !haveShape) {
        shape = tuple();
        haveShape = true;
      } else {
        fail(fmt::format("an unexpected key '{}'", key));
      }
      skipSpace();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() != '}') fail("no ',' or '}' after a value");
    }
    ++pos_;  // '}'
    for (; pos_ < text_.size(); ++pos_) {
      if (text_[pos_] != ' ' && text_[pos_] != '\n' && text_[pos_] != '\0') fail("text after the dict");
    }
    if (!haveDescr) fail("no 'descr'");
    if (!haveFortran) fail("no 'fortran_order'");
    if (!haveShape) fail("no 'shape'");
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw ImportError(fmt::format("{}: a malformed .npy header ({} at byte {} of the header)", origin_, what, pos_));
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n')) ++pos_;
  }
  void expect(char c) {
    skipSpace();
    if (peek() != c) fail(fmt::format("no '{}'", c));
    ++pos_;
  }
  std::string quoted() {
    skipSpace();
    const char q = peek();
    if (q != '\'' && q != '"') fail("no quoted string");
    const size_t end = text_.find(q, pos_ + 1);
    if (end == std::string_view::npos) fail("an unterminated string");
    std::string out(text_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return out;
  }
  bool boolean() {
    if (text_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (text_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    fail("no True or False");
  }
  Shape tuple() {
    expect('(');
    Shape shape;
    while (true) {
      skipSpace();
      if (peek() == ')') break;
      if (peek() < '0' || peek() > '9') fail("a dimension that is not a whole number");
      int64_t d = 0;
      while (peek() >= '0' && peek() <= '9') {
        if (d > (INT64_MAX - 9) / 10) fail("a dimension too large");
        d = d * 10 + (peek() - '0');
        ++pos_;
      }
      if (peek() == 'L') ++pos_;  // Python 2's long literals
      shape.push_back(d);
      skipSpace();
      if (peek() == ',') {
        ++pos_;
      } else if (peek() != ')') {
        fail("no ',' or ')' after a dimension");
      }
    }
    ++pos_;  // ')'
    return shape;
  }

  std::string_view text_;
  const std::string& origin_;
  size_t pos_ = 0;
};

}  // namespace

HostTensor parseNpy(std::string_view bytes, const std::string& origin) {
  if (bytes.size() < 10 || bytes.substr(0, 6) != "\x93NUMPY") {
    throw ImportError(fmt::format("{}: not a .npy file (no \\x93NUMPY magic)", origin));
  }
  const int major = static_cast<unsigned char>(bytes[6]);
  size_t headerLen = 0, offset = 0;
  if (major == 1) {
    headerLen = static_cast<unsigned char>(bytes[8]) | (static_cast<size_t>(static_cast<unsigned char>(bytes[9])) << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) throw ImportError(fmt::format("{}: truncated .npy header", origin));
    for (int i = 0; i < 4; ++i) headerLen |= static_cast<size_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
    offset = 12;
  } else {
    throw ImportError(fmt::format("{}: .npy format version {} is not supported", origin, major));
  }
  if (headerLen > bytes.size() - offset) throw ImportError(fmt::format("{}: truncated .npy header", origin));
  std::string descr;
  bool fortran = false;
  Shape shape;
  HeaderReader(bytes.substr(offset, headerLen), origin).read(descr, fortran, shape);
  DType type = DType::kUndefined;
  for (const Descr& d : kDescrs) {
    if (descr == d.text) type = d.type;
  }
  if (type == DType::kUndefined) {
    throw ImportError(fmt::format("{}: element type '{}' is not supported (little-endian numbers and bool)", origin,
                                  descr.size() > 40 ? descr.substr(0, 40) + "..." : descr));
  }
  if (fortran) {
    throw ImportError(fmt::format("{}: Fortran order is not supported (save with np.ascontiguousarray)", origin));
  }
  // The data's size against the header's before anything of that size is allocated: a header
  // may claim any shape.
  const size_t data = offset + headerLen, held = bytes.size() - data;
  const int64_t elements = elementCount(shape);
  const auto elementBytes = static_cast<int64_t>(dtypeSize(type));
  if (elements > INT64_MAX / elementBytes || static_cast<uint64_t>(elements * elementBytes) != held) {
    throw ImportError(fmt::format("{}: holds {} bytes of data, its header says {} {}", origin, held, descr,
                                  shapeString(shape)));
  }
  HostTensor t(type, shape);
  // An empty tensor's vector may hold no buffer at all: memcpy's pointers must not be null.
  if (!t.bytes.empty()) std::memcpy(t.bytes.data(), bytes.data() + data, t.bytes.size());
  return t;
}

HostTensor readNpy(const std::string& path) { return parseNpy(readFileBytes(path), path); }

void writeNpy(const std::string& path, const HostTensor& tensor) {
  const char* descr = nullptr;
  for (const Descr& d : kDescrs) {
    if (d.type == tensor.type) descr = d.text;
  }
  if (descr == nullptr) throw ImportError(fmt::format("{}: cannot write {} as .npy", path, dtypeName(tensor.type)));
  std::string shape;
  for (int64_t d : tensor.shape) shape += std::to_string(d) + ", ";
  if (tensor.shape.size() > 1) shape.resize(shape.size() - 1);  // (2, 3) but (4,)
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}", descr, shape);
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  if (!out) throw ImportError(fmt::format("{}: cannot write the file", path));
  const auto len = static_cast<uint16_t>(header.size());
  out.write("\x93NUMPY\x01\x00", 8);
  out.put(static_cast<char>(len & 0xff));
  out.put(static_cast<char>(len >> 8));
  out << header;
  out.write(reinterpret_cast<const char*>(tensor.bytes.data()), static_cast<std::streamsize>(tensor.bytes.size()));
  if (!out) throw ImportError(fmt::format("{}: writing failed", path));
}

std::string npyFileName(const std::string& valueName) {
  std::string name = valueName;
  for (char& c : name) {
    if (c == '/' || c == ':' || c == '\\') c = '_';
  }
  const size_t start = name.find_first_not_of('_');
  return start == std::string::npos ? "output" : name.substr(start);
}

}  // namespace weft::onnx
