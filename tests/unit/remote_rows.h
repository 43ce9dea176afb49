#pragma once
// A cache-row device whose memory the host cannot read (issue 29's device path, tested without a
// GPU): allocate() hands out addresses in a PROT_NONE reservation, so any code that dereferences
// a plane's pointer on the host instead of going through the device's calls stops with a fault;
// the calls themselves reach a backing mapping at the same offset and run the host's row ops
// there. RemoteBackend is the reference CPU backend with its cache rows on that device, as an
// accelerator keeps them: its attention maps a context's addresses to the backing, as a device
// kernel would read its own memory. A session on "test:remote" must equal one on "cpu" bit for
// bit: same arithmetic, only where the rows live differs.
#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "core/backend/backend.h"
#include "core/backend/backend_registry.h"
#include "core/cache/kv_row_device.h"

namespace kvw::test {

class RemoteRows final : public KvRowDevice {
public:
    static constexpr size_t kReserved = size_t(16) << 30;  // address space, never committed

    RemoteRows() {
        handles_ = map(PROT_NONE);
        backing_ = map(PROT_READ | PROT_WRITE);
    }
    ~RemoteRows() override {
        munmap(handles_, kReserved);
        munmap(backing_, kReserved);
    }

    std::string_view name() const override { return "remote"; }
    void* allocate(size_t bytes) override {
        if (bytes == 0) return nullptr;
        const size_t at = (used_ + 63) / 64 * 64;
        if (at + bytes > kReserved) throw std::bad_alloc();
        used_ = at + bytes;
        std::memset(backing_ + at, 0, bytes);
        ++allocations_;
        return handles_ + at;
    }
    void release(void* p) noexcept override {
        if (p) --allocations_;
    }
    void upload(void* dst, const void* src, size_t bytes) override {
        if (bytes) std::memcpy(at(dst), src, bytes);
        uploaded_ += bytes;
    }
    void download(void* dst, const void* src, size_t bytes) const override {
        if (bytes) std::memcpy(dst, at(src), bytes);
        downloaded_ += bytes;
    }
    void copy(void* dst, const void* src, size_t bytes) override {
        if (bytes) std::memcpy(at(dst), at(src), bytes);
    }
    void download_strided(void* dst, size_t dst_pitch, const void* src, size_t src_pitch,
                          size_t width, size_t rows) const override {
        for (size_t r = 0; r < rows; ++r)
            download(static_cast<uint8_t*>(dst) + r * dst_pitch,
                     static_cast<const uint8_t*>(src) + r * src_pitch, width);
    }
    void write_rows(const CachePlanes& planes, int first, const NewRows& rows, int n,
                    QuantStats* k_stats, QuantStats* v_stats) override {
        NewRows on_host = rows;
        if (rows.at == RowsAt::Device) on_host = {at(rows.k), at(rows.v), RowsAt::Host};
        host_row_device().write_rows(backed(planes), first, on_host, n, k_stats, v_stats);
    }
    void move_rows(const CachePlanes& planes, int to, int from, int n) override {
        host_row_device().move_rows(backed(planes), to, from, n);
    }
    void copy_rows(const CachePlanes& dst, int to, const CachePlanes& src, int from,
                   int n) override {
        host_row_device().copy_rows(backed(dst), to, backed(src), from, n);
    }
    void rerotate_k(const CachePlane& k, std::span<const int> rows, std::span<const int32_t> delta,
                    int head_dim, const RopeParams& rope, QuantStats* stats) override {
        host_row_device().rerotate_k(backed(k), rows, delta, head_dim, rope, stats);
    }
    void hash_rows(std::span<const RowHash> streams) const override {
        std::vector<RowHash> backed_streams(streams.begin(), streams.end());
        for (RowHash& s : backed_streams) s.planes = backed(s.planes);
        host_row_device().hash_rows(backed_streams);
    }
    void read_rows(const CachePlane& plane, std::span<const int> rows, float* out) const override {
        host_row_device().read_rows(backed(plane), rows, out);
    }
    void drift_rows(const CachePlanes& planes, std::span<const int> rows, const NewRows& ref,
                    float* k_out, float* v_out) const override {
        NewRows on_host = ref;
        if (ref.at == RowsAt::Device) on_host = {at(ref.k), at(ref.v), RowsAt::Host};
        host_row_device().drift_rows(backed(planes), rows, on_host, k_out, v_out);
    }

    // The backing of a device address (null stays null); throws for an address it never gave.
    template <class T>
    T* at(T* p) const {
        if (!p) return nullptr;
        const auto* b = reinterpret_cast<const uint8_t*>(p);
        if (b < handles_ || b >= handles_ + kReserved)
            throw std::logic_error("remote rows: a host address given as device memory");
        return reinterpret_cast<T*>(backing_ + (b - handles_));
    }
    CachePlane backed(CachePlane p) const {
        p.data = at(p.data);
        p.scales = at(p.scales);
        p.saturated = at(p.saturated);
        return p;
    }
    CachePlanes backed(const CachePlanes& p) const { return {{backed(p.kv[0]), backed(p.kv[1])}}; }

    int64_t allocations() const { return allocations_; }
    uint64_t uploaded() const { return uploaded_; }
    uint64_t downloaded() const { return downloaded_; }

private:
    static uint8_t* map(int protection) {
        void* p = mmap(nullptr, kReserved, protection, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                       -1, 0);
        if (p == MAP_FAILED) throw std::runtime_error("remote rows: mmap failed");
        return static_cast<uint8_t*>(p);
    }

    uint8_t* handles_ = nullptr;
    uint8_t* backing_ = nullptr;
    size_t used_ = 0;
    int64_t allocations_ = 0;
    uint64_t uploaded_ = 0;
    mutable uint64_t downloaded_ = 0;
};

inline RemoteRows& remote_rows() {
    static RemoteRows device;
    return device;
}

// The reference CPU backend with its memory on remote_rows(): its arrays (the forward's
// activations, new K / V, attention mass, norms) and its caches' rows, as one device's memory.
// Each op runs the CPU's on the backing of the addresses it is given, so a host read of backend
// memory anywhere but upload / download faults, as it would on an accelerator.
class RemoteBackend final : public Backend {
public:
    RemoteBackend() : cpu_(make_cpu_backend(1)) {}

    std::string_view name() const override { return "test:remote"; }
    BackendDevice device() const override { return cpu_->device(); }
    double measure_read_bandwidth_gbs(size_t bytes) override {
        return cpu_->measure_read_bandwidth_gbs(bytes);
    }
    void* allocate(size_t bytes) override { return remote_rows().allocate(bytes); }
    void release(void* p) noexcept override { remote_rows().release(p); }
    void upload(void* dst, const void* src, size_t bytes) override {
        remote_rows().upload(dst, src, bytes);
    }
    void download(void* dst, const void* src, size_t bytes) override {
        remote_rows().download(dst, src, bytes);
    }
    void copy(void* dst, const void* src, size_t bytes) override {
        remote_rows().copy(dst, src, bytes);
    }
    void matmul(const WeightTensor& w, const float* x, int n, float* y) override {
        cpu_->matmul(w, on(x), n, on(y));
    }
    void embed(const WeightTensor& table, std::span<const Item> items, float* x) override {
        cpu_->embed(table, items, on(x));
    }
    void rmsnorm(const float* x, const float* weight, int rows, int dim, float eps,
                 float* out) override {
        cpu_->rmsnorm(on(x), on(weight), rows, dim, eps, on(out));
    }
    void add_bias(float* x, const float* bias, int rows, int dim) override {
        cpu_->add_bias(on(x), on(bias), rows, dim);
    }
    void add(float* x, const float* y, size_t count) override { cpu_->add(on(x), on(y), count); }
    void rope(float* x, int rows, int heads, int head_dim, const float* cos, const float* sin,
              RopeLayout layout) override {
        cpu_->rope(on(x), rows, heads, head_dim, on(cos), on(sin), layout);
    }
    void swiglu(float* gate, const float* up, size_t count) override {
        cpu_->swiglu(on(gate), on(up), count);
    }
    void kv_round_trip(KvType type, float* rows, int n, int kv_dim, int groups) override {
        cpu_->kv_round_trip(type, on(rows), n, kv_dim, groups);
    }
    void attention(const AttentionCall& call) override {
        check_context_memory(call.context, remote_rows(), name());
        AttentionCall on_host = call;
        LayerContext& ctx = on_host.context;
        if (ctx.device == &remote_rows()) {  // read where the rows are, as a kernel would
            ctx.k.data = on(ctx.k.data);
            ctx.k.scale = on(ctx.k.scale);
            ctx.v.data = on(ctx.v.data);
            ctx.v.scale = on(ctx.v.scale);
            ctx.device = &host_row_device();
        }
        on_host.q = on(call.q);
        on_host.k_new = on(call.k_new);
        on_host.v_new = on(call.v_new);
        on_host.out = on(call.out);
        on_host.mass = on(call.mass);
        cpu_->attention(on_host);
    }
    size_t count_nonfinite(const float* x, size_t rows, size_t width, size_t stride) override {
        return cpu_->count_nonfinite(on(x), rows, width, stride);
    }
    KvRowDevice& kv_rows() override { return remote_rows(); }

private:
    template <class T>
    static T* on(T* p) {
        return remote_rows().at(p);
    }

    std::unique_ptr<Backend> cpu_;
};

inline void register_remote_backend() {
    register_backend({"test:remote", [](std::string&) { return true; },
                      [] { return std::make_unique<RemoteBackend>(); }});
}

}  // namespace kvw::test
