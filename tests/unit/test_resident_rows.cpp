// ResidentRows (core/backend/resident_rows.h): the copy of each layer's cached rows a backend
// keeps in its own memory equals the host's rows after every edit of every layout, while
// uploading only the rows the edits renewed. Run on the CPU backend, whose memory is the host's,
// through the same allocate / upload / copy / download calls the CUDA backend serves.
#include <QtTest>

#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "core/backend/resident_rows.h"
#include "core/cache/kv_layout.h"

using namespace kvw;

namespace {

constexpr int kLayers = 2;
constexpr int kHeads = 2;
constexpr int kKvDim = 8;
constexpr int kCapacity = 48;

std::vector<uint8_t> fetched(Backend& be, const void* p, size_t bytes) {
    std::vector<uint8_t> out(bytes);
    be.download(out.data(), p, bytes);
    return out;
}

// Whether the resident context holds the host's bytes and scales for every row it reads.
bool same_rows(Backend& be, const LayerContext& host, const LayerContext& resident, QString& why) {
    for (int j = 0; j < host.rows; ++j) {
        const size_t p = host.physical_row(j);
        for (int half = 0; half < 2; ++half) {
            const KvRows& h = half ? host.v : host.k;
            const KvRows& r = half ? resident.v : resident.k;
            const size_t bytes = size_t(kKvDim) * size_t(kv_type_bytes(h.type));
            if (fetched(be, r.row(p, kKvDim), bytes) !=
                std::vector<uint8_t>(static_cast<const uint8_t*>(h.row(p, kKvDim)),
                                     static_cast<const uint8_t*>(h.row(p, kKvDim)) + bytes)) {
                why = QString("row %1 (physical %2) of %3 differs")
                          .arg(j)
                          .arg(p)
                          .arg(half ? "V" : "K");
                return false;
            }
            if (kv_type_scaled(h.type)) {
                const auto scales = fetched(be, r.scale + p * kHeads, kHeads * sizeof(float));
                if (std::memcmp(scales.data(), h.scale + p * kHeads, scales.size()) != 0) {
                    why = QString("scales of row %1 differ").arg(j);
                    return false;
                }
            }
        }
    }
    return true;
}

std::vector<float> random_rows(std::mt19937& rng, int n) {
    std::normal_distribution<float> value(0.0f, 2.0f);
    std::vector<float> rows(size_t(n) * kKvDim);
    for (float& x : rows) x = value(rng);
    return rows;
}

struct LayoutCase {
    const char* name;
    CacheLayout layout;
    RingOptions ring;
};

const LayoutCase kCases[] = {
    {"contiguous", CacheLayout::Contiguous, {}},
    {"batch_splice", CacheLayout::BatchSplice, {}},
    {"indirection", CacheLayout::Indirection, {}},
    {"ring roll", CacheLayout::Ring, {RingMode::Roll, 2, 1}},
    {"ring pointer", CacheLayout::Ring, {RingMode::Pointer, 2, 1}},
    {"ring lut", CacheLayout::Ring, {RingMode::Lut, 2, 2}},
};

}  // namespace

class TestResidentRows : public QObject {
    Q_OBJECT
private slots:
    // Random edits of every layout and storage type, a truncation, a reset or a clone now and
    // then (new rows at a new address, the revisions copied; the old ones freed, their address
    // free for reuse): after each, every layer's resident rows equal the host's.
    void copies_equal_the_host_after_every_edit_data() {
        QTest::addColumn<int>("which");
        QTest::addColumn<int>("k_type");
        QTest::addColumn<int>("v_type");
        const std::pair<KvType, KvType> types[] = {{KvType::F32, KvType::F32},
                                                   {KvType::Int8, KvType::Fp8E4M3},
                                                   {KvType::F16, KvType::BF16}};
        for (int c = 0; c < int(std::size(kCases)); ++c)
            for (const auto& [k, v] : types)
                QTest::newRow(qPrintable(
                    QString("%1 %2/%3").arg(kCases[c].name, kv_type_name(k), kv_type_name(v))))
                    << c << int(k) << int(v);
    }
    void copies_equal_the_host_after_every_edit() {
        QFETCH(int, which);
        QFETCH(int, k_type);
        QFETCH(int, v_type);
        const LayoutCase& lc = kCases[which];
        const bool ring = lc.layout == CacheLayout::Ring;
        const KvStorage storage{KvType(k_type), KvType(v_type), kHeads};
        std::unique_ptr<Backend> be = make_cpu_backend(1);
        ResidentRows resident(*be, 3);  // fewer copies than layers and clones: some evicted
        std::unique_ptr<KvLayout> cache =
            make_kv_layout(lc.layout, kLayers, kKvDim, kCapacity, storage, lc.ring);
        std::mt19937 rng(7u + unsigned(which) * 31u + unsigned(k_type) * 7u);

        int checks = 0;
        for (int step = 0; step < 300; ++step) {
            const int layer = int(rng() % kLayers);
            const int rows = cache->rows(layer);
            const int op = int(rng() % 10);
            const int n = 1 + int(rng() % 3);
            const std::vector<float> k = random_rows(rng, n), v = random_rows(rng, n);
            if (op < 4 || rows < 4) {  // appends, the ring dropping its oldest rows for room
                if (cache->remaining(layer) < n) {
                    const int sinks = ring ? lc.ring.sinks : 0;
                    cache->remove_range(layer, sinks, n);
                }
                cache->append(layer, k.data(), v.data(), n);
            } else if (op == 4 && !ring && cache->remaining(layer) >= n) {
                cache->insert(layer, int(rng() % uint32_t(rows)), k.data(), v.data(), n);
            } else if (op == 5) {
                cache->remove(layer, int(rng() % uint32_t(rows)));
            } else if (op == 6) {
                const int count = std::min(n, rows - 1);
                cache->remove_range(layer, int(rng() % uint32_t(rows - count)), count);
            } else if (op == 7) {
                const int count = std::min(n, rows);
                cache->overwrite(layer, int(rng() % uint32_t(rows - count + 1)), k.data(), v.data(),
                                 count);
            } else if (op == 8) {
                std::vector<int32_t> delta(static_cast<size_t>(rows), 0);  // one row's K moves
                delta[rng() % uint32_t(rows)] = 5;
                cache->rerotate_k(layer, delta, kKvDim / kHeads, RopeParams{});
            } else if (step % 5 == 0) {
                cache->reset();
            } else if (step % 5 == 1) {
                cache->truncate(layer, rows - n);
            } else {
                cache = cache->clone();  // the old cache is freed here
            }
            // Read every layer (a forward reads them all), now and then twice in a row.
            for (int l = 0; l < kLayers; ++l)
                for (int read = 0; read < (step % 7 == 0 ? 2 : 1); ++read) {
                    const LayerContext host = cache->view(l);
                    const LayerContext copy = resident.resident(host, kKvDim, kHeads);
                    QString why;
                    QVERIFY2(same_rows(*be, host, copy, why),
                             qPrintable(QString("step %1 layer %2: %3").arg(step).arg(l).arg(why)));
                    ++checks;
                }
            QVERIFY(resident.copies() <= 3);
        }
        QVERIFY(checks >= 600);
    }

    // What is uploaded: a filled layer once, then per step only the rows its edits renewed, and
    // a context without revisions (rows no cache holds) whole on every read.
    void only_renewed_rows_are_uploaded() {
        std::unique_ptr<Backend> be = make_cpu_backend(1);
        ResidentRows resident(*be);
        const KvStorage storage{KvType::Int8, KvType::F16, kHeads};
        std::unique_ptr<KvLayout> cache =
            make_kv_layout(CacheLayout::Contiguous, kLayers, kKvDim, kCapacity, storage);
        const uint64_t row = uint64_t(kKvDim) * (1 + 2) + kHeads * sizeof(float);  // int8 + f16
        QCOMPARE(uint64_t(storage.row_bytes(kKvDim)), row);
        std::mt19937 rng(3);
        const auto read_all = [&] {
            const uint64_t before = resident.bytes_uploaded();
            for (int l = 0; l < kLayers; ++l) resident.resident(cache->view(l), kKvDim, kHeads);
            return resident.bytes_uploaded() - before;
        };
        const std::vector<float> k = random_rows(rng, 30), v = random_rows(rng, 30);
        for (int l = 0; l < kLayers; ++l) cache->append(l, k.data(), v.data(), 30);
        QCOMPARE(read_all(), 2 * 30 * row);
        QCOMPARE(read_all(), uint64_t(0));  // nothing changed

        for (int l = 0; l < kLayers; ++l) cache->append(l, k.data(), v.data(), 1);  // a decode step
        QCOMPARE(read_all(), 2 * 1 * row);

        cache->insert(0, 5, k.data(), v.data(), 2);  // rows 5.. of layer 0 move; layer 1 stays
        QCOMPARE(read_all(), uint64_t(cache->rows(0) - 5) * row);

        cache->overwrite(1, 10, k.data(), v.data(), 3);  // three rows rewritten in place
        QCOMPARE(read_all(), 3 * row);

        // A copy descends from the cache it was made from, but lives at another address: read
        // whole once, then as the original was.
        std::unique_ptr<KvLayout> copy = cache->clone();
        uint64_t before = resident.bytes_uploaded();
        for (int l = 0; l < kLayers; ++l) resident.resident(copy->view(l), kKvDim, kHeads);
        QCOMPARE(resident.bytes_uploaded() - before, uint64_t(copy->rows(0) + copy->rows(1)) * row);

        LayerContext floats = cache->view(0);
        floats.revisions = nullptr;  // as a context of decoded rows is
        for (int read = 0; read < 2; ++read) {
            before = resident.bytes_uploaded();
            resident.resident(floats, kKvDim, kHeads);
            QCOMPARE(resident.bytes_uploaded() - before, uint64_t(floats.rows) * row);
        }
    }
};

QTEST_GUILESS_MAIN(TestResidentRows)
#include "test_resident_rows.moc"
