// Finding the tones in a noisy signal with tl::fft: three sine waves (50, 120 and 333 Hz) buried
// in Gaussian noise of twice the weakest tone's amplitude, sampled at 1 kHz for ~4 s. A Hann
// window, one real FFT, the magnitude spectrum, and its local maxima well above the noise floor
// give the frequencies back; rfftfreq labels the bins.
//
// The example checks that exactly the three tones are found, each within one bin (0.24 Hz).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <tl/tensor.hpp>
#include <vector>

int main() {
  const tl::index_t n = 4096;
  const double fs = 1000.0, pi = std::numbers::pi;
  const double tones[] = {50.0, 120.0, 333.0}, amps[] = {1.0, 0.5, 0.25};

  tl::manual_seed(7);
  const auto t = tl::arange<double>(0.0, static_cast<double>(n), 1.0) / fs;
  tl::tensor<double, 1> x = 0.5 * tl::randn<double>(n);
  for (int k = 0; k < 3; ++k) x = x + amps[k] * tl::sin(2 * pi * tones[k] * t);

  // Hann window, then the one-sided spectrum (n / 2 + 1 bins, "forward" norm: amplitude / 2 per tone
  // before windowing losses).
  const auto i = tl::arange<double>(0.0, static_cast<double>(n), 1.0);
  const tl::tensor<double, 1> w = 0.5 - 0.5 * tl::cos(2 * pi * i / static_cast<double>(n));
  const auto spec = tl::fft::rfft(x * w, {}, -1, "forward");
  const tl::tensor<double, 1> mag = tl::abs(spec);
  const auto freq = tl::fft::rfftfreq<double>(n, 1.0 / fs);

  // The noise floor: the median magnitude; peaks must stand 10x above it.
  std::vector<double> m(mag.data(), mag.data() + mag.numel());
  std::nth_element(m.begin(), m.begin() + m.size() / 2, m.end());
  const double floor = m[m.size() / 2];

  std::vector<double> found;
  for (tl::index_t k = 1; k + 1 < mag.numel(); ++k)
    if (mag(k) > 10 * floor && mag(k) >= mag(k - 1) && mag(k) > mag(k + 1)) {
      std::printf("peak at %7.2f Hz, amplitude ~%.2f\n", freq(k), 4 * mag(k));  // x2 one-sided, x2 Hann
      found.push_back(freq(k));
    }

  bool ok = found.size() == 3;
  for (std::size_t k = 0; ok && k < 3; ++k) ok = std::abs(found[k] - tones[k]) <= fs / n;
  std::printf("noise floor %.4f; %s\n", floor, ok ? "found the three tones" : "MISSED the tones");
  return ok ? 0 : 1;
}
