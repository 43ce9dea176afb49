#pragma once
// What test_gate and test_gist_net share about sidecar files (tests/data/sidecar_writer.py):
// reading the writer's JSON, and the check that every bad_NAME sidecar it made is refused.
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>
#include <string>

#include "core/model/model_error.h"
#include "tests/testdata.h"

namespace kvw::test {

inline QJsonObject read_json_object(const std::string& path) {
    QFile file(QString::fromStdString(path));
    if (!file.open(QIODevice::ReadOnly)) qFatal("cannot open %s", path.c_str());
    return QJsonDocument::fromJson(file.readAll()).object();
}

// Every DIR/bad_NAME SUFFIX listed in DIR/bad_expected.json (at least `at_least` of them) must
// make `read` throw a ModelError that starts with the expected kind and names the tensor or key
// and the file.
template <typename Read>
void expect_bad_sidecars_refused(const std::string& dir, const std::string& suffix, int at_least,
                                 Read read) {
    const QJsonObject expected = read_json_object(testdata_path(dir + "/bad_expected.json"));
    QVERIFY(expected.size() >= at_least);
    for (const QString& name : expected.keys()) {
        const std::string file = testdata_path(dir + "/bad_" + name.toStdString() + suffix);
        const QJsonObject e = expected[name].toObject();
        try {
            read(file);
            QFAIL(qPrintable("accepted bad_" + name));
        } catch (const ModelError& error) {
            const QString what = error.what();
            QVERIFY2(what.startsWith(e["kind"].toString()), qPrintable(name + ": " + what));
            QVERIFY2(what.contains(e["where"].toString()), qPrintable(name + ": " + what));
            QVERIFY2(what.contains(QString::fromStdString(file)), qPrintable(what));
        }
    }
}

}  // namespace kvw::test
