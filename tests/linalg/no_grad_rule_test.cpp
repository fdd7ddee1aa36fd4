// tl::linalg functions without a backward rule (ldl_* included: torch 1.13 has none) refuse inputs that require grad (an error, never a
// silently missing gradient), and work on detached inputs or under no_grad; matrix_rank (an
// integer result) accepts them, as torch.
#define TL_AUTOGRAD 2
#include <doctest/doctest.h>

#include <string>

#include <tl/tensor.hpp>

#include "../test_util.hpp"

namespace linalg_no_grad_rule_test {

namespace la = tl::linalg;
using X = tl::tensor<double, 2>;

namespace {
X sample() {
  X a = tl_test::random<double, 2>({4, 4}, 3);
  for (tl::index_t i = 0; i < 4; ++i) a(i, i) += 4.0;  // well conditioned
  return a;
}

template <class F>
void expect_refused(const char* op, F&& f) {
  CAPTURE(op);
  const std::string e = tl_test::error_of(f);
  CHECK(e.find(std::string("tl::linalg::") + op) != std::string::npos);
  CHECK(e.find("requires grad") != std::string::npos);
  CHECK_THROWS_AS(f(), tl::autograd_error);
}
}  // namespace

TEST_CASE("functions without a backward rule throw autograd_error for inputs that require grad") {
  X a = sample();
  a.requires_grad_();
  const X b = sample();
  expect_refused("ldl_factor", [&] { (void)la::ldl_factor(a); });
  expect_refused("ldl_factor_ex", [&] { (void)la::ldl_factor_ex(a, true); });
  const auto f = la::ldl_factor(b);
  expect_refused("ldl_solve", [&] { (void)la::ldl_solve(f.LD, f.pivots, a); });
}

TEST_CASE("the same calls work on detached inputs and under no_grad; matrix_rank takes grad inputs") {
  X a = sample();
  a.requires_grad_();
  const auto q = la::qr(a.detach());
  CHECK(q.Q.shape() == tl::shape_t<2>{4, 4});
  {
    tl::no_grad guard;
    const auto s = la::svdvals(a);
    CHECK(s(0) >= s(3));
    CHECK(la::matrix_exp(a).shape() == a.shape());
  }
  CHECK(la::matrix_rank(a)() == 4);
  const X d = a.detach();
  CHECK(la::vector_norm(d)() > 0.0);
}

}  // namespace linalg_no_grad_rule_test
