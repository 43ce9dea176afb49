// The KV cache's kernel bodies that reduce rows (kernels/bodies/cache_gist, _drift, _digest), run
// over their grids on the CPU by host_launch through the same builders the CUDA launchers call:
// the gist mean pool against mean_pool_rows and float64 means, the drift against the float64 row
// error, XXH64 (core/math/xxh64.h) against the Python xxhash package's digests, and the row hashes
// against the bytes the state digest reads.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/cache/kv_layout.h"
#include "core/math/mean_pool.h"
#include "core/math/xxh64.h"
#include "core/mirror/chunk_revisions.h"
#include "core/mirror/layer_map.h"
#include "core/state/state_digest.h"
#include "kernels/bodies/cache_digest.h"
#include "kernels/bodies/cache_drift.h"
#include "kernels/bodies/cache_gather.h"
#include "kernels/bodies/cache_gist.h"
#include "kernels/launch/host_launch.h"
#include "tests/testdata.h"
#include "tests/unit/cache_planes.h"

using namespace kvw;
using namespace kvw::test;
using kern::host_launch;

namespace {

std::vector<unsigned char> read_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

}  // namespace

class TestCacheReductionBodies : public QObject {
    Q_OBJECT
private slots:
    // ---- gist -----------------------------------------------------------------------------------

    void gists_equal_mean_pool_rows_and_float64_means() {
        std::mt19937 rng(12);
        for (int dim : {1, 40, 112}) {
            const int rows = 37;
            const std::vector<float> x = finite_rows(rng, rows, dim);
            // Gists of 1, 3, 8 and all 37 rows, rows picked out of order.
            std::vector<int32_t> offsets{0}, index;
            for (int span : {1, 3, 8, 37}) {
                for (int j = 0; j < span; ++j) index.push_back(int32_t(rng() % unsigned(rows)));
                offsets.push_back(int32_t(index.size()));
            }
            const int gists = int(offsets.size()) - 1;
            std::vector<float> out(size_t(gists) * size_t(dim));
            host_launch(kern::cache_gist_pool(x.data(), index.data(), offsets.data(), gists, dim,
                                              out.data()));
            std::vector<float> want(static_cast<size_t>(dim));
            for (int g = 0; g < gists; ++g) {
                std::vector<const float*> picked;
                for (int j = offsets[size_t(g)]; j < offsets[size_t(g) + 1]; ++j)
                    picked.push_back(x.data() + size_t(index[size_t(j)]) * size_t(dim));
                mean_pool_rows(picked.data(), int(picked.size()), dim, want.data());
                QVERIFY(std::memcmp(out.data() + size_t(g) * size_t(dim), want.data(),
                                    size_t(dim) * sizeof(float)) == 0);
                for (int i = 0; i < dim; ++i) {
                    double mean = 0.0;
                    for (const float* r : picked) mean += r[i];
                    mean /= double(picked.size());
                    QVERIFY(std::fabs(out[size_t(g) * size_t(dim) + size_t(i)] - mean) < 1e-5);
                }
            }
        }
    }

    // ---- drift ----------------------------------------------------------------------------------

    void drift_equals_the_float64_row_error() {
        std::mt19937 rng(13);
        for (int kv_dim : {1, 40, 112}) {
            const int n = 37;
            std::vector<float> ref = finite_rows(rng, n, kv_dim);
            std::vector<float> cached = ref;
            std::normal_distribution<float> noise(0.0f, 1e-3f);
            for (float& f : cached) f += noise(rng);
            std::fill(ref.begin(), ref.begin() + kv_dim, 0.0f);  // row 0: absolute error
            std::vector<float> dk(static_cast<size_t>(n)), dv(static_cast<size_t>(n));
            host_launch(kern::cache_drift(cached.data(), ref.data(), ref.data(), ref.data(), n,
                                          kv_dim, dk.data(), dv.data()));
            for (int r = 0; r < n; ++r) {
                double max_diff = 0.0, norm = 0.0;
                for (int i = 0; i < kv_dim; ++i) {
                    const size_t at = size_t(r) * size_t(kv_dim) + size_t(i);
                    max_diff = std::max(max_diff, std::fabs(double(cached[at]) - double(ref[at])));
                    norm += double(ref[at]) * double(ref[at]);
                }
                norm = std::sqrt(norm);
                const float want = float(norm > 0.0 ? max_diff / norm : max_diff);
                QCOMPARE(dk[size_t(r)], want);
                QCOMPARE(dv[size_t(r)], 0.0f);
            }
        }
    }

    // ---- XXH64 and the block digests ----------------------------------------------------------

    void xxh64_equals_python_xxhash_in_one_piece_and_in_cuts() {
        std::ifstream f(test::testdata_path("stream_hash/cases.txt"));
        const std::vector<unsigned char> input =
            read_file(test::testdata_path("stream_hash/input.bin"));
        std::mt19937 rng(14);
        std::string line;
        int cases = 0;
        while (std::getline(f, line)) {
            std::istringstream in(line);
            size_t offset = 0, length = 0;
            std::string hex;
            in >> offset >> length >> hex;
            QVERIFY(offset + length <= input.size());
            const uint64_t want = std::stoull(hex, nullptr, 16);
            const unsigned char* bytes = input.data() + offset;
            QVERIFY2(xxh64(bytes, length) == want, qPrintable(QString("length %1").arg(length)));
            Xxh64State cut;
            for (size_t i = 0; i < length;) {
                const size_t n = std::min(length - i, size_t(rng() % 45));
                cut.update(bytes + i, n);
                i += n;
            }
            QVERIFY2(cut.digest() == want, qPrintable(QString("length %1, cut").arg(length)));
            ++cases;
        }
        QVERIFY(cases >= 301);  // every length 0..300, stripes whole and not, and long ones
    }

    void row_hashes_equal_the_state_digests_bytes() {
        std::mt19937 rng(15);
        for (KvType t : kTypes) {
            const KvStorage s = storage_of(t, other_type(t), 4);
            const int kv_dim = 40, rows = 300, capacity = 300;
            HostPlanes p(s, kv_dim, capacity);
            auto layout = make_kv_layout(CacheLayout::Contiguous, 1, kv_dim, capacity, s);
            fill(p, layout.get(), rng, rows);
            LayerMap map;
            for (int r = 0; r < rows; ++r) {
                map.pos2ledger.push_back(int64_t(rng()) << 20 | r);
                map.rope_pos.push_back(int32_t(rng() % 5000));
            }
            // The stored rows in physical order reversed: runs alternate between the planes as
            // filled (rows as they are) and these (rows through the reversing index).
            HostPlanes reversed(s, kv_dim, capacity);
            std::vector<int32_t> reversing(static_cast<size_t>(rows));
            for (int r = 0; r < rows; ++r) reversing[size_t(r)] = rows - 1 - r;
            host_launch(kern::cache_gather_rows(reversed.view(), 0, p.view(), reversing.data(), 0,
                                                rows, nullptr)
                            .step[0]);
            // Each block of the state digest is two runs, its rows cut at a random row: the
            // first begun at the block's head, the second going on from the state the first
            // left, in a second launch.
            const int blocks = (rows + kRevisionBlockRows - 1) / kRevisionBlockRows;
            std::vector<CachePlanes> planes;
            std::vector<int32_t> physical[2], ends[2];
            std::vector<Xxh64State> states;
            for (int b = 0; b < blocks; ++b) {
                const int first = b * kRevisionBlockRows;
                const int end = std::min(first + kRevisionBlockRows, rows);
                const int cut = first + int(rng() % unsigned(end - first + 1));
                const bool through = b % 2 == 1;
                planes.push_back(through ? reversed.view() : p.view());
                states.push_back(row_block_head(map, rows, size_t(b)).state());
                for (int half = 0; half < 2; ++half) {
                    for (int r = half ? cut : first; r < (half ? end : cut); ++r)
                        physical[half].push_back(through ? reversing[size_t(r)] : r);
                    ends[half].push_back(int32_t(physical[half].size()));
                }
            }
            for (int half = 0; half < 2; ++half)
                host_launch(kern::cache_row_hashes(planes.data(), physical[half].data(),
                                                   ends[half].data(), states.data(), blocks));
            for (int b = 0; b < blocks; ++b) {
                // The bytes StateDigest reads for the block, laid out here.
                const int first = b * kRevisionBlockRows;
                const int end = std::min(first + kRevisionBlockRows, rows);
                std::vector<uint8_t> bytes;
                const auto put = [&](const void* data, size_t n) {
                    const auto* c = static_cast<const uint8_t*>(data);
                    bytes.insert(bytes.end(), c, c + n);
                };
                const int count = end - first;
                put(&count, sizeof count);
                put(map.pos2ledger.data() + first, size_t(count) * sizeof(int64_t));
                put(map.rope_pos.data() + first, size_t(count) * sizeof(int32_t));
                put(&count, sizeof count);
                for (int r = first; r < end; ++r) {
                    const std::vector<uint8_t> row = layout->stored_row(0, r);
                    put(row.data(), row.size());
                }
                QCOMPARE(states[size_t(b)].digest(), xxh64(bytes.data(), bytes.size()));
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestCacheReductionBodies)
#include "test_cache_reduction_bodies.moc"
