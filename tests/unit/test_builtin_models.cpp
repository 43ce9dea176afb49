// builtin:NAME lookup: the override folder comes first, the source tree's resources/models is the
// fallback a fresh clone's build relies on, and an unknown name is a typed error naming the
// known ones.
#include <QtTest>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/model/builtin_models.h"
#include "core/model/model_error.h"
#include "core/model/model_loader.h"

using namespace kvw;

class TestBuiltinModels : public QObject {
    Q_OBJECT

private slots:
    void the_default_spec_is_the_first_builtin() {
        QCOMPARE(std::string(kDefaultModelSpec),
                 "builtin:" + std::string(builtin_models()[0].name));
    }

    void the_override_folder_is_searched_first() {
        QTemporaryDir dir;
        const std::filesystem::path file =
            std::filesystem::path(dir.path().toStdString()) / builtin_models()[0].file;
        std::ofstream(file) << "not read: only found";
        qputenv("KVW_MODELS_DIR", dir.path().toUtf8());
        QCOMPARE(builtin_model_dirs().front(), file.parent_path());
        QCOMPARE(find_builtin_model(builtin_models()[0].name), file);
        qunsetenv("KVW_MODELS_DIR");
        QVERIFY(builtin_model_dirs().front() != file.parent_path());
    }

    // Without an override, a build from the source tree finds the committed file.
    void the_source_tree_has_the_default() {
        qunsetenv("KVW_MODELS_DIR");
        const std::filesystem::path found = find_builtin_model("default");
        QVERIFY(std::filesystem::is_regular_file(found));
        QCOMPARE(found.parent_path().filename().string(), std::string("models"));
    }

    void an_unknown_name_lists_the_known_ones() {
        try {
            load_model("builtin:nonesuch");
            QFAIL("loaded builtin:nonesuch");
        } catch (const ModelError& e) {
            QCOMPARE(e.kind(), ModelErrorKind::CannotOpen);
            QVERIFY(std::string(e.what()).find("builtin:default") != std::string::npos);
        }
    }
};

QTEST_APPLESS_MAIN(TestBuiltinModels)
#include "test_builtin_models.moc"
