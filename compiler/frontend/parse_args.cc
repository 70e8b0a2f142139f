// Calls, subscripts, comprehension clauses and def/lambda parameter lists.
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "compiler/frontend/parser_impl.h"

namespace graphd::compiler::internal {

using ast::Ctx;
using ast::ExprPtr;

StatusOr<ExprPtr> Parser::ParseCall(ExprPtr func) {
  Advance();  // (
  std::vector<ExprPtr> args;
  std::vector<ast::Keyword> keywords;
  absl::flat_hash_set<std::string> names;
  bool seen_keyword = false, seen_kwunpack = false;
  while (!AtOp(")")) {
    const Token& start = Peek();
    if (AcceptOp("*")) {
      ASSIGN_OR_RETURN(ExprPtr v, ParseTest());
      if (seen_kwunpack) {
        return SyntaxError(From(start), "iterable argument unpacking follows keyword argument unpacking");
      }
      args.push_back(New<ast::Starred>(v, Ctx::kLoad, From(start)));
    } else if (AcceptOp("**")) {
      ASSIGN_OR_RETURN(ExprPtr v, ParseTest());
      keywords.push_back({.arg = "", .value = v, .range = From(start)});
      seen_kwunpack = true;
    } else if (start.kind == TokenKind::kName && Peek(1).IsOp("=")) {
      Advance(), Advance();
      ASSIGN_OR_RETURN(ExprPtr v, ParseTest());
      if (!names.insert(start.text).second) {
        return SyntaxError(From(start), absl::StrCat("keyword argument repeated: ", start.text));
      }
      keywords.push_back({.arg = start.text, .value = v, .range = From(start)});
      seen_keyword = true;
    } else {
      ASSIGN_OR_RETURN(ExprPtr v, ParseTest());
      if (AtKeyword("for") || AtKeyword("async")) {
        // f(x for x in y): the generator becomes a list comprehension.
        ASSIGN_OR_RETURN(std::vector<ast::Comprehension> gens, ParseCompFor());
        ExprPtr comp = New<ast::ListComp>(v, std::move(gens), From(start));
        if (!args.empty() || !keywords.empty() || !AtOp(")")) {
          return SyntaxError(comp->range, "Generator expression must be parenthesized");
        }
        args.push_back(std::move(comp));
        break;
      }
      if (AtOp("=")) {
        return SyntaxError(v->range, "expression cannot contain assignment, perhaps you meant \"==\"?");
      }
      if (seen_kwunpack) return SyntaxError(v->range, "positional argument follows keyword argument unpacking");
      if (seen_keyword) return SyntaxError(v->range, "positional argument follows keyword argument");
      args.push_back(std::move(v));
    }
    if (!AcceptOp(",")) break;
  }
  RETURN_IF_ERROR(ExpectOp(")"));
  return New<ast::Call>(func, std::move(args), std::move(keywords), From(func->range));
}

StatusOr<ExprPtr> Parser::ParseSubscript(ExprPtr value) {
  Advance();  // [
  const Token& first = Peek();
  std::vector<ExprPtr> items;
  bool tuple = false;
  ASSIGN_OR_RETURN(ExprPtr item, ParseSliceItem());
  items.push_back(std::move(item));
  while (AcceptOp(",")) {
    tuple = true;
    if (AtOp("]")) break;
    ASSIGN_OR_RETURN(ExprPtr next, ParseSliceItem());
    items.push_back(std::move(next));
  }
  const SourceRange items_range = From(first);
  RETURN_IF_ERROR(ExpectOp("]"));
  ExprPtr slice = tuple ? New<ast::Tuple>(std::move(items), Ctx::kLoad, items_range) : items[0];
  return New<ast::Subscript>(value, slice, Ctx::kLoad, From(value->range));
}

StatusOr<ExprPtr> Parser::ParseSliceItem() {
  const Token& start = Peek();
  ExprPtr lower, upper, step;
  if (!AtOp(":")) {
    ASSIGN_OR_RETURN(lower, ParseTest());
    if (!AtOp(":")) return lower;
  }
  Advance();  // :
  if (!AtOp(":") && !AtOp(",") && !AtOp("]")) {
    ASSIGN_OR_RETURN(upper, ParseTest());
  }
  if (AcceptOp(":") && !AtOp(",") && !AtOp("]")) {
    ASSIGN_OR_RETURN(step, ParseTest());
  }
  return New<ast::Slice>(lower, upper, step, From(start));
}

StatusOr<std::vector<ast::Comprehension>> Parser::ParseCompFor() {
  std::vector<ast::Comprehension> gens;
  while (AtKeyword("for") || AtKeyword("async")) {
    if (AtKeyword("async")) {
      return NotSupported(Peek().range, "asynchronous comprehensions are not supported by graphd");
    }
    Advance();
    ASSIGN_OR_RETURN(ExprPtr parsed, ParseTargetList());
    ASSIGN_OR_RETURN(ExprPtr target, ToTarget(parsed, Ctx::kStore));
    RETURN_IF_ERROR(ExpectKeyword("in"));
    ASSIGN_OR_RETURN(ExprPtr iter, ParseOrTest());
    std::vector<ExprPtr> ifs;
    while (AcceptKeyword("if")) {
      ASSIGN_OR_RETURN(ExprPtr cond, ParseOrTest());
      ifs.push_back(std::move(cond));
    }
    gens.push_back({.target = target, .iter = iter, .ifs = std::move(ifs)});
  }
  return gens;
}

StatusOr<ast::Arguments> Parser::ParseParameters(bool lambda) {
  const absl::string_view closer = lambda ? ":" : ")";
  ast::Arguments a;
  absl::flat_hash_set<std::string> seen;
  auto add = [&](const ast::Arg& arg) -> Status {
    if (seen.insert(arg.name).second) return absl::OkStatus();
    return SyntaxError(arg.range, absl::StrCat("duplicate argument '", arg.name, "' in function definition"));
  };
  const Token* bare_star = nullptr;
  bool star = false;
  while (!AtOp(closer)) {
    const Token& start = Peek();
    if (AtOp("/")) {
      return NotSupported(start.range, "positional-only parameters ('/') are not supported by graphd");
    }
    if (AcceptOp("**")) {
      ASSIGN_OR_RETURN(ast::Arg arg, ParseParam(lambda));
      RETURN_IF_ERROR(add(arg));
      a.kwarg = std::move(arg);
      AcceptOp(",");
      if (!AtOp(closer)) return SyntaxError(Peek().range, "arguments cannot follow var-keyword argument");
      break;
    }
    if (AcceptOp("*")) {
      if (star) return SyntaxError(start.range, "* argument may appear only once");
      star = true;
      if (AtOp(",") || AtOp(closer)) {
        bare_star = &start;
      } else {
        ASSIGN_OR_RETURN(ast::Arg arg, ParseParam(lambda));
        RETURN_IF_ERROR(add(arg));
        a.vararg = std::move(arg);
      }
    } else {
      ASSIGN_OR_RETURN(ast::Arg arg, ParseParam(lambda));
      RETURN_IF_ERROR(add(arg));
      ExprPtr def;
      if (AcceptOp("=")) {
        ASSIGN_OR_RETURN(def, ParseTest());
      }
      if (star) {
        a.kwonlyargs.push_back(std::move(arg));
        a.kw_defaults.push_back(std::move(def));
      } else {
        if (def != nullptr) {
          a.defaults.push_back(std::move(def));
        } else if (!a.defaults.empty()) {
          return SyntaxError(arg.range, "non-default argument follows default argument");
        }
        a.args.push_back(std::move(arg));
      }
    }
    if (!AcceptOp(",")) break;
  }
  if (bare_star != nullptr && a.kwonlyargs.empty()) {
    return SyntaxError(bare_star->range, "named arguments must follow bare *");
  }
  return a;
}

StatusOr<ast::Arg> Parser::ParseParam(bool lambda) {
  const Token& t = Peek();
  if (t.kind != TokenKind::kName) return Unexpected();
  Advance();
  ast::Arg arg{.name = t.text, .annotation = nullptr, .range = t.range};
  if (!lambda && AcceptOp(":")) {
    ASSIGN_OR_RETURN(arg.annotation, ParseTest());
    arg.range = From(t);
  }
  return arg;
}

}  // namespace graphd::compiler::internal
