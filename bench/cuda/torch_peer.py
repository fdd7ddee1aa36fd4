"""PyTorch eager peer of bench_cuda_fused, on the same GPU and the same expressions.

    memory-bound:  r = a*b + c*d - e                  (64M floats)
    5-op:          r = a*b + c*sin(d) - exp(-e)       (64M floats)
    copy:          out.copy_(a)                       (64M floats, the bandwidth ceiling)
    20-op chain:   the 10 assignments of BM_eager_20op (64K floats, launch-bound)
    sum rows/cols: m.sum(1), m.sum(0)                 (8192 x 8192 floats)
    softmax:       torch.softmax(x, -1)               (8192 x 4096 floats; copy of the same bytes)
    matmul:        a @ b                              (float, double 4096^3; float 512 x 128^3)
    cholesky:      torch.linalg.cholesky(a)           (float, double 4096; 1024 float 64 x 64)
    solve:         torch.linalg.solve(a, b)           (float 4096 with 1 and 4096 columns, double with 1)
    eigh:          torch.linalg.eigh(s)               (float, double 1024)
    fft:           torch.fft.fft / rfft               (2^24 complex, 4096 x 4096 complex, 2^24 real)
    autograd:      the 10-op chain of bench_cuda_autograd (2^24 floats), forward and forward + backward

Each expression is written as a PyTorch user writes it: eager, one kernel and one fresh
temporary per op. Times are GPU times between two torch.cuda.Event records around one run,
the median of 20 runs after a warm-up. GB/s uses the byte counts of bench_cuda_fused (every
array read once and the result written once), so the columns compare directly with its
bytes_per_second.

    python3 bench/cuda/torch_peer.py
"""
import torch

N = 1 << 26
N_SMALL = 1 << 16
WARMUP = 5
RUNS = 20


def median_ms(fn):
    """Median GPU time of fn() in milliseconds over RUNS runs, after WARMUP untimed runs."""
    for _ in range(WARMUP):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(RUNS):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    times.sort()
    mid = len(times) // 2
    return times[mid] if len(times) % 2 else 0.5 * (times[mid - 1] + times[mid])


def report(name, ms, elements, arrays):
    gbps = elements * arrays * 4 / (ms * 1e-3) / 1e9
    print(f"{name:<24} {ms * 1e3:12.1f} us {gbps:10.1f} GB/s")


def report_flops(name, ms, flops):
    print(f"{name:<24} {ms * 1e3:12.1f} us {flops / (ms * 1e-3) / 1e12:10.2f} TFLOP/s")


def libraries(dev):
    """The rows of bench_cuda_libs: matmul, cholesky and fft with its sizes and counts."""
    torch.backends.cuda.matmul.allow_tf32 = False  # full fp32, as tl's cuBLAS calls
    n = 4096
    for dt, name in ((torch.float32, "float"), (torch.float64, "double")):
        a, b = torch.randn(n, n, device=dev, dtype=dt), torch.randn(n, n, device=dev, dtype=dt)
        report_flops(f"matmul_{name}_{n}", median_ms(lambda: a @ b), 2 * n**3)
        spd = a @ a.mT / n + torch.eye(n, device=dev, dtype=dt)
        report_flops(f"cholesky_{name}_{n}", median_ms(lambda: torch.linalg.cholesky(spd)), n**3 / 3)
        if dt == torch.float32:
            report_flops(f"cholesky_upper_{n}", median_ms(lambda: torch.linalg.cholesky(spd, upper=True)), n**3 / 3)
        del a, b, spd
    a, b = torch.randn(512, 128, 128, device=dev), torch.randn(512, 128, 128, device=dev)
    report_flops("matmul_batched_512x128", median_ms(lambda: a @ b), 2 * 512 * 128**3)
    a = torch.randn(1024, 64, 64, device=dev)
    spd = a @ a.mT / 64 + torch.eye(64, device=dev)
    report_flops("cholesky_batched_1024x64", median_ms(lambda: torch.linalg.cholesky(spd)), 1024 * 64**3 / 3)
    del a, b, spd
    for dt, name in ((torch.float32, "float"), (torch.float64, "double")):
        n = 4096
        a = torch.randn(n, n, device=dev, dtype=dt) + n * torch.eye(n, device=dev, dtype=dt)
        for k in ((1, 4096) if dt == torch.float32 else (1,)):
            b = torch.randn(n, k, device=dev, dtype=dt)
            report_flops(f"solve_{name}_{n}x{k}", median_ms(lambda: torch.linalg.solve(a, b)),
                         2 * n**3 / 3 + 2 * n * n * k)
        n = 1024
        g = torch.randn(n, n, device=dev, dtype=dt)
        s = (g + g.mT) * 0.5
        report_flops(f"eigh_{name}_{n}", median_ms(lambda: torch.linalg.eigh(s)), n**3)
    x = torch.randn(1 << 24, device=dev, dtype=torch.complex64)
    report("fft_1d_2^24", median_ms(lambda: torch.fft.fft(x)), (1 << 24) * 2, 2)  # complex: 2 floats
    x = torch.randn(4096, 4096, device=dev, dtype=torch.complex64)
    report("fft_rows_4096x4096", median_ms(lambda: torch.fft.fft(x)), 4096 * 4096 * 2, 2)
    x = torch.randn(1 << 24, device=dev)
    report("rfft_1d_2^24", median_ms(lambda: torch.fft.rfft(x)), (1 << 24) + ((1 << 23) + 1) * 2, 1)


def autograd_chain(dev):
    """The rows of bench_cuda_autograd: the 10-op chain over 2^24 floats, forward and backward."""
    n = 1 << 24
    x = torch.randn(n, device=dev).requires_grad_()
    w = torch.randn(n, device=dev).requires_grad_()

    def loss():
        return torch.tanh(torch.sin(x) * w + torch.exp(-(x * x)) - torch.sigmoid(w) * x).sum()

    def step():
        loss().backward()
        x.grad = None
        w.grad = None

    # x and w read, their gradients written: 4 arrays, as counted by bench_cuda_autograd
    report("autograd_chain_forward", median_ms(loss), n, 4)
    report("autograd_chain_total", median_ms(step), n, 4)


def main():
    if not torch.cuda.is_available():
        print("no CUDA device: skipping the GPU benchmarks")
        return
    dev = torch.device("cuda", 0)
    print(f"CUDA device 0: {torch.cuda.get_device_name(dev)} (torch {torch.__version__})")
    torch.manual_seed(42)

    with torch.inference_mode():
        a, b, c, e = (torch.randn(N, device=dev) for _ in range(4))
        d = torch.rand(N, device=dev) * 7.0 - 3.5  # angles in [-3.5, 3.5), as in the C++ benchmark
        out = torch.empty(N, device=dev)

        # 1 read + 1 write
        report("copy_d2d", median_ms(lambda: out.copy_(a)), N, 2)
        # 5 reads + 1 write
        report("torch_memory_bound", median_ms(lambda: a * b + c * d - e), N, 6)
        report("torch_5op", median_ms(lambda: a * b + c * torch.sin(d) - torch.exp(-e)), N, 6)

        x = torch.randn(N_SMALL, device=dev)

        def chain():
            y = x * 0.5 + 0.25
            z = torch.sin(y) * 0.9
            y = z * z + x
            z = torch.tanh(y) - 0.1
            y = torch.exp(-z)
            z = y * x - 1.0
            y = torch.abs(z) + 1.0
            z = torch.sqrt(y) * 0.5
            y = torch.cos(z) + z
            return torch.sigmoid(y) * x

        # 13 reads + 10 writes, as counted for BM_eager_20op (torch launches 20 kernels, not 10)
        report("torch_eager_20op", median_ms(chain), N_SMALL, 23)

        # Reductions and softmax, with the byte counts of BM_tl_sum_rows / _cols / BM_tl_softmax_last:
        # the input read once and the result written once.
        del a, b, c, d, e, out, x
        m = torch.rand(8192, 8192, device=dev)
        report("torch_sum_rows", median_ms(lambda: m.sum(1)), 8192 * 8192 + 8192, 1)
        report("torch_sum_cols", median_ms(lambda: m.sum(0)), 8192 * 8192 + 8192, 1)
        del m
        xs = torch.randn(8192, 4096, device=dev)
        out_s = torch.empty_like(xs)
        report("copy_d2d_softmax", median_ms(lambda: out_s.copy_(xs)), 8192 * 4096, 2)
        report("torch_softmax_last", median_ms(lambda: torch.softmax(xs, -1)), 8192 * 4096, 2)
        del xs, out_s
        libraries(dev)
    autograd_chain(dev)


if __name__ == "__main__":
    main()
