// A little builder of ONNX graphs for the importer's tests, as onnx.helper writes them.
#pragma once

#include <onnx/onnx_pb.h>

#include <cctype>
#include <fstream>
#include <string>
#include <vector>

#include "ImportError.h"
#include "Importer.h"

namespace weft::onnx::graphs {

struct Graph {
  ::onnx::ModelProto model;
  ::onnx::GraphProto* g = model.mutable_graph();

  explicit Graph(int64_t opset = 13) {
    model.set_ir_version(8);
    auto* o = model.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
    g->set_name("test");
  }
  void value(::onnx::ValueInfoProto* v, const std::string& name, int32_t type, const std::vector<std::string>& dims) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(type);
    auto* s = t->mutable_shape();
    for (const std::string& d : dims) {
      auto* dim = s->add_dim();
      if (!d.empty() && std::isdigit(static_cast<unsigned char>(d[0]))) {
        dim->set_dim_value(std::stoll(d));
      } else {
        dim->set_dim_param(d);
      }
    }
  }
  void input(const std::string& name, const std::vector<std::string>& dims, int32_t type = ::onnx::TensorProto::FLOAT) {
    value(g->add_input(), name, type, dims);
  }
  // An output typed float with `rank` symbolic dimensions, as exporters write them (ONNX's
  // checker wants a type and a shape; inference fills in the sizes).
  void output(const std::string& name, int rank) {
    std::vector<std::string> dims;
    for (int d = 0; d < rank; ++d) dims.push_back(name + "_d" + std::to_string(d));
    value(g->add_output(), name, ::onnx::TensorProto::FLOAT, dims);
  }
  ::onnx::NodeProto* node(const std::string& op, const std::vector<std::string>& in, const std::vector<std::string>& out,
                          const std::string& name = "") {
    auto* n = g->add_node();
    n->set_op_type(op);
    n->set_name(name.empty() ? op + "_" + std::to_string(g->node_size()) : name);
    for (const auto& i : in) n->add_input(i);
    for (const auto& o : out) n->add_output(o);
    return n;
  }
  void ints(::onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
  }
  void real(::onnx::NodeProto* n, const std::string& name, float v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::FLOAT);
    a->set_f(v);
  }
  void integer(::onnx::NodeProto* n, const std::string& name, int64_t v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::INT);
    a->set_i(v);
  }
  void floats(const std::string& name, const std::vector<int64_t>& dims, const std::vector<float>& v) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(::onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    for (float x : v) t->add_float_data(x);
  }
  void int64s(const std::string& name, const std::vector<int64_t>& v) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(::onnx::TensorProto::INT64);
    t->add_dims(static_cast<int64_t>(v.size()));
    for (int64_t x : v) t->add_int64_data(x);
  }
  ImportedModel import(const ImportOptions& options = {}) const { return importOnnx(model, options, "test.onnx"); }
  void save(const std::string& path) const {
    std::ofstream out(path, std::ios::binary);
    model.SerializeToOstream(&out);
  }
};

// The importer's error for `graph`, or "(imported)" when it imports.
inline std::string importError(const Graph& graph, const ImportOptions& options = {}) {
  try {
    graph.import(options);
  } catch (const ImportError& e) {
    return e.what();
  }
  return "(imported)";
}

}  // namespace weft::onnx::graphs
