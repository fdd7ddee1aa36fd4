// Shared doctest entry point for every tests/**/*_test.cpp executable.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
