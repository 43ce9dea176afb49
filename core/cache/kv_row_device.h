#pragma once
#include <cstddef>
#include <span>
#include <string_view>
#include <utility>

#include "core/math/cache_plane.h"
#include "core/math/kv_quant.h"
#include "core/math/rope.h"
#include "core/math/xxh64.h"

namespace kvw {

// Where the floats of new rows are: host memory, or the memory of the device the cache lives on
// (a forward's K and V: the engine's backend computes them in the memory its kv_rows() device
// shares, and the cache takes them there, so they do not cross).
enum class RowsAt { Host, Device };

// New rows' K and V, [n][kv_dim] floats each, and where they are.
struct NewRows {
    const float* k = nullptr;
    const float* v = nullptr;
    RowsAt at = RowsAt::Host;
    // The rows from row `row` on.
    NewRows from(int row, int kv_dim) const {
        const size_t floats = size_t(row) * size_t(kv_dim);
        return {k + floats, v + floats, at};
    }
};

// Where a cache's rows live (docs/ARCHITECTURE.md §18): the memory a RowBuffer's planes are
// allocated in and the ops that change rows there. The host's (host_row_device()) serves the
// CPU backends and every cache made without an engine; an accelerator backend hands out its
// own (Backend::kv_rows()), so that its attention reads the rows where they are and an edit
// moves them with a kernel instead of on the host. RowBuffer reaches the planes only through
// these calls, on the host device as well, so the code that calls them is the same everywhere.
//
// Rows arguments are checked by the caller (RowBuffer); planes are views of memory this device
// allocated. Host pointers are marked as such; every other pointer is the device's memory.
class KvRowDevice {
public:
    virtual ~KvRowDevice() = default;
    // What errors and logs call it ("host", "cuda").
    virtual std::string_view name() const = 0;

    // `bytes` of the device's memory, zeroed (null for 0), and back.
    virtual void* allocate(size_t bytes) = 0;
    virtual void release(void* p) noexcept = 0;
    // host -> device, device -> host, device -> device (not overlapping). An upload returns once
    // src may be reused, a download when the bytes are on the host; the device's later ops see
    // what an upload or a copy wrote.
    virtual void upload(void* dst, const void* src, size_t bytes) = 0;
    virtual void download(void* dst, const void* src, size_t bytes) const = 0;
    virtual void copy(void* dst, const void* src, size_t bytes) = 0;
    // `rows` pieces of `width` bytes, src_pitch apart on the device, to dst_pitch apart on the
    // host (cudaMemcpy2D's shape): a run of stored rows laid out row by row in one call.
    virtual void download_strided(void* dst, size_t dst_pitch, const void* src, size_t src_pitch,
                                  size_t width, size_t rows) const = 0;

    // Rows [at, at + n) of K and V encoded from `rows` with kv_encode_row, each row's clip
    // counter set; what encoding row i met goes to k_stats[i], v_stats[i] (host).
    virtual void write_rows(const CachePlanes& planes, int at, const NewRows& rows, int n,
                            QuantStats* k_stats, QuantStats* v_stats) = 0;
    // Rows [from, from + n) of both planes, scales and counters with them, to [to, to + n); the
    // ranges may overlap.
    virtual void move_rows(const CachePlanes& planes, int to, int from, int n) = 0;
    // Rows [from, from + n) of `src` (other planes of the same shape on this device) to rows
    // [to, to + n) of `dst`, as stored.
    virtual void copy_rows(const CachePlanes& dst, int to, const CachePlanes& src, int from,
                           int n) = 0;
    // The K-shift: K of physical rows `rows` rotated head by head by delta[i] positions (rows
    // and delta host; 0 leaves a row as stored) and encoded again (core/math/kshift_row.h); what
    // encoding met to stats[i] (host). rope.freq_divisors, when set, is host memory.
    virtual void rerotate_k(const CachePlane& k, std::span<const int> rows,
                            std::span<const int32_t> delta, int head_dim, const RopeParams& rope,
                            QuantStats* stats) = 0;
    // A stream of stored rows: physical rows `rows` (host) of `planes`, fed to `state` (host),
    // which goes on from where it was.
    struct RowHash {
        CachePlanes planes;
        std::span<const int> rows;
        Xxh64State* state = nullptr;
    };
    // Feeds each stream its rows' stored bytes: K bytes, K scales, V bytes, V scales row after
    // row (RowBuffer::stored_rows' order). The state digest hashes the rows where they are, all
    // the blocks it reads again in one call: only the states cross.
    virtual void hash_rows(std::span<const RowHash> streams) const = 0;
    // Physical rows `rows` (host) of one plane decoded to [rows][kv_dim] host floats.
    virtual void read_rows(const CachePlane& plane, std::span<const int> rows,
                           float* out) const = 0;
    // The drift map's numbers: relative_row_error (core/math/row_error.h) of physical row
    // rows[i], decoded, against reference row i of `ref`, K to k_out[i] and V to v_out[i]
    // (host). Compared where the rows are: only the numbers cross.
    virtual void drift_rows(const CachePlanes& planes, std::span<const int> rows,
                            const NewRows& ref, float* k_out, float* v_out) const = 0;
};

// The host's memory and row ops: the CPU backends' and every cache made without an engine.
KvRowDevice& host_row_device();

// `bytes` from `src` in `from`'s memory to `dst` in `to`'s: within one device a copy, else
// through the host.
void transfer(KvRowDevice& to, void* dst, const KvRowDevice& from, const void* src, size_t bytes);

// One allocation of a KvRowDevice, released when it dies; move-only.
class DeviceBytes {
public:
    DeviceBytes() = default;
    DeviceBytes(KvRowDevice& device, size_t bytes)
        : device_(&device), data_(device.allocate(bytes)), bytes_(bytes) {}
    ~DeviceBytes() { reset(); }
    DeviceBytes(DeviceBytes&& o) noexcept
        : device_(o.device_),
          data_(std::exchange(o.data_, nullptr)),
          bytes_(std::exchange(o.bytes_, 0)) {}
    DeviceBytes& operator=(DeviceBytes&& o) noexcept {
        if (this != &o) {
            reset();
            device_ = o.device_;
            data_ = std::exchange(o.data_, nullptr);
            bytes_ = std::exchange(o.bytes_, 0);
        }
        return *this;
    }
    DeviceBytes(const DeviceBytes&) = delete;
    DeviceBytes& operator=(const DeviceBytes&) = delete;

    template <class T = void>
    T* as() const {
        return static_cast<T*>(data_);
    }
    size_t bytes() const { return bytes_; }

private:
    void reset() noexcept {
        if (data_) device_->release(data_);
        data_ = nullptr;
        bytes_ = 0;
    }

    KvRowDevice* device_ = nullptr;
    void* data_ = nullptr;
    size_t bytes_ = 0;
};

}  // namespace kvw
