// Scanner: argument checks, device binding, dispatch (route lookup), launch.
#include <array>
#include <atomic>
#include <cstdint>
#include <limits>
#include <map>
#include <mutex>
#include <optional>

#include <fmt/format.h>

#include "algorithms.hpp"
#include "autotune.hpp"
#include "axis_columns.hpp"
#include "cache/kernel_cache.hpp"
#include "cache/tuning_db.hpp"
#include "codegen.hpp"
#include "cuda_check.hpp"
#include "device_query.hpp"
#include "kernel_registry.hpp"
#include "launch.hpp"
#include "log.hpp"
#include "policy.hpp"
#include "route_cache.hpp"
#include "scan_request.hpp"
#include "scantune/scantune.hpp"
#include "segments.hpp"
#include "shape_class.hpp"
#include "sort.hpp"
#include "struct_values.hpp"
#include "workspace.hpp"

namespace scantune {
namespace {

// Makes `device` current for the scope, restoring the caller's device after.
class DeviceScope {
public:
  explicit DeviceScope(int device) {
    if (cudaGetDevice(&previous_) == cudaSuccess && previous_ != device) {
      SCANTUNE_CUDA_TRY(cudaSetDevice(device));
      restore_ = true;
    }
  }
  ~DeviceScope() {
    if (restore_) cudaSetDevice(previous_);
  }

private:
  int previous_ = -1;
  bool restore_ = false;
};

// A compaction's own arguments (the shared ones are check_request's).
void check_compaction(const ScanRequest& r) {
  using detail::fail;
  const detail::Heads h = r.compaction;
  if (detail::takes_predicate(h))
    detail::check_predicate(*r.op.custom);
  else
    detail::check_op(r.type, r.op);
  if (!r.num_selected) fail("null device pointer for the count of selected items");
  if (reinterpret_cast<std::uintptr_t>(r.num_selected) % sizeof(std::uint64_t))
    fail("the count pointer {} is not aligned to 8 bytes", static_cast<void*>(r.num_selected));
  if (r.n == 0) return;
  if ((h == detail::Heads::SelectFlags || h == detail::Heads::PartitionFlags) &&
      !r.segments.head_flags)
    fail("null flags pointer with n = {}", r.n);
  if (detail::is_partition(h) && r.in == r.out)
    fail("a partition cannot run in place (it stores rejected items past their own index)");
  const auto c = reinterpret_cast<std::uintptr_t>(r.num_selected);
  const auto out = reinterpret_cast<std::uintptr_t>(r.out);
  if (c < out + r.n * size_of(r.type) && out < c + sizeof(std::uint64_t))
    fail("the count of selected items overlaps the output");
}

// The element types of a converting scan, and where they can run: flat scans only. The
// other calls convert only a narrow element type (widened into its accumulator), which
// the message names as the caller gave it.
void check_conversion(const ScanRequest& r) {
  check_scan_types(*r.converts);
  if (detail::problem_of(r) != detail::Heads::None)
    detail::fail<detail::Unsupported>(
        "{} takes 4- and 8-byte elements (int32, uint32, float32, int64, uint64, float64), not {}",
        r.reduce ? std::string_view("a reduction") : detail::to_string(detail::problem_of(r)),
        to_string(r.in_type()));
  if (r.in == r.out && r.n && size_of(r.converts->in) != size_of(r.converts->out))
    detail::fail("an in-place scan from {} to {} changes the element size", to_string(r.in_type()),
                 to_string(r.out_type()));
}

// Elements are aligned to their size, or for struct values (whose vectors the
// policy sizes) to the largest power of two dividing it.
std::size_t element_alignment(std::size_t bytes) {
  return bytes & (~bytes + 1);
}

void check_pointer(const char* what, const void* p, std::size_t bytes, std::string_view type) {
  const std::size_t align = element_alignment(bytes);
  if (reinterpret_cast<std::uintptr_t>(p) % align == 0) return;
  if (align == bytes)
    detail::fail("{} pointer {} is not aligned to its {}-byte {} elements", what, p, bytes, type);
  detail::fail("{} pointer {} is not aligned to {} bytes (its {}-byte {} elements)", what, p, align,
               bytes, type);
}

// Whether [a, a + a_bytes) and [b, b + b_bytes) overlap.
bool overlap(const void* a, std::size_t a_bytes, const void* b, std::size_t b_bytes) {
  const auto x = reinterpret_cast<std::uintptr_t>(a), y = reinterpret_cast<std::uintptr_t>(b);
  return x < y + b_bytes && y < x + a_bytes;
}

// A struct-valued operator runs flat scans of its struct only (Scanner::scan_struct).
void check_struct_request(const ScanRequest& r) {
  const CustomOp& c = *r.op.custom;
  if (r.type != detail::kStructStandIn || r.converts || r.reduce || r.reverse || r.seeded ||
      r.start || detail::problem_of(r) != detail::Heads::None)
    detail::fail<detail::Unsupported>(
        "struct-valued custom operator '{}' ({}) runs flat inclusive and exclusive scans of "
        "its struct through Scanner::scan_struct only",
        c.name, c.value_type);
}

void check_request(const ScanRequest& r) {
  using detail::fail;
  if (r.compaction != detail::Heads::None)
    check_compaction(r);
  else
    detail::check_op(r.type, r.op);
  if (r.converts) check_conversion(r);
  const std::size_t size = r.acc_bytes();
  if (r.struct_bytes()) check_struct_request(r);
  if (r.reduce && !r.out) fail("null result pointer for a reduction");
  if (r.start && reinterpret_cast<std::uintptr_t>(r.start) % size)
    fail("start value pointer {} is not aligned to its {}-byte {} element", r.start, size,
         to_string(r.type));
  if (r.n == 0) return;
  if (!r.in) fail("null input pointer with n = {}", r.n);
  if (!r.out) fail("null output pointer with n = {}", r.n);
  // Names without an allocation: this runs on every call.
  const auto name = [&](DataType t) -> std::string_view {
    return r.struct_bytes() ? std::string_view(r.op.custom->value_type) : to_string(t);
  };
  check_pointer("input", r.in, r.in_bytes(), name(r.in_type()));
  check_pointer("output", r.out, r.reduce ? size : r.out_bytes(),
                name(r.reduce ? r.type : r.out_type()));
  // A struct scan's exclusive start is the operator's identity (FLAG_START_IDENTITY).
  if ((r.kind == ScanKind::Exclusive || r.seeded) && !r.init && !r.start && !r.struct_bytes())
    fail("{} scan without {}", to_string(r.kind), r.seeded ? "a seed" : "an init value");
  if (!r.workspace.ptr && r.workspace.bytes)
    fail("a workspace of {} bytes with a null pointer", r.workspace.bytes);
  const std::size_t in_bytes = r.n * r.in_bytes();
  if (r.reduce) {
    if (overlap(r.in, in_bytes, r.out, size)) fail("the reduction's result overlaps its input");
    return;
  }
  const std::size_t bytes = r.n * r.out_bytes();
  if (r.in != r.out && overlap(r.in, in_bytes, r.out, bytes))
    fail("input and output ranges overlap without being identical");
  if (r.segments.head_flags && overlap(r.segments.head_flags, r.n, r.out, bytes))
    fail("the head flags overlap the output");
  if (r.segments.keys &&
      overlap(r.segments.keys, r.n * static_cast<std::size_t>(r.segments.word_bytes), r.out, bytes))
    fail("the keys overlap the output");
}

} // namespace

struct Scanner::Impl {
  ScannerOptions options;
  int device = -1;
  int arch = 0;
  detail::LaunchTarget target;
  std::string model;        // db::DeviceInfo::model()
  std::string device_error; // why there is no usable device (checked at the first scan)
  std::string db_path;      // "" = no database
  std::optional<KernelCache> disk_cache;
  std::unique_ptr<detail::WorkspacePool> workspaces;

  // Every route cache ever built: calls in flight on other threads may still use
  // an old one after a reload, so they live as long as the scanner.
  std::mutex routes_mutex;
  std::vector<std::unique_ptr<detail::RouteCache>> route_caches;
  std::atomic<detail::RouteCache*> routes{nullptr};

  std::unique_ptr<detail::Autotuner> autotuner; // last: stopped before the rest goes

  explicit Impl(ScannerOptions o) : options(std::move(o)) {
    if (const char* v = std::getenv("SCANTUNE_REPRODUCIBLE"); v && std::string_view(v) == "1")
      options.reproducible = true;
    // No device (or no driver) is not an error until a scan needs one, so
    // argument checks and compiles work on machines without a GPU.
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
      device_error = e != cudaSuccess
                         ? fmt::format("no CUDA device available: {}", cudaGetErrorString(e))
                         : "no CUDA device available";
      cudaGetLastError();
    } else {
      device = options.device;
      if (device < 0 && cudaGetDevice(&device) != cudaSuccess) device = 0;
      if (device >= count) {
        device_error = fmt::format("CUDA device {} requested but only {} present", device, count);
      } else {
        const db::DeviceInfo info = db::query_device(device);
        arch = info.cc_major * 10 + info.cc_minor;
        target.sm_count = info.sm_count;
        target.programmatic = detail::programmatic_launch(arch, options.programmatic_launch);
        target.tiles_by_block = detail::tiles_by_block_from_env();
        model = info.model();
        workspaces = std::make_unique<detail::WorkspacePool>(device);
      }
    }
    disk_cache = KernelCache::open_default(options.kernel_cache);
    if (options.database != "off") db_path = db::default_db_path(options.database).string();
    load_routes();
    if (device >= 0 && !db_path.empty() && detail::autotune_requested_by_env()) {
      const auto dir = KernelCache::resolve_directory(options.kernel_cache);
      autotuner = std::make_unique<detail::Autotuner>(
          device, db_path, dir ? *dir + "/autotune.log" : "/dev/null", [this] { load_routes(); });
    }
  }

  // Reads the database (if any) into a new route cache and makes it current.
  void load_routes() {
    std::vector<detail::TunedEntry> entries;
    std::string used_path;
    if (!db_path.empty()) {
      try {
        if (auto read = detail::read_tuned_entries(db_path)) {
          entries = std::move(*read);
          used_path = db_path;
        }
      } catch (const std::exception& x) {
        // A broken database must not stop scans: the built-in table still works.
        detail::log(detail::LogLevel::Warn, "ignoring the tuning database: {}", x.what());
      }
    }
    auto table = std::make_shared<const detail::DispatchTable>(arch, model, entries, used_path);
    detail::log(detail::LogLevel::Info,
                "dispatch for {}: {} ({} entries for this GPU model, {} of other sm_{} GPUs), "
                "{} built-in entries",
                model.empty() ? "no device" : model,
                used_path.empty() ? "no tuning DB" : "tuning DB " + used_path, table->own_entries(),
                table->same_arch_entries(), arch, table->builtin_entries());
    auto cache = std::make_unique<detail::RouteCache>(std::move(table), options.reproducible);
    std::lock_guard<std::mutex> lock(routes_mutex);
    routes.store(cache.get(), std::memory_order_release);
    route_caches.push_back(std::move(cache));
  }

  detail::RouteCache& current_routes() const { return *routes.load(std::memory_order_acquire); }

  std::shared_ptr<const detail::KernelSet> kernels_for(const Policy& policy, const ScanRequest& r) {
    return detail::KernelRegistry::instance().get(detail::kernel_spec_of(policy, r), arch,
                                                  disk_cache ? &*disk_cache : nullptr);
  }

  // The route's kernels, loaded (compiled, or read from the disk cache) on its first call.
  const detail::KernelSet& route_kernels(detail::RouteCache& cache, detail::Route& route,
                                         const ScanRequest& r) {
    if (const detail::KernelSet* k = route.kernels.load(std::memory_order_acquire)) return *k;
    const detail::KernelSet* k = cache.keep(kernels_for(route.plan.policy, r));
    route.kernels.store(k, std::memory_order_release);
    return *k;
  }

  std::shared_ptr<const detail::KernelSet> kernels_for_sort(const detail::SortSpec& spec) {
    return detail::KernelRegistry::instance().get_generated(
        spec.id(), [&] { return detail::generate_sort(spec); }, arch,
        disk_cache ? &*disk_cache : nullptr);
  }

  // The sort route's kernels, loaded on its first call.
  const detail::KernelSet& sort_route_kernels(detail::RouteCache& cache, detail::SortRoute& route,
                                              const detail::SortSpec& spec) {
    if (const detail::KernelSet* k = route.kernels.load(std::memory_order_acquire)) return *k;
    const detail::KernelSet* k = cache.keep(kernels_for_sort(spec));
    route.kernels.store(k, std::memory_order_release);
    return *k;
  }

  // Once per route: log a fallback, ask for a background tuning.
  void report(const detail::Route& route, const ScanRequest& r) {
    const detail::Choice& p = route.plan;
    if (p.match == Match::Exact || detail::problem_of(r) != detail::Heads::None) return;
    detail::log(detail::LogLevel::Info, "{} {} {} at n = {} on {}: {} -> {} ({})",
                r.struct_bytes() ? detail::struct_type_text(r.op.custom->value_bytes)
                : r.converts     ? to_string(*r.converts)
                                 : std::string(to_string(r.type)),
                r.op.custom ? r.op.custom->name : to_string(r.op.op), to_string(r.kind), r.n, model,
                to_string(p.match), p.policy.key(), p.source);
    if (autotuner && !r.converts && !r.struct_bytes()) // the tuner times struct scans by hand
      autotuner->request(detail::ProblemName::of(r.type, r.op, r.kind), r.n);
  }
};

Scanner::Scanner(ScannerOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
Scanner::~Scanner() = default;
Scanner::Scanner(Scanner&&) noexcept = default;
Scanner& Scanner::operator=(Scanner&&) noexcept = default;

int Scanner::device() const {
  return impl_->device;
}

Plan Scanner::plan(DataType type, OpRef op, ScanKind kind, std::size_t n) const {
  return plan(scan_types(type), op, kind, n);
}

Plan Scanner::plan(const ScanTypes& types, OpRef op, ScanKind kind, std::size_t n) const {
  return detail::ScannerAccess::choice(*this, types, op, kind, n).plan();
}

Plan Scanner::select_plan(DataType type, Compaction how, std::size_t n,
                          const Predicate* predicate) const {
  const detail::Heads heads = detail::compaction_heads(how);
  CustomOp as_op;
  OpRef op = Op::Sum;
  if (detail::takes_predicate(heads)) {
    if (!predicate) detail::fail("null predicate for a {}", detail::to_string(heads));
    as_op = detail::predicate_op(*predicate);
    op = as_op;
  }
  return detail::ScannerAccess::choice(*this, type, op, ScanKind::Inclusive, n, heads).plan();
}

Plan Scanner::sort_plan(DataType key, std::size_t value_bytes, std::size_t n) const {
  return detail::ScannerAccess::sort_choice(*this, key, value_bytes, n).plan();
}

void Scanner::prepare(DataType type, OpRef op, ScanKind kind, std::size_t n) {
  prepare(scan_types(type), op, kind, n);
}

void Scanner::prepare(const ScanTypes& types, OpRef op, ScanKind kind, std::size_t n) {
  Impl& im = *impl_;
  ScanRequest r{types.acc, kind, op, nullptr, nullptr, n,     nullptr, nullptr,
                nullptr,   {},   {}, {},      nullptr, false, false};
  r.set_types(types);
  detail::check_op(r.type, op);
  check_scan_types(types);
  if (im.device < 0) detail::fail<detail::NoDevice>("{}", im.device_error);
  DeviceScope scope(im.device);
  detail::RouteCache& cache = im.current_routes();
  im.route_kernels(cache,
                   cache.route(r.type, op, kind, n, detail::Heads::None, false,
                               r.converts ? &*r.converts : nullptr),
                   r);
}

std::size_t Scanner::workspace_bytes(DataType type, OpRef op, ScanKind kind, std::size_t n) const {
  const ScanTypes types = scan_types(type);
  return detail::workspace_bytes(detail::ScannerAccess::choice(*this, types, op, kind, n).policy,
                                 types, n);
}

void Scanner::reload_database() {
  impl_->load_routes();
}

std::string Scanner::database_path() const {
  return impl_->current_routes().table().db_path();
}

void Scanner::wait_for_autotune() {
  if (impl_->autotuner) impl_->autotuner->wait_idle();
}

void Scanner::run_segmented(DataType type, ScanKind kind, OpRef op, const void* in, void* out,
                            std::size_t n, const void* init, Segments segments, cudaStream_t stream,
                            std::string_view policy_key) {
  detail::check_segments(segments);
  ScanRequest r{type,    kind, op,       in, out,     n,     init, stream,
                nullptr, {},   segments, {}, nullptr, false, false};
  r.set_types(scan_types(type));
  std::optional<Policy> policy;
  if (!policy_key.empty()) r.policy = &policy.emplace(Policy::parse(policy_key));
  detail::ScannerAccess::scan(*this, r);
}

void Scanner::run_axis(DataType type, ScanKind kind, OpRef op, const void* in, void* out,
                       std::size_t outer, std::size_t len, std::size_t inner, const void* init,
                       cudaStream_t stream) {
  ScanRequest r{type,    kind, op, in, out,     0,     init, stream,
                nullptr, {},   {}, {}, nullptr, false, false};
  r.set_types(scan_types(type));
  detail::set_axis(r, outer, len, inner);
  detail::ScannerAccess::scan(*this, r);
}

void Scanner::run_from_device(DataType type, ScanKind kind, OpRef op, const void* in, void* out,
                              std::size_t n, const void* start, cudaStream_t stream) {
  if (!start) detail::fail("null device pointer for the {} scan's start value", to_string(kind));
  ScanRequest r{type,   kind,    op, in, out, n,     nullptr,
                stream, nullptr, {}, {}, {},  start, kind == ScanKind::Inclusive,
                false};
  r.set_types(scan_types(type));
  detail::ScannerAccess::scan(*this, r);
}

void Scanner::run_reverse(DataType type, ScanKind kind, OpRef op, const void* in, void* out,
                          std::size_t n, const void* init, cudaStream_t stream) {
  ScanRequest r{type,    kind, op, in, out,     n,     init, stream,
                nullptr, {},   {}, {}, nullptr, false, false};
  r.set_types(scan_types(type));
  r.reverse = true;
  detail::ScannerAccess::scan(*this, r);
}

void Scanner::run_reduce(DataType type, OpRef op, const void* in, void* result, std::size_t n,
                         cudaStream_t stream) {
  ScanRequest r{type,    ScanKind::Inclusive,
                op,      in,
                result,  n,
                nullptr, stream,
                nullptr, {},
                {},      {},
                nullptr, false,
                true};
  r.set_types(scan_types(type));
  detail::ScannerAccess::scan(*this, r);
}

void Scanner::run_select(DataType type, Compaction how, const void* in, const std::uint8_t* flags,
                         const Predicate* predicate, void* out, std::size_t n,
                         std::uint64_t* d_num_selected, cudaStream_t stream) {
  ScanRequest r = ScanRequest::compaction_of(type, detail::compaction_heads(how), in, flags, out, n,
                                             d_num_selected, stream);
  CustomOp as_op;
  if (detail::takes_predicate(r.compaction)) {
    if (!predicate) detail::fail("null predicate for a {}", detail::to_string(r.compaction));
    as_op = detail::predicate_op(*predicate);
    r.op = as_op;
  }
  detail::ScannerAccess::scan(*this, r);
}

void Scanner::run_sort(DataType key_type, const void* keys_in, void* keys_out,
                       const void* values_in, void* values_out, std::size_t value_bytes,
                       std::size_t n, SortOrder order, unsigned begin_bit, unsigned end_bit,
                       cudaStream_t stream) {
  detail::ScannerAccess::sort(*this, {key_type, keys_in, keys_out, values_in, values_out,
                                      value_bytes, n, order, begin_bit, end_bit, stream});
}

std::uint64_t selected_count(const std::uint64_t* d_num_selected, cudaStream_t stream) {
  if (!d_num_selected) detail::fail("null device pointer for the count of selected items");
  std::uint64_t count = 0;
  SCANTUNE_CUDA_TRY(
      cudaMemcpyAsync(&count, d_num_selected, sizeof count, cudaMemcpyDeviceToHost, stream));
  SCANTUNE_CUDA_TRY(cudaStreamSynchronize(stream));
  return count;
}

void Scanner::run(DataType type, ScanKind kind, OpRef op, const void* in, void* out, std::size_t n,
                  const void* init, cudaStream_t stream, Workspace workspace,
                  std::string_view policy_key) {
  ScanRequest r{type,    kind,      op, in, out,     n,     init, stream,
                nullptr, workspace, {}, {}, nullptr, false, false};
  r.set_types(scan_types(type));
  std::optional<Policy> policy;
  if (!policy_key.empty()) r.policy = &policy.emplace(Policy::parse(policy_key));
  detail::ScannerAccess::scan(*this, r);
}

namespace {

// A struct scan's request: the stand-in type, the operator carrying the struct.
ScanRequest struct_request(const CustomOp& op, ScanKind kind, std::size_t n) {
  if (!op.is_struct())
    detail::fail("custom operator '{}' is not struct-valued (no value_type): use the typed "
                 "scans",
                 op.name);
  ScanRequest r;
  r.type = detail::kStructStandIn;
  r.kind = kind;
  r.op = op;
  r.n = n;
  return r;
}

// An axis scan the scanner chooses for (no policy, no caller workspace), inclusive, of
// few columns: each matrix as a scan of structs of its columns (axis_columns.hpp).
// Many matrices (a launch each) and pointers not aligned to the struct keep the axis
// kernel.
bool scan_columns_as_structs(Scanner& s, const ScanRequest& r) {
  constexpr std::size_t kMaxMatrices = 16;
  if (r.policy || r.workspace.ptr || r.kind != ScanKind::Inclusive || r.seeded || r.op.custom ||
      r.converts)
    return false;
  const CustomOp* columns = detail::columns_struct_op(r.type, r.op.op, r.axis.inner);
  if (!columns) return false;
  const std::size_t bytes = static_cast<std::size_t>(columns->value_bytes);
  const std::size_t align = element_alignment(bytes), matrix = r.axis.len * bytes;
  const std::size_t matrices = r.n / (r.axis.len * r.axis.inner);
  if (matrices > kMaxMatrices || reinterpret_cast<std::uintptr_t>(r.in) % align ||
      reinterpret_cast<std::uintptr_t>(r.out) % align)
    return false;
  for (std::size_t m = 0; m < matrices; ++m) {
    ScanRequest q = struct_request(*columns, r.kind, r.axis.len);
    q.in = static_cast<const unsigned char*>(r.in) + m * matrix;
    q.out = static_cast<unsigned char*>(r.out) + m * matrix;
    q.stream = r.stream;
    detail::ScannerAccess::scan(s, q);
  }
  return true;
}

// An inclusive axis scan along an axis of length 1 leaves every element as it is (a
// type read and written as itself converts back exactly): a copy, or nothing in place.
// H100, float32 (1, 2^24) along dim 0: the axis kernel ran at 0.34x a copy.
bool copy_length_one_axis(const ScanRequest& r) {
  if (r.policy || r.axis.len != 1 || r.kind != ScanKind::Inclusive || r.seeded ||
      r.in_type() != r.out_type())
    return false;
  if (r.in != r.out)
    SCANTUNE_CUDA_TRY(
        cudaMemcpyAsync(r.out, r.in, r.n * r.in_bytes(), cudaMemcpyDeviceToDevice, r.stream));
  return true;
}

} // namespace

void Scanner::check_struct_size(const CustomOp& op, std::size_t host_bytes) {
  if (op.is_struct() && static_cast<std::size_t>(op.value_bytes) != host_bytes)
    detail::fail("custom operator '{}': the host struct has {} bytes, value_bytes says {}", op.name,
                 host_bytes, op.value_bytes);
}

void Scanner::scan_struct(const void* in, void* out, std::size_t n, const CustomOp& op,
                          ScanKind kind, cudaStream_t stream, std::string_view policy_key) {
  ScanRequest r = struct_request(op, kind, n);
  r.in = in;
  r.out = out;
  r.stream = stream;
  std::optional<Policy> policy;
  if (!policy_key.empty()) r.policy = &policy.emplace(Policy::parse(policy_key));
  detail::ScannerAccess::scan(*this, r);
}

Plan Scanner::plan_struct(const CustomOp& op, ScanKind kind, std::size_t n) const {
  const ScanRequest r = struct_request(op, kind, n);
  detail::check_op(r.type, r.op);
  return impl_->current_routes().route(r.type, r.op, kind, n).plan.plan();
}

void Scanner::prepare_struct(const CustomOp& op, ScanKind kind, std::size_t n) {
  Impl& im = *impl_;
  const ScanRequest r = struct_request(op, kind, n);
  detail::check_op(r.type, r.op);
  if (im.device < 0) detail::fail<detail::NoDevice>("{}", im.device_error);
  DeviceScope scope(im.device);
  detail::RouteCache& cache = im.current_routes();
  im.route_kernels(cache, cache.route(r.type, r.op, kind, n), r);
}

void Scanner::run_types(const ScanTypes& types, ScanKind kind, OpRef op, const void* in, void* out,
                        std::size_t n, const void* init, cudaStream_t stream, bool reverse,
                        std::string_view policy_key) {
  ScanRequest r{types.acc, kind, op, in, out,     n,     init, stream,
                nullptr,   {},   {}, {}, nullptr, false, false};
  r.set_types(types);
  r.reverse = reverse;
  std::optional<Policy> policy;
  if (!policy_key.empty()) r.policy = &policy.emplace(Policy::parse(policy_key));
  detail::ScannerAccess::scan(*this, r);
}

namespace detail {

void set_axis(ScanRequest& r, std::size_t outer, std::size_t len, std::size_t inner) {
  const std::size_t max = std::numeric_limits<std::size_t>::max();
  if (len && inner && (outer > max / len || outer * len > max / inner))
    fail("an axis scan of {} x {} x {} elements overflows", outer, len, inner);
  r.n = outer * len * inner;
  if (inner == 1) // each row is contiguous: a batched scan of rows
    r.segments = Segments::rows(len);
  else
    r.axis = {len, inner};
}

Heads problem_of(const ScanRequest& r) {
  if (r.compaction != Heads::None) return r.compaction;
  if (r.reduce) return Heads::Reduce;
  return r.axis.inner ? Heads::Axis : heads_of(r.segments);
}

KernelSpec kernel_spec_of(const Policy& policy, const ScanRequest& r) {
  return KernelSpec{policy, r.type, OpSpec::from(r.op), r.kind, problem_of(r), r.converts};
}

ShapeClass shape_class_of(const ScanRequest& r) {
  switch (problem_of(r)) {
  case Heads::Axis:
    return axis_class(r.axis.len, r.axis.inner);
  case Heads::Periodic:
    return length_class(r.segments.row_length);
  case Heads::Offsets32:
  case Heads::Offsets64: // the average segment: no pass over the offsets
    return length_class(r.n / (r.segments.num_segments ? r.segments.num_segments : 1));
  default:
    return {};
  }
}

void check_segments(const Segments& s) {
  const int sources = (s.head_flags != nullptr) + (s.row_length != 0) + (s.keys != nullptr) +
                      (s.offsets != nullptr);
  if (sources > 1)
    fail("segments given by {} head sources at once (flags, rows, keys, offsets: choose one)",
         sources);
  if (sources == 0)
    fail("a segmented scan needs head flags, a row length, keys or offsets (Segments::flags, "
         "::rows, ::keys_of, ::offsets_of); a row length of 0 has no rows");
  if ((s.keys || s.offsets) && s.word_bytes != 4 && s.word_bytes != 8)
    fail("{} of {} bytes: 4 or 8 expected", s.keys ? "keys" : "offsets", s.word_bytes);
}

const Choice& ScannerAccess::choice(const Scanner& s, DataType type, OpRef op, ScanKind kind,
                                    std::size_t n, Heads heads, ShapeClass shape) {
  if (heads == Heads::None) return choice(s, scan_types(type), op, kind, n);
  check_op(type, op);
  return s.impl_->current_routes().route(type, op, kind, n, heads, false, nullptr, shape).plan;
}

const Choice& ScannerAccess::choice(const Scanner& s, const ScanTypes& types, OpRef op,
                                    ScanKind kind, std::size_t n) {
  check_scan_types(types);
  check_op(types.acc, op);
  return s.impl_->current_routes()
      .route(types.acc, op, kind, n, Heads::None, false, types.uniform() ? nullptr : &types)
      .plan;
}

Policy ScannerAccess::choose(const Scanner& s, DataType type, OpRef op, ScanKind kind,
                             std::size_t n) {
  return choice(s, type, op, kind, n).policy;
}

void ScannerAccess::scan(Scanner& s, const ScanRequest& r) {
  check_request(r);
  if (r.reverse && problem_of(r) != Heads::None)
    fail("a reverse scan runs only on flat scans, not a {}", to_string(problem_of(r)));
  if (r.policy && r.policy->reverse != r.reverse)
    fail("policy {} is {} reverse policy for a {} scan", r.policy->key(),
         r.policy->reverse ? "a" : "not a", r.reverse ? "reverse" : "forward");
  // A reduction of nothing still writes the identity, a compaction its count of 0.
  if (r.n == 0 && !r.reduce && r.compaction == Heads::None) return;
  Scanner::Impl& im = *s.impl_;
  const Heads heads = problem_of(r);
  if (r.policy && r.struct_bytes()) {
    if (auto why = struct_invalid_reason(*r.policy, r.struct_bytes()))
      fail("policy {} cannot run on {}-byte structs: {}", r.policy->key(), r.struct_bytes(), *why);
  } else if (r.policy) {
    const ScanTypes types = r.types();
    if (auto why = r.policy->invalid_reason(types))
      fail("policy {} cannot run on {}: {}", r.policy->key(), to_string(types), *why);
    if (auto why =
            heads != Heads::None ? problem_invalid_reason(*r.policy, heads, r.type) : std::nullopt)
      fail("policy {} cannot run a {}: {}", r.policy->key(),
           heads == Heads::Reduce ? "reduction"
           : is_compaction(heads) ? "compaction"
                                  : "segmented scan",
           *why);
  }
  if (im.device < 0 || !im.workspaces) fail<NoDevice>("{}", im.device_error);

  DeviceScope scope(im.device);
  if (r.n == 0 && r.compaction != Heads::None) { // a compaction of nothing: its count only
    SCANTUNE_CUDA_TRY(cudaMemsetAsync(r.num_selected, 0, sizeof(std::uint64_t), r.stream));
    return;
  }
  check_segments_on_device_data(r);
  if (heads == Heads::Axis && (copy_length_one_axis(r) || scan_columns_as_structs(s, r))) return;
  if (r.policy) { // explicit configuration (tuner, tests): no route
    launch_scan(*im.kernels_for(*r.policy, r), *r.policy, r, *im.workspaces, im.target);
    return;
  }
  RouteCache& cache = im.current_routes();
  Route& route = cache.route(r.type, r.op, r.kind, r.n, heads, r.reverse,
                             r.converts ? &*r.converts : nullptr, shape_class_of(r));
  const KernelSet& kernels = im.route_kernels(cache, route, r);
  if (!route.reported.load(std::memory_order_relaxed) && !route.reported.exchange(true))
    im.report(route, r);
  launch_scan(kernels, route.plan.policy, r, *im.workspaces, im.target);
}

void ScannerAccess::sort(Scanner& s, const SortRequest& r, const SortPolicy* policy) {
  check_sort(r);
  const std::size_t value_bytes = r.carried_bytes();
  if (policy)
    if (auto why = policy->invalid_reason(size_of(r.key), value_bytes))
      fail("sort policy {} cannot sort {} keys with {}-byte values: {}", policy->key(),
           to_string(r.key), value_bytes, *why);
  if (r.n == 0) return;
  Scanner::Impl& im = *s.impl_;
  if (im.device < 0 || !im.workspaces) fail<NoDevice>("{}", im.device_error);
  DeviceScope scope(im.device);
  if (r.n == 1) { // already sorted
    SCANTUNE_CUDA_TRY(
        cudaMemcpyAsync(r.keys_out, r.keys_in, size_of(r.key), cudaMemcpyDeviceToDevice, r.stream));
    if (value_bytes && !r.makes_indices())
      SCANTUNE_CUDA_TRY(cudaMemcpyAsync(r.values_out, r.values_in, value_bytes,
                                        cudaMemcpyDeviceToDevice, r.stream));
    else if (value_bytes) // the one key's position
      SCANTUNE_CUDA_TRY(cudaMemsetAsync(r.values_out, 0, value_bytes, r.stream));
    return;
  }
  const bool indices = r.makes_indices();
  const bool widened = sort_widens(indices, value_bytes, r.n) && !r.wide_indices;
  if (policy) { // explicit configuration (tuner, tests): no route
    const SortSpec spec{*policy, r.key, value_bytes, indices, widened};
    launch_sort(*im.kernels_for_sort(spec), spec, r, *im.workspaces, im.target);
    return;
  }
  RouteCache& cache = im.current_routes();
  SortRoute& route = cache.sort_route(r.key, value_bytes, r.n, indices, widened);
  const SortSpec spec{route.plan.policy, r.key, value_bytes, indices, widened};
  launch_sort(im.sort_route_kernels(cache, route, spec), spec, r, *im.workspaces, im.target);
}

WorkspacePool& ScannerAccess::workspaces(Scanner& s) {
  Scanner::Impl& im = *s.impl_;
  if (im.device < 0 || !im.workspaces) fail<NoDevice>("{}", im.device_error);
  return *im.workspaces;
}

const SortChoice& ScannerAccess::sort_choice(const Scanner& s, DataType key,
                                             std::size_t value_bytes, std::size_t n, bool indices) {
  if (value_bytes != 0 && value_bytes != 4 && value_bytes != 8)
    fail<Unsupported>("values of {} bytes: a sort moves values of 4 or 8 bytes", value_bytes);
  return s.impl_->current_routes()
      .sort_route(key, value_bytes, n, indices, sort_widens(indices, value_bytes, n))
      .plan;
}

} // namespace detail

Scanner& default_scanner() {
  // One per device, created on first use and kept for the process's lifetime. The
  // last one a thread used is remembered, so repeated calls take no lock.
  thread_local int last_device = -2;
  thread_local Scanner* last = nullptr;
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();
    device = -1;
  }
  if (device == last_device && last) return *last;
  static std::mutex mutex;
  static std::map<int, Scanner*> scanners;
  std::lock_guard<std::mutex> lock(mutex);
  auto& s = scanners[device];
  if (!s) s = new Scanner(ScannerOptions{device, {}, {}});
  last_device = device;
  last = s;
  return *s;
}

} // namespace scantune
