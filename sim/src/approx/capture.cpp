#include "approx/capture.h"

#include <cstdlib>
#include <stdexcept>

namespace weft::sim::approx {
namespace {

constexpr char kMagic[8] = {'W', 'E', 'F', 'T', 'C', 'A', 'P', '1'};

void put(std::FILE* f, const void* p, size_t n) {
  if (n > 0 && std::fwrite(p, 1, n, f) != n) throw std::runtime_error("WEFT_APPROX_CAPTURE: write failed");
}

}  // namespace

std::unique_ptr<CaptureWriter> CaptureWriter::fromEnvironment(const hw::HwConfig& config) {
  const char* path = std::getenv("WEFT_APPROX_CAPTURE");
  if (path == nullptr || *path == '\0') return nullptr;
  std::FILE* f = std::fopen(path, "wb");
  if (f == nullptr) throw std::runtime_error(std::string("WEFT_APPROX_CAPTURE: cannot write '") + path + "'");
  const std::string json = config.toJson();
  const uint64_t size = json.size();
  put(f, kMagic, sizeof(kMagic));
  put(f, &size, sizeof(size));
  put(f, json.data(), json.size());
  return std::unique_ptr<CaptureWriter>(new CaptureWriter(f));
}

CaptureWriter::~CaptureWriter() { std::fclose(file_); }

void CaptureWriter::record(CaptureOp op, uint64_t a, uint64_t b, const void* data, size_t bytes) {
  put(file_, &op, 1);
  put(file_, &a, sizeof(a));
  put(file_, &b, sizeof(b));
  put(file_, data, bytes);
}

Capture readCapture(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) throw std::runtime_error("cannot read capture '" + path + "'");
  auto get = [&](void* p, size_t n) { return n == 0 || std::fread(p, 1, n, f) == n; };
  Capture c;
  char magic[8];
  uint64_t size = 0;
  if (!get(magic, sizeof(magic)) || std::string(magic, 8) != std::string(kMagic, 8) || !get(&size, sizeof(size))) {
    std::fclose(f);
    throw std::runtime_error("'" + path + "' is not a WEFT_APPROX_CAPTURE log");
  }
  c.configJson.resize(size);
  get(c.configJson.data(), size);
  for (;;) {
    CaptureRecord r;
    if (!get(&r.op, 1)) break;
    if (!get(&r.a, sizeof(r.a)) || !get(&r.b, sizeof(r.b))) throw std::runtime_error("'" + path + "': truncated");
    if (r.op == CaptureOp::kWriteDram) {
      r.data.resize(r.b);
      if (!get(r.data.data(), r.b)) throw std::runtime_error("'" + path + "': truncated");
    }
    c.records.push_back(std::move(r));
  }
  std::fclose(f);
  return c;
}

}  // namespace weft::sim::approx
