#include "Npy.h"

#include <fmt/format.h>

#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

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

}  // namespace

HostTensor readNpy(const std::string& path) {
  const std::string bytes = readFileBytes(path);
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) {
    throw ImportError(fmt::format("{}: not a .npy file (no \\x93NUMPY magic)", path));
  }
  const int major = static_cast<unsigned char>(bytes[6]);
  size_t headerLen = 0, offset = 0;
  if (major == 1) {
    headerLen = static_cast<unsigned char>(bytes[8]) | (static_cast<size_t>(static_cast<unsigned char>(bytes[9])) << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) throw ImportError(fmt::format("{}: truncated .npy header", path));
    for (int i = 0; i < 4; ++i) headerLen |= static_cast<size_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
    offset = 12;
  } else {
    throw ImportError(fmt::format("{}: .npy format version {} is not supported", path, major));
  }
  if (offset + headerLen > bytes.size()) throw ImportError(fmt::format("{}: truncated .npy header", path));
  const std::string header = bytes.substr(offset, headerLen);
  std::smatch m;
  if (!std::regex_search(header, m, std::regex(R"('descr'\s*:\s*'([^']*)')"))) {
    throw ImportError(fmt::format("{}: the .npy header has no descr", path));
  }
  const std::string descr = m[1];
  DType type = DType::kUndefined;
  for (const Descr& d : kDescrs) {
    if (descr == d.text) type = d.type;
  }
  if (type == DType::kUndefined) {
    throw ImportError(fmt::format("{}: element type '{}' is not supported (little-endian numbers and bool)", path, descr));
  }
  if (std::regex_search(header, m, std::regex(R"('fortran_order'\s*:\s*True)"))) {
    throw ImportError(fmt::format("{}: Fortran order is not supported (save with np.ascontiguousarray)", path));
  }
  if (!std::regex_search(header, m, std::regex(R"('shape'\s*:\s*\(([^)]*)\))"))) {
    throw ImportError(fmt::format("{}: the .npy header has no shape", path));
  }
  Shape shape;
  std::stringstream dims(m[1].str());
  for (std::string d; std::getline(dims, d, ',');) {
    d.erase(0, d.find_first_not_of(" \t"));
    d.erase(d.find_last_not_of(" \t") + 1);
    if (d.empty()) continue;
    try {
      shape.push_back(std::stoll(d));
    } catch (const std::exception&) {
      throw ImportError(fmt::format("{}: bad shape in the .npy header", path));
    }
  }
  HostTensor t(type, shape);
  const size_t data = offset + headerLen;
  if (bytes.size() - data != t.bytes.size()) {
    throw ImportError(fmt::format("{}: holds {} bytes of data, its header says {} ({} {})", path, bytes.size() - data,
                                  t.bytes.size(), descr, shapeString(shape)));
  }
  std::memcpy(t.bytes.data(), bytes.data() + data, t.bytes.size());
  return t;
}

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
