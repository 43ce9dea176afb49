// StreamHash is XXH64 with seed 0: every digest equals the Python xxhash package's
// (tests/data/make_stream_hash.py) for lengths that take every path of the algorithm, whether
// the bytes come in one piece, byte by byte or in random cuts.
#include <QtTest>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include "core/state/stream_hash.h"
#include "tests/testdata.h"

using namespace kvw;

namespace {

struct Case {
    size_t offset = 0;
    size_t length = 0;
    uint64_t digest = 0;
};

std::vector<Case> read_cases() {
    std::ifstream f(test::testdata_path("stream_hash/cases.txt"));
    std::vector<Case> cases;
    std::string line;
    while (std::getline(f, line)) {
        std::istringstream in(line);
        Case c;
        std::string hex;
        in >> c.offset >> c.length >> hex;
        c.digest = std::stoull(hex, nullptr, 16);
        cases.push_back(c);
    }
    return cases;
}

std::vector<unsigned char> read_input() {
    std::ifstream f(test::testdata_path("stream_hash/input.bin"), std::ios::binary);
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

}  // namespace

class TestStreamHash : public QObject {
    Q_OBJECT
private slots:
    void digests_equal_python_xxhash_however_the_bytes_are_cut() {
        const std::vector<Case> cases = read_cases();
        const std::vector<unsigned char> input = read_input();
        QVERIFY(cases.size() > 80);
        std::mt19937 rng(7);
        for (const Case& c : cases) {
            QVERIFY(c.offset + c.length <= input.size());
            const unsigned char* bytes = input.data() + c.offset;
            const QString what = QString("length %1").arg(c.length);

            StreamHash whole;
            whole.bytes(nullptr, 0);  // an empty vector's data(): nothing to hash
            whole.bytes(bytes, c.length);
            QVERIFY2(whole.digest() == c.digest, qPrintable(what + ", one piece"));

            StreamHash single;
            for (size_t i = 0; i < c.length; ++i) single.value(bytes[i]);
            QVERIFY2(single.digest() == c.digest, qPrintable(what + ", byte by byte"));

            StreamHash cut;
            for (size_t i = 0; i < c.length;) {
                const size_t n = std::min(c.length - i, size_t(rng() % 41));
                cut.bytes(bytes + i, n);
                i += n;
            }
            QVERIFY2(cut.digest() == c.digest, qPrintable(what + ", random cuts"));

            // value<T>() of 1, 2, 4 and 8 bytes (its inline path), mixed with bytes().
            StreamHash values;
            for (size_t i = 0; i < c.length;) {
                const size_t n = std::min(c.length - i, size_t(1) << (rng() % 5));
                uint8_t b1;
                uint16_t b2;
                uint32_t b4;
                uint64_t b8;
                if (n == 1) values.value((std::memcpy(&b1, bytes + i, 1), b1));
                if (n == 2) values.value((std::memcpy(&b2, bytes + i, 2), b2));
                if (n == 4) values.value((std::memcpy(&b4, bytes + i, 4), b4));
                if (n == 8) values.value((std::memcpy(&b8, bytes + i, 8), b8));
                if (n != 1 && n != 2 && n != 4 && n != 8) values.bytes(bytes + i, n);
                i += n;
            }
            QVERIFY2(values.digest() == c.digest, qPrintable(what + ", values"));
        }
    }
};

QTEST_GUILESS_MAIN(TestStreamHash)
#include "test_stream_hash.moc"
