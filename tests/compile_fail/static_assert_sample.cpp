// expect: tl: sample static assertion
//
// Self-test of the compile-fail test mechanism (see tests/CMakeLists.txt): this file
// deliberately does not include tl. It must fail to compile, and the compiler output
// must match the regex on the first line.
static_assert(sizeof(int) == 0, "tl: sample static assertion");
int main() {}
