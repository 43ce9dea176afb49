#include <cstring>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

#include "core/cache/kv_row_device.h"
#include "core/io/huge_page_region.h"
#include "core/math/kshift_row.h"
#include "core/math/row_error.h"

namespace kvw {

namespace {

// Row r's bytes, scales and counter of a plane, and the bytes of n rows of each.
struct RowAt {
    const CachePlane& p;
    size_t data(int r) const { return size_t(r) * p.data_bytes(); }
    size_t scales(int r) const { return size_t(r) * size_t(p.groups); }
};

void move_plane(const CachePlane& p, int to, int from, int n) {
    const RowAt at{p};
    std::memmove(p.data + at.data(to), p.data + at.data(from), size_t(n) * p.data_bytes());
    if (p.scales)
        std::memmove(p.scales + at.scales(to), p.scales + at.scales(from),
                     size_t(n) * p.scale_bytes());
    if (p.saturated)
        std::memmove(p.saturated + to, p.saturated + from, size_t(n) * sizeof(uint32_t));
}

void copy_plane(const CachePlane& dst, int to, const CachePlane& src, int from, int n) {
    std::memcpy(dst.data + RowAt{dst}.data(to), src.data + RowAt{src}.data(from),
                size_t(n) * src.data_bytes());
    if (src.scales)
        std::memcpy(dst.scales + RowAt{dst}.scales(to), src.scales + RowAt{src}.scales(from),
                    size_t(n) * src.scale_bytes());
    if (src.saturated)
        std::memcpy(dst.saturated + to, src.saturated + from, size_t(n) * sizeof(uint32_t));
}

// The host: zeroed memory, 64-byte aligned for the vector kernels, rows encoded and decoded by
// core/math/kv_quant.h one after the other. A layer's plane that can hold a huge page is a
// huge-page region: a decode streams every row of it each token, and from 4 KiB pages a
// 4,096-row decode took about a tenth longer (docs/ARCHITECTURE.md §5.4).
class HostRowDevice final : public KvRowDevice {
public:
    std::string_view name() const override { return "host"; }

    void* allocate(size_t bytes) override {
        if (bytes == 0) return nullptr;
        if (bytes >= kHugePageBytes) {
            HugePageRegion region(bytes);
            void* p = region.data();
            const std::lock_guard lock(regions_mutex_);
            regions_.emplace(p, std::move(region));
            return p;
        }
        void* p = ::operator new (bytes, std::align_val_t{64});
        std::memset(p, 0, bytes);
        return p;
    }
    void release(void* p) noexcept override {
        if (!p) return;
        {
            const std::lock_guard lock(regions_mutex_);
            if (regions_.erase(p) > 0) return;
        }
        ::operator delete (p, std::align_val_t{64});
    }
    void upload(void* dst, const void* src, size_t bytes) override { copy(dst, src, bytes); }
    void download(void* dst, const void* src, size_t bytes) const override {
        if (bytes) std::memcpy(dst, src, bytes);
    }
    void copy(void* dst, const void* src, size_t bytes) override {
        if (bytes) std::memcpy(dst, src, bytes);
    }
    void download_strided(void* dst, size_t dst_pitch, const void* src, size_t src_pitch,
                          size_t width, size_t rows) const override {
        for (size_t r = 0; r < rows; ++r)
            std::memcpy(static_cast<uint8_t*>(dst) + r * dst_pitch,
                        static_cast<const uint8_t*>(src) + r * src_pitch, width);
    }

    // The host's memory is the memory of the CPU backends, so rows at either place are read
    // where they are.
    void write_rows(const CachePlanes& planes, int at, const NewRows& rows, int n,
                    QuantStats* k_stats, QuantStats* v_stats) override {
        const float* src[2] = {rows.k, rows.v};
        QuantStats* stats[2] = {k_stats, v_stats};
        for (int i = 0; i < n; ++i)
            for (int h = 0; h < 2; ++h) {
                const CachePlane& p = planes.kv[h];
                const size_t r = size_t(at + i);
                QuantStats st;
                kv_encode_row(p.type, src[h] + size_t(i) * size_t(p.kv_dim), p.kv_dim, p.groups,
                              p.row(r), p.scale(r), st);
                if (p.saturated) p.saturated[r] = uint32_t(st.saturated);
                stats[h][i] = st;
            }
    }
    void move_rows(const CachePlanes& planes, int to, int from, int n) override {
        for (const CachePlane& p : planes.kv) move_plane(p, to, from, n);
    }
    void copy_rows(const CachePlanes& dst, int to, const CachePlanes& src, int from,
                   int n) override {
        for (int h = 0; h < 2; ++h) copy_plane(dst.kv[h], to, src.kv[h], from, n);
    }
    void rerotate_k(const CachePlane& k, std::span<const int> rows, std::span<const int32_t> delta,
                    int head_dim, const RopeParams& rope, QuantStats* stats) override {
        std::vector<float> x(size_t(k.kv_dim));
        for (size_t i = 0; i < rows.size(); ++i) {
            stats[i] = {};
            if (delta[i] != 0)
                kshift_row(k, size_t(rows[i]), head_dim, delta[i], rope, x.data(), stats[i]);
        }
    }
    void hash_rows(std::span<const RowHash> streams) const override {
        for (const RowHash& s : streams)
            for (const int r : s.rows)
                for (const CachePlane& p : s.planes.kv) {
                    s.state->update(p.row(size_t(r)), p.data_bytes());
                    s.state->update(p.scale(size_t(r)), p.scale_bytes());
                }
    }
    void drift_rows(const CachePlanes& planes, std::span<const int> rows, const NewRows& ref,
                    float* k_out, float* v_out) const override {
        const float* refs[2] = {ref.k, ref.v};
        float* outs[2] = {k_out, v_out};
        std::vector<float> row(static_cast<size_t>(planes.kv[0].kv_dim));
        for (size_t i = 0; i < rows.size(); ++i)
            for (int h = 0; h < 2; ++h) {
                const CachePlane& p = planes.kv[h];
                const size_t r = size_t(rows[i]);
                kv_decode_row(p.type, p.row(r), p.scale(r), p.kv_dim, p.groups, row.data());
                outs[h][i] =
                    relative_row_error(row.data(), refs[h] + i * size_t(p.kv_dim), p.kv_dim);
            }
    }
    void read_rows(const CachePlane& p, std::span<const int> rows, float* out) const override {
        for (size_t i = 0; i < rows.size(); ++i) {
            const size_t r = size_t(rows[i]);
            kv_decode_row(p.type, p.row(r), p.scale(r), p.kv_dim, p.groups,
                          out + i * size_t(p.kv_dim));
        }
    }

private:
    std::mutex regions_mutex_;
    std::unordered_map<void*, HugePageRegion> regions_;  // the huge-page allocations, by start
};

}  // namespace

void transfer(KvRowDevice& to, void* dst, const KvRowDevice& from, const void* src, size_t bytes) {
    if (bytes == 0) return;
    if (&to == &from) return to.copy(dst, src, bytes);
    if (&from == &host_row_device()) return to.upload(dst, src, bytes);
    std::vector<uint8_t> staged(bytes);
    from.download(staged.data(), src, bytes);
    to.upload(dst, staged.data(), bytes);
}

KvRowDevice& host_row_device() {
    static HostRowDevice device;
    return device;
}

}  // namespace kvw
