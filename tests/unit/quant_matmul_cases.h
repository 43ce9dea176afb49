#pragma once
// The weights of every storage type that the matmul kernel tests multiply (written and
// dequantised by the `gguf` package, tests/data/make_quant_matmul.py), token inputs from a fixed
// LCG, and the float64 measure of a product's error. Used by test_quant_matmul (the reference
// kernels) and test_fast_kernels (the fast set).
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtGlobal>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "core/model/weights.h"
#include "tests/testdata.h"

namespace kvw::test {

inline std::string data(const std::string& name) { return testdata_path("quant_matmul/" + name); }

inline std::vector<uint8_t> read_bytes(const std::string& name) {
    std::ifstream in(data(name), std::ios::binary);
    if (!in) qFatal("cannot open %s", data(name).c_str());
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct Case {
    std::string name;
    std::shared_ptr<std::vector<uint8_t>> stored;  // 64-byte aligned copy of the raw bytes
    std::vector<float> reference;                  // gguf's dequantisation, [rows][cols]
    WeightTensor w;
};

inline std::vector<Case> load_cases() {
    QFile file(QString::fromStdString(data("cases.json")));
    if (!file.open(QIODevice::ReadOnly)) qFatal("cannot open %s", data("cases.json").c_str());
    std::vector<Case> cases;
    for (const QJsonValue& v : QJsonDocument::fromJson(file.readAll()).array()) {
        const QJsonObject o = v.toObject();
        Case c;
        c.name = o["name"].toString().toStdString();
        const std::vector<uint8_t> raw = read_bytes(c.name + ".raw.bin");
        c.stored = std::make_shared<std::vector<uint8_t>>(raw);
        const std::vector<uint8_t> f32 = read_bytes(c.name + ".f32.bin");
        c.reference.resize(f32.size() / 4);
        std::memcpy(c.reference.data(), f32.data(), f32.size());
        c.w.name = c.name;
        for (const DType d : kAllDTypes)
            if (dtype_name(d) == o["dtype"].toString().toStdString()) c.w.dtype = d;
        c.w.rows = o["rows"].toInt();
        c.w.cols = o["cols"].toInt();
        c.w.data = c.stored->data();
        c.w.owner = c.stored;
        if (c.w.bytes() != raw.size() || c.reference.size() != size_t(c.w.rows * c.w.cols))
            qFatal("%s: sizes do not match its type and shape", c.name.c_str());
        cases.push_back(std::move(c));
    }
    for (const DType d : kAllDTypes)
        if (std::none_of(cases.begin(), cases.end(), [d](const Case& c) { return c.w.dtype == d; }))
            qFatal("no case of storage type %s", std::string(dtype_name(d)).c_str());
    return cases;
}

// n token vectors of `cols` values in [-1, 1), from a fixed LCG (not the code under test).
inline std::vector<float> inputs(int n, int64_t cols, uint32_t seed) {
    std::vector<float> x(size_t(n * cols));
    for (float& v : x) {
        seed = seed * 1664525u + 1013904223u;
        v = float(seed >> 8) / float(1u << 23) - 1.0f;
    }
    return x;
}

// The largest |y - Σ w·x| over every output, relative to Σ |w·x| of that output (the scale
// float32 rounding errors grow with), in float64 from the reference weights. X: float or double.
template <class X>
double worst_relative_error(const Case& c, const std::vector<X>& x, int n,
                            const std::vector<float>& y) {
    double worst = 0.0;
    for (int t = 0; t < n; ++t)
        for (int64_t r = 0; r < c.w.rows; ++r) {
            double sum = 0.0, magnitude = 0.0;
            for (int64_t k = 0; k < c.w.cols; ++k) {
                const double p = double(c.reference[size_t(r * c.w.cols + k)]) *
                                 double(x[size_t(t * c.w.cols + k)]);
                sum += p;
                magnitude += std::fabs(p);
            }
            const double err = std::fabs(double(y[size_t(t * c.w.rows + r)]) - sum);
            worst = std::max(worst, magnitude > 0 ? err / magnitude : err);
        }
    return worst;
}

}  // namespace kvw::test
