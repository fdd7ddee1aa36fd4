// The host block cache: large host tensors reuse freed memory of their size class; the limit,
// emptying and the counters behave as documented; values are never shared between live tensors.
// Under AddressSanitizer the cache is off (freed memory must stay poisoned) and says so.
#include <doctest/doctest.h>

#include <cstdint>
#include <thread>
#include <vector>

#include <tl/tensor.hpp>

namespace {
constexpr tl::index_t big = 1 << 20;  // 4 MiB of floats
}

TEST_CASE("host cache: a freed large block is reused by the next tensor of its size class") {
  tl::set_host_cache_limit(std::size_t{256} << 20);
  const auto s0 = tl::host_memory_stats();
  CHECK(s0.cached_bytes == 0);  // set_host_cache_limit frees what was kept
  CHECK(s0.limit_bytes == (std::size_t{256} << 20));
  const float* first = nullptr;
  {
    tl::tensor<float, 1> a = tl::full<float>(tl::shape_t<1>{big}, 3.0f);
    first = a.data();
  }
  const auto s1 = tl::host_memory_stats();
  if (!s1.enabled) {
    CHECK(s1.cached_bytes == 0);
    MESSAGE("the host block cache is off in this build (AddressSanitizer)");
    return;
  }
  CHECK(s1.cached_bytes >= big * sizeof(float));
  CHECK(s1.cached_bytes <= big * sizeof(float) * 9 / 8 + 64);
  // A slightly larger tensor falls into the same size class and gets the same block.
  tl::tensor<float, 1> b = tl::zeros<float>(big + 100);
  CHECK(b.data() == first);
  CHECK(tl::host_memory_stats().num_cache_hits == s1.num_cache_hits + 1);
  CHECK(tl::host_memory_stats().cached_bytes == 0);
  CHECK(tl::amax(tl::abs(b)).item() == 0.0f);  // zeros() writes its values: no stale 3s
  // A tensor of another class does not take it.
  tl::tensor<float, 1> c(tl::shape_t<1>{big / 2});
  CHECK(c.data() != first);
}

TEST_CASE("host cache: small tensors bypass it; the limit bounds it; 0 turns it off") {
  tl::set_host_cache_limit(std::size_t{8} << 20);
  const auto s0 = tl::host_memory_stats();
  { tl::tensor<float, 1> small = tl::ones<float>(1000); }
  CHECK(tl::host_memory_stats().cached_bytes == 0);
  CHECK(tl::host_memory_stats().num_cache_misses == s0.num_cache_misses);
  if (!s0.enabled) return;
  {
    // Three 4 MiB blocks freed: only one fits under the 8 MiB limit (each class holds 4 MiB + 64).
    tl::tensor<float, 1> a(tl::shape_t<1>{big}), b(tl::shape_t<1>{big}), c(tl::shape_t<1>{big});
  }
  const auto s1 = tl::host_memory_stats();
  CHECK(s1.cached_bytes > 0);
  CHECK(s1.cached_bytes <= (std::size_t{8} << 20));
  tl::empty_host_cache();
  CHECK(tl::host_memory_stats().cached_bytes == 0);
  CHECK(tl::host_memory_stats().limit_bytes == (std::size_t{8} << 20));
  tl::set_host_cache_limit(0);
  { tl::tensor<float, 1> a(tl::shape_t<1>{big}); }
  CHECK(tl::host_memory_stats().cached_bytes == 0);
  tl::set_host_cache_limit(std::size_t{256} << 20);
}

TEST_CASE("host cache: threads allocating and freeing large tensors keep their values apart") {
  tl::set_host_cache_limit(std::size_t{64} << 20);
  std::vector<std::thread> th;
  std::vector<int> bad(4, 0);
  for (int t = 0; t < 4; ++t)
    th.emplace_back([t, &bad] {
      for (int i = 0; i < 50; ++i) {
        // Raw loops, not tl's evaluator: the point is the allocator under concurrent use.
        const float v = static_cast<float>(t * 1000 + i);
        tl::tensor<float, 1> a(tl::shape_t<1>{big / 4 + 17 * t});
        tl::tensor<float, 1> b(tl::shape_t<1>{big / 4 + 17 * t});
        for (tl::index_t k = 0; k < a.numel(); ++k) a.data()[k] = v;
        for (tl::index_t k = 0; k < b.numel(); ++k) b.data()[k] = -v;
        for (tl::index_t k = 0; k < a.numel(); ++k)
          if (a.data()[k] != v || b.data()[k] != -v) {
            ++bad[t];
            break;
          }
      }
    });
  for (auto& x : th) x.join();
  for (int t = 0; t < 4; ++t) CHECK(bad[t] == 0);
  CHECK(tl::host_memory_stats().cached_bytes <= (std::size_t{64} << 20));
  tl::set_host_cache_limit(std::size_t{256} << 20);
}

TEST_CASE("host cache: an allocation the system refuses frees the kept blocks and is tried again") {
  tl::set_host_cache_limit(std::size_t{64} << 20);
  if (!tl::host_memory_stats().enabled) return;  // (AddressSanitizer aborts on such a request)
  { tl::tensor<float, 1> a(tl::shape_t<1>{big}); }
  CHECK(tl::host_memory_stats().cached_bytes > 0);
  // 2^42 floats (16 TiB): refused by the system allocator even after the cache is emptied.
  const tl::shape_t<1> huge{tl::index_t{1} << 42};
  auto make = [&] { return tl::tensor<float, 1>(huge); };
  CHECK_THROWS_AS(make(), std::bad_alloc);
  CHECK(tl::host_memory_stats().cached_bytes == 0);
  tl::set_host_cache_limit(std::size_t{256} << 20);
}

TEST_CASE("host cache: each thread reuses its freed small blocks (256 B to 256 KiB)") {
  if (!tl::host_memory_stats().enabled) return;  // off under AddressSanitizer, like the shared cache
  tl::empty_host_cache();
  const float* first = nullptr;
  { first = tl::full<float>(tl::shape_t<1>{5000}, 2.0f).data(); }
  // The same size class (20064 and 20464 bytes with the alignment slack: class 20480) on the same
  // thread gets the same block, and its own values.
  tl::tensor<float, 1> a = tl::zeros<float>(5100);
  CHECK(a.data() == first);
  CHECK(tl::amax(tl::abs(a)).item() == 0.0f);
  // A live block is never handed out twice.
  tl::tensor<float, 1> b = tl::zeros<float>(5100);
  CHECK(b.data() != a.data());
  // The shared cache's counters do not see these blocks.
  CHECK(tl::host_memory_stats().cached_bytes == 0);
  // Many sizes freed at once: at most 8 blocks (1 MiB) are kept, the rest go back to the system;
  // each later tensor still gets a block of its own.
  {
    std::vector<tl::tensor<double, 1>> many;
    for (int k = 0; k < 40; ++k) many.push_back(tl::full<double>(tl::shape_t<1>{100 + 300 * k}, 1.0 * k));
  }
  std::vector<tl::tensor<double, 1>> again;
  for (int k = 0; k < 40; ++k) again.push_back(tl::full<double>(tl::shape_t<1>{100 + 300 * k}, -1.0 * k));
  for (int k = 0; k < 40; ++k) {
    CHECK(again[k](0) == -1.0 * k);
    for (int j = 0; j < k; ++j) CHECK(again[k].data() != again[j].data());
  }
  // Blocks freed on a thread that then ends are released with it; tensors made there and freed
  // here are kept here (the check that fails without the per-thread blocks: glibc hands a freed
  // block of a thread's arena back to that arena).
  tl::tensor<float, 1> from_thread;
  std::thread([&] {
    { tl::tensor<float, 1> t = tl::ones<float>(3000); }
    from_thread = tl::ones<float>(7000);
  }).join();
  CHECK(tl::sum(from_thread).item() == 7000.0f);
  const float* kept = from_thread.data();
  from_thread = tl::tensor<float, 1>();
  tl::tensor<float, 1> c(tl::shape_t<1>{7000});
  CHECK(c.data() == kept);
  tl::empty_host_cache();
}
