#include "Importer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <onnx/version_converter/convert.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <unordered_map>

#include "Folding.h"
#include "Fusion.h"
#include "QuantizedGraph.h"
#include "ops/Einsum.h"
#include "ImportError.h"

namespace weft::onnx {
namespace {

namespace fs = std::filesystem;

// How many rounds of shape inference and folding at most: each round folds at least one node,
// and exporters' shape chains are a few nodes deep.
constexpr int kMaxFoldRounds = 64;
// Constants up to this size stay in the proto for shape inference's data propagation; larger
// ones (weights) are stood in for by a typed graph input.
constexpr size_t kSmallConstantBytes = 4096;

class Importer final : public Lowering {
 public:
  Importer(::onnx::ModelProto model, const ImportOptions& options, std::string origin)
      : proto_(std::move(model)), options_(options), origin_(std::move(origin)) {}

  ImportedModel run();

  // Lowering.
  bool isConstant(const std::string& value) const override { return constants_.count(value) != 0; }
  const HostTensor& constant(const std::string& value) const override {
    auto it = constants_.find(value);
    if (it == constants_.end()) throw ImportError(fmt::format("{}: '{}' is not a constant", origin_, value));
    return it->second;
  }
  const ValueInfo& info(const std::string& value) const override {
    auto it = infos_.find(value);
    if (it == infos_.end()) {
      throw ImportError(fmt::format("{}: {}: the type and static shape of '{}' are unknown (shape inference could not "
                                    "find them; give the inputs' shapes with --shape)",
                                    origin_, current_ ? current_->label() : std::string("graph"), value));
    }
    return it->second;
  }
  uint32_t operand(const std::string& value) override;
  uint32_t constantOperand(const HostTensor& tensor, const std::string& name) override {
    return constantOperand(HostTensor(tensor), name);
  }
  uint32_t constantOperand(HostTensor&& tensor, const std::string& name) override;
  uint32_t output(const Node& node, size_t i) override;
  uint32_t temporary(nn::OperandType type, const Shape& shape, const std::string& name) override {
    return builder_.addTensor(type, nnDims(shape), name);
  }
  void alias(const std::string& value, uint32_t operand) override { operands_[value] = operand; }
  NnapiBuilder& nn() override { return builder_; }
  bool weftExtensions() const override { return options_.weftExtensions; }
  void defineValue(const std::string& value, const ValueInfo& info, uint32_t operand) override {
    infos_[value] = info;
    operands_[value] = operand;
  }
  void defineConstant(const std::string& value, HostTensor tensor) override {
    infos_[value] = ValueInfo{tensor.type, tensor.shape};
    constants_[value] = std::move(tensor);
  }
  void defineInfo(const std::string& value, const ValueInfo& info) override { infos_[value] = info; }
  int32_t fusedActivation(const Node& node) const override {
    auto it = quantized_.fusedActivation.find(node.index());
    return it == quantized_.fusedActivation.end() ? 0 : it->second;
  }
  void add(nn::OperationType type, std::vector<uint32_t> inputs, std::vector<uint32_t> outputs) override {
    const size_t index = builder_.addOperation(type, std::move(inputs), std::move(outputs));
    if (record_ != nullptr) record_->operations.push_back(index);
  }

 private:
  void checkOpsets();
  void checkGemmsBeforeConversion();
  void alignLegacyPReluSlopes();
  void alignLegacyBroadcasts();
  void appendUnitDims(::onnx::TensorProto& t, int rank);
  void checkWindows();
  void takeInitializers();
  void addStandIn(const std::string& name, DType type, const Shape& shape);
  void addFoldedToProto(const std::string& name, const HostTensor& t);
  void bindInputs();
  void inferAndFold();
  size_t inferEinsumShapes();
  void foldBatchNorms();
  void fuseTransformerLayers();
  void multiplyByTransposedOperands();
  void planQuantizedNodes();
  void addInputs();
  void collectInfos();
  void lowerNodes();
  bool lowerChannelShuffle(size_t i, const std::map<std::string, std::vector<size_t>>& readers);
  void defineOutputs();
  void dropDeadOperations();
  double quantumOf(const std::string& value) const;
  std::string where() const { return origin_; }

  ::onnx::ModelProto proto_;
  ImportOptions options_;
  std::string origin_;
  ImportedModel result_;
  int64_t opset_ = 0;
  std::map<std::string, HostTensor> constants_;
  std::map<std::string, ValueInfo> infos_;
  std::map<std::string, uint32_t> operands_;
  std::vector<std::string> graphInputs_;
  std::vector<::onnx::NodeProto> nodes_;  // the graph's nodes as the model gives them
  std::vector<bool> folded_;
  NnapiBuilder builder_;
  const Node* current_ = nullptr;
  NodeRecord* record_ = nullptr;
  QuantizedPlan quantized_;
};

ValueInfo infoFromType(const ::onnx::TypeProto& type, bool& complete) {
  ValueInfo v;
  complete = false;
  if (!type.has_tensor_type()) return v;
  v.type = static_cast<DType>(type.tensor_type().elem_type());
  if (!type.tensor_type().has_shape()) return v;
  complete = true;
  for (const auto& d : type.tensor_type().shape().dim()) {
    if (d.has_dim_value() && d.dim_value() >= 0) {
      v.shape.push_back(d.dim_value());
    } else {
      complete = false;
      v.shape.push_back(-1);
    }
  }
  return v;
}

// Window attributes that must be positive (a stride or kernel of 0 divides by zero in ONNX's own
// shape inference): refused, naming the node, before any pass reads them.
void Importer::checkWindows() {
  static const std::set<std::string> kPositive = {"strides", "dilations", "kernel_shape", "blocksize", "group", "size"};
  const auto& graph = proto_.graph();
  // Every output must be something the graph has (libonnx's passes dereference it).
  std::set<std::string> defined;
  for (const auto& v : graph.input()) defined.insert(v.name());
  for (const auto& t : graph.initializer()) defined.insert(t.name());
  for (const auto& n : graph.node()) defined.insert(n.output().begin(), n.output().end());
  for (const auto& out : graph.output()) {
    if (defined.count(out.name()) == 0) {
      throw ImportError(fmt::format("{}: output '{}' is neither an input, an initializer nor any node's output",
                                    where(), out.name()));
    }
  }
  for (int i = 0; i < graph.node_size(); ++i) {
    for (const auto& a : graph.node(i).attribute()) {
      if (kPositive.count(a.name()) == 0) continue;
      bool bad = a.type() == ::onnx::AttributeProto::INT && a.i() <= 0;
      for (int64_t v : a.ints()) bad |= v <= 0;
      if (bad) {
        const Node node(graph.node(i), i, 0);
        throw ImportError(fmt::format("{}: {}: attribute '{}' must be positive", where(), node.label(), a.name()));
      }
    }
  }
  // An Einsum equation of anything but letters, commas, spaces, one "->" and "...", or with an
  // implicit output and capital letters, on which libonnx 1.12's Einsum rank inference crashes
  // (below): refused by name before it runs.
  for (int i = 0; i < graph.node_size(); ++i) {
    const auto& n = graph.node(i);
    if (n.op_type() != "Einsum") continue;
    for (const auto& a : n.attribute()) {
      if (a.name() != "equation") continue;
      const std::string& e = a.s();
      bool bad = false;
      int arrows = 0;
      for (size_t k = 0; k < e.size() && !bad;) {
        const char c = e[k];
        if (e.compare(k, 3, "...") == 0) {
          k += 3;
        } else if (e.compare(k, 2, "->") == 0) {
          bad = ++arrows > 1;
          k += 2;
        } else {
          bad = !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == ',' || c == ' ');
          ++k;
        }
      }
      if (bad) {
        const Node node(n, i, 0);
        throw ImportError(fmt::format("{}: {}: equation '{}' is not letters, commas, '...' and one '->'", where(),
                                      node.label(), e));
      }
      // An implicit output (no '->') with capital letters: libonnx 1.12 indexes its letter
      // counts by c - 'a' and frees a stack address (onnx_fuzzer's '...iJ'; python3-onnx's own
      // infer_shapes segfaults on it too).
      if (arrows == 0 && std::any_of(e.begin(), e.end(), [](char c) { return c >= 'A' && c <= 'Z'; })) {
        const Node node(n, i, 0);
        throw ImportError(fmt::format("{}: {}: equation '{}' leaves the output implicit and has capital letters (write "
                                      "the output after '->')",
                                      where(), node.label(), e));
      }
    }
  }
  // A convolution's input and weights of different ranks, as the graph declares them
  // (libonnx 1.12's QLinearConv inference reads past the end of the shorter).
  std::map<std::string, int> declaredRank;
  for (const auto& v : graph.input()) {
    if (v.type().tensor_type().has_shape()) declaredRank[v.name()] = v.type().tensor_type().shape().dim_size();
  }
  for (const auto& t : graph.initializer()) declaredRank[t.name()] = t.dims_size();
  static const std::map<std::string, int> kWeightsInput = {{"Conv", 1}, {"ConvInteger", 1}, {"ConvTranspose", 1},
                                                           {"QLinearConv", 3}};
  for (int i = 0; i < graph.node_size(); ++i) {
    const auto& n = graph.node(i);
    auto w = kWeightsInput.find(n.op_type());
    if (w == kWeightsInput.end() || n.input_size() <= w->second) continue;
    auto x = declaredRank.find(n.input(0)), k = declaredRank.find(n.input(w->second));
    if (x != declaredRank.end() && k != declaredRank.end() && x->second != k->second) {
      const Node node(n, i, 0);
      throw ImportError(fmt::format("{}: {}: its input has rank {} and its weights rank {}", where(), node.label(),
                                    x->second, k->second));
    }
  }
}

// ONNX 1.12's opset-6 Gemm shape inference and its Gemm 6->7 adapter both index the operands'
// sizes as matrices without looking at their rank (a rank-1 operand reads past the end: the
// fuzzer's string allocated from a pointer). So before anything infers or converts an old model,
// each Gemm's A and B must be known matrices: declared, or inferred over the nodes before it
// (whose Gemms this loop has already checked).
void Importer::checkGemmsBeforeConversion() {
  const auto& graph = proto_.graph();
  for (int i = 0; i < graph.node_size(); ++i) {
    const auto& n = graph.node(i);
    if (n.op_type() != "Gemm") continue;
    ::onnx::ModelProto prefix;
    prefix.set_ir_version(proto_.ir_version());
    *prefix.mutable_opset_import() = proto_.opset_import();
    auto* g = prefix.mutable_graph();
    *g->mutable_input() = graph.input();
    *g->mutable_value_info() = graph.value_info();
    for (int k = 0; k < i; ++k) *g->add_node() = graph.node(k);
    std::map<std::string, int> rank;
    for (const auto& t : graph.initializer()) {
      rank[t.name()] = t.dims_size();
      // Small ones (shapes that Reshape-5 reads) with their data; the weights by rank only.
      if (t.ByteSizeLong() <= kSmallConstantBytes) *g->add_initializer() = t;
    }
    try {
      ::onnx::ShapeInferenceOptions lenient(/*check_type=*/false, /*error_mode=*/0, /*data_propagation=*/false);
      ::onnx::shape_inference::InferShapes(prefix, ::onnx::OpSchemaRegistry::Instance(), lenient);
    } catch (const std::exception&) {
      // What a lenient inference cannot take stays unknown, and the check below names it.
    }
    const auto declare = [&](const ::onnx::ValueInfoProto& v) {
      if (v.type().tensor_type().has_shape()) rank[v.name()] = v.type().tensor_type().shape().dim_size();
    };
    for (const auto& v : g->input()) declare(v);
    for (const auto& v : g->value_info()) declare(v);
    for (int k = 0; k < std::min(n.input_size(), 2); ++k) {
      auto r = rank.find(n.input(k));
      if (r == rank.end() || r->second != 2) {
        const Node node(n, i, opset_);
        throw ImportError(fmt::format("{}: {}: operand '{}' must be a matrix of known shape to convert this opset-{} "
                                      "model to opset {} (its rank is {})",
                                      where(), node.label(), n.input(k), opset_, kMinOpset,
                                      r == rank.end() ? std::string("unknown") : std::to_string(r->second)));
      }
    }
  }
}

// An initializer given trailing dimensions of 1 up to `rank`, in the graph's input list too
// (IR < 4 lists initializers as inputs): the same values, broadcast from further left.
void Importer::appendUnitDims(::onnx::TensorProto& t, int rank) {
  for (int k = t.dims_size(); k < rank; ++k) t.add_dims(1);
  for (auto& v : *proto_.mutable_graph()->mutable_input()) {
    if (v.name() != t.name() || !v.type().tensor_type().has_shape()) continue;
    auto* shape = v.mutable_type()->mutable_tensor_type()->mutable_shape();
    for (int k = shape->dim_size(); k < rank; ++k) shape->add_dim()->set_dim_value(1);
  }
}

// PRelu before opset 7 took a slope of the channel count ([C]) along axis 1 of an image (what
// PyTorch's nn.PReLU(C) exported at opset 6, and what ONNX's own test data for it expects); from
// opset 7 on the slope broadcasts from the last axis, and ONNX's converter leaves it as it was. A
// constant slope of C values beside an input of rank > 2 whose axis 1 is C is given the shape
// [C, 1, ...] that means the same at opset 7.
void Importer::alignLegacyPReluSlopes() {
  auto* graph = proto_.mutable_graph();
  std::map<std::string, const ::onnx::TensorShapeProto*> shapes;
  for (const auto& v : graph->input()) shapes[v.name()] = &v.type().tensor_type().shape();
  for (const auto& v : graph->value_info()) shapes[v.name()] = &v.type().tensor_type().shape();
  for (int i = 0; i < graph->node_size(); ++i) {
    const auto& n = graph->node(i);
    if (n.op_type() != "PRelu" || n.input_size() < 2) continue;
    const auto x = shapes.find(n.input(0));
    if (x == shapes.end() || x->second->dim_size() <= 2 || !x->second->dim(1).has_dim_value()) continue;
    const int64_t channels = x->second->dim(1).dim_value();
    for (auto& t : *graph->mutable_initializer()) {
      if (t.name() != n.input(1) || t.dims_size() != 1 || t.dims(0) != channels || channels <= 1) continue;
      appendUnitDims(t, x->second->dim_size() - 1);
      result_.notes.push_back(fmt::format("PRelu '{}': its opset-{} slope of {} channels laid along axis 1",
                                          n.name().empty() ? n.output(0) : n.name(), opset_, channels));
    }
  }
}

// Add, Sub, Mul, Div and Pow before opset 7 broadcast B (`broadcast` = 1) from A's axis `axis`:
// B of shape [3] beside A of [N, 3, H, W] with axis 1 is a value a channel (old PyTorch and Caffe2
// exports of a bias). ONNX's converter (onnx 1.12, BroadcastForwardCompatibility) unsqueezes B
// to A's rank whatever the axis, [3, 1, 1, 1] there, which broadcasts along the batch, and the
// model is then refused by its own shape inference. Given trailing dimensions of 1 up to rank(A) -
// axis first ([3, 1, 1]; an initializer reshaped, another operand through an Unsqueeze), B means
// the same at opset 7 and the converter leaves it as it is.
void Importer::alignLegacyBroadcasts() {
  auto* graph = proto_.mutable_graph();
  std::map<std::string, int> ranks;
  std::map<std::string, int32_t> types;
  const auto know = [&](const ::onnx::ValueInfoProto& v) {
    if (v.type().tensor_type().has_shape()) ranks[v.name()] = v.type().tensor_type().shape().dim_size();
    types[v.name()] = v.type().tensor_type().elem_type();
  };
  for (const auto& v : graph->input()) know(v);
  for (const auto& v : graph->value_info()) know(v);
  for (const auto& v : graph->output()) know(v);
  std::map<std::string, ::onnx::TensorProto*> initializers;
  for (auto& t : *graph->mutable_initializer()) {
    initializers[t.name()] = &t;
    ranks[t.name()] = t.dims_size();
    types[t.name()] = t.data_type();
  }
  static const std::set<std::string> kLegacyBroadcast = {"Add", "Sub", "Mul", "Div", "Pow"};
  for (int i = 0; i < graph->node_size(); ++i) {
    const ::onnx::NodeProto& n = graph->node(i);
    if (kLegacyBroadcast.count(n.op_type()) == 0 || n.input_size() != 2) continue;
    int64_t broadcast = 0, axis = -1;
    bool hasAxis = false;
    for (const auto& a : n.attribute()) {
      if (a.name() == "broadcast") broadcast = a.i();
      if (a.name() == "axis") axis = a.i(), hasAxis = true;
    }
    const auto a = ranks.find(n.input(0)), b = ranks.find(n.input(1));
    if (broadcast != 1 || !hasAxis || a == ranks.end() || b == ranks.end()) continue;
    const int rankA = a->second, rankB = b->second;
    // The converter's own case (B's last axis on A's last), and axes no B fits, stay its to judge.
    if (axis == rankA - rankB || axis < 0 || axis + rankB > rankA) continue;
    const int rank = static_cast<int>(rankA - axis);
    // The node moves one place down when an Unsqueeze goes before it: what the note needs, copied.
    const std::string label = n.name().empty() ? n.output(0) : n.name(), op = n.op_type(), operandB = n.input(1);
    const auto init = initializers.find(operandB);
    if (init != initializers.end()) {
      appendUnitDims(*init->second, rank);
    } else {
      // B computed or given: an Unsqueeze (opset 1, axes as an attribute) before the node.
      const std::string unsqueezed = operandB + "_along_axis_" + std::to_string(axis) + "_of_" + label;
      ::onnx::NodeProto u;
      u.set_op_type("Unsqueeze");
      u.set_name(unsqueezed);
      u.add_input(operandB);
      u.add_output(unsqueezed);
      auto* axes = u.add_attribute();
      axes->set_name("axes");
      axes->set_type(::onnx::AttributeProto::INTS);
      for (int k = rankB; k < rank; ++k) axes->add_ints(k);
      // The converter reads the sizes of what it adapts: the new value's type and rank.
      auto* info = graph->add_value_info();
      info->set_name(unsqueezed);
      info->mutable_type()->mutable_tensor_type()->set_elem_type(types.count(operandB) ? types[operandB] : 0);
      auto* shape = info->mutable_type()->mutable_tensor_type()->mutable_shape();
      const ::onnx::TensorShapeProto* known = nullptr;
      for (const auto& v : graph->value_info()) {
        if (v.name() == operandB && v.type().tensor_type().has_shape()) known = &v.type().tensor_type().shape();
      }
      for (const auto& v : graph->input()) {
        if (v.name() == operandB && v.type().tensor_type().has_shape()) known = &v.type().tensor_type().shape();
      }
      for (int k = 0; k < rankB; ++k) {
        auto* d = shape->add_dim();
        if (known != nullptr && known->dim(k).has_dim_value()) d->set_dim_value(known->dim(k).dim_value());
      }
      for (int k = rankB; k < rank; ++k) shape->add_dim()->set_dim_value(1);
      graph->mutable_node(i)->set_input(1, unsqueezed);
      *graph->add_node() = std::move(u);
      for (int k = graph->node_size() - 1; k > i; --k) graph->mutable_node()->SwapElements(k, k - 1);
      ranks[unsqueezed] = rank;
      ++i;  // the node itself is at i + 1 now
    }
    result_.notes.push_back(fmt::format("{} '{}': its opset-{} operand '{}' broadcast from axis {} laid out as rank {}",
                                        op, label, opset_, operandB, axis, rank));
  }
}

void Importer::checkOpsets() {
  bool found = false;
  for (const auto& o : proto_.opset_import()) {
    if (o.domain().empty() || o.domain() == "ai.onnx") {
      opset_ = o.version();
      found = true;
    }
  }
  if (!found && proto_.opset_import_size() == 0 && proto_.ir_version() <= 2) {
    opset_ = 1;  // IR version 1 and 2 models have no opset_import: opset 1
    found = true;
  }
  if (!found) throw ImportError(fmt::format("{}: the model imports no opset of the default ONNX domain", where()));
  if (opset_ < kMinOpset && opset_ >= 1) {
    checkGemmsBeforeConversion();
    // The converter's adapters read the sizes of intermediate values, which it does not infer.
    try {
      ::onnx::ShapeInferenceOptions lenient(/*check_type=*/false, /*error_mode=*/0, /*data_propagation=*/false);
      ::onnx::shape_inference::InferShapes(proto_, ::onnx::OpSchemaRegistry::Instance(), lenient);
    } catch (const std::exception&) {
      // Sizes inference cannot find stay unknown; an adapter that needs them says so below.
    }
    if (opset_ < 7) {
      alignLegacyPReluSlopes();
      alignLegacyBroadcasts();
    }
    // Older models (PyTorch's early exporters wrote opset 6) are upgraded by ONNX's own version
    // converter, as `onnx.version_converter.convert_version(model, 7)` would.
    try {
      proto_ = ::onnx::version_conversion::ConvertVersion(proto_, static_cast<int>(kMinOpset));
      result_.notes.push_back(fmt::format("opset {} converted to opset {} by ONNX's version converter", opset_, kMinOpset));
      opset_ = kMinOpset;
    } catch (const std::exception& e) {
      throw ImportError(fmt::format("{}: opset {} of the default domain, which ONNX's version converter cannot take to "
                                    "opset {}: {}",
                                    where(), opset_, kMinOpset, e.what()));
    }
  }
  if (opset_ < kMinOpset || opset_ > kMaxOpset) {
    throw ImportError(fmt::format("{}: opset {} of the default domain; weft imports opsets {} to {} (convert the model "
                                  "with onnx.version_converter)",
                                  where(), opset_, kMinOpset, kMaxOpset));
  }
  result_.opset = opset_;
  const auto& graph = proto_.graph();
  for (int i = 0; i < graph.node_size(); ++i) {
    const auto& n = graph.node(i);
    if (!n.domain().empty() && n.domain() != "ai.onnx") {
      const Node node(n, i, opset_);
      throw ImportError(fmt::format("{}: {}: operator of domain '{}', which weft does not import (only the default "
                                    "ONNX domain)",
                                    where(), node.label(), n.domain()));
    }
  }
}

void Importer::takeInitializers() {
  auto* graph = proto_.mutable_graph();
  google::protobuf::RepeatedPtrField<::onnx::TensorProto> kept;
  std::set<std::string> listed;
  for (const auto& in : graph->input()) listed.insert(in.name());
  for (auto& init : *graph->mutable_initializer()) {
    HostTensor t = fromProto(init, where());
    const std::string name = init.name();
    infos_[name] = ValueInfo{t.type, t.shape};
    // Shape inference needs a large initializer's type and shape only: its data leaves the proto
    // (the weights are held once) and a graph input of that type stands in for it.
    if (t.bytes.size() <= kSmallConstantBytes) {
      kept.Add()->CopyFrom(init);
    } else if (listed.count(name) == 0) {
      addStandIn(name, t.type, t.shape);
    }
    constants_[name] = std::move(t);
  }
  graph->mutable_initializer()->Swap(&kept);
}

void Importer::addStandIn(const std::string& name, DType type, const Shape& shape) {
  auto* input = proto_.mutable_graph()->add_input();
  input->set_name(name);
  auto* tt = input->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(static_cast<int32_t>(type));
  auto* s = tt->mutable_shape();
  for (int64_t d : shape) s->add_dim()->set_dim_value(d);
}

void Importer::addFoldedToProto(const std::string& name, const HostTensor& t) {
  if (t.bytes.size() > kSmallConstantBytes) {
    addStandIn(name, t.type, t.shape);
    return;
  }
  auto* init = proto_.mutable_graph()->add_initializer();
  init->set_name(name);
  init->set_data_type(static_cast<int32_t>(t.type));
  for (int64_t d : t.shape) init->add_dims(d);
  init->set_raw_data(std::string(t.bytes.begin(), t.bytes.end()));
}

void Importer::bindInputs() {
  auto* graph = proto_.mutable_graph();
  std::set<std::string> names;  // inputs and symbolic dimensions --shape may name
  for (const auto& input : graph->input()) {
    names.insert(input.name());
    for (int d = 0; input.type().has_tensor_type() && d < input.type().tensor_type().shape().dim_size(); ++d) {
      names.insert(input.type().tensor_type().shape().dim(d).dim_param());
    }
  }
  for (const auto& [key, value] : options_.shapes) {
    if (names.count(key) == 0 || constants_.count(key) != 0) {
      throw ImportError(fmt::format("{}: --shape {}: the model has no input and no symbolic dimension of that name",
                                    where(), key));
    }
  }
  for (auto& input : *graph->mutable_input()) {
    const std::string& name = input.name();
    if (constants_.count(name) != 0) continue;
    if (!input.type().has_tensor_type()) {
      throw ImportError(fmt::format("{}: input '{}' is not a tensor (sequences, maps and optionals are not imported)",
                                    where(), name));
    }
    auto* tt = input.mutable_type()->mutable_tensor_type();
    const auto type = static_cast<DType>(tt->elem_type());
    Shape shape;
    if (auto it = options_.shapes.find(name); it != options_.shapes.end()) {
      shape = it->second;
      if (tt->has_shape() && tt->shape().dim_size() != static_cast<int>(shape.size())) {
        throw ImportError(fmt::format("{}: --shape {}={} has rank {}, the input has rank {}", where(), name,
                                      shapeString(shape), shape.size(), tt->shape().dim_size()));
      }
      for (int d = 0; tt->has_shape() && d < tt->shape().dim_size(); ++d) {
        const auto& dim = tt->shape().dim(d);
        if (dim.has_dim_value() && dim.dim_value() != shape[d]) {
          throw ImportError(fmt::format("{}: --shape {}={} sets dimension {} to {}, which the model fixes at {}",
                                        where(), name, shapeString(shape), d, shape[d], dim.dim_value()));
        }
      }
    } else {
      if (!tt->has_shape()) {
        throw ImportError(fmt::format("{}: input '{}' has no shape, not even its rank: give it with --shape {}=DxDx...",
                                      where(), name, name));
      }
      for (int d = 0; d < tt->shape().dim_size(); ++d) {
        const auto& dim = tt->shape().dim(d);
        if (dim.has_dim_value() && dim.dim_value() > 0) {
          shape.push_back(dim.dim_value());
          continue;
        }
        const std::string symbol = dim.has_dim_param() ? dim.dim_param() : std::string();
        if (auto it = options_.shapes.find(symbol); !symbol.empty() && it != options_.shapes.end()) {
          if (it->second.size() != 1) {
            throw ImportError(fmt::format("{}: --shape {}= binds a dimension: give one number", where(), symbol));
          }
          shape.push_back(it->second[0]);
          continue;
        }
        shape.push_back(1);
        result_.notes.push_back(fmt::format(
            "input '{}': dimension {}{} is not fixed; it is bound to 1 (--shape {}=... or --shape <dimension>=N binds it)",
            name, d, symbol.empty() ? std::string() : " ('" + symbol + "')", name));
      }
    }
    auto* s = tt->mutable_shape();
    s->clear_dim();
    for (int64_t d : shape) {
      if (d <= 0) throw ImportError(fmt::format("{}: input '{}' would have dimension {}", where(), name, d));
      s->add_dim()->set_dim_value(d);
    }
    graphInputs_.push_back(name);
    infos_[name] = ValueInfo{type, shape};
  }
}

void Importer::collectInfos() {
  auto take = [&](const ::onnx::ValueInfoProto& v) {
    if (constants_.count(v.name()) != 0) return;
    bool complete = false;
    ValueInfo info = infoFromType(v.type(), complete);
    if (complete && info.type != DType::kUndefined) infos_[v.name()] = info;
  };
  const auto& graph = proto_.graph();
  for (const auto& v : graph.input()) take(v);
  for (const auto& v : graph.value_info()) take(v);
  for (const auto& v : graph.output()) take(v);
}

void Importer::inferAndFold() {
  nodes_.assign(proto_.graph().node().begin(), proto_.graph().node().end());
  folded_.assign(nodes_.size(), false);
  for (int round = 0; round < kMaxFoldRounds; ++round) {
    try {
      // Strict on the model as given (a node whose inputs contradict its operator is an error, not a
      // shape the converters would trust); lenient on the later rounds, whose graphs folding made.
      ::onnx::ShapeInferenceOptions inference(/*check_type=*/false, /*error_mode=*/round == 0 ? 1 : 0,
                                              /*data_propagation=*/true);
      ::onnx::shape_inference::InferShapes(proto_, ::onnx::OpSchemaRegistry::Instance(), inference);
    } catch (const std::exception& e) {
      throw ImportError(fmt::format("{}: ONNX shape inference refuses the model: {}", where(), e.what()));
    }
    collectInfos();
    size_t foldedNow = 0;
    for (size_t i = 0; i < nodes_.size(); ++i) {
      if (folded_[i]) continue;
      const Node node(nodes_[i], static_cast<int>(i), opset_);
      std::vector<FoldInput> inputs(node.inputCount());
      for (size_t k = 0; k < node.inputCount(); ++k) {
        const std::string in = node.input(k);
        if (in.empty()) continue;
        if (auto c = constants_.find(in); c != constants_.end()) inputs[k].value = &c->second;
        if (auto v = infos_.find(in); v != infos_.end()) {
          inputs[k].type = v->second.type;
          inputs[k].shape = v->second.shape;
        }
      }
      current_ = &node;
      auto outputs = foldNode(node, inputs, std::min<int64_t>(options_.maxElements, int64_t{1} << 24));
      current_ = nullptr;
      if (!outputs) continue;
      if (outputs->size() < node.outputCount()) continue;  // e.g. optional outputs it does not compute
      for (size_t k = 0; k < node.outputCount(); ++k) {
        const std::string out = node.output(k);
        if (out.empty()) continue;
        infos_[out] = ValueInfo{(*outputs)[k].type, (*outputs)[k].shape};
        addFoldedToProto(out, (*outputs)[k]);
        constants_[out] = std::move((*outputs)[k]);
      }
      folded_[i] = true;
      ++foldedNow;
    }
    if (foldedNow == 0 && inferEinsumShapes() == 0) break;
    // The next round infers shapes over what is left, the folded values now initializers.
    auto* nodes = proto_.mutable_graph()->mutable_node();
    nodes->Clear();
    for (size_t i = 0; i < nodes_.size(); ++i) {
      if (!folded_[i]) nodes->Add()->CopyFrom(nodes_[i]);
    }
    // Values whose shape the last round left symbolic are inferred afresh: ONNX's inference keeps an
    // existing symbolic dimension rather than the size the folded values now give (torchvision's
    // VisionTransformer: the class token, expanded by a folded shape, concatenated to the patches).
    auto* infos = proto_.mutable_graph()->mutable_value_info();
    infos->erase(std::remove_if(infos->begin(), infos->end(), [](const ::onnx::ValueInfoProto& v) {
                   const auto& dims = v.type().tensor_type().shape().dim();
                   return std::any_of(dims.begin(), dims.end(), [](const auto& d) { return !d.has_dim_value(); });
                 }),
                 infos->end());
  }
}

// ONNX 1.12 infers an Einsum's output rank, not its sizes: they come from the equation, written
// into the proto for the next round to infer the nodes after it. Returns how many it found.
size_t Importer::inferEinsumShapes() {
  size_t found = 0;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (folded_[i] || nodes_[i].op_type() != "Einsum" || !nodes_[i].domain().empty()) continue;
    const Node node(nodes_[i], static_cast<int>(i), opset_);
    if (node.outputCount() != 1 || infos_.count(node.output(0)) != 0) continue;
    std::vector<Shape> shapes;
    for (size_t k = 0; k < node.inputCount(); ++k) {
      auto it = infos_.find(node.input(k));
      if (it == infos_.end()) break;
      shapes.push_back(it->second.shape);
    }
    if (shapes.size() != node.inputCount() || shapes.empty()) continue;
    current_ = &node;
    const Shape shape = ops::einsumOutputShape(node, shapes);
    current_ = nullptr;
    const DType type = infos_.at(node.input(0)).type;
    infos_[node.output(0)] = ValueInfo{type, shape};
    auto* v = proto_.mutable_graph()->add_value_info();
    v->set_name(node.output(0));
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(static_cast<int32_t>(type));
    for (const int64_t d : shape) t->mutable_shape()->add_dim()->set_dim_value(d);
    ++found;
  }
  return found;
}

// A BatchNormalization whose input is a convolution's output that nothing else reads, all its
// parameters and the convolution's weights constant, folds into the convolution: its weights
// and bias are scaled per output channel, as exporters and ONNX Runtime do. The convolution then
// writes the batch norm's output, and the batch norm becomes a folded node.
void Importer::foldBatchNorms() {
  std::map<std::string, int> readers;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (folded_[i]) continue;
    for (const auto& in : nodes_[i].input()) ++readers[in];
  }
  for (const auto& out : proto_.graph().output()) ++readers[out.name()];
  std::map<std::string, size_t> producer;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (folded_[i]) continue;
    for (const auto& out : nodes_[i].output()) producer[out] = i;
  }
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const Node bn(nodes_[i], static_cast<int>(i), opset_);
    if (folded_[i] || bn.op() != "BatchNormalization" || bn.outputCount() > 1 || bn.inputCount() < 5) continue;
    if (bn.attrInt("training_mode", 0) != 0) continue;
    auto p = producer.find(bn.input(0));
    if (p == producer.end() || readers[bn.input(0)] != 1) continue;
    ::onnx::NodeProto& convProto = nodes_[p->second];
    const Node conv(convProto, static_cast<int>(p->second), opset_);
    if (conv.op() != "Conv" || !isConstant(conv.input(1)) || (conv.hasInput(2) && !isConstant(conv.input(2)))) continue;
    bool allConstant = true;
    for (size_t k = 1; k < 5; ++k) allConstant &= isConstant(bn.input(k));
    if (!allConstant) continue;
    const HostTensor& w = constant(conv.input(1));
    if (!isFloat(w.type) || w.shape.empty()) continue;
    const int64_t outC = w.shape[0];
    const HostTensor &scale = constant(bn.input(1)), &shift = constant(bn.input(2)), &mean = constant(bn.input(3)),
                     &var = constant(bn.input(4));
    if (scale.size() != outC || shift.size() != outC || mean.size() != outC || var.size() != outC) continue;
    const double eps = bn.attrFloat("epsilon", 1e-5f);
    HostTensor folded = w;
    HostTensor bias(w.type, {outC});
    const int64_t per = w.size() / outC;
    for (int64_t c = 0; c < outC; ++c) {
      const double a = scale.asDouble(c) / std::sqrt(var.asDouble(c) + eps);
      for (int64_t k = 0; k < per; ++k) folded.setDouble(c * per + k, w.asDouble(c * per + k) * a);
      const double b0 = conv.hasInput(2) ? constant(conv.input(2)).asDouble(c) : 0.0;
      bias.setDouble(c, (b0 - mean.asDouble(c)) * a + shift.asDouble(c));
    }
    const std::string wName = conv.output(0) + "_bn_folded_W", bName = conv.output(0) + "_bn_folded_B";
    infos_[wName] = ValueInfo{folded.type, folded.shape};
    infos_[bName] = ValueInfo{bias.type, bias.shape};
    constants_[wName] = std::move(folded);
    constants_[bName] = std::move(bias);
    convProto.set_input(1, wName);
    if (convProto.input_size() > 2) {
      convProto.set_input(2, bName);
    } else {
      convProto.add_input(bName);
    }
    convProto.set_output(0, bn.output(0));
    folded_[i] = true;
  }
}

// Attention's q @ k^T as exporters write it: MatMul(q, Transpose(k)) whose permutation brings k's
// innermost axis second-to-last (k.transpose(-1, -2), often merged with the head split into one
// (0, 2, 3, 1)). That swap is a matrix transpose, which the accelerator copies a value at a time
// (in a GPT-2 block at weft8, 8,793 cycles against 1,112 for its (0, 2, 1, 3) head split);
// BATCH_MATMUL takes it as adj_y instead. The Transpose keeps the rest of its permutation (none when that is
// the identity: the MatMul reads k itself) and the MatMul becomes the Einsum "...ik,...jk->...ij"
// (ops/Einsum.cpp: a BATCH_MATMUL with adj_y). Only where the Transpose's output has no other
// reader, both operands are float and of rank 2 or more, and the model has no quantized nodes
// (QuantizedGraph.h keeps its MatMuls).
void Importer::multiplyByTransposedOperands() {
  std::map<std::string, std::vector<size_t>> readers;
  std::map<std::string, size_t> writer;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (folded_[i]) continue;
    const std::string& op = nodes_[i].op_type();
    if (op == "QuantizeLinear" || op == "DequantizeLinear" || op.rfind("QLinear", 0) == 0) return;
    for (const auto& in : nodes_[i].input()) readers[in].push_back(i);
    for (const auto& out : nodes_[i].output()) writer[out] = i;
  }
  std::set<std::string> outputs;
  for (const auto& out : proto_.graph().output()) outputs.insert(out.name());
  for (size_t i = 0; i < nodes_.size(); ++i) {
    ::onnx::NodeProto& matmul = nodes_[i];
    if (folded_[i] || matmul.op_type() != "MatMul" || !matmul.domain().empty() || matmul.input_size() != 2) continue;
    const std::string& b = matmul.input(1);
    auto w = writer.find(b);
    if (w == writer.end() || readers[b].size() != 1 || outputs.count(b) != 0) continue;
    ::onnx::NodeProto& transpose = nodes_[w->second];
    if (transpose.op_type() != "Transpose" || !transpose.domain().empty() || transpose.input_size() != 1) continue;
    auto a = infos_.find(matmul.input(0)), t = infos_.find(transpose.input(0)), bInfo = infos_.find(b);
    if (a == infos_.end() || t == infos_.end() || bInfo == infos_.end()) continue;
    const size_t rank = t->second.shape.size();
    if (rank < 2 || a->second.shape.size() < 2 || !isFloat(a->second.type) || !isFloat(t->second.type)) continue;
    std::vector<int64_t> perm;
    for (const auto& attr : transpose.attribute()) {
      if (attr.name() == "perm") perm.assign(attr.ints().begin(), attr.ints().end());
    }
    if (perm.empty()) {
      for (size_t d = 0; d < rank; ++d) perm.push_back(static_cast<int64_t>(rank - 1 - d));
    }
    if (perm.size() != rank) continue;
    for (auto& p : perm) p = p < 0 ? p + static_cast<int64_t>(rank) : p;
    std::vector<int64_t> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    bool permutation = true;
    for (size_t d = 0; d < rank; ++d) permutation = permutation && sorted[d] == static_cast<int64_t>(d);
    if (!permutation) continue;  // its converter names what is wrong with it
    // Only a transpose that moves the innermost axis to second-to-last: swapped back, the
    // innermost axis stays innermost (a copy of whole rows) or nothing moves at all.
    if (perm[rank - 2] != static_cast<int64_t>(rank - 1)) continue;
    std::swap(perm[rank - 1], perm[rank - 2]);  // what is left once the last two axes swap back
    bool identity = true;
    for (size_t d = 0; d < rank; ++d) identity = identity && perm[d] == static_cast<int64_t>(d);
    Shape kept(rank);
    for (size_t d = 0; d < rank; ++d) kept[d] = t->second.shape[static_cast<size_t>(perm[d])];
    if (identity) {
      folded_[w->second] = true;
      matmul.set_input(1, transpose.input(0));
    } else {
      transpose.clear_attribute();
      auto* attr = transpose.add_attribute();
      attr->set_name("perm");
      attr->set_type(::onnx::AttributeProto::INTS);
      for (const int64_t p : perm) attr->add_ints(p);
      bInfo->second.shape = kept;
    }
    matmul.set_op_type("Einsum");
    auto* equation = matmul.add_attribute();
    equation->set_name("equation");
    equation->set_type(::onnx::AttributeProto::STRING);
    equation->set_s("...ik,...jk->...ij");
  }
}

void Importer::fuseTransformerLayers() {
  std::set<std::string> outputs;
  for (const auto& out : proto_.graph().output()) outputs.insert(out.name());
  onnx::fuseTransformerLayers(FusionGraph{nodes_, folded_, constants_, infos_, outputs});
}

void Importer::planQuantizedNodes() {
  std::set<std::string> outputs;
  for (const auto& out : proto_.graph().output()) outputs.insert(out.name());
  quantized_ = planQuantized(QuantizedGraphView{nodes_, folded_, constants_, infos_, outputs, opset_, where()});
}

// The model's inputs are the NNAPI model's first operands, in the graph's order (after the
// quantized pass, which gives a quantized input its scale and zero point).
void Importer::addInputs() {
  for (const std::string& name : graphInputs_) {
    const ValueInfo& v = infos_.at(name);
    const uint32_t index = builder_.addTensor(nnTensorType(v, fmt::format("{}: input '{}'", where(), name)),
                                              nnDims(v.shape), name, v.quant.quantized() ? v.quant.scales.front() : 0.0f,
                                              v.quant.quantized() ? v.quant.zeroPoints.front() : 0);
    builder_.addInput(index);
    operands_[name] = index;
    result_.inputNames.push_back(name);
    result_.inputs.push_back(v);
  }
}

uint32_t Importer::operand(const std::string& value) {
  if (auto it = operands_.find(value); it != operands_.end()) return it->second;
  if (auto c = constants_.find(value); c != constants_.end()) {
    const auto v = infos_.find(value);
    const bool quantized = v != infos_.end() && v->second.quant.quantized();
    const uint32_t index = quantized ? builder_.addQuantized(c->second, v->second.quant, value)
                                     : constantOperand(c->second, value);
    operands_[value] = index;
    return index;
  }
  throw ImportError(fmt::format("{}: {}: '{}' is read before any node computes it (the graph is not in topological "
                                "order, or names a value that does not exist)",
                                where(), current_ ? current_->label() : std::string("graph"), value));
}

uint32_t Importer::constantOperand(HostTensor&& tensor, const std::string& name) {
  const nn::OperandType type = nnTensorType(tensor.type, fmt::format("{}: constant '{}'", where(), name));
  std::vector<uint8_t> bytes;
  if (tensor.type == DType::kInt64) {
    bytes.resize(static_cast<size_t>(tensor.size()) * 4);
    for (int64_t i = 0; i < tensor.size(); ++i) {
      const int64_t v = tensor.asInt(i);
      if (v < INT32_MIN || v > INT32_MAX) {
        throw ImportError(fmt::format("{}: {}: constant '{}' holds {}, beyond NNAPI's 32-bit integers", where(),
                                      current_ ? current_->label() : std::string("graph"), name, v));
      }
      const auto narrow = static_cast<int32_t>(v);
      std::memcpy(bytes.data() + i * 4, &narrow, 4);
    }
  } else {
    bytes = std::move(tensor.bytes);
  }
  return builder_.addConstant(type, nnDims(tensor.shape), std::move(bytes), name);
}

uint32_t Importer::output(const Node& node, size_t i) {
  const std::string name = node.output(i);
  const ValueInfo& v = info(name);
  const uint32_t index = builder_.addTensor(nnTensorType(v, where() + ": " + node.error("output '" + name + "'")),
                                            nnDims(v.shape), name, v.quant.quantized() ? v.quant.scales.front() : 0.0f,
                                            v.quant.quantized() ? v.quant.zeroPoints.front() : 0);
  operands_[name] = index;
  return index;
}

// ShuffleNet's channel shuffle as exporters write it, x.view(N, g, C/g, H, W).transpose(1, 2)
// .reshape(N, C, H, W): three nodes around a rank-5 value, which NNAPI's tensors cannot hold (at
// most rank 4), are one CHANNEL_SHUFFLE of g groups along axis 1. The Transpose and the second
// Reshape are then folded into node i (the first Reshape).
bool Importer::lowerChannelShuffle(size_t i, const std::map<std::string, std::vector<size_t>>& readers) {
  const auto onlyReader = [&](const std::string& value, const char* op) -> std::optional<size_t> {
    auto r = readers.find(value);
    if (r == readers.end() || r->second.size() != 1 || r->second[0] >= nodes_.size() ||  // a graph output
        nodes_[r->second[0]].op_type() != op) {
      return std::nullopt;
    }
    return r->second[0];
  };
  const auto& reshape = nodes_[i];
  if (reshape.op_type() != "Reshape" || reshape.input_size() < 1 || reshape.output_size() != 1) return false;
  if (quantized_.nodes.count(static_cast<int>(i)) != 0) return false;
  const auto transposeAt = onlyReader(reshape.output(0), "Transpose");
  if (!transposeAt) return false;
  const auto& transpose = nodes_[*transposeAt];
  const auto backAt = onlyReader(transpose.output(0), "Reshape");
  if (!backAt) return false;
  const Node back(nodes_[*backAt], static_cast<int>(*backAt), opset_);
  const Node t(transpose, static_cast<int>(*transposeAt), opset_);
  auto x = infos_.find(reshape.input(0)), split = infos_.find(reshape.output(0)), y = infos_.find(back.output(0));
  if (x == infos_.end() || split == infos_.end() || y == infos_.end()) return false;
  const Shape &xs = x->second.shape, &ss = split->second.shape;
  if (xs.size() != 4 || ss.size() != 5 || y->second.shape != xs || x->second.quant.quantized()) return false;
  if (ss[0] != xs[0] || ss[1] * ss[2] != xs[1] || ss[3] != xs[2] || ss[4] != xs[3]) return false;
  if (t.attrInts("perm") != std::vector<int64_t>{0, 2, 1, 3, 4}) return false;
  const Node node(reshape, static_cast<int>(i), opset_);
  add(nn::OperationType::CHANNEL_SHUFFLE,
      {operand(reshape.input(0)), builder_.scalarInt32(static_cast<int32_t>(ss[1])), builder_.scalarInt32(1)},
      {output(back, 0)});
  folded_[*transposeAt] = folded_[*backAt] = true;
  return true;
}

void Importer::lowerNodes() {
  std::map<std::string, std::vector<size_t>> readers;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (folded_[i]) continue;
    for (const auto& in : nodes_[i].input()) readers[in].push_back(i);
  }
  for (const auto& out : proto_.graph().output()) readers[out.name()].push_back(nodes_.size());  // not a node
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const Node node(nodes_[i], static_cast<int>(i), opset_);
    NodeRecord record{static_cast<int>(i), node.name(), node.op(), folded_[i], {}};
    if (!folded_[i]) {
      record_ = &record;
      current_ = &node;
      const bool shuffled = lowerChannelShuffle(i, readers);
      current_ = nullptr;
      record_ = nullptr;
      if (shuffled) {
        result_.nodes.push_back(std::move(record));
        continue;
      }
    }
    if (!folded_[i]) {
      const bool quantized = quantized_.nodes.count(static_cast<int>(i)) != 0;
      const Converter* convert = quantized ? findQuantizedConverter(node.op()) : findConverter(node.op());
      if (convert == nullptr) {
        throw ImportError(fmt::format("{}: {}: operator {} is not supported (weft imports: {})", where(), node.label(),
                                      node.op(), fmt::join(convertedOperators(), ", ")));
      }
      current_ = &node;
      record_ = &record;
      try {
        (*convert)(node, *this);
      } catch (const ImportError& e) {
        const std::string message = e.what();
        current_ = nullptr;
        record_ = nullptr;
        // Converters name the node; the file is prefixed here once.
        if (message.rfind(where(), 0) == 0) throw;
        throw ImportError(where() + ": " + message);
      }
      current_ = nullptr;
      record_ = nullptr;
    }
    result_.nodes.push_back(std::move(record));
  }
}

double Importer::quantumOf(const std::string& value) const {
  const ValueInfo& v = info(value);
  if (v.quant.quantized()) return v.quant.scales.front();
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const auto& n = nodes_[i];
    if (folded_[i] || n.op_type() != "DequantizeLinear" || n.output_size() < 1 || n.output(0) != value) continue;
    const ValueInfo& q = info(n.input(0));
    return q.quant.quantized() ? q.quant.scales.front() : 0.0;
  }
  return 0.0;
}

// Operations whose outputs nothing reads go, and their outputs become omitted operands (no
// operation may leave a temporary unwritten). A RESHAPE to a rank above 4 that the next reshape
// read through (ops/OpUtil.cpp, lowRankSource) is one: NNAPI's operations read rank 4 at most, and
// it would have run on the CPU for nothing. The node records' operation indexes follow.
void Importer::dropDeadOperations() {
  auto& main = builder_.model().main;
  std::vector<uint32_t> readers(main.operands.size(), 0);
  for (const auto& op : main.operations) {
    for (uint32_t i : op.inputs) ++readers[i];
  }
  std::vector<bool> dead(main.operations.size(), false);
  bool any = false;
  for (size_t k = main.operations.size(); k-- > 0;) {  // later operations first: a dead one frees its inputs
    const auto& op = main.operations[k];
    const bool unread = std::all_of(op.outputs.begin(), op.outputs.end(), [&](uint32_t o) {
      return readers[o] == 0 && main.operands[o].lifetime == nn::Operand::LifeTime::TEMPORARY_VARIABLE;
    });
    if (!unread) continue;
    dead[k] = any = true;
    for (uint32_t i : op.inputs) --readers[i];
    for (uint32_t o : op.outputs) main.operands[o].lifetime = nn::Operand::LifeTime::NO_VALUE;
  }
  if (!any) return;
  std::vector<size_t> newIndex(main.operations.size());
  std::vector<test::TestOperation> kept;
  for (size_t k = 0; k < main.operations.size(); ++k) {
    newIndex[k] = kept.size();
    if (!dead[k]) kept.push_back(std::move(main.operations[k]));
  }
  main.operations = std::move(kept);
  for (NodeRecord& record : result_.nodes) {
    std::vector<size_t> operations;
    for (size_t k : record.operations) {
      if (!dead[k]) operations.push_back(newIndex[k]);
    }
    record.operations = std::move(operations);
  }
}

void Importer::defineOutputs() {
  std::set<uint32_t> inputs(builder_.model().main.inputIndexes.begin(), builder_.model().main.inputIndexes.end());
  std::set<uint32_t> defined;
  for (const auto& out : proto_.graph().output()) {
    const std::string& name = out.name();
    uint32_t index = operand(name);
    // NNAPI needs each output its own computed operand: an output that is an input (Identity),
    // another output, or a constant (everything folded at import) is copied by a RESHAPE.
    const auto lifetime = builder_.operand(index).lifetime;
    const bool constant = lifetime == nn::Operand::LifeTime::CONSTANT_COPY ||
                          lifetime == nn::Operand::LifeTime::CONSTANT_REFERENCE;
    if (constant || inputs.count(index) != 0 || defined.count(index) != 0) {
      const ValueInfo& v = info(name);
      const test::TestOperand& from = builder_.operand(index);
      const uint32_t copy = builder_.addTensor(from.type, nnDims(v.shape), name, from.scale, from.zeroPoint);
      std::vector<int32_t> dims;
      for (uint32_t d : nnDims(v.shape)) dims.push_back(static_cast<int32_t>(d));
      builder_.addOperation(nn::OperationType::RESHAPE, {index, builder_.int32Vector(dims)}, {copy});
      index = copy;
    }
    defined.insert(index);
    builder_.addOutput(index);
    result_.outputNames.push_back(name);
    result_.outputs.push_back(info(name));
    result_.outputQuanta.push_back(quantumOf(name));
  }
}

ImportedModel Importer::run() {
  if (!proto_.has_graph()) throw ImportError(fmt::format("{}: the model has no graph", where()));
  // ONNX's checker first: a structurally broken model (names read before they are written,
  // attributes of the wrong type, nodes out of order) is refused with its message before any
  // of libonnx's passes (version conversion, shape inference) meets it.
  try {
    ::onnx::checker::check_model(proto_);
  } catch (const std::exception& e) {
    throw ImportError(fmt::format("{}: not a valid ONNX model (ONNX's checker: {})", where(), e.what()));
  }
  checkWindows();
  checkOpsets();
  result_.name = proto_.graph().name();
  takeInitializers();
  bindInputs();
  inferAndFold();
  for (const auto& [name, v] : infos_) {
    if (elementCount(v.shape) > options_.maxElements) {
      throw ImportError(fmt::format("{}: value '{}' of shape {} has more elements than weft takes ({})", where(), name,
                                    shapeString(v.shape), options_.maxElements));
    }
  }
  foldBatchNorms();
  if (options_.weftExtensions) fuseTransformerLayers();
  multiplyByTransposedOperands();
  planQuantizedNodes();
  addInputs();
  lowerNodes();
  defineOutputs();
  dropDeadOperations();
  builder_.model().isRelaxed = options_.relaxed;
  builder_.model().name = result_.name;
  result_.model = std::move(builder_.model());
  return std::move(result_);
}

}  // namespace

bool isOnnxPath(const std::string& path) {
  const std::string ext = fs::path(path).extension().string();
  return ext == ".onnx" || ext == ".ONNX";
}

Shape parseShape(const std::string& text) {
  if (text.empty() || text.front() == 'x' || text.back() == 'x') {
    throw ImportError(fmt::format("'{}' is not a shape (positive sizes joined by x, as 1x3x224x224)", text));
  }
  Shape shape;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, 'x');) {
    size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (part.empty() || used != part.size() || v <= 0) {
      throw ImportError(fmt::format("'{}' is not a shape (positive sizes joined by x, as 1x3x224x224)", text));
    }
    shape.push_back(v);
  }
  if (shape.empty()) throw ImportError(fmt::format("'{}' is not a shape", text));
  return shape;
}

ImportedModel importOnnx(::onnx::ModelProto model, const ImportOptions& options, const std::string& origin) {
  Importer importer(std::move(model), options, origin);
  return importer.run();
}

ImportedModel importOnnxFile(const std::string& path, const ImportOptions& options) {
  ::onnx::ModelProto model;
  {
    const std::string text = readFileBytes(path);
    if (text.empty()) throw ImportError(fmt::format("{}: the file is empty", path));
    if (!model.ParseFromString(text)) {
      throw ImportError(fmt::format("{}: not an ONNX model (the protobuf does not parse: a truncated or corrupt file, "
                                    "or another format)",
                                    path));
    }
  }
  if (!model.has_graph() || model.ir_version() <= 0) {
    throw ImportError(fmt::format("{}: not an ONNX model (no graph or no IR version)", path));
  }
  ImportedModel imported = importOnnx(std::move(model), options, path);
  if (imported.name.empty()) imported.name = fs::path(path).stem().string();
  imported.model.name = imported.name;
  return imported;
}

}  // namespace weft::onnx
