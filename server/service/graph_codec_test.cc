// graph_codec (wire GraphDef -> core GraphDef) and status_codec (Status -> gRPC).
#include "server/service/graph_codec.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/service/status_codec.h"
#include "server/service/tensor_codec.h"

namespace graphd::server {
namespace {

using ::testing::HasSubstr;

template <typename T>
const T& Get(const NodeDef& node, const std::string& attr) {
  static const T kEmpty{};
  auto it = node.attrs.find(attr);
  if (it == node.attrs.end()) {
    ADD_FAILURE() << "missing attribute " << attr;
    return kEmpty;
  }
  const T* v = std::get_if<T>(&it->second);
  EXPECT_NE(v, nullptr) << attr << " is " << AttrTypeName(it->second);
  return v ? *v : kEmpty;
}

TEST(GraphCodecTest, NodesAndEveryAttrKind) {
  v1::GraphDef proto;
  v1::NodeDef* n = proto.add_node();
  n->set_name("n");
  n->set_op("Custom");
  n->add_input("a:1");
  n->add_input("^b");
  n->set_device("/device:CPU:0");
  auto& attrs = *n->mutable_attr();
  attrs["s"].set_s("text");
  attrs["i"].set_i(-7);
  attrs["f"].set_f(2.5f);
  attrs["b"].set_b(true);
  attrs["type"].set_type(v1::DT_INT64);
  attrs["shape"].mutable_shape()->add_dim(-1);
  attrs["shape"].mutable_shape()->add_dim(3);
  Tensor value = Tensor::FromVector<int32_t>(Shape({2}), std::vector<int32_t>{4, 5}).value();
  TensorToProto(value, attrs["tensor"].mutable_tensor());
  attrs["func"].set_func("body");
  attrs["ls"].mutable_list()->add_s("x");
  attrs["ls"].mutable_list()->add_s("y");
  attrs["li"].mutable_list()->add_i(1);
  attrs["li"].mutable_list()->add_i(-2);
  attrs["lf"].mutable_list()->add_f(0.5f);
  attrs["lb"].mutable_list()->add_b(true);
  attrs["lb"].mutable_list()->add_b(false);
  attrs["ltype"].mutable_list()->add_type(v1::DT_FLOAT);
  attrs["ltype"].mutable_list()->add_type(v1::DT_BOOL);
  attrs["lshape"].mutable_list()->add_shape()->set_unknown_rank(true);
  attrs["lshape"].mutable_list()->add_shape()->add_dim(4);
  attrs["empty"].mutable_list();
  proto.add_node()->set_name("second");

  auto def = GraphDefFromProto(proto);
  ASSERT_TRUE(def.ok()) << def.status();
  ASSERT_EQ(def->nodes.size(), 2u);
  const NodeDef& node = def->nodes[0];
  EXPECT_EQ(node.name, "n");
  EXPECT_EQ(node.op, "Custom");
  EXPECT_EQ(node.inputs, (std::vector<std::string>{"a:1", "^b"}));
  EXPECT_EQ(node.device, "/device:CPU:0");
  EXPECT_EQ(node.attrs.size(), 15u);
  EXPECT_EQ(Get<std::string>(node, "s"), "text");
  EXPECT_EQ(Get<int64_t>(node, "i"), -7);
  EXPECT_EQ(Get<float>(node, "f"), 2.5f);
  EXPECT_EQ(Get<bool>(node, "b"), true);
  EXPECT_EQ(Get<DType>(node, "type"), DType::kInt64);
  EXPECT_EQ(Get<PartialShape>(node, "shape"), PartialShape(std::vector<int64_t>{-1, 3}));
  const Tensor& t = Get<Tensor>(node, "tensor");
  ASSERT_EQ(t.dtype(), DType::kInt32);
  EXPECT_EQ(t.shape(), Shape({2}));
  EXPECT_EQ(t.data<int32_t>()[1], 5);
  EXPECT_EQ(Get<FuncName>(node, "func"), FuncName{"body"});
  EXPECT_EQ(Get<StringList>(node, "ls"), (StringList{"x", "y"}));
  EXPECT_EQ(Get<IntList>(node, "li"), (IntList{1, -2}));
  EXPECT_EQ(Get<FloatList>(node, "lf"), FloatList{0.5f});
  EXPECT_EQ(Get<IntList>(node, "lb"), (IntList{1, 0}));
  EXPECT_EQ(Get<TypeList>(node, "ltype"), (TypeList{DType::kFloat32, DType::kBool}));
  const ShapeList& shapes = Get<ShapeList>(node, "lshape");
  ASSERT_EQ(shapes.size(), 2u);
  EXPECT_FALSE(shapes[0].known_rank());
  EXPECT_EQ(shapes[1], PartialShape(std::vector<int64_t>{4}));
  EXPECT_EQ(Get<IntList>(node, "empty"), IntList{});
  EXPECT_EQ(def->nodes[1].name, "second");
}

TEST(GraphCodecTest, BadTensorAttrNamesNodeAndAttribute) {
  v1::GraphDef proto;
  v1::NodeDef* n = proto.add_node();
  n->set_name("c");
  n->set_op("Const");
  v1::TensorProto* t = (*n->mutable_attr())["value"].mutable_tensor();
  t->set_dtype(v1::DT_FLOAT);
  t->mutable_shape()->add_dim(3);
  t->set_content(std::string(8, '\0'));
  auto r = GraphDefFromProto(proto);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("node 'c' attribute 'value'"));
  EXPECT_THAT(r.status().message(), HasSubstr("content has 8 bytes"));
  EXPECT_EQ(errors::NodeOf(r.status()), "c");
}

TEST(GraphCodecTest, OtherAttrErrors) {
  v1::GraphDef proto;
  v1::NodeDef* n = proto.add_node();
  n->set_name("p");
  (*n->mutable_attr())["dtype"].set_type(static_cast<v1::DataType>(42));
  auto r = GraphDefFromProto(proto);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("node 'p' attribute 'dtype'"));
  EXPECT_THAT(r.status().message(), HasSubstr("invalid dtype 42"));
  EXPECT_EQ(errors::NodeOf(r.status()), "p");

  (*n->mutable_attr())["dtype"].Clear();  // no value set
  r = GraphDefFromProto(proto);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("node 'p' attribute 'dtype' has no value"));

  (*n->mutable_attr())["dtype"].mutable_list()->add_tensor();
  r = GraphDefFromProto(proto);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnimplemented);
}

TEST(GraphCodecTest, FunctionLibrary) {
  v1::GraphDef proto;
  v1::FunctionDef* f = proto.mutable_library()->add_function();
  f->set_name("f");
  f->add_input_name("x");
  v1::TensorSpec* in = f->add_input();
  in->set_dtype(v1::DT_FLOAT);
  in->mutable_shape()->add_dim(-1);
  f->add_output()->set_dtype(v1::DT_FLOAT);
  f->mutable_output(0)->mutable_shape()->set_unknown_rank(true);
  f->add_output_tensor("y:0");
  v1::NodeDef* y = f->add_node();
  y->set_name("y");
  y->set_op("Relu");
  y->add_input("x");
  (*y->mutable_attr())["inner"].set_func("g");

  auto def = GraphDefFromProto(proto);
  ASSERT_TRUE(def.ok()) << def.status();
  ASSERT_EQ(def->library.size(), 1u);
  const FunctionDef& fn = def->library[0];
  EXPECT_EQ(fn.name, "f");
  EXPECT_EQ(fn.arg_names, (std::vector<std::string>{"x"}));
  ASSERT_EQ(fn.arg_types.size(), 1u);
  EXPECT_EQ(fn.arg_types[0].dtype, DType::kFloat32);
  EXPECT_EQ(fn.arg_types[0].shape, PartialShape(std::vector<int64_t>{kUnknownDim}));
  ASSERT_EQ(fn.result_types.size(), 1u);
  EXPECT_FALSE(fn.result_types[0].shape.known_rank());
  EXPECT_EQ(fn.results, (std::vector<std::string>{"y:0"}));
  ASSERT_EQ(fn.nodes.size(), 1u);
  EXPECT_EQ(Get<FuncName>(fn.nodes[0], "inner").name, "g");

  f->mutable_input(0)->set_dtype(v1::DT_INVALID);
  auto bad = GraphDefFromProto(proto);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("function 'f' input 0"));
}

TEST(StatusCodecTest, ErrorClassNames) {
  EXPECT_EQ(ErrorClassName(absl::StatusCode::kOk), "");
  EXPECT_EQ(ErrorClassName(absl::StatusCode::kInvalidArgument), "InvalidArgumentError");
  EXPECT_EQ(ErrorClassName(absl::StatusCode::kNotFound), "NotFoundError");
  EXPECT_EQ(ErrorClassName(absl::StatusCode::kFailedPrecondition), "FailedPreconditionError");
  EXPECT_EQ(ErrorClassName(absl::StatusCode::kResourceExhausted), "ResourceExhaustedError");
  EXPECT_EQ(ErrorClassName(absl::StatusCode::kDeadlineExceeded), "DeadlineExceededError");
  EXPECT_EQ(ErrorClassName(absl::StatusCode::kCancelled), "CancelledError");
  EXPECT_EQ(ErrorClassName(absl::StatusCode::kAborted), "AbortedError");
  EXPECT_EQ(ErrorClassName(absl::StatusCode::kUnimplemented), "UnimplementedError");
  EXPECT_EQ(ErrorClassName(absl::StatusCode::kInternal), "InternalError");
  EXPECT_EQ(ErrorClassName(absl::StatusCode::kUnavailable), "UnavailableError");
  EXPECT_EQ(ErrorClassName(absl::StatusCode::kOutOfRange), "OutOfRangeError");
  EXPECT_EQ(ErrorClassName(absl::StatusCode::kUnauthenticated), "UnauthenticatedError");
  EXPECT_EQ(ErrorClassName(static_cast<absl::StatusCode>(77)), "UnknownError");
}

TEST(StatusCodecTest, ErrorDetailAndGrpcStatus) {
  Status s = errors::WithNode(errors::FailedPrecondition("uninitialized v"), "v");
  v1::ErrorDetail detail = ErrorDetailOf(s);
  EXPECT_EQ(detail.error_class(), "FailedPreconditionError");
  EXPECT_EQ(detail.message(), "uninitialized v");
  EXPECT_EQ(detail.node_name(), "v");
  EXPECT_TRUE(ErrorDetailOf(errors::Internal("x")).node_name().empty());

  grpc::Status g = ToGrpcStatus(s, nullptr);
  EXPECT_EQ(g.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(g.error_message(), "uninitialized v");
  EXPECT_TRUE(ToGrpcStatus(absl::OkStatus(), nullptr).ok());
  EXPECT_EQ(ToGrpcStatus(errors::NotFound("n"), nullptr).error_code(), grpc::StatusCode::NOT_FOUND);
}

}  // namespace
}  // namespace graphd::server
