// Quantised K/V storage in every layout (docs/ARCHITECTURE.md §13): the same row edits give the
// same logical (decoded) rows and the same stored bytes and scales in every layout, checked
// against a plain model of float rows after every edit; a forward over a quantised cache equals
// the forward over its decoded rows in float32; prefill, token-by-token decode and a rebuild
// from the mirror store the same bytes; drift stays within the storage type's tolerance; the
// memory check counts bytes of the chosen types.
#include <QtTest>

#include <random>
#include <vector>

#include "core/cache/cache_capacity.h"
#include "core/cache/kv_layout.h"
#include "state_fixture.h"
#include "tests/unit/forward_rows.h"

using namespace kvw;
using namespace kvw::test;

namespace {

struct TypePair {
    KvType k, v;
};
// Each type on each side at least once, the seed's pair (bf16 K, FP8 V) included.
constexpr TypePair kPairs[] = {{KvType::F32, KvType::F32},      {KvType::F16, KvType::BF16},
                               {KvType::BF16, KvType::Fp8E4M3}, {KvType::Int8, KvType::Int8},
                               {KvType::Fp8E4M3, KvType::Int8}, {KvType::Int8, KvType::F16}};

using Row = std::vector<float>;  // kv_dim of K, then kv_dim of V

// What a row written from `row` must hold: its bytes and scales (independent of where it
// lives), as the encoder makes them from the floats alone.
std::vector<uint8_t> expected_stored(const KvStorage& s, const Row& row, int d) {
    std::vector<uint8_t> out;
    for (int half = 0; half < 2; ++half) {
        const KvType t = half == 0 ? s.k : s.v;
        std::vector<uint8_t> code(size_t(d) * size_t(kv_type_bytes(t)));
        std::vector<float> scales(static_cast<size_t>(s.groups));
        QuantStats st;
        kv_encode_row(t, row.data() + size_t(half) * size_t(d), d, s.groups, code.data(),
                      scales.data(), st);
        out.insert(out.end(), code.begin(), code.end());
        if (kv_type_scaled(t)) {
            const auto* b = reinterpret_cast<const uint8_t*>(scales.data());
            out.insert(out.end(), b, b + scales.size() * sizeof(float));
        }
    }
    return out;
}

QString label(CacheLayout l, TypePair p) {
    return QString("%1 K %2 V %3").arg(cache_layout_name(l), kv_type_name(p.k), kv_type_name(p.v));
}

}  // namespace

class TestKvStorage : public QObject {
    Q_OBJECT

private slots:
    // Random insert / remove / overwrite / truncate / prefix reads on every layout and type
    // pair; after every edit each logical row holds the encoding of its model row (so its
    // scales travelled with it) and decodes to the same floats in every layout. Some rows carry
    // an infinity or a NaN, which set no scale: the layout counts no non-finite scale.
    void every_layout_and_type_holds_the_model_rows_with_their_scales() {
        constexpr int kDim = 8, kGroups = 2, kCap = 24;
        for (const TypePair pair : kPairs) {
            const KvStorage storage{pair.k, pair.v, kGroups};
            std::vector<std::unique_ptr<KvLayout>> caches;
            for (CacheLayout l : kAllLayouts)
                caches.push_back(make_kv_layout(l, 1, kDim, kCap, storage));
            std::mt19937 rng(17);
            std::normal_distribution<float> value(0.0f, 3.0f);
            std::vector<Row> model;
            auto fresh = [&] {
                Row r(2 * kDim);
                for (float& x : r) x = value(rng);
                if (rng() % 4 == 0) r[rng() % r.size()] = rng() % 2 ? NAN : -INFINITY;
                return r;
            };
            for (int step = 0; step < 400; ++step) {
                const int rows = int(model.size());
                const unsigned op = rng() % 5;
                if ((op == 0 || rows == 0) && rows < kCap) {  // insert anywhere
                    const int at = int(rng() % unsigned(rows + 1));
                    const Row r = fresh();
                    for (auto& c : caches) c->insert(0, at, r.data(), r.data() + kDim, 1);
                    model.insert(model.begin() + at, r);
                } else if (op == 1 && rows > 0) {
                    const int at = int(rng() % unsigned(rows));
                    for (auto& c : caches) c->remove(0, at);
                    model.erase(model.begin() + at);
                } else if (op == 2 && rows > 0) {
                    const int at = int(rng() % unsigned(rows));
                    model[size_t(at)] = fresh();
                    for (auto& c : caches)
                        c->overwrite(0, at, model[size_t(at)].data(),
                                     model[size_t(at)].data() + kDim, 1);
                } else if (op == 3 && rows > 2 && rng() % 4 == 0) {
                    const int keep = int(rng() % unsigned(rows));
                    for (auto& c : caches) c->truncate(0, keep);
                    model.resize(size_t(keep));
                } else if (rows < kCap) {
                    const Row r = fresh();
                    for (auto& c : caches) c->append(0, r.data(), r.data() + kDim, 1);
                    model.push_back(r);
                }
                for (size_t c = 0; c < caches.size(); ++c) {
                    const KvLayout& cache = *caches[c];
                    QCOMPARE(cache.rows(0), int(model.size()));
                    for (int r = 0; r < cache.rows(0); ++r) {
                        QVERIFY2(cache.stored_row(0, r) ==
                                     expected_stored(storage, model[size_t(r)], kDim),
                                 qPrintable(label(kAllLayouts[c], pair) +
                                            QString(" step %1 row %2").arg(step).arg(r)));
                        Row a(2 * kDim), b(2 * kDim);
                        cache.read_k(0, r, a.data());
                        cache.read_v(0, r, a.data() + kDim);
                        caches[0]->read_k(0, r, b.data());
                        caches[0]->read_v(0, r, b.data() + kDim);
                        QVERIFY(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
                    }
                    QCOMPARE(cache.nonfinite_scales(0), int64_t(0));
                }
            }
        }
    }

    // The engine decodes a quantised context with the shared functions: the same forward over
    // float32 rows holding the decoded values (same store types for the new item) gives the
    // same logits and K/V to the bit. And storage matters: f32 storage gives other logits.
    void forward_over_quantised_cache_equals_forward_over_decoded_rows() {
        std::mt19937 rng(3);
        const std::vector<int32_t> toks = random_tokens(rng, 12);
        for (const TypePair pair : kPairs) {
            if (pair.k == KvType::F32 && pair.v == KvType::F32) continue;
            StateManager s(tiny().engine,
                           StateOptions{32, RopePolicy::FinalIndex, true, CacheLayout::Indirection,
                                        std::nullopt, pair.k, pair.v});
            s.append(toks, EntryKind::Prompt, 0);
            s.remove({}, 4, 1);  // indirection: rows out of slab order
            const int d = s.cache().kv_dim();
            std::vector<std::vector<float>> k(size_t(s.n_layers())), v(k.size());
            std::vector<LayerContext> quantised, decoded, as_f32;
            for (int l = 0; l < s.n_layers(); ++l) {
                const int n = s.cache().rows(l);
                k[size_t(l)].resize(size_t(n * d));
                v[size_t(l)].resize(size_t(n * d));
                for (int r = 0; r < n; ++r) {
                    s.cache().read_k(l, r, &k[size_t(l)][size_t(r * d)]);
                    s.cache().read_v(l, r, &v[size_t(l)][size_t(r * d)]);
                }
                quantised.push_back(s.cache().view(l));
                LayerContext f{n, {k[size_t(l)].data()}, {v[size_t(l)].data()}};
                as_f32.push_back(f);
                f.k_store = pair.k;
                f.v_store = pair.v;
                decoded.push_back(f);
            }
            const std::vector<Item> item{Item::of_token(toks[0])};
            const std::vector<int32_t> pos{11};
            const ForwardOutput a = tiny().engine.forward(item, pos, quantised);
            const ForwardOutput b = tiny().engine.forward(item, pos, decoded);
            const ForwardOutput c = tiny().engine.forward(item, pos, as_f32);
            QCOMPARE(a.logits, b.logits);
            QCOMPARE(test::host_layers(a.k), test::host_layers(b.k));
            QCOMPARE(test::host_layers(a.v), test::host_layers(b.v));
            QVERIFY(a.logits != c.logits);
        }
    }

    // Every read of a row sees what the cache holds, its own writing step included: a prefill
    // in one pass, a token-by-token decode and a rebuild from the mirror store the same bytes;
    // the drift of an aligned cache is the storage's rounding, within its type's tolerance.
    void prefill_decode_and_rebuild_store_the_same_bytes() {
        std::mt19937 rng(9);
        const std::vector<int32_t> toks = random_tokens(rng, 10);
        for (const TypePair pair : kPairs) {
            for (CacheLayout layout : kAllLayouts) {
                const StateOptions o{
                    32, RopePolicy::FinalIndex, true, layout, std::nullopt, pair.k, pair.v};
                StateManager prefill(tiny().engine, o), decode(tiny().engine, o);
                prefill.append(toks, EntryKind::Prompt, 0);
                for (int32_t t : toks) decode.append(std::vector<int32_t>{t}, EntryKind::Prompt, 0);
                QVERIFY2(prefill.state_hash() == decode.state_hash(),
                         qPrintable(label(layout, pair)));
                QCOMPARE(prefill.last_logits(), decode.last_logits());
                const uint64_t before = decode.state_hash();
                decode.rebuild_from_mirror();
                QCOMPARE(decode.state_hash(), before);
                const DriftReport d = decode.measure_drift();
                QCOMPARE(d.tolerance, std::max(kv_type_drift_tolerance(pair.k),
                                               kv_type_drift_tolerance(pair.v)));
                QCOMPARE(d.first_diverging_layer, -1);
                if (pair.k != KvType::F32) QVERIFY(max_drift(d) > 0.0f);
            }
        }
    }

    void layout_switch_keeps_the_stored_bytes() {
        std::mt19937 rng(4);
        StateManager s(tiny().engine,
                       StateOptions{32, RopePolicy::Reindex, true, CacheLayout::Contiguous,
                                    std::nullopt, KvType::Int8, KvType::Fp8E4M3});
        s.append(random_tokens(rng, 9), EntryKind::Prompt, 0);
        s.remove({}, 2, 1);  // Reindex re-encodes the K it rotates
        const uint64_t h = s.state_hash();
        for (CacheLayout l : {CacheLayout::Indirection, CacheLayout::BatchSplice}) {
            s.set_layout(l);
            QCOMPARE(s.state_hash(), h);
        }
        s.set_kv_types(KvType::F32, KvType::F32);  // decoded floats, stored exactly
        QVERIFY(s.state_hash() != h);
        QCOMPARE(s.cache().storage().k, KvType::F32);
    }

    void memory_check_counts_bytes_of_the_storage_types() {
        const int layers = 2, kv_dim = 64, groups = 4;
        const KvStorage f32{}, int8{KvType::Int8, KvType::Int8, groups};
        QCOMPARE(cache_bytes(10, layers, kv_dim, f32), uint64_t(10 * 2 * 2 * 64 * 4));
        QCOMPARE(cache_bytes(10, layers, kv_dim, int8), uint64_t(10 * 2 * 2 * (64 + groups * 4)));
        // Int8 rows also keep their count of clipped values beside them (4 bytes each, K and V).
        QCOMPARE(layout_bytes(10, layers, kv_dim, int8, CacheLayout::Contiguous, {}),
                 uint64_t(10 * 2 * (2 * (64 + groups * 4) + 2 * 4)));
        QCOMPARE(layout_bytes(10, layers, kv_dim, f32, CacheLayout::Contiguous, {}),
                 cache_bytes(10, layers, kv_dim, f32));
        const uint64_t budget =
            layout_bytes(100, layers, kv_dim, int8, CacheLayout::Contiguous, {});
        QCOMPARE(checked_capacity(100, 4096, layers, kv_dim, budget, int8), 100);
        QVERIFY_THROWS_EXCEPTION(InvalidCapacity,
                                 checked_capacity(100, 4096, layers, kv_dim, budget, f32));
    }

    void encoding_counters_reach_the_layout() {
        const auto cache = make_kv_layout(CacheLayout::Contiguous, 1, 4, 4,
                                          KvStorage{KvType::Fp8E4M3, KvType::F16, 1});
        const float k[4] = {1.0f, INFINITY, NAN, 2.0f}, v[4] = {1e6f, NAN, 0.0f, 1.0f};
        cache->append(0, k, v, 1);
        QCOMPARE(cache->k_stats(0).saturated, uint64_t(1));
        QCOMPARE(cache->k_stats(0).nan_inputs, uint64_t(1));
        QCOMPARE(cache->v_stats(0).saturated, uint64_t(1));  // 1e6 overflows f16
        QCOMPARE(cache->v_stats(0).nan_inputs, uint64_t(1));
    }
};

QTEST_APPLESS_MAIN(TestKvStorage)
#include "test_kv_storage.moc"
