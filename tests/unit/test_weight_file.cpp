// How weight files reach memory (core/model/mapped_file.h): read into huge pages, the bytes are
// the file's, 2 MiB aligned, and a file that cannot be read says which and why; the choice
// between reading and mapping follows the memory available; a model loaded either way has the
// same weights.
#include <QtTest>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/model/gguf_model_loader.h"
#include "core/model/model_error.h"
#include "core/model/weight_file.h"
#include "core/model/weights.h"
#include "tests/testdata.h"

using namespace kvw;

namespace {

std::string data(const std::string& name) { return test::testdata_path("gguf/" + name); }

std::vector<uint8_t> read_with_ifstream(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

class TestWeightFile : public QObject {
    Q_OBJECT

private slots:
    void huge_page_copy_holds_the_file_bytes_at_a_huge_page_boundary() {
        for (const char* name : {"tiny_f32.gguf", "tiny_q8_tied.gguf"}) {
            const std::vector<uint8_t> expected = read_with_ifstream(data(name));
            QVERIFY(!expected.empty());
            const auto source = read_into_huge_pages(data(name));
            QCOMPARE(source->name(), data(name));
            const std::span<const uint8_t> bytes = source->bytes();
            QCOMPARE(bytes.size(), expected.size());
            QVERIFY(std::memcmp(bytes.data(), expected.data(), expected.size()) == 0);
            QCOMPARE(reinterpret_cast<uintptr_t>(bytes.data()) % (uintptr_t(2) << 20),
                     uintptr_t(0));
        }
    }

    void an_empty_file_reads_as_no_bytes() {
        const std::string path = QDir::temp().filePath("kvw_empty_weights.gguf").toStdString();
        { std::ofstream(path, std::ios::binary | std::ios::trunc); }
        QCOMPARE(read_into_huge_pages(path)->bytes().size(), size_t(0));
        std::filesystem::remove(path);
    }

    void unreadable_files_name_themselves_and_the_reason() {
        const std::string missing = data("no_such_file.gguf");
        try {
            read_into_huge_pages(missing);
            QFAIL("a missing file was read");
        } catch (const ModelError& e) {
            QCOMPARE(e.kind(), ModelErrorKind::CannotOpen);
            QVERIFY(std::string(e.what()).find(missing) != std::string::npos);
        }
        const std::string folder = test::testdata_path("gguf");
        try {
            read_into_huge_pages(folder);
            QFAIL("a folder was read");
        } catch (const ModelError& e) {
            QCOMPARE(e.kind(), ModelErrorKind::CannotOpen);
            QVERIFY(std::string(e.what()).find("not a regular file") != std::string::npos);
        }
        QVERIFY_THROWS_EXCEPTION(ModelError, open_weight_file(missing));
    }

    // Read when the file takes at most half of what is available; mapped when larger, or when
    // the available memory is unknown (0).
    void files_up_to_half_the_available_memory_are_read() {
        constexpr uint64_t GiB = uint64_t(1) << 30;
        QVERIFY(read_weights_into_memory(GiB, 4 * GiB));
        QVERIFY(read_weights_into_memory(2 * GiB, 4 * GiB));
        QVERIFY(!read_weights_into_memory(2 * GiB + 1, 4 * GiB));
        QVERIFY(!read_weights_into_memory(14 * GiB, 24 * GiB));
        QVERIFY(!read_weights_into_memory(1, 0));
    }

    void a_model_read_into_huge_pages_has_the_mapped_models_weights() {
        const auto read = load_gguf_model(read_into_huge_pages(data("tiny_q8_tied.gguf")));
        const auto mapped = load_gguf_model(map_file(data("tiny_q8_tied.gguf")));
        QCOMPARE(read->weights.total_bytes(), mapped->weights.total_bytes());
        const WeightTensor& a = read->weights.layers[0].wq;
        const WeightTensor& b = mapped->weights.layers[0].wq;
        QCOMPARE(int(a.dtype), int(b.dtype));
        QVERIFY(std::memcmp(a.row_ptr(0), b.row_ptr(0), a.row_bytes() * size_t(a.rows)) == 0);
        QVERIFY(a.row_ptr(0) != b.row_ptr(0));
    }
};

QTEST_GUILESS_MAIN(TestWeightFile)
#include "test_weight_file.moc"
