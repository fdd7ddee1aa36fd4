// expect: tl: cannot broadcast two different static extents
// Two static extents that differ (neither is 1) cannot be broadcast: a compile error.
#include <tl/tensor.hpp>
int main() {
  tl::stensor<float, 3, 4> a;
  tl::stensor<float, 3, 5> b;
  auto c = a + b;
  (void)c;
}
