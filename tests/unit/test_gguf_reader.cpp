// GgufFile against files written by the gguf Python package (make_gguf.py): metadata of every
// value type, tensor infos, stored bytes, and dequantisation bit-exact against gguf.quants.
// GgufWriter is checked by writing the same content as a Python-written file and comparing
// the bytes, then by reading its output back.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "core/model/gguf_file.h"
#include "core/model/gguf_writer.h"
#include "core/model/mapped_file.h"
#include "core/model/model_error.h"
#include "core/model/weights.h"
#include "tests/testdata.h"

using namespace kvw;

namespace {

std::string data(const std::string& name) { return test::testdata_path("gguf/" + name); }

QJsonDocument read_json(const std::string& name) {
    QFile file(QString::fromStdString(data(name)));
    if (!file.open(QIODevice::ReadOnly)) qFatal("cannot open %s", data(name).c_str());
    return QJsonDocument::fromJson(file.readAll());
}

std::vector<uint8_t> read_bytes(const std::string& name) {
    std::ifstream in(data(name), std::ios::binary);
    if (!in) qFatal("cannot open %s", data(name).c_str());
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<float> read_floats(const std::string& name) {
    const std::vector<uint8_t> bytes = read_bytes(name);
    std::vector<float> out(bytes.size() / 4);
    std::memcpy(out.data(), bytes.data(), out.size() * 4);
    return out;
}

// Whether `value` is exactly what the generator spelled out in `expected`.
bool matches(const GgufValue& value, const QJsonObject& expected, QString& why) {
    const std::string type = expected["type"].toString().toStdString();
    const std::string found(gguf_value_type_name(gguf_value_type(value)));
    if (type != found) {
        why = QString("type %1, expected %2").arg(found.c_str(), type.c_str());
        return false;
    }
    const std::string text = expected["value"].toString().toStdString();
    bool ok = std::visit(
        [&](const auto& v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, GgufArray>) {
                const QJsonArray values = expected["values"].toArray();
                const std::string element = expected["element_type"].toString().toStdString();
                const std::vector<GgufValue> elements = v.values();
                if (gguf_value_type_name(GgufValueType(v.element_type())) != element ||
                    elements.size() != size_t(values.size()) || v.size() != elements.size())
                    return false;
                for (size_t i = 0; i < elements.size(); ++i)
                    if (!matches(elements[i], values[qsizetype(i)].toObject(), why)) return false;
                return true;
            } else if constexpr (std::is_same_v<T, std::string>) {
                return v == text;
            } else if constexpr (std::is_same_v<T, bool>) {
                return v == expected["value"].toBool();
            } else if constexpr (std::is_floating_point_v<T>) {
                return double(v) == std::strtod(text.c_str(), nullptr);  // hex float: exact
            } else if constexpr (std::is_signed_v<T>) {
                return int64_t(v) == std::stoll(text);
            } else {
                return uint64_t(v) == std::stoull(text);
            }
        },
        value);
    if (!ok && why.isEmpty()) why = QString("value differs from %1").arg(text.c_str());
    return ok;
}

// The expected entries, in order, followed by `extra` entries the caller checks itself.
void check_metadata(const GgufFile& file, size_t extra = 0) {
    const QJsonArray expected = read_json("metadata_expected.json").array();
    QCOMPARE(file.metadata().size(), size_t(expected.size()) + extra);
    for (qsizetype i = 0; i < expected.size(); ++i) {
        const QJsonObject e = expected[i].toObject();
        const std::string key = e["key"].toString().toStdString();
        QCOMPARE(file.metadata()[size_t(i)].first, key);  // file order is kept
        const GgufValue* value = file.find(key);
        QVERIFY2(value, key.c_str());
        QString why;
        QVERIFY2(matches(*value, e, why), (key + ": " + why.toStdString()).c_str());
    }
}

template <typename Fn>
ModelError expect_error(Fn&& fn, ModelErrorKind kind) {
    try {
        fn();
    } catch (const ModelError& e) {
        if (e.kind() != kind) qFatal("expected %s, got: %s", model_error_kind_name(kind), e.what());
        return e;
    }
    qFatal("expected %s, nothing was thrown", model_error_kind_name(kind));
}

}  // namespace

class TestGgufReader : public QObject {
    Q_OBJECT

private slots:
    void metadata_of_every_type() {
        const GgufFile file(map_file(data("metadata.gguf")));
        QCOMPARE(file.version(), 3u);
        QCOMPARE(file.alignment(), uint64_t(32));
        QVERIFY(file.tensors().empty());
        check_metadata(file);
    }

    void version_2_reads_like_3() {
        const GgufFile file(map_file(data("metadata_v2.gguf")));
        QCOMPARE(file.version(), 2u);
        check_metadata(file);
    }

    void version_1_is_unsupported() {
        const ModelError e = expect_error([] { GgufFile(map_file(data("metadata_v1.gguf"))); },
                                          ModelErrorKind::UnsupportedVersion);
        QCOMPARE(e.offset(), std::optional<uint64_t>(4));
        QCOMPARE(e.file(), data("metadata_v1.gguf"));
    }

    void typed_getters_convert_and_reject() {
        const GgufFile f(map_file(data("metadata.gguf")));
        QCOMPARE(f.get_u32("test.uint8"), 200u);
        QCOMPARE(f.get_u32("test.uint16"), 60000u);
        QCOMPARE(f.get_u32("test.uint32"), 4000000000u);
        QCOMPARE(f.get_u64("test.uint64"), (uint64_t(1) << 63) + 5);
        QCOMPARE(f.get_i64("test.int8"), int64_t(-100));
        QCOMPARE(f.get_i64("test.int64"), -(int64_t(1) << 62) - 3);
        QCOMPARE(f.get_f32("test.array_float64_absent", 2.0f), 2.0f);
        QCOMPARE(f.get_f32("test.float32"), 3.1415927f);
        QCOMPARE(f.get_bool("test.bool"), true);
        QCOMPARE(f.get_string("general.name"), std::string("metadata test"));
        QCOMPARE(f.get_array("test.array_int32").size(), uint64_t(4));
        QCOMPARE(f.get_u32("test.absent", 7u), 7u);
        QCOMPARE(f.get_f32("test.absent", 0.5f), 0.5f);
        QCOMPARE(f.get_bool("test.absent", false), false);

        const auto bad = [&](auto fn, const char* key) {
            const ModelError e = expect_error(fn, ModelErrorKind::BadMetadata);
            QVERIFY2(e.detail().find(key) != std::string::npos, e.what());
            QVERIFY(e.offset().has_value());
        };
        bad([&] { (void)f.get_u32("test.int8"); }, "test.int8");      // negative
        bad([&] { (void)f.get_u32("test.uint64"); }, "test.uint64");  // out of range
        bad([&] { (void)f.get_i64("test.uint64"); }, "test.uint64");  // out of range
        bad([&] { (void)f.get_u32("test.bool"); }, "test.bool");      // a bool is no integer
        bad([&] { (void)f.get_string("test.uint8"); }, "test.uint8");
        bad([&] { (void)f.get_f32("test.int32"); }, "test.int32");
        bad([&] { (void)f.get_f32("test.float64"); }, "test.float64");  // -1.5e300 overflows
        bad([&] { (void)f.get_array("test.string"); }, "test.string");
        bad([&] { (void)f.get_u32("test.int8", 3u); }, "test.int8");  // present, still checked
        const ModelError missing =
            expect_error([&] { (void)f.get_u32("test.absent"); }, ModelErrorKind::MissingMetadata);
        QVERIFY(missing.detail().find("test.absent") != std::string::npos);
    }

    void tensors_of_every_type() {
        const GgufFile file(map_file(data("tensors.gguf")));
        QCOMPARE(file.data_offset() % 32, uint64_t(0));
        const QJsonArray expected = read_json("tensors_expected.json").array();
        QCOMPARE(file.tensors().size(), size_t(expected.size()));
        for (const QJsonValue& v : expected) {
            const QJsonObject e = v.toObject();
            const std::string name = e["name"].toString().toStdString();
            const GgufTensorInfo* t = file.find_tensor(name);
            QVERIFY2(t, name.c_str());
            QCOMPARE(uint32_t(t->type), uint32_t(e["type"].toInt()));
            std::vector<uint64_t> shape;
            for (const QJsonValue& ne : e["shape_ne"].toArray())
                shape.push_back(uint64_t(ne.toInt()));
            QCOMPARE(t->shape, shape);
            QCOMPARE(t->offset % 32, uint64_t(0));

            const std::span<const uint8_t> stored = file.tensor_bytes(*t);
            const std::vector<uint8_t> raw = read_bytes(name + ".raw.bin");
            QCOMPARE(stored.size(), raw.size());
            QVERIFY2(std::memcmp(stored.data(), raw.data(), raw.size()) == 0, name.c_str());

            const std::vector<float> reference = read_floats(name + ".f32.bin");
            QCOMPARE(uint64_t(reference.size()), t->n_elements());
            // Read as the engine reads weights: a [rows][ne0] WeightTensor over the stored bytes.
            WeightTensor w;
            w.dtype = dtype_of(t->type);
            w.cols = int64_t(t->shape[0]);
            w.rows = int64_t(t->n_elements()) / w.cols;
            w.data = stored.data();
            QCOMPARE(w.bytes(), stored.size());
            std::vector<float> out(reference.size());
            for (int64_t r = 0; r < w.rows; ++r) weight_row_to_float(w, r, out.data() + r * w.cols);
            for (size_t i = 0; i < out.size(); ++i) {  // bitwise: -0.0 and subnormals included
                if (std::memcmp(&out[i], &reference[i], 4) != 0)
                    QFAIL(qPrintable(QString("%1 element %2: %3, gguf says %4")
                                         .arg(name.c_str())
                                         .arg(i)
                                         .arg(double(out[i]), 0, 'g', 9)
                                         .arg(double(reference[i]), 0, 'g', 9)));
            }
        }
        QVERIFY(file.find_tensor("t_absent") == nullptr);
    }

    void writer_matches_python_bytes() {
        // Same metadata and tensors, same order: the writers must agree byte for byte.
        const GgufFile python(map_file(data("tensors.gguf")));
        GgufWriter writer;
        for (const auto& [key, value] : python.metadata()) writer.add(key, value);
        for (const GgufTensorInfo& t : python.tensors()) {
            const std::span<const uint8_t> bytes = python.tensor_bytes(t);
            writer.add_tensor(t.name, t.type, t.shape, {bytes.begin(), bytes.end()});
        }
        const std::vector<uint8_t> ours = writer.to_bytes();
        const std::vector<uint8_t> theirs = read_bytes("tensors.gguf");
        QCOMPARE(ours.size(), theirs.size());
        QVERIFY(ours == theirs);
    }

    void writer_round_trip_of_every_value_type() {
        const GgufFile python(map_file(data("metadata.gguf")));
        GgufWriter writer;
        for (const auto& [key, value] : python.metadata()) writer.add(key, value);
        const GgufArray empty{uint32_t(GgufValueType::Float64), {}};
        writer.add("test.empty_array", empty);
        const std::vector<uint8_t> q6k = read_bytes("t_Q6_K.raw.bin");
        writer.add_tensor("odd", GgufType::F16, {3}, {1, 2, 3, 4, 5, 6});  // needs padding
        writer.add_tensor("q6k", GgufType::Q6_K, {512, 3}, q6k);
        const std::string path = data("writer_round_trip.gguf");
        writer.write_file(path);

        const GgufFile back(map_file(path));
        QCOMPARE(back.version(), 3u);
        check_metadata(back, 1);
        const GgufArray& read_empty = back.get_array("test.empty_array");
        QCOMPARE(read_empty.element_type(), uint32_t(GgufValueType::Float64));
        QVERIFY(read_empty.empty());
        const GgufTensorInfo* t = back.find_tensor("q6k");
        QVERIFY(t);
        QCOMPARE(t->type, GgufType::Q6_K);
        QCOMPARE(t->offset, uint64_t(32));  // after the 6 bytes of "odd", padded to 32
        const std::span<const uint8_t> bytes = back.tensor_bytes(*t);
        QVERIFY(std::vector<uint8_t>(bytes.begin(), bytes.end()) == q6k);
    }

    void writer_rejects_inconsistent_input() {
        GgufWriter writer;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 writer.add_tensor("x", GgufType::Q8_0, {32, 2}, {1, 2, 3}));
        writer.add("mixed", GgufArray{uint32_t(GgufValueType::Int32), {int32_t(1), 2.0f}});
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, (void)writer.to_bytes());
    }

    void absurd_counts_do_not_allocate() {
        // A tensor count of 2^62 in an otherwise empty file: nothing is reserved for them and
        // the first missing tensor info is reported right after the 24-byte header.
        GgufWriter writer;
        std::vector<uint8_t> bytes = writer.to_bytes();
        bytes.resize(24);  // drop the padding to the data section
        const uint64_t absurd = uint64_t(1) << 62;
        std::memcpy(bytes.data() + 8, &absurd, 8);
        const ModelError e = expect_error([&] { GgufFile(bytes_in_memory(bytes, "absurd")); },
                                          ModelErrorKind::Truncated);
        QCOMPARE(e.offset(), std::optional<uint64_t>(24));
        QVERIFY2(e.detail().find("tensor info 0") != std::string::npos, e.what());
        QCOMPARE(e.file(), std::string("absurd"));

        // An array claiming 2^60 strings.
        GgufWriter one;
        one.add("k", GgufArray{uint32_t(GgufValueType::String), {std::string("x")}});
        std::vector<uint8_t> arr = one.to_bytes();
        const size_t count_at = 24 + 8 + 1 + 4 + 4;  // header, key "k", value type, element type
        const uint64_t huge = uint64_t(1) << 60;
        std::memcpy(arr.data() + count_at, &huge, 8);
        const ModelError a =
            expect_error([&] { GgufFile(bytes_in_memory(arr, "arr")); }, ModelErrorKind::Truncated);
        QCOMPARE(a.offset(), std::optional<uint64_t>(count_at));
    }

    void every_truncation_is_a_typed_error() {
        // Cutting a valid file anywhere must give Truncated or TensorDataPastEnd, never a crash.
        const std::vector<uint8_t> whole = read_bytes("tensors.gguf");
        const GgufFile full(bytes_in_memory(whole, "whole"));
        uint64_t data_end = 0;  // past it only padding follows, which a reader may do without
        for (const GgufTensorInfo& t : full.tensors())
            data_end = std::max(data_end, full.data_offset() + t.offset + t.n_bytes());
        for (size_t cut = 0; cut < data_end; cut += (cut < full.data_offset() ? 1 : 97)) {
            std::vector<uint8_t> part(whole.begin(), whole.begin() + std::ptrdiff_t(cut));
            try {
                GgufFile f(bytes_in_memory(std::move(part), "cut"));
                QFAIL(qPrintable(QString("cut at %1 was accepted").arg(cut)));
            } catch (const ModelError& e) {
                const bool expected = e.kind() == ModelErrorKind::Truncated ||
                                      e.kind() == ModelErrorKind::TensorDataPastEnd;
                QVERIFY2(expected, e.what());
                QVERIFY2(e.offset().has_value(), e.what());
                if (e.kind() == ModelErrorKind::Truncated) QVERIFY(*e.offset() <= cut);
            }
        }
    }
};

QTEST_APPLESS_MAIN(TestGgufReader)
#include "test_gguf_reader.moc"
