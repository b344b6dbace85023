// The GPU evaluator: background compiles, kernel constraints, verification against
// the host reference, and event timing of whole Scanner calls over rotated buffers.
#include "tuner/gpu/gpu_evaluator.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "algorithms.hpp"
#include "cache/kernel_cache.hpp"
#include "cuda_check.hpp"
#include "default_policies.hpp"
#include "kernel_registry.hpp"
#include "scan_request.hpp"
#include "struct_values.hpp"
#include "tuner/gpu/gpu_support.hpp"
#include "tuner/gpu/helper_compiler.hpp"
#include "tuner/gpu/reference.hpp"
#include "tuner/search/search_space.hpp"

namespace scantune::tuner {
namespace {

using db::MeasurementStatus;
constexpr std::size_t kAlignBytes = 256;

std::uint64_t rotation_bytes(std::uint64_t l2_bytes) {
  // Four times the L2: by the time a buffer pair comes round again, it has left the cache.
  return std::max<std::uint64_t>(4 * l2_bytes, std::uint64_t{64} << 20);
}

// Elements of each pool: a rotation's bytes at `bytes` per element (the wider of a
// converting scan's input and output), and at least max_n.
std::uint64_t pool_elements(std::size_t bytes, std::uint64_t max_n, std::uint64_t l2_bytes) {
  return std::max<std::uint64_t>(max_n, rotation_bytes(l2_bytes) / bytes);
}

struct DeviceBuffer {
  void* ptr = nullptr;
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (ptr) SCANTUNE_CUDA_WARN(cudaFree(ptr));
  }
  void allocate(std::size_t bytes, const char* what) {
    if (ptr) SCANTUNE_CUDA_TRY(cudaFree(ptr));
    ptr = nullptr;
    const cudaError_t e = cudaMalloc(&ptr, std::max<std::size_t>(bytes, 1));
    if (e != cudaSuccess) {
      cudaGetLastError();
      ptr = nullptr;
      detail::fail<detail::CudaError>("cannot allocate {} MiB of device memory for the {}: {}",
                                      bytes >> 20, what, cudaGetErrorString(e));
    }
  }
};

/// The first line of a (possibly long) message, for the DB and the log.
std::string first_lines(const std::string& s, std::size_t max_chars = 400) {
  return s.size() <= max_chars ? s : s.substr(0, max_chars) + " ...";
}

} // namespace

std::uint64_t gpu_evaluator_bytes(DataType type, std::uint64_t max_n, std::uint64_t l2_bytes,
                                  std::uint64_t extra_per_element) {
  const std::uint64_t e = size_of(type);
  return 2 * pool_elements(e, max_n, l2_bytes) * e + max_n * (e + extra_per_element);
}

struct GpuEvaluator::Impl {
  Scanner& scanner;
  KernelCache* cache;
  Problem problem;
  GpuEvaluatorOptions options;
  std::uint64_t max_n;
  ScanTypes types;               // problem.types()
  std::size_t in_size, out_size; // bytes of an input and an output element
  std::size_t wide_size;         // the wider of the two: each pool's element
  int device = 0, arch = 0;
  std::uint64_t l2 = 0;
  std::size_t shared_limit = kMaxDynamicSharedBytes; // per block, opted in
  ValueSet set;
  std::uint64_t init = 0;
  std::uint64_t pool_elems = 0;
  DeviceBuffer in_pool, out_pool, ref, cub_temp;
  DeviceBuffer heads, keys; // segmented: flags (not for rows), CUB's int32 keys (not by key)
  DeviceBuffer words;       // keys or CSR offsets of the problem's word size
  // Offsets: every segment start of max_n, then max_n. A call of n elements reads the
  // starts below n and one end entry: the entry at `patched` holds `patched_n` (written
  // when the size changes, outside the timed loops, which repeat one size).
  std::vector<std::uint64_t> starts;
  std::size_t patched = 0;
  std::uint64_t patched_n = 0;
  std::size_t cub_temp_bytes = 0;
  cudaStream_t stream = nullptr;
  cudaEvent_t ev_start = nullptr, ev_stop = nullptr;
  double hold_ns = 20e3; // the GPU wait before a sample's calls (sample())
  double setup_s = 0;
  double tolerance = 0;

  struct Candidate {
    bool checked = false; // kernels, constraints and the adversarial sizes done
    std::optional<Result> failure;
    std::set<std::uint64_t> verified; // sizes verified
    std::optional<int> registers, spill_bytes;
  };
  std::map<std::string, Candidate> candidates;
  std::set<std::uint64_t> cub_verified, dispatch_verified;

  // Background compiles.
  std::mutex mutex;
  std::condition_variable cv;
  std::deque<Policy> queue;
  std::set<std::string> queued;
  bool stopping = false;
  std::vector<std::thread> workers;

  Impl(Scanner& s, KernelCache* c, const Problem& p, std::uint64_t n, GpuEvaluatorOptions o)
      : scanner(s), cache(c), problem(p), options(o), max_n(std::max<std::uint64_t>(n, 1)),
        types(p.types()), in_size(p.in_bytes()), out_size(p.out_bytes()),
        wide_size(std::max(in_size, out_size)) {
    device = scanner.device();
    if (device < 0) detail::fail<detail::NoDevice>("no CUDA device for the GPU evaluator");
    SCANTUNE_CUDA_TRY(cudaSetDevice(device));
    cudaDeviceProp prop{};
    SCANTUNE_CUDA_TRY(cudaGetDeviceProperties(&prop, device));
    arch = prop.major * 10 + prop.minor;
    shared_limit = prop.sharedMemPerBlockOptin;
    l2 = static_cast<std::uint64_t>(prop.l2CacheSize);
    set = value_set_for(p.type, p.op.op, p.op.is_custom);
    init = init_bits(p.type, p.op.op, p.op.is_custom);
    if (p.op.is_custom && (p.type == DataType::Float32 || p.type == DataType::Float64))
      tolerance = p.type == DataType::Float32 ? 1e-5 : 1e-12;
    if (p.struct_bytes()) { // every word a float of +-1: see fill_struct_words
      set = ValueSet::Signs;
      tolerance = 1e-5;
    }
    SCANTUNE_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    SCANTUNE_CUDA_TRY(cudaEventCreate(&ev_start));
    SCANTUNE_CUDA_TRY(cudaEventCreate(&ev_stop));

    const auto t0 = std::chrono::steady_clock::now();
    pool_elems = pool_elements(wide_size, max_n, l2);
    // Both pools hold pool_elems wide elements: a converting scan's memcpy baseline
    // copies the bytes of its input and output (time_memcpy) from either side.
    in_pool.allocate(pool_elems * wide_size, "inputs");
    out_pool.allocate(pool_elems * wide_size, "outputs");
    ref.allocate(max_n * out_size, "reference");
    if (p.struct_bytes())
      fill_struct_words();
    else
      gpu::fill_input(types.in, set, options.seed, 0, pool_elems * wide_size / in_size, in_pool.ptr,
                      stream);
    SCANTUNE_CUDA_TRY(cudaMemsetAsync(out_pool.ptr, 0, pool_elems * wide_size, stream));
    if (p.converts && (p.op.is_custom || !problem.segments.flat()))
      detail::fail("{}: converting scans are tuned flat, with built-in operators", p.label());
    if (p.converts) {
      upload_reference(reference_scan(types, p.op.op, p.kind, set, options.seed, max_n, init));
    } else if (p.op.is_custom) {
      if (!problem.segments.flat())
        detail::fail("{}: segmented scans of custom operators have no host reference", p.label());
      make_custom_reference();
    } else if (problem.segments.axis()) {
      const Segmentation& a = problem.segments;
      upload_reference(reference_axis_scan(p.type, p.op.op, p.kind, set, options.seed,
                                           a.elements(max_n) / (a.length * a.inner), a.length,
                                           a.inner, init));
    } else {
      const std::vector<std::uint8_t> flags =
          problem.segments.flat() ? std::vector<std::uint8_t>() : upload_segments();
      upload_reference(reference_scan(p.type, p.op.op, p.kind, set, options.seed, max_n, init,
                                      flags.empty() ? nullptr : flags.data()));
    }
    setup_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    unsigned threads = options.compile_threads;
    // Two cores stay free: the timing thread enqueues launches, and tiny inputs are
    // timed host-bound, so contention would show up as noise.
    if (threads == 0)
      threads = static_cast<unsigned>(
          std::max(1, static_cast<int>(std::thread::hardware_concurrency()) - 2));
    for (unsigned t = 0; t < threads; ++t)
      workers.emplace_back([this] { compile_loop(); });
  }

  ~Impl() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping = true;
      queue.clear();
    }
    cv.notify_all();
    for (auto& w : workers)
      w.join();
    if (stream) {
      SCANTUNE_CUDA_WARN(cudaStreamSynchronize(stream));
      SCANTUNE_CUDA_WARN(cudaStreamDestroy(stream));
    }
    if (ev_start) SCANTUNE_CUDA_WARN(cudaEventDestroy(ev_start));
    if (ev_stop) SCANTUNE_CUDA_WARN(cudaEventDestroy(ev_stop));
  }

  // ---- compiling

  std::shared_ptr<const detail::KernelSet>
  kernels(const Policy& policy, const detail::KernelRegistry::Compiler* compiler = nullptr) {
    return detail::KernelRegistry::instance().get(problem.spec(policy), arch, cache, compiler);
  }

  void compile_loop() {
    cudaSetDevice(device);
    HelperCompiler compiler(options.compile_worker);
    while (true) {
      Policy p;
      {
        std::unique_lock<std::mutex> lock(mutex);
        cv.wait(lock, [&] { return stopping || !queue.empty(); });
        if (stopping) return;
        p = queue.front();
        queue.pop_front();
      }
      compiler.run([&](const detail::KernelRegistry::Compiler* c) { kernels(p, c); });
    }
  }

  // The latest hint is the nearest need: its policies not yet taken by a worker go
  // to the front of the queue, in its order, ahead of earlier hints.
  void prefetch(const std::vector<Policy>& policies) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      std::set<std::string> waiting, hinted;
      for (const Policy& p : queue)
        waiting.insert(p.key());
      std::deque<Policy> next;
      for (const Policy& p : policies) {
        const std::string key = p.key();
        if ((waiting.count(key) || queued.insert(key).second) && hinted.insert(key).second)
          next.push_back(p);
      }
      for (const Policy& p : queue)
        if (!hinted.count(p.key())) next.push_back(p);
      queue.swap(next);
    }
    cv.notify_all();
  }

  /// Struct values: each 4-byte word a float of +-1, whatever the struct's fields.
  /// The library's operators then combine exactly in any order (the linear
  /// recurrence's products stay +-1 and its sums integers far below 2^24; argmax
  /// compares), so every policy's output matches the reference bit for bit.
  void fill_struct_words() {
    gpu::fill_input(DataType::Float32, set, options.seed, 0, pool_elems * wide_size / 4,
                    in_pool.ptr, stream);
  }

  /// Compares n values of the output type (struct values: word by word, as floats).
  gpu::CompareResult compare(const void* got, const void* want, std::uint64_t n) {
    if (!problem.struct_bytes()) return gpu::compare(types.out, got, want, n, tolerance, stream);
    // A struct's words compare as floats within the tolerance, or by their bits: integer
    // fields (argmax's index: all ones in the identity) read as NaN.
    const std::size_t words = problem.struct_bytes() / 4;
    gpu::CompareResult c =
        gpu::compare(DataType::Float32, got, want, n * words, tolerance, stream, true);
    c.first /= words;
    return c;
  }

  void upload_reference(const std::vector<unsigned char>& host) {
    SCANTUNE_CUDA_TRY(
        cudaMemcpyAsync(ref.ptr, host.data(), host.size(), cudaMemcpyHostToDevice, stream));
    SCANTUNE_CUDA_TRY(cudaStreamSynchronize(stream)); // before `host` goes
  }

  // ---- running

  const void* in_slot(std::size_t slot, std::uint64_t n) const {
    return static_cast<const char*>(in_pool.ptr) + slot * stride_bytes(n, in_size);
  }
  void* out_slot(std::size_t slot, std::uint64_t n) const {
    return static_cast<char*>(out_pool.ptr) + slot * stride_bytes(n, out_size);
  }
  static std::size_t stride_bytes(std::uint64_t n, std::size_t size) {
    return (n * size + kAlignBytes - 1) / kAlignBytes * kAlignBytes;
  }
  std::size_t slots(std::uint64_t n) const {
    const std::size_t fit =
        std::max<std::size_t>(1, pool_elems * wide_size / stride_bytes(n, wide_size));
    if (options.hot) return 1;
    const std::uint64_t pair = n * (in_size + out_size);
    const std::uint64_t want = (rotation_bytes(l2) + pair - 1) / pair;
    return static_cast<std::size_t>(std::clamp<std::uint64_t>(want, 1, fit));
  }

  /// Uploads the head flags (not for rows) and the keys CUB reads of elements [0, max_n);
  /// returns the flags, which the host reference takes.
  std::vector<std::uint8_t> upload_segments() {
    std::vector<std::uint8_t> flags = head_flags(problem.segments, options.seed, max_n);
    if (problem.segments.has_flags()) {
      heads.allocate(max_n, "head flags");
      SCANTUNE_CUDA_TRY(
          cudaMemcpyAsync(heads.ptr, flags.data(), max_n, cudaMemcpyHostToDevice, stream));
    }
    // By 64-bit keys neither the kernel nor CUB reads int32 keys: none are made.
    const std::vector<std::int32_t> host_keys =
        problem.segments.kind == Segmentation::Kind::Keys && problem.segments.word_bytes == 8
            ? std::vector<std::int32_t>{}
            : segment_keys(flags);
    if (problem.segments.kind == Segmentation::Kind::Keys) {
      // CUB reads these keys too (time_cub_by_key).
      if (problem.segments.word_bytes == 8)
        upload_words(segment_keys64(flags), "segment keys");
      else
        upload_words(std::vector<std::uint32_t>(host_keys.begin(), host_keys.end()),
                     "segment keys");
    } else {
      keys.allocate(max_n * sizeof(std::int32_t), "CUB's segment keys");
      SCANTUNE_CUDA_TRY(cudaMemcpyAsync(keys.ptr, host_keys.data(), max_n * sizeof(std::int32_t),
                                        cudaMemcpyHostToDevice, stream));
    }
    if (problem.segments.kind == Segmentation::Kind::Offsets) {
      starts = segment_starts(flags);
      starts.push_back(max_n);
      patched = starts.size() - 1;
      patched_n = max_n;
      if (problem.segments.word_bytes == 8)
        upload_words(starts, "segment offsets");
      else
        upload_words(std::vector<std::uint32_t>(starts.begin(), starts.end()), "segment offsets");
    }
    SCANTUNE_CUDA_TRY(cudaStreamSynchronize(stream)); // before host_keys goes
    return flags;
  }

  template <class W>
  void upload_words(const std::vector<W>& host, const char* what) {
    words.allocate(host.size() * sizeof(W), what);
    SCANTUNE_CUDA_TRY(cudaMemcpyAsync(words.ptr, host.data(), host.size() * sizeof(W),
                                      cudaMemcpyHostToDevice, stream));
    SCANTUNE_CUDA_TRY(cudaStreamSynchronize(stream)); // before `host` goes
  }

  /// Writes `value` as the offset at `index`, in the problem's word size.
  void write_offset(std::size_t index, std::uint64_t value) {
    const std::size_t w = static_cast<std::size_t>(problem.segments.word_bytes);
    const auto narrow = static_cast<std::uint32_t>(value);
    SCANTUNE_CUDA_TRY(cudaMemcpyAsync(static_cast<char*>(words.ptr) + index * w,
                                      w == 8 ? static_cast<const void*>(&value) : &narrow, w,
                                      cudaMemcpyHostToDevice, stream));
    SCANTUNE_CUDA_TRY(cudaStreamSynchronize(stream)); // before `value` goes
  }

  /// The CSR offsets of a call of n elements: the starts below n, then n.
  Segments offsets_for(std::uint64_t n) {
    const auto end = static_cast<std::size_t>(
        std::lower_bound(starts.begin(), starts.end() - 1, n) - starts.begin());
    if (end != patched) write_offset(patched, starts[patched]);
    if (end != patched || n != patched_n) write_offset(end, n);
    patched = end;
    patched_n = n;
    Segments s;
    s.offsets = words.ptr;
    s.num_segments = end;
    s.word_bytes = problem.segments.word_bytes;
    return s;
  }

  Segments segments(std::uint64_t n) {
    switch (problem.segments.kind) {
    case Segmentation::Kind::Flags:
    case Segmentation::Kind::RandomFlags:
      return Segments::flags(heads.ptr);
    case Segmentation::Kind::Rows:
      return Segments::rows(problem.segments.length);
    case Segmentation::Kind::Keys: {
      Segments s;
      s.keys = words.ptr;
      s.word_bytes = problem.segments.word_bytes;
      return s;
    }
    case Segmentation::Kind::Offsets:
      return offsets_for(n);
    default:
      return {};
    }
  }

  /// One Scanner call; `policy` null = the scanner's own choice (tuning DB, defaults).
  void scan(const Policy* policy, std::uint64_t n, const void* in, void* out) {
    ScanRequest r;
    r.set_types(types);
    r.kind = problem.kind;
    r.op = problem.op.is_custom ? OpRef(problem.op.custom) : OpRef(problem.op.op);
    r.in = in;
    r.out = out;
    r.n = n;
    r.init = problem.struct_bytes() ? nullptr : &init; // structs start at the identity
    r.stream = stream;
    r.policy = policy;
    const Segmentation& seg = problem.segments;
    if (seg.axis())
      detail::set_axis(r, seg.elements(n) / (seg.length * seg.inner), seg.length, seg.inner);
    else
      r.segments = segments(n);
    scantune::detail::ScannerAccess::scan(scanner, r);
  }

  /// Custom operators have no host reference: the one-thread sequential kernel (the
  /// definition of the scan) checks the default policy on a prefix, and the default
  /// policy's output over max_n becomes the reference.
  void make_custom_reference() {
    const std::uint64_t n0 = std::min<std::uint64_t>(max_n, 1 << 16);
    const Policy seq = Policy::sequential();
    const Policy def = problem.struct_bytes()
                           ? detail::default_struct_policy(problem.struct_bytes(), max_n)
                           : detail::default_policy(problem.type, max_n);
    scan(&seq, n0, in_pool.ptr, ref.ptr);
    scan(&def, max_n, in_pool.ptr, out_pool.ptr);
    const gpu::CompareResult c = compare(out_pool.ptr, ref.ptr, n0);
    if (c.mismatches)
      detail::fail("custom operator {}: the default policy {} disagrees with the sequential scan "
                   "at {} of {} elements (first at {})",
                   problem.op_name(), def.key(), c.mismatches, n0, c.first);
    SCANTUNE_CUDA_TRY(
        cudaMemcpyAsync(ref.ptr, out_pool.ptr, max_n * out_size, cudaMemcpyDeviceToDevice, stream));
    SCANTUNE_CUDA_TRY(cudaStreamSynchronize(stream));
  }

  /// Runs `run` on slot 0 over poisoned output and compares with the reference.
  template <class Run>
  std::optional<std::string> check(std::uint64_t n, const Run& run) {
    SCANTUNE_CUDA_TRY(cudaMemsetAsync(out_slot(0, n), 0xA5, n * out_size, stream));
    run(in_slot(0, n), out_slot(0, n));
    const std::uint64_t m = problem.segments.elements(n); // an axis scan's whole slices
    const gpu::CompareResult c = compare(out_slot(0, n), ref.ptr, m);
    if (!c.mismatches) return std::nullopt;
    return fmt::format("n = {}: {} of {} elements differ from the reference, the first at {}", n,
                       c.mismatches, m, c.first);
  }

  /// Sizes around the policy's tile boundaries, odd sizes and a prime, and enough
  /// tiles for more than one look-back window.
  std::vector<std::uint64_t> adversarial_sizes(const Policy& p) const {
    const std::uint64_t t = p.algorithm == Algorithm::Sequential ? 1 : p.tile_items();
    std::set<std::uint64_t> s{1, 2, 31, 33, t - 1, t, t + 1, 2 * t + 7, 7919};
    if (p.algorithm != Algorithm::Sequential) s.insert(37 * t + 5);
    const Segmentation& seg = problem.segments;
    if (seg.axis()) // one, three and t + 1 outer slices
      s.insert(
          {seg.length * seg.inner, 3 * seg.length * seg.inner, (t + 1) * seg.length * seg.inner});
    std::vector<std::uint64_t> out;
    for (std::uint64_t n : s)
      if (n >= 1 && n <= max_n && seg.elements(n) > 0) out.push_back(n);
    return out;
  }

  Result failed(const Policy& p, std::uint64_t n, MeasurementStatus st, std::string msg) {
    Result r;
    r.policy = p;
    r.size = n;
    r.status = st;
    r.message = first_lines(msg);
    return r;
  }

  /// Kernels, constraints and adversarial verification, once per candidate.
  Candidate& prepare(const Policy& policy) {
    Candidate& c = candidates[policy.key()];
    if (c.checked) return c;
    c.checked = true;
    std::shared_ptr<const detail::KernelSet> set;
    try {
      set = kernels(policy);
    } catch (const detail::CompileError& e) {
      c.failure = failed(policy, 0, MeasurementStatus::CompileError, e.what());
      return c;
    } catch (const std::exception&) {
      // Not NVRTC's verdict (a compile helper gone under a background compile this
      // call waited on): compiled again, here, before anything is stored.
      try {
        set = kernels(policy);
      } catch (const std::exception& e) {
        c.failure = failed(policy, 0, MeasurementStatus::CompileError, e.what());
        return c;
      }
    }
    int regs = 0, spill = 0;
    for (const auto& a : set->attributes) {
      regs = std::max(regs, a.numRegs);
      spill = std::max(spill, static_cast<int>(a.localSizeBytes));
    }
    c.registers = regs;
    c.spill_bytes = spill;
    if (auto why = kernel_constraint(
            policy, set->attributes,
            detail::dynamic_shared_bytes(policy, problem.types(), problem.segments.heads()),
            shared_limit)) {
      c.failure = failed(policy, 0, MeasurementStatus::Rejected, *why);
      return c;
    }
    try {
      for (std::uint64_t n : adversarial_sizes(policy))
        if (auto wrong = check(n, [&](const void* in, void* out) { scan(&policy, n, in, out); })) {
          c.failure = failed(policy, 0, MeasurementStatus::WrongResult, *wrong);
          return c;
        }
    } catch (const std::exception& e) {
      c.failure = failed(policy, 0, MeasurementStatus::LaunchError, e.what());
    }
    return c;
  }

  /// One sample: `calls` back-to-back calls over the rotation, per-call ns. Several
  /// calls are queued behind a GPU wait long enough for the host to enqueue them all
  /// (gpu::hold_stream), so the sample times the GPU: short calls timed as the host
  /// launches them moved by 50% between runs on the H100 with the host's state. The
  /// wait is 1.5x the host's last enqueue time; when it ended before the last call was
  /// enqueued (the host was slower), the sample is taken again once.
  template <class Call>
  double sample(std::uint64_t n, int calls, std::size_t& next, const Call& call) {
    const std::size_t count = slots(n);
    const bool hold = !options.host_bound && calls > 1;
    for (int attempt = 0;; ++attempt) {
      if (hold) gpu::hold_stream(stream, hold_ns);
      const auto t0 = std::chrono::steady_clock::now();
      SCANTUNE_CUDA_TRY(cudaEventRecord(ev_start, stream));
      for (int i = 0; i < calls; ++i) {
        call(in_slot(next, n), out_slot(next, n));
        if (++next == count) next = 0;
      }
      const cudaError_t started = hold ? cudaEventQuery(ev_start) : cudaSuccess;
      if (started == cudaErrorNotReady) (void)cudaGetLastError(); // a state, not an error
      const double enqueue_ns =
          std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
      hold_ns = std::clamp(1.5 * enqueue_ns, 20e3, 50e6);
      SCANTUNE_CUDA_TRY(cudaEventRecord(ev_stop, stream));
      SCANTUNE_CUDA_TRY(cudaEventSynchronize(ev_stop));
      float ms = 0;
      SCANTUNE_CUDA_TRY(cudaEventElapsedTime(&ms, ev_start, ev_stop));
      if (!hold || started == cudaErrorNotReady || attempt == 1)
        return static_cast<double>(ms) * 1e6 / calls;
    }
  }

  template <class Call>
  SamplingOutcome time(std::uint64_t n, Effort effort, double limit_ns, const Call& call) {
    std::size_t next = 0;
    call(in_slot(0, n), out_slot(0, n)); // warm-up
    const double estimate = sample(n, 1, next, call);
    const int calls = calls_per_sample(estimate);
    return sample_until_stable([&] { return sample(n, calls, next, call); }, plan_for(effort),
                               limit_ns);
  }

  Result measure(const Policy& policy, std::uint64_t n, Effort effort, double limit_ns) {
    Candidate& c = prepare(policy);
    if (c.failure) {
      Result r = *c.failure;
      r.size = n;
      return r;
    }
    Result r;
    r.policy = policy;
    r.size = n;
    r.registers = c.registers;
    r.spill_bytes = c.spill_bytes;
    try {
      if (!c.verified.count(n)) {
        if (auto wrong = check(n, [&](const void* in, void* out) { scan(&policy, n, in, out); })) {
          c.failure = failed(policy, n, MeasurementStatus::WrongResult, *wrong);
          Result f = *c.failure;
          f.registers = c.registers;
          f.spill_bytes = c.spill_bytes;
          return f;
        }
        c.verified.insert(n);
      }
      const SamplingOutcome t =
          time(n, effort, limit_ns, [&](const void* in, void* out) { scan(&policy, n, in, out); });
      r.median_ns = t.stats.median_ns;
      r.min_ns = t.stats.min_ns;
      r.max_ns = t.stats.max_ns;
      r.samples = t.stats.samples;
      r.noise = t.stats.noise;
      if (t.over_limit) {
        r.status = MeasurementStatus::Timeout;
        r.message = fmt::format("stopped: over the limit of {:.0f} ns per call", limit_ns);
      }
    } catch (const std::exception& e) {
      SCANTUNE_CUDA_WARN(cudaStreamSynchronize(stream));
      return failed(policy, n, MeasurementStatus::LaunchError, e.what());
    }
    return r;
  }

  BaselineResult time_memcpy(std::uint64_t n) {
    BaselineResult b;
    // A copy of the scan's bytes: it reads and writes n * (in + out) / 2 bytes each,
    // no more than n wide elements, which each pool holds from any slot on (its
    // rotation spills into the next slots, whose data nothing verifies).
    const std::size_t bytes = n * (in_size + out_size) / 2;
    const SamplingOutcome t = time(n, Effort::Confirm, 0, [&](const void* in, void* out) {
      SCANTUNE_CUDA_TRY(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice, stream));
    });
    b.ok = true;
    b.stats = t.stats;
    return b;
  }

  void reserve_cub_temp(std::size_t need) {
    if (need <= cub_temp_bytes) return;
    SCANTUNE_CUDA_TRY(cudaStreamSynchronize(stream)); // the old buffer may still be in use
    cub_temp.allocate(need, "CUB temporary storage");
    cub_temp_bytes = need;
  }

  BaselineResult time_cub(std::uint64_t n) {
    if (problem.segments.axis()) {
      BaselineResult b;
      b.error = "no CUB baseline for " + problem.label() + " (CUB has no axis scan)";
      return b;
    }
    if (!problem.segments.flat()) return time_cub_by_key(n);
    if (problem.converts) return time_cub_converting(n);
    BaselineResult b;
    if (problem.struct_bytes()) {
      b.error = "no CUB baseline for " + problem.label() +
                " in the tuner (struct values: see bench/struct_bench.cu)";
      return b;
    }
    // A custom operator has a CUB baseline only as a sample with a compiled twin.
    const std::optional<Twin> twin =
        problem.op.is_custom ? custom_op_twin(problem.op.custom, problem.type) : std::nullopt;
    if (problem.op.is_custom ? !twin : !gpu::cub_supports(problem.type, problem.op.op)) {
      b.error = "no CUB baseline for " + problem.label();
      return b;
    }
    const Op op = problem.op.op;
    reserve_cub_temp(gpu::cub_temp_bytes(problem.type, op, problem.kind, n, twin));
    const auto call = [&](const void* in, void* out) {
      gpu::cub_scan(problem.type, op, problem.kind, in, out, n, &init, cub_temp.ptr, cub_temp_bytes,
                    stream, twin);
    };
    return verified_timing(n, "CUB", cub_verified, call);
  }

  // Inclusive sums of the type triples the tuner compiles CUB for (gpu_support.hpp);
  // bench/types_bench.cu compares CUB on the others.
  BaselineResult time_cub_converting(std::uint64_t n) {
    const ScanTypes& types = *problem.converts;
    if (problem.op.is_custom || !gpu::cub_convert_supports(types, problem.op.op, problem.kind)) {
      BaselineResult b;
      b.error = "no CUB baseline for " + problem.label() +
                " in the tuner (inclusive sums of the listed converting types only)";
      return b;
    }
    reserve_cub_temp(gpu::cub_convert_temp_bytes(types, n));
    const auto call = [&](const void* in, void* out) {
      gpu::cub_convert_scan(types, in, out, n, cub_temp.ptr, cub_temp_bytes, stream);
    };
    return verified_timing(n, "CUB", cub_verified, call);
  }

  BaselineResult time_cub_by_key(std::uint64_t n) {
    if (problem.op.is_custom || !gpu::cub_by_key_supports(problem.type, problem.op.op)) {
      BaselineResult b;
      b.error = "no CUB scan-by-key baseline for " + problem.label() + " (sums only)";
      return b;
    }
    const Op op = problem.op.op;
    // CUB reads the problem's own keys where it has them (64-bit keys are 8 bytes an
    // element for both), else int32 keys of the same segments.
    const bool own_keys = problem.segments.kind == Segmentation::Kind::Keys;
    const void* k = own_keys ? words.ptr : keys.ptr;
    const std::size_t key_bytes = own_keys ? problem.segments.word_bytes : 4;
    reserve_cub_temp(gpu::cub_by_key_temp_bytes(problem.type, op, problem.kind, n, key_bytes));
    const auto call = [&](const void* in, void* out) {
      gpu::cub_scan_by_key(problem.type, op, problem.kind, k, key_bytes, in, out, n, &init,
                           cub_temp.ptr, cub_temp_bytes, stream);
    };
    return verified_timing(n, "CUB", cub_verified, call);
  }

  BaselineResult time_dispatch(std::uint64_t n) {
    return verified_timing(n, "dispatch", dispatch_verified,
                           [&](const void* in, void* out) { scan(nullptr, n, in, out); });
  }

  /// Verifies `call` at n once (sizes in `verified`), then times it fully.
  template <class Call>
  BaselineResult verified_timing(std::uint64_t n, const char* what,
                                 std::set<std::uint64_t>& verified, const Call& call) {
    BaselineResult b;
    if (!verified.count(n)) {
      if (auto wrong = check(n, call)) {
        b.error = std::string(what) + ": " + *wrong;
        return b;
      }
      verified.insert(n);
    }
    b.stats = time(n, Effort::Confirm, 0, call).stats;
    b.ok = true;
    return b;
  }
};

GpuEvaluator::GpuEvaluator(Scanner& scanner, KernelCache* cache, const Problem& problem,
                           std::uint64_t max_n, GpuEvaluatorOptions options)
    : impl_(std::make_unique<Impl>(scanner, cache, problem, max_n, options)) {}
GpuEvaluator::~GpuEvaluator() = default;

Result GpuEvaluator::measure(const Policy& policy, std::uint64_t n, Effort effort,
                             double limit_ns) {
  if (n > impl_->max_n)
    detail::fail("size {} is above the evaluator's maximum {}", n, impl_->max_n);
  return impl_->measure(policy, n, effort, limit_ns);
}
void GpuEvaluator::prefetch(const std::vector<Policy>& policies) {
  impl_->prefetch(policies);
}
BaselineResult GpuEvaluator::time_memcpy(std::uint64_t n) {
  return impl_->time_memcpy(n);
}
BaselineResult GpuEvaluator::time_cub(std::uint64_t n) {
  return impl_->time_cub(n);
}
BaselineResult GpuEvaluator::time_dispatch(std::uint64_t n) {
  return impl_->time_dispatch(n);
}
double GpuEvaluator::setup_seconds() const {
  return impl_->setup_s;
}
std::size_t GpuEvaluator::rotation_slots(std::uint64_t n) const {
  return impl_->slots(n);
}

} // namespace scantune::tuner
