// collections.namedtuple for traced code: a tuple whose items also have names. It
// iterates, indexes, unpacks and compares as its tuple does, and staged control flow
// and tf.nest take it apart as a sequence (rebuilding the same type). A class may
// derive from one (`class P(namedtuple('P', 'x y')): def norm(self): ...`). A
// tf.function returns one as a plain tuple.
#ifndef GRAPHD_COMPILER_TRACER_NAMEDTUPLE_H_
#define GRAPHD_COMPILER_TRACER_NAMEDTUPLE_H_

#include <memory>
#include <string>
#include <vector>

#include "compiler/tracer/objects.h"

namespace graphd::compiler::tracer {

class NamedTupleClassObj : public Object {
 public:
  // `dict` (the methods of a class deriving from a namedtuple) may be null.
  NamedTupleClassObj(std::string name, std::vector<std::string> fields, std::vector<Value> defaults,
                     std::shared_ptr<Namespace> dict)
      : name_(std::move(name)), fields_(std::move(fields)), defaults_(std::move(defaults)), dict_(std::move(dict)) {}
  std::string TypeName() const override { return "type"; }
  std::string Repr() const override { return "<class '" + name_ + "'>"; }
  StatusOr<Value> Call(Interpreter& interp, CallArgs& args) override;
  StatusOr<Value> GetAttr(Interpreter& interp, const std::string& name) override;

  const std::string& name() const { return name_; }
  const std::vector<std::string>& fields() const { return fields_; }
  // A class named `name` deriving from this one, with `dict` as its methods.
  std::shared_ptr<NamedTupleClassObj> Derive(std::string name, std::shared_ptr<Namespace> dict) const;
  const Value* Method(const std::string& name) const { return dict_ ? dict_->Find(name) : nullptr; }

 private:
  std::string name_;
  std::vector<std::string> fields_;
  std::vector<Value> defaults_;  // for the last fields
  std::shared_ptr<Namespace> dict_;
};

class NamedTupleObj : public Object {
 public:
  NamedTupleObj(std::shared_ptr<NamedTupleClassObj> cls, std::vector<Value> items)
      : cls_(std::move(cls)), items_(std::move(items)) {}
  std::string TypeName() const override { return cls_->name(); }
  std::string Repr() const override;
  StatusOr<Value> GetAttr(Interpreter& interp, const std::string& name) override;
  const std::vector<Value>* Items() const override { return &items_; }
  std::shared_ptr<Object> WithItems(std::vector<Value> items) const override {
    return std::make_shared<NamedTupleObj>(cls_, std::move(items));
  }
  const std::shared_ptr<NamedTupleClassObj>& cls() const { return cls_; }

 private:
  std::shared_ptr<NamedTupleClassObj> cls_;
  std::vector<Value> items_;
};

// The `collections` module traced code may import (namedtuple).
std::shared_ptr<Namespace> MakeCollectionsModule();

}  // namespace graphd::compiler::tracer

#endif  // GRAPHD_COMPILER_TRACER_NAMEDTUPLE_H_
