// Parsing allocates in proportion to what a file holds, measured by counting operator new.
// GGUF metadata arrays stay in the file's bytes until read: parsing a file with a 4 MiB uint8
// array allocates almost nothing (decoded up front, each element cost a ~40-byte GgufValue:
// 64 MiB arrays took 2.7 GB), and the view still decodes every element and writes back the
// same bytes. A tokenizer.json id of 16 million no longer allocates 16 million slots.
#include <QtTest>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "core/model/gguf_file.h"
#include "core/model/gguf_writer.h"
#include "core/model/hf_tokenizer_json.h"
#include "core/model/mapped_file.h"
#include "core/model/model_error.h"

// Every byte this test program allocates with operator new, so that a parse can be measured
// exactly rather than through the process's resident size.
static std::atomic<uint64_t> g_allocated{0};

void* operator new(std::size_t n) {
    g_allocated += n;
    if (void* p = std::malloc(n ? n : 1)) return p;
    throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

using namespace kvw;

namespace {

constexpr uint64_t kElements = uint64_t(4) << 20;

uint8_t element(uint64_t i) { return uint8_t(i % 251); }

template <typename T>
void put(std::vector<uint8_t>& out, T v) {
    const size_t at = out.size();
    out.resize(at + sizeof v);
    std::memcpy(out.data() + at, &v, sizeof v);
}

// A GGUF v3 file spelled out by hand: no tensors, one metadata entry "test.big", a uint8
// array of kElements, then "test.after" = uint32 7 to show the reader found the array's end.
std::vector<uint8_t> file_with_big_array() {
    std::vector<uint8_t> out;
    put(out, uint32_t(0x46554747));  // "GGUF"
    put(out, uint32_t(3));
    put(out, uint64_t(0));  // tensors
    put(out, uint64_t(2));  // metadata entries
    const std::string key = "test.big";
    put(out, uint64_t(key.size()));
    out.insert(out.end(), key.begin(), key.end());
    put(out, uint32_t(9));  // array
    put(out, uint32_t(0));  // of uint8
    put(out, kElements);
    for (uint64_t i = 0; i < kElements; ++i) out.push_back(element(i));
    const std::string after = "test.after";
    put(out, uint64_t(after.size()));
    out.insert(out.end(), after.begin(), after.end());
    put(out, uint32_t(4));  // uint32
    put(out, uint32_t(7));
    return out;
}

}  // namespace

class TestParseAllocations : public QObject {
    Q_OBJECT

private slots:
    void parsing_does_not_decode_arrays() {
        const auto source = bytes_in_memory(file_with_big_array(), "big.gguf");
        const uint64_t before = g_allocated;
        const GgufFile file(source);
        const uint64_t allocated = g_allocated - before;
        // Keys, index maps and the view itself: a few kilobytes, independent of the array.
        QVERIFY2(allocated < 64 * 1024, qPrintable(QString("%1 bytes").arg(allocated)));
        QCOMPARE(file.get_u32("test.after"), 7u);
        QCOMPARE(file.get_array("test.big").size(), kElements);
    }

    void the_view_decodes_every_element() {
        const GgufFile file(bytes_in_memory(file_with_big_array(), "big.gguf"));
        const GgufArray& big = file.get_array("test.big");
        QCOMPARE(big.element_type(), uint32_t(GgufValueType::UInt8));
        uint64_t i = 0;
        bool all_equal = true;
        big.for_each([&](const GgufValue& v) {
            const uint8_t* x = std::get_if<uint8_t>(&v);
            all_equal = all_equal && x && *x == element(i);
            ++i;
        });
        QCOMPARE(i, kElements);
        QVERIFY(all_equal);
    }

    void the_view_writes_back_unchanged() {
        const std::vector<uint8_t> original = file_with_big_array();
        const GgufFile file(bytes_in_memory(original, "big.gguf"));
        GgufWriter writer;
        for (const auto& [key, value] : file.metadata()) writer.add(key, value);
        const std::vector<uint8_t> written = writer.to_bytes();
        // The writer pads the (empty) data section to 32 bytes; everything before is the same.
        QVERIFY(written.size() >= original.size());
        QVERIFY(std::equal(original.begin(), original.end(), written.begin()));
    }

    void tokenizer_ids_are_not_slots() {
        const std::string text = R"({"model": {"type": "BPE", "vocab": {"<s>": 0, "</s>": 1,
            "x": 16000000}}})";
        const uint64_t before = g_allocated;
        try {
            parse_hf_tokenizer_json(text, "tokenizer.json");
            QFAIL("a vocabulary with a gap was accepted");
        } catch (const ModelError& e) {
            QCOMPARE(e.kind(), ModelErrorKind::BadTokenizer);
            QVERIFY2(std::string(e.detail()).find("no piece has id 2") != std::string::npos,
                     e.what());
        }
        const uint64_t allocated = g_allocated - before;
        QVERIFY2(allocated < 1024 * 1024, qPrintable(QString("%1 bytes").arg(allocated)));
    }
};

QTEST_APPLESS_MAIN(TestParseAllocations)
#include "test_parse_allocations.moc"
