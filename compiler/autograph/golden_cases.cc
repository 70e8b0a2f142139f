// Golden tests: Python source in, AutoGraph's converted code (to_code) out.
// Reviewed by hand against TensorFlow AutoGraph's output for the same code.
#include "compiler/autograph/golden_cases.h"

namespace graphd::compiler::autograph {

const std::vector<GoldenCase>& GoldenCases() {
  static const auto* cases = new std::vector<GoldenCase>{
      {"Collatz",
       R"py(def collatz(a):
    counter = 0
    while a != 1:
        if a % 2 == 0:
            a = a // 2
        else:
            a = 3 * a + 1
        counter = counter + 1
    return counter
)py",
       R"py(def tf__collatz(a):
    counter = 0
    def get_state_1():
        return ag__.ldu(lambda: a, 'a'), ag__.ldu(lambda: counter, 'counter')
    def set_state_1(vars_):
        nonlocal a, counter
        a, counter = vars_
    def loop_test():
        return a != 1
    def loop_body():
        nonlocal a, counter
        def get_state():
            return (ag__.ldu(lambda: a, 'a'),)
        def set_state(vars_):
            nonlocal a
            (a,) = vars_
        def if_body():
            nonlocal a
            a = a // 2
        def else_body():
            nonlocal a
            a = 3 * a + 1
        ag__.if_stmt(a % 2 == 0, if_body, else_body, get_state, set_state, ('a',), 1)
        counter = counter + 1
    ag__.while_stmt(loop_test, loop_body, get_state_1, set_state_1, ('a', 'counter'))
    return counter
)py"},
      {"HuberLossUndefinedBeforeIf",
       R"py(def huber_loss(a):
  if tf.abs(a) <= delta:
    loss = a * a / 2
  else:
    loss = delta * (tf.abs(a) - delta / 2)
  return loss
)py",
       R"py(def tf__huber_loss(a):
    def get_state():
        return (ag__.ldu(lambda: loss, 'loss'),)
    def set_state(vars_):
        nonlocal loss
        (loss,) = vars_
    loss = ag__.Undefined('loss')
    def if_body():
        nonlocal loss
        loss = a * a / 2
    def else_body():
        nonlocal loss
        loss = delta * (tf.abs(a) - delta / 2)
    ag__.if_stmt(tf.abs(a) <= delta, if_body, else_body, get_state, set_state, ('loss',), 1)
    return loss
)py"},
      {"ForWithBreakGetsExtraTest",
       R"py(def tf_for_tf_break():
  x = 0
  for i in tf.range(5):
    if tf.equal(i, 3):
      break
    x += i
  return x
)py",
       R"py(def tf__tf_for_tf_break():
    x = 0
    break_ = False
    def get_state_2():
        return ag__.ldu(lambda: break_, 'break_'), ag__.ldu(lambda: x, 'x')
    def set_state_2(vars_):
        nonlocal break_, x
        break_, x = vars_
    def loop_body(itr):
        nonlocal break_, x
        i = itr
        def get_state():
            return (ag__.ldu(lambda: break_, 'break_'),)
        def set_state(vars_):
            nonlocal break_
            (break_,) = vars_
        def if_body():
            nonlocal break_
            break_ = True
        def else_body():
            nonlocal break_
        ag__.if_stmt(tf.equal(i, 3), if_body, else_body, get_state, set_state, ('break_',), 1)
        def get_state_1():
            return (ag__.ldu(lambda: x, 'x'),)
        def set_state_1(vars_):
            nonlocal x
            (x,) = vars_
        def if_body_1():
            nonlocal x
            x += i
        def else_body_1():
            nonlocal x
        ag__.if_stmt(ag__.not_(break_), if_body_1, else_body_1, get_state_1, set_state_1, ('x',), 1)
    def extra_test():
        return ag__.not_(break_)
    ag__.for_stmt(tf.range(5), extra_test, loop_body, get_state_2, set_state_2, ('break_', 'x'), {'iterate_names': 'i'})
    return x
)py"},
      {"ListAppendBecomesAssignment",
       R"py(def f(n):
  z = []
  for i in range(n):
    z.append(i)
  return z
)py",
       R"py(def tf__f(n):
    z = []
    def get_state():
        return (ag__.ldu(lambda: z, 'z'),)
    def set_state(vars_):
        nonlocal z
        (z,) = vars_
    def loop_body(itr):
        nonlocal z
        i = itr
        z = ag__.list_append(z, i)
    ag__.for_stmt(range(n), None, loop_body, get_state, set_state, ('z',), {'iterate_names': 'i'})
    return z
)py"},
      {"ReturnsExpressionsAndAssert",
       R"py(def early(x):
  if x > 0:
    return x
  y = x * 2 if x < -1 else -x
  assert x != 0, 'Do not pass zero!'
  return y and not x
)py",
       R"py(def tf__early(x):
    do_return = False
    retval_ = ag__.UndefinedReturnValue()
    def get_state():
        return (ag__.ldu(lambda: retval_, 'retval_'),)
    def set_state(vars_):
        nonlocal retval_
        (retval_,) = vars_
    def if_body():
        nonlocal retval_
        retval_ = x
        do_return = True
    def else_body():
        nonlocal retval_
        y = ag__.if_exp(x < -1, lambda: x * 2, lambda: -x, 'x < -1')
        ag__.assert_stmt(x != 0, lambda: 'Do not pass zero!')
        retval_ = ag__.and_(lambda: y, lambda: ag__.not_(x))
        do_return = True
    ag__.if_stmt(x > 0, if_body, else_body, get_state, set_state, ('retval_',), 1)
    return ag__.retval(retval_)
)py"},
      {"WhileContinueAndElse",
       R"py(def g(n):
  i = 0
  s = 0
  while i < n:
    i += 1
    if i % 2 == 0:
      continue
    s += i
  else:
    s = -s
  return s
)py",
       R"py(def tf__g(n):
    i = 0
    s = 0
    def get_state_2():
        return ag__.ldu(lambda: i, 'i'), ag__.ldu(lambda: s, 's')
    def set_state_2(vars_):
        nonlocal i, s
        i, s = vars_
    def loop_test():
        return i < n
    def loop_body():
        nonlocal i, s
        continue_ = False
        i += 1
        def get_state():
            return (ag__.ldu(lambda: continue_, 'continue_'),)
        def set_state(vars_):
            nonlocal continue_
            (continue_,) = vars_
        def if_body():
            nonlocal continue_
            continue_ = True
        def else_body():
            nonlocal continue_
        ag__.if_stmt(i % 2 == 0, if_body, else_body, get_state, set_state, ('continue_',), 1)
        def get_state_1():
            return (ag__.ldu(lambda: s, 's'),)
        def set_state_1(vars_):
            nonlocal s
            (s,) = vars_
        def if_body_1():
            nonlocal s
            s += i
        def else_body_1():
            nonlocal s
        ag__.if_stmt(ag__.not_(continue_), if_body_1, else_body_1, get_state_1, set_state_1, ('s',), 1)
    ag__.while_stmt(loop_test, loop_body, get_state_2, set_state_2, ('i', 's'), {'else_clause': True})
    s = -s
    return s
)py"},
  };
  return *cases;
}

}  // namespace graphd::compiler::autograph
