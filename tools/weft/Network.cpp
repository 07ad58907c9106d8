#include "Network.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <nlohmann/json.hpp>
#include <sstream>

#include "JsonFields.h"
#include "LayerFields.h"
#include "LayerRules.h"
#include "Splitmix.h"

#include <sys/mman.h>
#include "weft/common/files.h"

namespace weft::tool {

std::vector<uint8_t> drawWeights(uint64_t seed, size_t n, int32_t zeroPoint) {
  Splitmix64 rng(seed);
  std::vector<uint8_t> w(n);
  for (auto& v : w) {
    const uint64_t r = rng.next();
    const int64_t sum = static_cast<int64_t>(r & 0xFF) + ((r >> 8) & 0xFF) + ((r >> 16) & 0xFF) + ((r >> 24) & 0xFF);
    v = static_cast<uint8_t>(std::clamp<int64_t>(zeroPoint + ((sum - 510) >> 1), 0, 255));
  }
  return w;
}

std::vector<uint8_t> drawSignedWeights(uint64_t seed, size_t n, int32_t zeroPoint) {
  std::vector<uint8_t> w = drawWeights(seed, n, zeroPoint + 128);
  for (auto& v : w) v ^= 0x80;
  return w;
}

std::vector<int32_t> drawBias(uint64_t seed, size_t n, int64_t bound) {
  Splitmix64 rng(seed);
  std::vector<int32_t> b(n);
  for (auto& v : b) v = static_cast<int32_t>(static_cast<int64_t>((rng.next() >> 16) % (2 * bound + 1)) - bound);
  return b;
}

uint64_t tensorBytes(const Network& net) {
  auto elements = [](const std::vector<uint32_t>& shape) {
    uint64_t n = 1;
    for (uint32_t d : shape) n *= d;
    return n;
  };
  uint64_t bytes = elements(net.inputShape);
  for (const ExtraInput& in : net.extraInputs) bytes += elements(in.shape);
  for (const Layer& l : net.layers) {
    const uint64_t weights = l.weightShape.empty() ? 0 : elements(l.weightShape);
    // Bias: one int32 per output channel (the weights' first dimension; depthwise: the last).
    const uint64_t biasCount = l.weightShape.empty() ? 0
                               : l.op == LayerOp::kDepthwiseConv2d ? l.weightShape.back()
                                                                   : l.weightShape.front();
    bytes += weights + 4 * biasCount + elements(l.outputShape);
  }
  return bytes;
}

uint64_t Network::inputBytes(size_t i) const {
  uint64_t n = 1;
  for (uint32_t d : i == 0 ? inputShape : extraInputs.at(i - 1).shape) n *= d;
  return n;
}

const uint8_t* zeroPages(uint64_t bytes) {
  // One mapping, replaced by a larger one when a request exceeds it; the old ones stay mapped
  // (their callers may still point into them) and cost address space only.
  static std::mutex mutex;
  static const uint8_t* region = nullptr;
  static uint64_t regionBytes = 0;
  std::lock_guard<std::mutex> lock(mutex);
  if (bytes > regionBytes || region == nullptr) {
    const uint64_t size = std::max<uint64_t>(bytes, uint64_t{1} << 20);
    void* p = mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error(fmt::format("cannot map {} bytes of zero pages", size));
    region = static_cast<const uint8_t*>(p);
    regionBytes = size;
  }
  return region;
}

const uint8_t* bytesOrZeroPages(const std::vector<uint8_t>& data, uint64_t bytes) {
  return data.empty() && bytes > 0 ? zeroPages(bytes) : data.data();
}

std::vector<uint8_t> drawInput(uint64_t seed, size_t n) {
  Splitmix64 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& x : v) x = static_cast<uint8_t>(rng.next() & 0xFF);
  return v;
}

namespace {
// The position among the network's inputs of a source below 0.
size_t inputPosition(int source) { return static_cast<size_t>(kNetworkInput - source); }
}  // namespace

std::string Network::sourceName(int source) const {
  if (source >= 0) return layers.at(static_cast<size_t>(source)).name;
  const size_t i = inputPosition(source);
  if (i == 0) return "input";
  const std::string& name = extraInputs.at(i - 1).name;
  return name.empty() ? fmt::format("input{}", i) : name;
}

const std::vector<uint32_t>& Network::sourceShape(int source) const {
  if (source >= 0) return layers.at(static_cast<size_t>(source)).outputShape;
  const size_t i = inputPosition(source);
  return i == 0 ? inputShape : extraInputs.at(i - 1).shape;
}

const QuantParams& Network::sourceQuant(int source) const {
  if (source >= 0) return layers.at(static_cast<size_t>(source)).outputQuant;
  const size_t i = inputPosition(source);
  return i == 0 ? inputQuant : extraInputs.at(i - 1).quant;
}

namespace {

using namespace json_fields;

// The graph as written: each layer's name and the names it reads, before anything is resolved,
// and the network's inputs by name ("input", then format 3's extra inputs).
struct Names {
  std::vector<std::string> layer;
  std::vector<std::vector<std::string>> inputs;
  std::map<std::string, size_t> index;
  std::map<std::string, int> networkInputs;
};

std::string where(const Names& names, size_t i) { return fmt::format("layer {} ({})", i, names.layer[i]); }

Names readNames(const json& layers, int format, const std::string& path, const Network& net) {
  Names names;
  for (size_t i = 0; i < net.inputCount(); ++i) names.networkInputs.emplace(net.sourceName(networkInput(i)), networkInput(i));
  for (size_t i = 0; i < layers.size(); ++i) {
    const json& j = layers[i];
    names.layer.push_back(j.is_object() && j.contains("name") ? get<std::string>(j, "name", fmt::format("layer {}", i))
                                                              : fmt::format("layer {}", i));
    const std::string at = where(names, i);
    if (names.networkInputs.count(names.layer[i]) != 0) {
      throw NetworkError(fmt::format("{}: \"{}\" names a network input, not a layer", at, names.layer[i]));
    }
    if (const auto [it, fresh] = names.index.emplace(names.layer[i], i); !fresh) {
      throw NetworkError(fmt::format("{}: layer {} has the same name; names must be unique", at, it->second));
    }
    if (j.is_object() && j.contains("inputs")) {
      if (format < 2) throw NetworkError(fmt::format("{}: \"inputs\" needs format 2 ({} is format 1)", at, path));
      names.inputs.push_back(get<std::vector<std::string>>(j, "inputs", at));
    } else {
      names.inputs.push_back({i == 0 ? "input" : names.layer[i - 1]});  // a chain by default
    }
  }
  return names;
}

// A path of layers from `from` to `to` along what each reads, if there is one.
bool findPath(const Names& names, size_t from, size_t to, std::vector<size_t>& path, std::vector<bool>& seen) {
  path.push_back(from);
  if (from == to) return true;
  seen[from] = true;
  for (const std::string& input : names.inputs[from]) {
    const auto it = names.index.find(input);
    if (it != names.index.end() && !seen[it->second] && findPath(names, it->second, to, path, seen)) return true;
  }
  path.pop_back();
  return false;
}

// Layers are listed in execution order, so a layer reads "input" or a layer above it; anything
// else is an unknown name, a cycle, or a layer listed too early.
std::vector<int> resolveInputs(const Names& names, size_t i) {
  const std::string at = where(names, i);
  std::vector<int> sources;
  for (const std::string& input : names.inputs[i]) {
    if (const auto network = names.networkInputs.find(input); network != names.networkInputs.end()) {
      sources.push_back(network->second);
      continue;
    }
    const auto it = names.index.find(input);
    if (it == names.index.end()) {
      throw NetworkError(fmt::format("{}: \"inputs\" names '{}', which is neither a network input nor a layer", at,
                                     input));
    }
    if (it->second >= i) {
      std::vector<size_t> path;
      std::vector<bool> seen(names.layer.size(), false);
      if (findPath(names, it->second, i, path, seen)) {
        std::string cycle = names.layer[i];
        for (size_t p : path) cycle += " -> " + names.layer[p];
        throw NetworkError(fmt::format("{}: \"inputs\" makes a cycle ({}, each reading the next)", at, cycle));
      }
      throw NetworkError(fmt::format("{}: \"inputs\" names '{}', listed after it; list each layer after the "
                                     "layers it reads", at, input));
    }
    sources.push_back(static_cast<int>(it->second));
  }
  return sources;
}

Layer parseLayer(const json& j, const Network& net, const Names& names, size_t i, TensorValues values) {
  const std::string at = where(names, i);
  Layer l = parseLayerFields(j, net.isSigned, at);
  l.name = names.layer[i];
  l.inputs = resolveInputs(names, i);
  const InputCount count = inputCount(l.op);
  if (l.inputs.size() < count.min || l.inputs.size() > count.max) {
    const std::string wanted = count.min == count.max ? std::to_string(count.min)
                                                      : fmt::format("at least {}", count.min);
    throw NetworkError(fmt::format("{}: {} takes {} input(s), \"inputs\" names {}", at, nnapiName(l.op), wanted,
                                   l.inputs.size()));
  }
  std::vector<LayerInput> inputs;
  for (int s : l.inputs) inputs.push_back({net.sourceName(s), net.sourceShape(s), net.sourceQuant(s)});
  inferShapes(l, inputs, at);
  checkQuantization(l, inputs, net.isSigned, at);
  drawLayerData(l, j, net.isSigned, at, values);
  return l;
}

size_t product(const std::vector<uint32_t>& dims) {
  size_t n = 1;
  for (uint32_t d : dims) n *= d;
  return n;
}

// Format 3's "extraInputs": more network inputs, each named (layers' "inputs" read them by it),
// its values drawn from "seed" like the input's, or every element "fill" (a mask that hides
// nothing, a cache of zeros).
void readExtraInputs(const json& doc, int format, const std::string& path, Network& net, TensorValues values) {
  if (!doc.contains("extraInputs")) return;
  if (format < 3) throw NetworkError(fmt::format("{}: \"extraInputs\" needs format 3 (this is format {})", path, format));
  const json& list = doc["extraInputs"];
  if (!list.is_array()) throw NetworkError(path + ": \"extraInputs\" must be an array");
  std::set<std::string> seen = {"input"};
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string at = fmt::format("{} extraInputs[{}]", path, i);
    const json& e = list[i];
    if (!e.is_object()) throw NetworkError(at + ": must be an object");
    rejectUnknownFields(e, {"name", "shape", "type", "scale", "zeroPoint", "seed", "fill"}, at);
    ExtraInput in;
    in.name = get<std::string>(e, "name", at);
    if (in.name.empty() || !seen.insert(in.name).second) {
      throw NetworkError(fmt::format("{}: name \"{}\" is empty or names another input", at, in.name));
    }
    in.shape = dimensions(e, "shape", at);
    if (in.shape.empty()) throw NetworkError(at + ": empty shape");
    if (quant8Type(e, at) != net.isSigned) throw NetworkError(at + ": the type must be the input's");
    in.quant = quantParams(e, at, net.isSigned);
    if (e.contains("seed") == e.contains("fill")) throw NetworkError(at + ": give either \"seed\" or \"fill\"");
    if (e.contains("seed")) {
      const uint64_t seed = get<uint64_t>(e, "seed", at);
      if (values == TensorValues::kDrawn) in.data = drawInput(seed, product(in.shape));
    } else {  // a value of the type: the byte of an int8 when signed
      const int32_t lo = net.isSigned ? -128 : 0;
      in.data.assign(product(in.shape), static_cast<uint8_t>(integerIn(e, "fill", lo, lo + 255, at)));
    }
    net.extraInputs.push_back(std::move(in));
  }
}

}  // namespace

Network parseNetwork(const std::string& text, const std::string& path, TensorValues values) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {
    throw NetworkError(fmt::format("{}: not valid JSON: {}", path, e.what()));
  }
  // Format 2 added "inputs" (a graph instead of a chain), format 3 "extraInputs"; a format 1
  // file reads as before.
  const int format = get<int>(doc, "format", path);
  if (format < 1 || format > 3) throw NetworkError(fmt::format("{}: format {} is not 1, 2 or 3", path, format));
  Network net;
  net.name = get<std::string>(doc, "name", path);
  net.description = doc.value("description", "");
  const json& input = field(doc, "input", path);
  net.inputShape = dimensions(input, "shape", path + " input");
  // Every quant8 tensor of the network has the input's type (TENSOR_QUANT8_ASYMM_SIGNED: zero
  // points in [-128, 127], bytes read as int8, weights drawn by drawSignedWeights).
  net.isSigned = quant8Type(input, path + " input");
  if (net.inputShape.empty()) throw NetworkError(path + ": empty input shape");
  net.inputQuant = quantParams(input, path + " input", net.isSigned);
  const uint64_t inputSeed = get<uint64_t>(input, "seed", path + " input");
  if (values == TensorValues::kDrawn) net.input = drawInput(inputSeed, product(net.inputShape));
  const json& layers = field(doc, "layers", path);
  if (!layers.is_array() || layers.empty()) throw NetworkError(path + ": \"layers\" must be a non-empty array");
  readExtraInputs(doc, format, path, net, values);
  const Names names = readNames(layers, format, path, net);
  for (size_t i = 0; i < layers.size(); ++i) net.layers.push_back(parseLayer(layers[i], net, names, i, values));
  return net;
}

Network loadNetwork(const std::string& path, TensorValues values) {
  const auto text = common::readFile(path);
  if (!text) throw NetworkError(fmt::format("cannot read network description '{}'", path));
  return parseNetwork(*text, path, values);
}

}  // namespace weft::tool
