// Logistic regression trained with autograd and plain gradient descent.
//
// Two Gaussian clouds in 2-D (centred at (-1.5, -1.5) for class 0 and (1.5, 1.5) for class 1), a
// weight vector and a bias that require gradients, and the binary cross-entropy written with tl ops
// in its stable softplus form: for a logit z and label y in {0, 1},
//   -y log(sigmoid(z)) - (1 - y) log(1 - sigmoid(z)) = softplus(z) - y z.
#define TL_AUTOGRAD 1  // before including tl: turns on recording for this translation unit
#include <cstdio>

#include <tl/tensor.hpp>

int main() {
  tl::manual_seed(0);
  const tl::index_t n = 500;

  // Labels 0 or 1, and points around (+-1.5, +-1.5): y * 2 - 1 is +1 or -1, broadcast over both coordinates.
  tl::tensor<float, 1> y = tl::astype<float>(tl::rand<float>(n) > 0.5f);
  tl::tensor<float, 2> x = tl::randn<float>(n, 2) + (y.unsqueeze(1) * 2.0f - 1.0f) * 1.5f;

  auto w = tl::zeros<float>(tl::shape_t<1>{2});
  auto b = tl::zeros<float>(tl::shape_t<0>{});
  w.requires_grad_();
  b.requires_grad_();

  const float lr = 0.5f;
  for (int step = 0; step <= 200; ++step) {
    tl::tensor<float, 1> z = tl::matmul(x, w) + b;                    // logits, shape [n]
    tl::tensor<float, 0> loss = tl::mean(tl::softplus(z) - y * z);  // binary cross-entropy
    loss.backward();
    {
      tl::no_grad guard;  // the update itself is not part of the model
      w -= lr * w.grad();
      b -= lr * b.grad();
    }
    w.zero_grad();
    b.zero_grad();
    if (step % 20 == 0) std::printf("step %3d  loss %.4f\n", step, static_cast<double>(loss.item()));
  }

  tl::no_grad guard;
  tl::tensor<float, 1> z = tl::matmul(x, w) + b;
  const float accuracy = tl::mean(tl::astype<float>((z > 0.0f) == (y > 0.5f))).item();
  std::printf("w = (%.3f, %.3f), b = %.3f\n", static_cast<double>(w(0)), static_cast<double>(w(1)),
              static_cast<double>(b.item()));
  std::printf("training accuracy: %.1f%%\n", 100.0 * accuracy);
  return 0;
}
